"""Audit of a game: verify the stored log, who did what and when, and state differences."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any
from uuid import UUID

from eventsourcing.utils import get_topic

from service.application.events import present_event
from service.application.games import GameService, game_uuid, in_words, with_states_before
from service.application.store import ArbiterStore, LogFollower
from service.domain.audit import NO_ANCHOR, AuditReport, Broken, Wording, repairs_for, verify_log
from service.domain.chain import ENVELOPE, FULL, reader_form
from service.domain.conversations import conversation_id
from service.domain.errors import Conflict
from service.domain.game import Game, copy_json
from service.rules.base import RulesEvent, RulesSystem

PAGE = 500
_NOT_DETAILS = ENVELOPE | {"prev_hash", "restored_state", "sealed"}


class AuditService:
    def __init__(
        self,
        store: ArbiterStore,
        games: GameService,
        seal_key: bytes | None,
        heads: Any = None,
    ) -> None:
        self.store = store
        self.games = games
        self.seal_key = seal_key
        self.heads = heads

    def anchored_head(self, game_id: UUID | str) -> dict[str, Any] | None:
        """The game's signed head as anchored apart from the rows (None: none is)."""
        if self.heads is None:
            return None
        head: dict[str, Any] | None = self.heads.get(str(game_uuid(game_id)))
        return head

    def stored(self, game_id: UUID) -> Iterator[dict[str, Any] | Broken]:
        """The game's rows exactly as stored, decoded one by one (a row that does not decode is
        reported, not skipped silently)."""
        after = 0
        salting = self.games.presenting(game_id).salt
        while True:
            rows = self.store.recorder.select_events(game_id, gt=after or None, limit=PAGE)
            for row in rows:
                try:
                    event = self.store.mapper.to_domain_event(row)
                    yield present_event(event, salting=salting)
                except Exception as exc:  # noqa: BLE001 - any decoding failure is a finding
                    yield Broken(
                        row.originator_version, f"cannot be decoded ({type(exc).__name__}: {exc})"
                    )
            if len(rows) < PAGE:
                return
            after = rows[-1].originator_version

    def verify(self, game_id: UUID | str) -> dict[str, Any]:
        """Recompute the chain, seals, sealed forms and dice over the stored rows (the server knows
        the seed), and check that they reach the game's anchored head; then the same of the
        game's conversation (its chat: ``conversation``, None when it has none).  A broken
        conversation fails the report: ``first_bad`` names it when the game's own log is sound."""
        gid = game_uuid(game_id)
        report = self._verified(gid)[0].as_dict()
        chat = self.verify_conversation(gid)
        report["conversation"] = chat
        if chat is not None and not chat["ok"]:
            report["ok"] = False
            if report["first_bad"] is None:
                first = chat["first_bad"]
                report["first_bad"] = {
                    "seq": first["seq"],
                    "reason": f"the game's chat, event {first['seq']}: {first['reason']}",
                }
        return report

    def verify_conversation(self, game_id: UUID | str) -> dict[str, Any] | None:
        """The audit of a game's conversation (``service.domain.conversations``): its hash chain,
        seals and anchored head, checked as a game's are (it has no dice); None when the game has
        no conversation and no head anchored for one."""
        cid = conversation_id(game_uuid(game_id))
        head = self.heads.get(str(cid)) if self.heads is not None else NO_ANCHOR
        rows = list(self.stored(cid))
        if not rows and head in (None, NO_ANCHOR):
            return None
        report = verify_log(rows, game=str(cid), seal_key=self.seal_key, head=head)
        return {
            "conversation": str(cid),
            "ok": report.ok,
            "events": report.events,
            "head": report.head,
            "anchor": report.anchor,
            "first_bad": report.first_bad,
            "problems": report.problems,
            "seals": report.seals,
        }

    def _verified(self, gid: UUID) -> tuple[AuditReport, list[dict[str, Any] | Broken]]:
        head = self.heads.get(str(gid)) if self.heads is not None else NO_ANCHOR
        rows = list(self.stored(gid))
        if not rows:
            self.games.get(gid)  # 404 for an unknown game
        try:
            seed: str | None = self.games.seed_of_id(gid)
        except Exception:  # noqa: BLE001 - a missing vault is reported by the dice check
            seed = None
        report = verify_log(rows, game=str(gid), seal_key=self.seal_key, seed=seed, head=head)
        return report, rows

    def repair(self, game_id: UUID | str, *, reason: str, by: str) -> dict[str, Any]:
        """Append the operator's signed account (``Game.ChainRepaired``) of the breaks the server
        itself made in this log -- an event stored at another version than it was hashed for, by
        the lost race fixed in this release -- so the audit reads them as explained.  Refused when
        the log verifies, or when any problem is of a kind a repair may not explain (a cut, a
        missing or forged row, a seal, a die, the head).  Returns the audit after it."""
        gid = game_uuid(game_id)
        report, rows = self._verified(gid)
        if report.ok:
            raise Conflict("the log verifies: nothing to repair", {"game": ["its log verifies"]})
        repairs = repairs_for(report, [r for r in rows if not isinstance(r, Broken)])
        if not repairs:
            raise Conflict(
                "the log has problems a repair does not explain (a cut, a missing or forged row, "
                f"a seal, a die or the head): {report.first_bad}",
                {"game": ["not a break the server made"]},
            )
        game = self.games.get(gid)
        game.repair_chain(reason=reason, by=by, repairs=repairs, ports=self.store.ports)
        return self._recorded(game)

    def reconcile(self, game_id: UUID | str, *, reason: str, by: str) -> dict[str, Any]:
        """Record that the game's log was restored or rolled back below its anchored head (a
        signed ``Game.HeadReconciled`` naming the lost head) and anchor the head on the log as it
        is, so play may go on; refused when the log reaches its head.  Returns the audit after."""
        gid = game_uuid(game_id)
        head = self.heads.get(str(gid)) if self.heads is not None else None
        game = self.games.get(gid)
        if head is None or int(head["version"]) <= game.version:
            raise Conflict(
                "the log reaches its anchored head: nothing to reconcile",
                {"game": ["its log is not behind its head"]},
            )
        game.reconcile_head(reason=reason, by=by, lost_head=head, ports=self.store.ports)
        return self._recorded(game)

    def _recorded(self, game: Game) -> dict[str, Any]:
        """Commit the operator's event on ``game`` and return the audit after it."""
        self.store.commit(game, decided_at=game.version - len(game.pending_events))
        return self.verify(game.id)

    def game_ids(self) -> Iterator[UUID]:
        """Every game of the store, in the order they were created: the log's ``Game.Created``
        notifications, read a page at a time and not decoded (an operator's whole-store check)."""
        for note in LogFollower(self.store, [get_topic(Game.Created)], batch=PAGE).notes():
            yield UUID(str(note.originator_id))

    def verify_all(self) -> dict[str, Any]:
        """:meth:`verify` over every game of the store, and every anchored head that has no game
        (a store cut below its heads): a summary with the games that failed and where."""
        failed: list[dict[str, Any]] = []
        seen: set[str] = set()
        games = 0
        for game_id in self.game_ids():
            games += 1
            seen.update((str(game_id), str(conversation_id(game_id))))
            report = self.verify(game_id)
            if not report["ok"]:
                chat = report["conversation"] or {"problems": []}
                failed.append(
                    {
                        "game": str(game_id),
                        "events": report["events"],
                        "problems": len(report["problems"]) + len(chat["problems"]),
                        "first_bad": report["first_bad"],
                    }
                )
        # a head at version 0 with no game is a creation announced to the heads whose events were
        # never stored (the process stopped between the two): nothing of it was acknowledged
        orphans = [
            {"game": head["game"], "version": head["version"]}
            for head in (self.heads.all() if self.heads is not None else ())
            if head["game"] not in seen and int(head["version"]) > 0
        ]
        return {
            "ok": not failed and not orphans,
            "games": games,
            "clean": games - len(failed),
            "failed": failed,
            "heads_without_a_game": orphans,
        }

    def actions(
        self,
        game_id: UUID | str,
        side: str | None = None,
        *,
        viewer: str | None = None,
        full: bool = False,
    ) -> list[dict[str, Any]]:
        """Who did what and when: every command and bookkeeping event, in words, per side.  In a game
        that hides information and is not over, the other side's commands show their type only
        (``hidden`` when that hides something), and each of their effects reads as the game log
        words it for ``viewer``: what the rules redact stays redacted (the same form and sentence)."""
        game = self.games.get(game_id)
        rules = self.games.system(game.system)
        hide = not full and game.status != "ended" and rules.hidden_information
        name = self.games.users.username
        retracted = set(game.retracted)
        out: list[dict[str, Any]] = []
        current: dict[str, Any] | None = None
        event: Any
        for event, before in with_states_before(rules, self.store.events.get(game.id), None):
            seq = event.originator_version
            if isinstance(event, Game.CommandAccepted):
                current = {
                    "seq": seq,
                    "at": event.timestamp.isoformat(),
                    "side": event.side,
                    "user": name(event.user),
                    "action": "command",
                    "command": event.command,
                    "origin": event.origin,
                    "effects": [],
                    "retracted": seq in retracted,
                }
                out.append(current)
            elif isinstance(event, Game.Recorded) and current is not None:
                form = {"kind": event.kind, "data": copy_json(event.data)}
                if hide and before is not None:  # the reader's form, as the log presents it
                    form = self._reader_form(rules, form, current["side"], before, viewer)
                shown = RulesEvent(form["kind"], form["data"])
                current["effects"].append(
                    {
                        "seq": seq,
                        "type": shown.type,
                        "text": in_words(rules, shown, before),
                        "retracted": seq in retracted,
                    }
                )
            elif isinstance(event, (Game.DiceRolled, Game.DiceReused)) and current is not None:
                current["effects"].append(_dice_effect(event, retracted))
            elif getattr(type(event), "bookkeeping", False):
                current = None
                user = getattr(event, "user", None) or getattr(event, "arbiter", None)
                out.append(
                    {
                        "seq": seq,
                        "at": event.timestamp.isoformat(),
                        "side": getattr(event, "side", None),
                        "user": name(user) if user else None,
                        "action": type(event).__name__,
                        "details": _bookkeeping(event),
                    }
                )
        if hide:
            _hide_commands(out, viewer)
        if side is not None:
            out = [row for row in out if row.get("side") == side]
        return out

    def _reader_form(
        self,
        rules: RulesSystem,
        form: dict[str, Any],
        actor: str,
        before: Any,
        viewer: str | None,
    ) -> dict[str, Any]:
        """A recorded event as ``viewer`` reads it in the game log (what the rules redact stays
        redacted)."""
        return reader_form(
            rules,
            self.store.ports.rules_event,
            "Game.Recorded",
            form,
            actor=actor,
            state_before=copy_json(before),
            reader=viewer,
        )

    def diff(self, game_id: UUID | str, a: int, b: int, viewer: str | None) -> dict[str, Any]:
        """The difference between the (viewed) states at versions ``a`` and ``b``."""
        at_a = self.games.get(game_id, version=a)
        rules = self.games.system(at_a.system)
        before = rules.view(at_a.state, viewer)
        after = rules.view(self.games.get(game_id, version=b).state, viewer)
        return {"from": a, "to": b, "changes": list(state_diff(before, after))}


def _bookkeeping(event: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(event).items() if k not in _NOT_DETAILS}


def state_diff(before: Any, after: Any, path: str = "") -> Iterator[dict[str, Any]]:
    """Every changed leaf as ``{"path", "before", "after"}`` (``units.r2.hex``)."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in before:
                yield {"path": sub, "before": None, "after": after[key]}
            elif key not in after:
                yield {"path": sub, "before": before[key], "after": None}
            else:
                yield from state_diff(before[key], after[key], sub)
    elif before != after:
        yield {"path": path, "before": before, "after": after}


def rules_wording(rules_of: Callable[[str], RulesSystem]) -> Wording:
    """Re-derive each rules event's text the way the server words it, by replaying the covered
    events in full form through the game's rules; an event shown in a reader's form (worded from
    hidden state) gets None: its text cannot be re-derived from the export."""

    def wording(items: list[Mapping[str, Any]]) -> dict[int, str | None]:
        created = next((i for i in items if i.get("kind") == "Game.Created"), None)
        try:
            rules = rules_of(str((created or {}).get("payload", {}).get("system")))
        except Exception:  # noqa: BLE001 - an unknown system: nothing can be re-worded
            return {}
        return _reworded(rules, items)

    return wording


def _reworded(rules: RulesSystem, items: list[Mapping[str, Any]]) -> dict[int, str | None]:
    out: dict[int, str | None] = {}
    state: Any = None
    for item in items:
        kind, payload = item.get("kind"), item.get("payload") or {}
        full = item.get("shown", FULL) == FULL and not item.get("redacted")
        if kind in ("Game.Created", "Game.Retracted"):
            key = "initial_state" if kind == "Game.Created" else "restored_state"
            state = copy_json(payload.get(key)) if full else None
        if kind != "Game.Recorded":
            continue
        if not full or state is None:
            out[int(item["seq"])], state = None, None
            continue
        event = RulesEvent(str(payload.get("kind")), copy_json(payload.get("data") or {}))
        out[int(item["seq"])] = in_words(rules, event, state)
        try:
            state = rules.apply(state, event)
        except Exception:  # noqa: BLE001 - a log that does not replay words nothing further
            state = None
    return out


def _dice_effect(event: Game.DiceRolled | Game.DiceReused, retracted: set[int]) -> dict[str, Any]:
    """A command's dice as an effect: each roll's die, index and value (and where a reused one
    was first rolled)."""
    again = isinstance(event, Game.DiceReused)
    return {
        "seq": event.originator_version,
        "type": type(event).__name__,
        "text": ", ".join(
            f"d{r['sides']}#{r['index']}={r['value']}"
            + (f" (given again, first rolled at event {r['from_seq']})" if again else "")
            for r in event.rolls
        ),
        "retracted": event.originator_version in retracted,
    }


def _hide_commands(rows: list[dict[str, Any]], viewer: str | None) -> None:
    """The other sides' commands show their type only (``hidden`` when that hides something)."""
    for row in rows:
        if row["action"] == "command" and row["side"] != viewer:
            bare = {"type": row["command"].get("type")}
            row["hidden"] = bare != row["command"]  # as the log's "redacted"
            row["command"] = bare
