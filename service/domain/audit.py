"""Verify a game's log: hash chain, seals, sealed forms, derived fields, the anchored head, and
every die against the revealed seed.

Works on events as presented (``service.application.events.present_event``: the API's and the NDJSON
export's shape), so the same code checks the live store and an exported file offline.  Every field
a line shows is either covered by its hash or derived from covered data and checked here."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from service.domain import dice as dice_mod
from service.domain.chain import (
    FULL,
    GENESIS,
    SEALED_FIELDS,
    canonical_json,
    commitment,
    event_hash,
    head_mac,
    seal,
    sealed_digest,
)

#: the ``type`` shown for a game event of each kind (a ``Game.Recorded`` shows its rules kind)
TYPES = {
    "Game.Created": "GameCreated",
    "Game.EntropyAdded": "EntropyAdded",
    "Game.CommandAccepted": "CommandAccepted",
    "Game.DiceRolled": "DiceRolled",
    "Game.DiceReused": "DiceReused",
    "Game.Ended": "GameEnded",
}
#: "the verifier was given no head to check against" (distinct from a missing head: ``None``)
NO_ANCHOR = object()
#: the text of each event as the rules word it, or None where it cannot be re-derived
Wording = Callable[[list[Mapping[str, Any]]], Mapping[int, str | None]]


def event_type(kind: str, payload: Mapping[str, Any]) -> str:
    """The ``type`` a line shows: derived from its kind and (for a rules event) its payload."""
    if kind == "Game.Recorded":
        return str(payload.get("kind"))
    return TYPES.get(kind, kind.rpartition(".")[2])


@dataclass
class Broken:
    """A stored row that could not even be decoded."""

    seq: int
    reason: str


@dataclass
class AuditReport:
    game: str
    events: int = 0
    problems: list[dict[str, Any]] = field(default_factory=list)
    seals: str = "not checked (no key)"
    dice: dict[str, Any] = field(default_factory=dict)
    head: str = GENESIS
    anchor: dict[str, Any] = field(default_factory=lambda: {"checked": False})
    derived: dict[str, Any] = field(default_factory=dict)
    #: problems an operator's ``ChainRepaired`` event explains (the server's own breaks)
    explained: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def first_bad(self) -> dict[str, Any] | None:
        return min(self.problems, key=lambda p: p["seq"]) if self.problems else None

    def add(self, seq: int, reason: str) -> None:
        self.problems.append({"seq": seq, "reason": reason})

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "ok": self.ok,
            "events": self.events,
            "head": self.head,
            "anchor": self.anchor,
            "first_bad": self.first_bad,
            "problems": self.problems,
            "explained": self.explained,
            "seals": self.seals,
            "derived": self.derived,
            "dice": self.dice,
        }


class _Verifier:
    """One pass over a log; each check adds its problems to ``report``."""

    def __init__(self, game: str, seal_key: bytes | None) -> None:
        self.report = AuditReport(game=game)
        self.game = game
        self.seal_key = seal_key
        self.expected, self.previous = 1, GENESIS
        self.hashes: dict[int, str] = {}
        self.repairs: list[tuple[int, Mapping[str, Any]]] = []
        #: the covered names (None: a log from before names were recorded, user left unchecked)
        self.names: dict[str, str] | None = {}
        self.retracted: set[int] = set()
        self.flags: list[tuple[int, bool]] = []
        self.items: list[Mapping[str, Any]] = []
        self.rolls: list[tuple[int, dice_mod.RecordedRoll]] = []
        self.commitment: str | None = None
        self.seed: str | None = None
        if seal_key is not None:
            self.report.seals = "checked"

    def broken(self, item: Broken) -> None:
        self.report.add(item.seq, item.reason)
        self.expected = item.seq + 1

    def event(self, item: Mapping[str, Any]) -> None:
        seq = int(item.get("seq", -1))
        if seq != self.expected:
            missing = "missing (deleted?)" if seq > self.expected else "out of order or duplicated"
            self.report.add(
                min(seq, self.expected), f"event {self.expected} {missing}: found seq {seq} next"
            )
        self.report.events += 1
        self.items.append(item)
        if item.get("game") != self.game:
            self.report.add(seq, f"belongs to game {item.get('game')}, not {self.game}")
        payload = dict(item.get("payload") or {})
        self._chain(seq, item, payload)
        self._sealed_form(seq, item, payload)
        self._derived(seq, item, payload)
        self._facts(seq, str(item.get("kind")), payload)
        self.previous = str(item.get("hash"))
        self.hashes[seq] = self.previous
        self.expected = seq + 1

    def _chain(self, seq: int, item: Mapping[str, Any], payload: dict[str, Any]) -> None:
        covered = dict(payload, prev_hash=item.get("prev_hash"))
        if "sealed" in item:
            covered["sealed"] = item["sealed"]
        try:
            at = datetime.fromisoformat(str(item.get("at")))
            digest = event_hash(self.game, seq, str(item.get("kind")), at, covered)
        except (TypeError, ValueError) as exc:
            self.report.add(seq, f"cannot be hashed: {exc}")
            digest = ""
        if digest != item.get("hash"):
            self.report.add(seq, "content changed: its hash does not match what it says")
        if item.get("prev_hash") != self.previous:
            self.report.add(seq, f"chain broken: prev_hash is not the hash of event {seq - 1}")
        if self.seal_key is not None and item.get("seal") != seal(
            str(item.get("hash")), self.seal_key
        ):
            self.report.add(
                seq, "seal does not match: written without the server's key (forged or re-hashed)"
            )

    def _sealed_form(self, seq: int, item: Mapping[str, Any], payload: dict[str, Any]) -> None:
        """A sealed event's shown form must match the commitment its hash covers."""
        sealed = item.get("sealed")
        if sealed is None:
            return
        if not isinstance(sealed, Mapping):
            self.report.add(seq, "sealed is not an object")
            return
        form, salt = str(item.get("shown", FULL)), item.get("salt")
        names = SEALED_FIELDS.get(str(item.get("kind")), ())
        expected = sealed_digest(sealed, form)
        if not isinstance(salt, str) or expected is None:
            self.report.add(seq, f"the {form} form is shown without its salt or commitment")
        elif commitment(salt, {n: payload.get(n) for n in names}) != expected:
            self.report.add(seq, f"content changed: the {form} form does not match its commitment")
        if "redacted" in item and bool(item["redacted"]) != (form in sealed.get("redacted", ())):
            self.report.add(seq, "redacted does not say whether the form shown withholds anything")

    def _derived(self, seq: int, item: Mapping[str, Any], payload: dict[str, Any]) -> None:
        """``type``, ``side`` and ``user`` are re-derived from covered data."""
        kind = str(item.get("kind"))
        if kind == "Game.Created":
            names = payload.get("names")
            self.names = dict(names) if isinstance(names, Mapping) else None
        if item.get("type") != event_type(kind, payload):
            self.report.add(seq, "type does not match the event's kind and payload")
        if "side" in item and item["side"] != payload.get("side"):
            self.report.add(seq, "side does not match the event's payload")
        if "user" in item and self.names is not None:
            uid = payload.get("user")
            if uid is None or item["user"] not in (uid, self.names.get(uid)):
                self.report.add(seq, "user does not match the covered user id and names")
        if "retracted" in item:
            self.flags.append((seq, bool(item["retracted"])))
        if "redacted" in item and "sealed" not in item and item["redacted"]:
            self.report.add(seq, "redacted, but nothing of this event is sealed")

    def _facts(self, seq: int, kind: str, payload: dict[str, Any]) -> None:
        if kind == "Game.Created":
            self.commitment = payload.get("seed_commitment")
        elif kind == "Game.Ended" and self.seed is None:
            self.seed = payload.get("seed")
        elif kind == "Game.Retracted":
            self.retracted.update(int(s) for s in payload.get("seqs") or [])
        elif kind == "Game.ChainRepaired":
            self.repairs.extend(
                (seq, r) for r in payload.get("repairs") or [] if isinstance(r, Mapping)
            )
        elif kind == "Game.DiceRolled":
            for roll in payload.get("rolls", []):
                recorded = dice_mod.RecordedRoll(
                    roll["index"],
                    roll["sides"],
                    roll["value"],
                    roll["entropy"],
                    roll.get("purpose", ""),
                )
                self.rolls.append((seq, recorded))
        elif kind == "Game.DiceReused":
            self._reused(seq, payload.get("rolls") or [])

    def _reused(self, seq: int, rolls: list[Any]) -> None:
        """A die given again to a re-decided command must be a die recorded earlier in this log,
        at the event it names, with the same index, sides, entropy and value."""
        for roll in rolls:
            if not isinstance(roll, Mapping):
                self.report.add(seq, "a reused die is not a roll")
                continue
            origin, first = next(
                ((s, r) for s, r in self.rolls if r.index == roll.get("index")), (None, None)
            )
            same = first is not None and (first.sides, first.value, first.entropy, origin) == (
                roll.get("sides"),
                roll.get("value"),
                roll.get("entropy"),
                roll.get("from_seq"),
            )
            if not same:
                self.report.add(
                    seq,
                    f"reused die {roll.get('index')} does not match the roll recorded at event "
                    f"{roll.get('from_seq')}",
                )

    def finish_derived(self, wording: Wording | None) -> None:
        for seq, flag in self.flags:
            if flag != (seq in self.retracted):
                self.report.add(seq, "retracted does not match the log's Retracted events")
        user = "checked" if self.names is not None else "not checked (a log without names)"
        self.report.derived = {"type": "checked", "user": user, "retracted": "checked"}
        self.report.derived["text"] = self._texts(wording)

    def _texts(self, wording: Wording | None) -> str:
        worded = [i for i in self.items if "text" in i]
        if not worded:
            return "none shown"
        if wording is None:
            return "not checked (no rules to word them)"
        expected = wording(self.items)
        unchecked = 0
        for item in worded:
            seq = int(item["seq"])
            text = expected.get(seq)
            if text is None:
                unchecked += 1
            elif text != item["text"]:
                self.report.add(seq, "text is not what the rules say of this event")
        if unchecked:
            return f"checked, except {unchecked} in a reader's form (worded from hidden state)"
        return "checked"

    def explain(self) -> None:
        """Move each problem a sound ``ChainRepaired`` event explains to ``explained``: a break in
        the chain or content of an event it pins by the event's stored hash and content digest,
        repaired later in the log by an event that itself verifies."""
        unsound = {p["seq"] for p in self.report.problems}
        pins = {
            (int(r.get("seq", -1)), str(r.get("hash")), str(r.get("content"))): (at, r)
            for at, r in self.repairs
            if at not in unsound
        }
        if not pins:  # the usual case: no repair, nothing more to digest
            return
        shown = {int(i.get("seq", -1)): i for i in self.items}
        kept = []
        for problem in self.report.problems:
            seq = problem["seq"]
            content = content_digest(shown[seq]) if seq in shown else ""
            found = pins.get((seq, self.hashes.get(seq, ""), content))
            if (
                found is None
                or found[0] <= seq
                or not _repairable(problem["reason"])
                or problem["reason"] not in (found[1].get("reasons") or ())
            ):
                kept.append(problem)
                continue
            self.report.explained.append(dict(problem, repaired_by=found[0]))
        self.report.problems = kept

    def anchor(self, head: Any) -> None:
        """The log must reach the anchored head, and agree with it there."""
        last = self.expected - 1
        if head is NO_ANCHOR:
            self.report.anchor = {"checked": False, "reason": "no head store to check against"}
            return
        if not isinstance(head, Mapping):
            self.report.anchor = {"checked": True, "head": None, "log_ends_at": last}
            self.report.add(last + 1, f"the log ends at {last} and has no anchored head (cut?)")
            return
        version, digest = int(head.get("version", 0)), str(head.get("hash"))
        self.report.anchor = {"checked": True, "head": version, "log_ends_at": last}
        if str(head.get("game")) != self.game:
            self.report.add(last + 1, f"the anchored head is game {head.get('game')}'s")
        if version > last:
            self.report.add(last + 1, f"the log ends at {last} but its anchored head is {version}")
        elif (GENESIS if version == 0 else self.hashes.get(version)) != digest:
            # (a head at 0 is a creation announced before its first events were stored)
            self.report.add(version, f"event {version} is not the anchored head (replaced?)")
        elif version < last:
            self.report.anchor["unanchored"] = last - version
        if self.seal_key is not None and head.get("mac") != head_mac(
            self.seal_key, self.game, version, digest
        ):
            self.report.add(last + 1, "the anchored head's signature does not match (forged)")


def verify_log(
    events: Iterable[Mapping[str, Any] | Broken],
    *,
    game: str,
    seal_key: bytes | None = None,
    seed: str | None = None,
    head: Any = NO_ANCHOR,
    wording: Wording | None = None,
) -> AuditReport:
    """Check every event; report each problem with its seq (the first one is ``first_bad``).

    ``seed``: the game's seed when the verifier has it (the server does; an export has it in the
    ``GameEnded`` event once the game is over).  Without a seed the dice are checked for index reuse
    only.  ``head``: the game's anchored head (None: it has none; default: not checked).
    ``wording``: re-derives each event's text from the rules (default: texts are not checked)."""
    check = _Verifier(game, seal_key)
    for item in events:
        if isinstance(item, Broken):
            check.broken(item)
        else:
            check.event(item)
    check.report.head = check.previous
    check.finish_derived(wording)
    check.anchor(head)
    _check_dice(check.report, check.rolls, seed or check.seed, check.commitment, game)
    check.explain()
    return check.report


#: what a ``ChainRepaired`` event may explain: an event's chain or content, never a cut, a missing
#: or forged row, a seal, a die or the head
REPAIRABLE = ("chain broken: ", "content changed: ")


def _repairable(reason: str) -> bool:
    return reason.startswith(REPAIRABLE)


def content_digest(item: Mapping[str, Any]) -> str:
    """The SHA-256 of an event as shown (kind, time, payload, prev_hash, sealed commitments)."""
    shown = {k: item.get(k) for k in ("kind", "at", "payload", "prev_hash", "sealed")}
    return hashlib.sha256(canonical_json(shown).encode("utf-8")).hexdigest()


def repairs_for(report: AuditReport, items: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The repairs that would explain ``report``'s problems in the log ``items`` (each broken
    event pinned by its stored hash and content digest, with its reasons), or [] when any
    problem is not one a repair may explain."""
    if not report.problems or not all(_repairable(p["reason"]) for p in report.problems):
        return []
    by_seq = {int(i["seq"]): i for i in items if isinstance(i, Mapping) and "seq" in i}
    out: dict[int, dict[str, Any]] = {}
    for problem in report.problems:
        seq = problem["seq"]
        item = by_seq[seq]
        entry = out.setdefault(
            seq,
            {
                "seq": seq,
                "hash": str(item.get("hash")),
                "content": content_digest(item),
                "reasons": [],
            },
        )
        entry["reasons"].append(problem["reason"])
    return [out[s] for s in sorted(out)]


def _check_dice(
    report: AuditReport,
    rolls: list[tuple[int, dice_mod.RecordedRoll]],
    seed: str | None,
    commitment: str | None,
    game: str,
) -> None:
    seen: set[int] = set()
    for seq, roll in rolls:
        if roll.index in seen:
            report.add(seq, f"die index {roll.index} used twice")
        seen.add(roll.index)
    report.dice = {"rolls": len(rolls), "verified": False}
    if seed is None:
        report.dice["reason"] = "seed not revealed: indexes checked, values not"
        return
    if commitment is None or dice_mod.commitment(seed) != commitment:
        report.add(1, "the seed does not match the published commitment")
        return
    for seq, roll in rolls:
        derived = dice_mod.derive_roll(seed, game, roll.index, roll.entropy, roll.sides)
        if derived != roll.value:
            report.add(seq, f"die {roll.index} recorded {roll.value}, the seed gives {derived}")
    report.dice["verified"] = True
