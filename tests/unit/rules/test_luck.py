"""Luck measured from the dice (issue 31): hand-worked examples on the rulebooks' CRTs, and the
property that luck averages to zero."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.dice import derive_roll
from service.rules.backbone import crt as backbone_crt
from service.rules.backbone import luck as backbone_luck
from service.rules.barcelona import luck as barcelona_luck
from service.rules.base import RulesEvent
from service.rules.bizkaya import luck as bizkaya_luck
from service.rules.bizkaya import tables as bizkaya_tables
from service.rules.luck import EXACT_ROLLS, RollValue, convolve, p_at_least, side_figure
from service.rules.merida import data as merida_data
from service.rules.merida import luck as merida_luck


def merida_attack(column: str, die: int, modifiers: list[int]) -> RulesEvent:
    return RulesEvent(
        "CombatResolved",
        {
            "side": "republican",
            "hex": "H10",
            "column": column,
            "modifiers": [{"cause": "x", "value": v, "rule": "8"} for v in modifiers],
            "die": {"index": 7, "sides": 6, "value": die, "purpose": "combat"},
            "result": "?",
        },
    )


def test_merida_two_to_one_rolling_six() -> None:
    """Closing the Merida Pocket, rule 8 and the Combat Results chart, the 2-1 column read down rolls
    1 to 6: "AR AR EX DR DR D1" ("D1: Defending units lose 1 unit. The rest retreat 1 hex";
    "EX: Exchange; Both sides lose 1 unit"; AR and DR lose none).  Measured for the attacker as
    enemy units lost minus own: 0, 0, 0, 0, 0, 1 -- expected 1/6; a 6 produced D1, worth 1: the
    attacker's dice were 5/6 of a unit luckier than average."""
    assert [merida_data.crt_result("2-1", r) for r in range(1, 7)] == [
        "AR",
        "AR",
        "EX",
        "DR",
        "DR",
        "D1",
    ]
    [roll] = merida_luck.roll_values(merida_attack("2-1", 6, []))
    assert roll.side == "republican"
    assert roll.unit == "units of losses"
    assert roll.outcome == 1
    assert roll.expected == Fraction(1, 6)
    assert roll.luck == Fraction(5, 6)
    # the defender's view of the same roll is the negation
    assert roll.for_side("nationalist").luck == Fraction(-5, 6)
    # P(at least D1's worth) on one die: only the 6
    assert p_at_least([roll]) == pytest.approx(1 / 6)


def test_merida_modifiers_shift_the_rows_and_clamp() -> None:
    """Rule 8: "+1 ... attacking armor", TEC: "-1 defender in a town"; the chart prints rows 0 to 7
    (modified rolls beyond are clamped, the module's reading).  The 1-1 column rows 0..7 read
    "A2 A1 AR AR EX DR DR D1": with +1 the faces 1..6 read rows 2..7."""
    column = [merida_data.crt_result("1-1", r) for r in range(0, 8)]
    assert column == ["A2", "A1", "AR", "AR", "EX", "DR", "DR", "D1"]
    [roll] = merida_luck.roll_values(merida_attack("1-1", 3, [1]))
    # faces 1..6 read rows 2..7: AR, AR, EX, DR, DR, D1 -> 0, 0, 0, 0, 0, 1
    assert roll.faces == tuple(Fraction(v) for v in (0, 0, 0, 0, 0, 1))
    [roll] = merida_luck.roll_values(merida_attack("1-1", 1, [-1, -1]))
    # faces 1..6 read rows -1 (clamped to 0), 0..4: A2, A2, A1, AR, AR, EX -> -2, -2, -1, 0, 0, 0
    assert roll.faces == tuple(Fraction(v) for v in (-2, -2, -1, 0, 0, 0))
    assert roll.outcome == -2 and roll.expected == Fraction(-5, 6)


def test_backbone_roll_with_modifiers() -> None:
    """Operation Backbone 16.6, the Combat Results Table after the errata, the 3:1 column read
    down rows "< 0, 1 .. 8": "1/-  2/1  2/2  2/2  1/2  1/1R  -/1R  1/2R  -/2R".  An attack at 3:1
    with a net die modifier of +2 (16.4: "+1 MD for each [air point] used"; two used) reads rows 3
    to 8 for faces 1 to 6: 2/2, 1/2, 1/1R, -/1R, 1/2R, -/2R -- defender steps minus attacker steps
    0, 1, 0, 1, 1, 2: expected 5/6.  A 4 (row 6: "-/1R") is worth 1, so luck +1/6."""
    assert [backbone_crt.lookup("3:1", r) for r in range(0, 9)] == [
        "1/-",
        "2/1",
        "2/2",
        "2/2",
        "1/2",
        "1/1R",
        "-/1R",
        "1/2R",
        "-/2R",
    ]
    state = {
        "combat": {
            "attacker_side": "allied",
            "attackers": ["a1", "a2"],
            "defenders": ["d1"],
        },
        "units": {"a1": {"steps": 3}, "a2": {"steps": 2}, "d1": {"steps": 4}},
    }
    event = RulesEvent(
        "CombatResolved",
        {
            "die": {"index": 3, "sides": 6, "value": 4, "purpose": "combat"},
            "odds": {"column": "3:1"},
            "net_drm": 2,
            "result": {"text": "-/1R"},
        },
    )
    [roll] = backbone_luck.roll_values(event, state)
    assert roll.side == "allied" and roll.unit == "steps of losses"
    assert roll.faces == tuple(Fraction(v) for v in (0, 1, 0, 1, 1, 2))
    assert roll.expected == Fraction(5, 6)
    assert roll.outcome == 1 and roll.luck == Fraction(1, 6)


def test_backbone_losses_cut_to_the_steps_present() -> None:
    """16.6: "On a 2/2 result where the attacker has 3 steps and the defender 1, the defender will
    lose his only step, but the attacker will not lose two, but only one" -- so a 2/2 against one
    defending step is worth 1 - 1 = 0, as is a 2/2 with steps to spare."""
    assert backbone_luck.crt_value("3:1", 2, 0, (3, 1)) == 0  # row 2: 2/2
    assert backbone_luck.crt_value("3:1", 4, 0, (3, 1)) == 1  # row 4: 1/2 -> 0/1
    assert backbone_luck.crt_value("3:1", 4, 0, (3, 4)) == 1  # 1/2 in full


def test_a_roll_without_a_natural_value_is_not_measured() -> None:
    weather = RulesEvent("WeatherRolled", {"die": {"index": 0, "sides": 6, "value": 3}})
    assert merida_luck.roll_values(weather) == []
    assert backbone_luck.roll_values(weather, {"combat": None}) == []


def test_p_at_least_by_exact_convolution() -> None:
    """Two rolls each worth 0 or 1 with p = 1/2: P(sum >= 2) = 1/4, P(sum >= 1) = 3/4."""
    coin = (Fraction(0), Fraction(0), Fraction(0), Fraction(1), Fraction(1), Fraction(1))
    both = [RollValue(0, "a", 6, coin, "u"), RollValue(1, "a", 5, coin, "u")]
    assert p_at_least(both) == pytest.approx(0.25)
    one = [RollValue(0, "a", 6, coin, "u"), RollValue(1, "a", 1, coin, "u")]
    assert p_at_least(one) == pytest.approx(0.75)
    assert convolve(both) == ({0: 9, 1: 18, 2: 9}, 36, 1)
    figure = side_figure(both, "b")  # the other side's view: negated
    assert figure["figure"] == -1
    assert figure["p_at_least"] == pytest.approx(1.0 - 0.25 + 0.25)  # P(-S >= -2) = 1


def test_p_at_least_with_fractions_and_past_the_exact_support() -> None:
    """Halves are scaled to whole numbers; thousands of rolls fall back to the normal law."""
    half = tuple(Fraction(v, 2) for v in (0, 1, 1, 2, 2, 3))
    rolls = [RollValue(0, "a", 1, half, "u"), RollValue(1, "a", 6, half, "u")]
    # the rolls produced 0 + 1.5 = 1.5, k = 3 in halves
    ways, total, scale = convolve(rolls) or ({}, 0, 0)
    assert scale == 2 and total == 36
    assert p_at_least(rolls) == pytest.approx(sum(n for k, n in ways.items() if k >= 3) / 36)
    die = tuple(Fraction(v) for v in range(1, 7))
    many = [RollValue(i, "a", 4, die, "u") for i in range(4 * EXACT_ROLLS)]
    assert convolve(many, limit=100) is None  # past the limit of sums: no exact answer
    # the normal law against the exact tail, 240 dice at 4 (a mean of 3.5)
    exact_ways, exact_total, _ = convolve(many) or ({}, 1, 1)
    exact = sum(n for k, n in exact_ways.items() if k >= 4 * len(many)) / exact_total
    assert p_at_least(many) == pytest.approx(exact, abs=0.002)
    assert p_at_least(many) < 1e-4


MERIDA_COLUMNS = merida_data.crt_columns()
BACKBONE_COLUMNS = list(backbone_crt.COLUMNS)


@settings(max_examples=60, deadline=None)
@given(
    column=st.sampled_from(MERIDA_COLUMNS),
    modifier=st.integers(min_value=-3, max_value=3),
    game=st.uuids(),
    seed=st.binary(min_size=32, max_size=32),
)
def test_merida_luck_averages_to_zero(
    column: str, modifier: int, game: object, seed: bytes
) -> None:
    """Over every face luck sums to exactly zero; over 600 rolls of the server's own dice its mean
    is near zero (within 5 standard errors)."""
    faces = merida_luck.roll_values(merida_attack(column, 1, [modifier]))[0].faces
    assert sum(f - sum(faces) / 6 for f in faces) == 0
    _mean_near_zero(faces, seed.hex(), str(game))


@settings(max_examples=60, deadline=None)
@given(
    column=st.sampled_from(BACKBONE_COLUMNS),
    net=st.integers(min_value=-6, max_value=6),
    game=st.uuids(),
    seed=st.binary(min_size=32, max_size=32),
)
def test_backbone_luck_averages_to_zero(column: str, net: int, game: object, seed: bytes) -> None:
    faces = tuple(Fraction(backbone_luck.crt_value(column, f, net)) for f in range(1, 7))
    _mean_near_zero(faces, seed.hex(), str(game))


def _mean_near_zero(faces: tuple[Fraction, ...], seed: str, game: str) -> None:
    n = 600
    expected = sum(faces) / len(faces)
    lucks = [float(faces[derive_roll(seed, game, i, "", 6) - 1] - expected) for i in range(n)]
    mean = sum(lucks) / n
    variance = float(sum((f - expected) ** 2 for f in faces) / len(faces))
    assert abs(mean) <= 5 * (variance / n) ** 0.5 + 1e-12


def test_bizkaya_each_die_is_worth_the_steps_it_inflicts() -> None:
    """Bizkaya 13, the rulebook's own example: "The die roll of both dice is 5 ... the Nationalist
    compares the "5" with the morale of the leading defender unit [2]. The result is 1 step loss
    for the defender. The Republican compares its die roll of 5 with the morale of the leading
    attacking unit [5] and applies to its units two step losses."  Each die is measured for its
    side as the steps it inflicted (the Intensity Table's column for the enemy leader's morale):
    against morale 2 the faces give 0 1 1 1 1 2 (expected 1), against morale 5 1 1 2 2 2 2."""
    state = {"units": {"n-lead": {"morale": 5}, "r-lead": {"morale": 2}}}
    event = RulesEvent(
        "CombatResolved",
        {
            "side": "nationalist",
            "leaders": {"attacker": "n-lead", "defender": "r-lead"},
            "dice": {
                "nationalist": {"index": 4, "sides": 6, "value": 5},
                "republican": {"index": 5, "sides": 6, "value": 5},
            },
        },
    )
    nat, rep = bizkaya_luck.roll_values(event, state)
    assert (nat.side, nat.outcome, nat.expected) == ("nationalist", 1, 1)
    assert nat.faces == tuple(Fraction(v) for v in (0, 1, 1, 1, 1, 2))
    assert (rep.side, rep.outcome, rep.expected) == ("republican", 2, Fraction(10, 6))
    assert rep.luck == Fraction(1, 3)
    # the Nationalist's figure: its die at average, the Republican die a third of a step above
    assert side_figure([nat, rep], "nationalist")["figure"] == pytest.approx(-1 / 3)


def test_barcelona_a_shooting_die_is_worth_a_hit() -> None:
    """Back to Barcelona, Shooting: "D6 per figure. 4,5,6 causes a casualty", "-1 target in cover":
    needing 4 with -1, only 5 and 6 hit -- the expected value is the hit probability, 1/3."""
    event = RulesEvent(
        "ShotResolved",
        {
            "side": "republican",
            "targets": [
                {
                    "needed": 4,
                    "modifier_total": -1,
                    "dice": [
                        {"index": 8, "sides": 6, "value": 4, "hit": False},
                        {"index": 9, "sides": 6, "value": 6, "hit": True},
                    ],
                },
                {"ko_numbers": [7, 8], "dice": [{"rolls": [], "total": 7, "ko": True}]},
            ],
        },
    )
    miss, hit = barcelona_luck.roll_values(event, {})
    assert miss.faces == tuple(Fraction(v) for v in (0, 0, 0, 0, 1, 1))
    assert miss.expected == Fraction(1, 3) and miss.outcome == 0 and hit.outcome == 1
    assert miss.what == "miss, needing 4 with -1"
    assert side_figure([miss, hit], "republican")["figure"] == pytest.approx(1 / 3)


@settings(max_examples=40, deadline=None)
@given(
    morale=st.integers(min_value=1, max_value=6),
    needed=st.integers(min_value=2, max_value=7),
    modifier=st.integers(min_value=-3, max_value=2),
    game=st.uuids(),
    seed=st.binary(min_size=32, max_size=32),
)
def test_bizkaya_and_barcelona_luck_average_to_zero(
    morale: int, needed: int, modifier: int, game: object, seed: bytes
) -> None:
    """The Intensity Table's columns (13) and a shot's hit or miss (Shooting) too."""
    intensity = tuple(Fraction(bizkaya_tables.intensity(f, morale)) for f in range(1, 7))
    _mean_near_zero(intensity, seed.hex(), str(game))
    hits = tuple(Fraction(barcelona_luck.hit(f, modifier, needed)) for f in range(1, 7))
    _mean_near_zero(hits, seed.hex(), str(game))
