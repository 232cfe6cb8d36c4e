"""The dice players can verify: commitment, derivation, no bias, verification."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from service.domain import dice

SEED = "00" * 31 + "01"
GAME = "7214f666-c5fd-434e-8b15-e201d36613bc"


def test_commitment_is_sha256_of_the_seed_bytes() -> None:
    assert dice.commitment(SEED) == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()


def test_a_roll_is_a_pure_function_of_seed_game_index_entropy_and_die() -> None:
    first = dice.derive_roll(SEED, GAME, 7, "e", 6)
    assert first == dice.derive_roll(SEED, GAME, 7, "e", 6)
    varied = {dice.derive_roll(SEED, GAME, i, "e", 6) for i in range(40)}
    assert varied == {1, 2, 3, 4, 5, 6}


def test_entropy_changes_the_rolls() -> None:
    a = [dice.derive_roll(SEED, GAME, i, dice.entropy_digest([]), 10) for i in range(30)]
    b = [dice.derive_roll(SEED, GAME, i, dice.entropy_digest(["red:xyzzy"]), 10) for i in range(30)]
    assert a != b


def test_entropy_digest_depends_on_order_and_boundaries() -> None:
    assert dice.entropy_digest(["a", "b"]) != dice.entropy_digest(["b", "a"])
    assert dice.entropy_digest(["ab", "c"]) != dice.entropy_digest(["a", "bc"])


@pytest.mark.parametrize("sides", [6, 10, 8])
def test_faces_are_uniform(sides: int) -> None:
    counts = Counter(dice.derive_roll(SEED, GAME, i, "", sides) for i in range(6000))
    assert set(counts) == set(range(1, sides + 1))
    expected = 6000 / sides
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert (
        chi2 < 30
    )  # far below any bias a 2^32 modulo could cause; a biased mapping fails at this size


def test_rejection_sampling_rejects_the_biased_tail(monkeypatch: pytest.MonkeyPatch) -> None:
    """A word at or above the largest multiple of the die is rejected, never folded onto low faces."""
    words = [(2**32 - 1).to_bytes(4, "big")] * 3 + [(5).to_bytes(4, "big")] * 5

    monkeypatch.setattr(dice.hmac, "digest", lambda *a, **k: b"".join(words))
    assert dice.derive_roll(SEED, GAME, 0, "", 6) == 5 % 6 + 1


def test_a_die_has_two_sides_at_least() -> None:
    with pytest.raises(ValueError):
        dice.derive_roll(SEED, GAME, 0, "", 1)


def test_verify_accepts_honest_rolls_and_names_each_mismatch() -> None:
    entropy = dice.entropy_digest(["red:abc"])
    rolls = [
        dice.RecordedRoll(i, 6, dice.derive_roll(SEED, GAME, i, entropy, 6), entropy)
        for i in range(5)
    ]
    assert dice.verify(SEED, dice.commitment(SEED), GAME, rolls).ok
    forged = list(rolls)
    forged[3] = dice.RecordedRoll(3, 6, rolls[3].value % 6 + 1, entropy)
    report = dice.verify(SEED, dice.commitment(SEED), GAME, forged)
    assert not report.ok
    assert [c.index for c in report.checks if not c.ok] == [3]


def test_verify_rejects_a_seed_that_does_not_match_the_commitment() -> None:
    other = "00" * 31 + "02"
    assert not dice.verify(other, dice.commitment(SEED), GAME, []).ok


def test_verify_flags_a_reused_index() -> None:
    roll = dice.RecordedRoll(0, 6, dice.derive_roll(SEED, GAME, 0, "", 6), "")
    report = dice.verify(SEED, dice.commitment(SEED), GAME, [roll, roll])
    assert report.reused_indexes == (0,)
    assert not report.ok
