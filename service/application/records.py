"""The open game record: export a game as a record, and import a record into this server.

The format is :mod:`service.domain.record` and docs/game-record.md.  An export is a reader's: the
events as the reader may see them (the NDJSON export's forms, redacted where the game hides
something from them until it ends).  An import takes a finished game's full record, checks it
line by line -- the format, the rules system and its version, the scenario and its version, the
hash chain, the sealed forms, the derived fields, the anchored head, the dice against the
revealed seed, the headers against the events -- replays it with this server's rules to the
state digest it names, and stores the game under its own id (its hashes and dice cover the id),
with its seed and where it came from (``service.domain.imports``).  Any refusal names the first
bad line, and nothing is written."""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.utils import get_topic

from service.application import payloads
from service.application.audit import AuditService
from service.application.games import GameService, game_uuid
from service.application.store import ArbiterStore, Rebuilt
from service.domain import dice as dice_mod
from service.domain.audit import verify_log
from service.domain.chain import canonical_json
from service.domain.errors import Conflict, Invalid
from service.domain.game import DiceSeed, Game, ServerDice, copy_json, projector
from service.domain.imports import GameImport
from service.domain.record import (
    OPTIONAL,
    TAGS,
    VERSION,
    Parsed,
    RecordError,
    dumps,
    parse,
    render,
    shown_form,
)
from service.rules.base import RulesSystem
from service.rules.registry import UnknownSystem

PAGE = 500
#: the headers a record's events fix (checked against them on import)
DERIVED = (
    "Game",
    "Title",
    "System",
    "Scenario",
    "ScenarioVersion",
    "ScenarioHash",
    "Options",
    "Labels",
    "Sides",
    "Created",
    "Ended",
    "Result",
    "SeedCommitment",
    "Seed",
    "Events",
    "Shown",
)


#: the labels that tie a game to a ladder, club, event or campaign of a site (never imported)
LOCAL_LABELS = ("ladder", "club", "event", "campaign")


class RecordRefused(Invalid):
    """A record this server does not import: the message names the first bad line."""

    code = "record_refused"


def state_digest(state: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(state).encode("utf-8")).hexdigest()


def derived_headers(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The headers the events fix: what an importer checks each header line against."""
    created = items[0]
    payload = created.get("payload") or {}
    labels = dict(payload.get("labels") or {})
    names = dict(payload.get("names") or {})
    out: dict[str, Any] = {
        "Game": created.get("game"),
        "Title": labels.get("title", payload.get("scenario")),
        "System": payload.get("system"),
        "Scenario": payload.get("scenario"),
        "Options": payload.get("options"),
        "Labels": {k: v for k, v in labels.items() if k != "title"},
        "Sides": {side: names.get(uid, uid) for side, uid in (payload.get("sides") or {}).items()},
        "Created": created.get("at"),
        "SeedCommitment": payload.get("seed_commitment"),
        "Events": len(items),
        "Shown": shown_form(items),
    }
    if "club_scenario" in labels:
        out["ScenarioVersion"] = labels.get("scenario_version")
        out["ScenarioHash"] = labels.get("scenario_hash")
    elif out["Shown"] == "full" and not created.get("redacted"):
        out["ScenarioHash"] = state_digest(payload.get("initial_state"))
    ended = [i for i in items if i.get("kind") == "Game.Ended"]
    if ended:
        last = ended[-1]
        out["Ended"] = last.get("at")
        out["Result"] = (last.get("payload") or {}).get("result")
        out["Seed"] = (last.get("payload") or {}).get("seed")
    return out


def words(item: Mapping[str, Any]) -> str:
    """An event in words, for the comment line above it (never read back)."""
    if item.get("text"):
        return str(item["text"])
    kind, payload = item.get("kind"), item.get("payload") or {}
    who = f"{item.get('user')} ({item.get('side')})" if item.get("side") else item.get("user")
    if kind == "Game.Created":
        names = payload.get("names") or {}
        sides = ", ".join(
            f"{side}: {names.get(uid, uid)}" for side, uid in (payload.get("sides") or {}).items()
        )
        title = (payload.get("labels") or {}).get("title", payload.get("scenario"))
        return f"{title} ({payload.get('system')}, scenario {payload.get('scenario')}); {sides}"
    if kind == "Game.CommandAccepted":
        return f"{who} sends {dumps(payload.get('command'))}"
    if kind in ("Game.DiceRolled", "Game.DiceReused"):
        again = kind == "Game.DiceReused"
        return ", ".join(
            f"d{r.get('sides')}#{r.get('index')}={r.get('value')}"
            + (f" for {r['purpose']}" if r.get("purpose") else "")
            + (f" (given again from event {r.get('from_seq')})" if again else "")
            for r in payload.get("rolls") or []
        )
    if kind == "Game.Ended":
        return f"the game ends: {dumps(payload.get('result'))}"
    return f"{item.get('type')}" + (f" by {who}" if who else "")


class RecordService:
    def __init__(self, store: ArbiterStore, games: GameService, audit: AuditService) -> None:
        self.store = store
        self.games = games
        self.audit = audit

    # -- export ---------------------------------------------------------------------------------
    def lines(
        self, game_id: UUID | str, *, viewer: str | None = None, full: bool = False
    ) -> Iterator[str]:
        """The game's record as ``viewer`` (a side; None: a spectator) may read it -- in full
        for the operator (``full``), and for everyone once the game has ended."""
        gid = game_uuid(game_id)
        head = self.audit.anchored_head(gid)  # before the events: a log cut below it shows
        game = self.games.get(gid)
        rules = self.games.system(game.system)
        items = list(self._items(gid, game.version, viewer, full))
        in_full = full or game.status == "ended" or not rules.hidden_information
        state = game.state if in_full else rules.view(copy_json(game.state), viewer)
        headers = derived_headers(items) | {
            "Format": f"arbiter-game-record {VERSION}",
            "RulesVersion": rules.rules_version,
            "Status": game.status,
            "StateDigest": state_digest(state),
        }
        if "ScenarioHash" not in headers:  # a reader's form: the scenario as the rules give it
            first: Any = next(iter(self.store.events.get(gid, lte=1, limit=1)))
            headers["ScenarioHash"] = state_digest(first.initial_state)
        return render(headers, items, head, words)

    def _items(
        self, gid: UUID, version: int, viewer: str | None, full: bool
    ) -> Iterator[dict[str, Any]]:
        after = 0
        while after < version:
            page = self.games.events(gid, after=after, limit=PAGE, viewer=viewer, full=full)
            for item in page:
                if item["seq"] <= version:
                    yield item
            if len(page) < PAGE:
                return
            after = page[-1]["seq"]

    # -- import ---------------------------------------------------------------------------------
    def import_text(self, text: str, *, by: str) -> dict[str, Any]:
        """Check a record and store its game here (see the module); returns what was imported
        and this server's audit of it."""
        try:
            return self._import(text, by)
        except RecordError as exc:
            where = {"line": [str(exc.line)]} if exc.line else {"record": ["not importable"]}
            where |= {name: list(reasons) for name, reasons in exc.fields.items() if name != "line"}
            raise RecordRefused(str(exc), where) from None

    def _import(self, text: str, by: str) -> dict[str, Any]:
        parsed = parse(text)
        headers = {tag: value for tag, (_, value) in parsed.headers.items()}
        for tag in TAGS:
            if tag not in OPTIONAL and tag not in headers:
                raise RecordError(0, f"the header [{tag}] is missing")
        rules = self._rules(parsed, headers)
        if not parsed.events:
            raise RecordError(parsed.head_line, "the record holds no event")
        items = [item for _, item in parsed.events]
        game_id = self._game_id(parsed, headers, items)
        for number, item in parsed.events:  # each event as its type declares it, first
            self._event(number, item, game_id)
        self._no_local_labels(parsed)
        report = self._verified(parsed, items, game_id)
        if not report.ok:
            raise self._first_bad(parsed, report.problems)
        self._headers_match(parsed, headers, items)
        self._scenario(parsed, headers, rules)
        self._finished_and_full(parsed, headers, items)
        if not report.dice.get("verified"):
            raise RecordError(0, f"the dice cannot be verified: {report.dice.get('reason')}")
        rebuilt, decided = self._replayed(parsed, game_id, headers)
        here = Conflict(
            f"game {game_id} is already on this server: a record is imported once",
            {"record": ["that game is already here"]},
        )
        if list(self.store.events.get(game_id, limit=1)):
            raise here
        seed = str(headers["Seed"])
        salts = {str(i["seq"]): str(i["salt"]) for i in items if "sealed" in i and "salt" in i}
        provenance = GameImport.record(
            game_id,
            record_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
            format=VERSION,
            source_head=copy_json(parsed.head),
            salts=salts,
            imported_by=by,
            events=len(items),
        )
        self.store.commit(rebuilt, DiceSeed.for_game(game_id, seed), provenance, conflict=here)
        game = rebuilt.aggregate
        return {
            "game": str(game_id),
            "title": headers["Title"],
            "system": headers["System"],
            "events": len(items),
            "commands_decided_again": decided,
            "status": game.status,
            "state_digest": headers["StateDigest"],
            "audit": self.audit.verify(game_id),
        }

    @staticmethod
    def _no_local_labels(parsed: Parsed) -> None:
        """A record's game joins none of this server's ladders, clubs, events or campaigns: their
        ids are the same on every server (a club's is derived from its name), so such a label
        would move a ladder's standings or fill a club's list here.  Dropping it is impossible --
        the labels are covered by the first event's hash, which every later event chains from,
        and the game must verify here as it did there -- so the record is refused, naming them."""
        number, created = parsed.events[0]
        labels = (created.get("payload") or {}).get("labels") or {}
        local = [name for name in LOCAL_LABELS if name in labels]
        if local:
            raise RecordError(
                number,
                f"event 1: the game is labelled with this site's {', '.join(local)} "
                f"({', '.join(f'{n} {labels[n]}' for n in local)}): an imported game joins no "
                "ladder, club, event or campaign here, and its labels cannot be dropped without "
                "breaking its hash chain",
                {f"labels.{name}": ["an imported game joins none here"] for name in local},
            )

    def _rules(self, parsed: Parsed, headers: Mapping[str, Any]) -> RulesSystem:
        system = str(headers["System"])
        try:
            rules = self.games.registry.get(system)
        except UnknownSystem:
            raise RecordError(
                parsed.headers["System"][0],
                f"unknown rules system {system!r}: this server runs "
                f"{', '.join(self.games.registry.names())}",
            ) from None
        version = headers["RulesVersion"]
        if str(version) != rules.rules_version:
            raise RecordError(
                parsed.headers["RulesVersion"][0],
                f"unknown rules version: the record's {system} rules are version {version}; "
                f"this server runs version {rules.rules_version} of them",
            )
        return rules

    @staticmethod
    def _game_id(
        parsed: Parsed, headers: Mapping[str, Any], items: Sequence[Mapping[str, Any]]
    ) -> UUID:
        line = parsed.headers["Game"][0]
        try:
            game_id = UUID(str(headers["Game"]))
        except ValueError:
            raise RecordError(line, "[Game] is not a game id") from None
        games = {str(item.get("game")) for item in items}
        if len(games) == 1 and str(headers["Game"]) not in games:
            raise RecordError(line, f"[Game] does not match the events, which say {games.pop()}")
        return game_id

    @staticmethod
    def _verified(parsed: Parsed, items: Sequence[Mapping[str, Any]], game_id: UUID) -> Any:
        """The audit of the record's events (``verify_log``: chain, sealed forms, derived fields,
        head, dice); an event whose payload the audit cannot even read is refused at its line."""
        for number, item in parsed.events:  # the dice are derived from the revealed seed
            seed = (
                (item.get("payload") or {}).get("seed") if item.get("kind") == "Game.Ended" else ""
            )
            if seed and not (isinstance(seed, str) and re.fullmatch(r"[0-9a-f]{64}", seed)):
                raise RecordError(number, f"event {item['seq']}: the seed is not 64 hex digits")
        try:
            return verify_log(items, game=str(game_id), head=parsed.head)
        except Exception as exc:  # noqa: BLE001 - which line: each event checked alone
            for number, item in parsed.events:
                try:
                    verify_log([item], game=str(game_id))
                except Exception as alone:  # noqa: BLE001
                    raise RecordError(
                        number,
                        f"event {item['seq']} cannot be read ({type(alone).__name__}: {alone})",
                    ) from None
            raise RecordError(
                0, f"the events cannot be checked ({type(exc).__name__}: {exc})"
            ) from None

    @staticmethod
    def _first_bad(parsed: Parsed, problems: Sequence[Mapping[str, Any]]) -> RecordError:
        """The refusal naming the line of the first problem: an event's own (its content, its
        chain, its fields) before what follows from another line (the dice against the seed the
        last event reveals, the anchored head at the end)."""

        def rank(problem: Mapping[str, Any]) -> tuple[int, int]:
            reason = str(problem["reason"])
            if "anchored head" in reason:
                return 2, int(problem["seq"])
            if reason.startswith(("the seed does not match", "die ")):
                return 1, int(problem["seq"])
            return 0, int(problem["seq"])

        first = min(problems, key=rank)
        line = parsed.head_line if rank(first)[0] == 2 else parsed.line_of(int(first["seq"]))
        where = "the head" if line == parsed.head_line else f"event {first['seq']}"
        return RecordError(line, f"{where}: {first['reason']}")

    def _scenario(self, parsed: Parsed, headers: Mapping[str, Any], rules: RulesSystem) -> None:
        """A system's own scenario must be the version this server ships (the same initial state
        for the record's options); a club's scenario travels in the record (its first event)."""
        labels = headers["Labels"] if isinstance(headers["Labels"], Mapping) else {}
        if "club_scenario" in labels:
            return
        scenario, line = str(headers["Scenario"]), parsed.headers["Scenario"][0]
        if scenario not in {s.id for s in rules.scenarios()}:
            raise RecordError(
                line, f"unknown scenario {scenario!r}: this server's {rules.name} has no such one"
            )
        try:
            options = dict(headers["Options"] or {})
            here = state_digest(rules.initial_state(scenario, options))
        except Exception as exc:  # noqa: BLE001 - options this version does not take
            raise RecordError(
                parsed.headers["Options"][0],
                f"this server's {scenario} does not start with the record's options: {exc}",
            ) from None
        if headers["ScenarioHash"] != here:
            raise RecordError(
                parsed.headers["ScenarioHash"][0],
                f"unknown scenario version: the record's {scenario} is {headers['ScenarioHash']}; "
                f"this server's is {here}",
            )

    @staticmethod
    def _headers_match(
        parsed: Parsed, headers: Mapping[str, Any], items: Sequence[Mapping[str, Any]]
    ) -> None:
        if items[0].get("kind") != "Game.Created":
            raise RecordError(parsed.events[0][0], "the first event is not the game's creation")
        expected = derived_headers(items)
        for tag in DERIVED:
            if tag in expected and tag not in headers:
                raise RecordError(0, f"the header [{tag}] is missing")
            if tag in headers and tag not in expected and tag != "ScenarioHash":
                raise RecordError(parsed.headers[tag][0], f"[{tag}] is given, the events hold none")
            if tag in expected and headers[tag] != expected[tag]:
                raise RecordError(
                    parsed.headers[tag][0],
                    f"[{tag}] does not match the events, which say {dumps(expected[tag])}",
                )

    @staticmethod
    def _finished_and_full(
        parsed: Parsed, headers: Mapping[str, Any], items: Sequence[Mapping[str, Any]]
    ) -> None:
        status = headers["Status"]
        if status != "ended":
            raise RecordError(
                parsed.headers["Status"][0],
                f"the game is {status}: only a finished game's record is imported (its dice "
                "seed is secret until the end, and play goes on where it is)",
            )
        if "Ended" not in headers:
            raise RecordError(parsed.headers["Status"][0], "[Status] is ended but no event ends it")
        if headers["Shown"] != "full" or any(i.get("redacted") for i in items):
            raise RecordError(
                parsed.headers["Shown"][0],
                f"the events are shown as {headers['Shown']!r} sees them: only a full record "
                "is imported",
            )

    def _replayed(
        self, parsed: Parsed, game_id: UUID, headers: Mapping[str, Any]
    ) -> tuple[Rebuilt, int]:
        """The game rebuilt from the record's events with this server's rules, its events to
        store (sealed under this server's key, which vouches that it checked them), and how many
        commands were decided again on the way."""
        project = projector(self.store.ports)
        rules = self.games.system(str(headers["System"]))
        game: Any = None
        events = []
        decided = 0
        for index, (number, item) in enumerate(parsed.events):
            event = self._event(number, item, game_id)
            if item["kind"] == "Game.CommandAccepted" and game is not None:
                decided += self._decided_again(
                    rules, game, parsed.events[index:], str(headers["Seed"])
                )
            try:
                game = project(game, [event])
            except Exception as exc:  # noqa: BLE001 - whatever does not replay is the finding
                raise RecordError(
                    number,
                    f"event {item['seq']} does not replay with this server's "
                    f"{headers['System']} rules ({type(exc).__name__}: {exc})",
                ) from None
            events.append(event)
        here = state_digest(game.state)
        if here != headers["StateDigest"]:
            raise RecordError(
                parsed.headers["StateDigest"][0],
                f"the events replay to another state here ({here}, the record says "
                f"{headers['StateDigest']})",
            )
        return Rebuilt(game, events), decided

    def _decided_again(
        self,
        rules: RulesSystem,
        game: Game,
        entry: Sequence[tuple[int, dict[str, Any]]],
        seed: str,
    ) -> int:
        """Decide the command of ``entry`` (its ``CommandAccepted`` line and what follows) again
        with this server's rules, on the state before it, with the dice the revealed seed gives
        at the game's next roll index: the rules must decide the events and dice the record holds.
        A command a verdict re-decided with recorded dice (``Game.DiceReused``) is replayed, not
        decided again: 1 when the command was decided again, else 0."""
        number, item = entry[0]
        payload = item["payload"]
        following = []
        for _, later in entry[1:]:
            if later["kind"] not in ("Game.DiceRolled", "Game.DiceReused", "Game.Recorded"):
                break
            following.append(later)
        if any(later["kind"] == "Game.DiceReused" for later in following):
            return 0
        dice: Any = ServerDice(seed, game.id, game.next_roll, dice_mod.entropy_digest(game.entropy))
        seq, side = item["seq"], payload.get("side")
        try:
            command = rules.parse_command(copy_json(game.state), copy_json(payload["command"]))
            decided = rules.decide(copy_json(game.state), str(side), command, dice)
        except Exception as exc:  # noqa: BLE001 - a refusal or a crash: not this server's rules
            raise RecordError(
                number,
                f"event {seq}: this server's {rules.name} rules refuse the command "
                f"({type(exc).__name__}: {exc})",
            ) from None
        recorded = {
            "rolls": [
                r
                for e in following
                if e["kind"] == "Game.DiceRolled"
                for r in e["payload"]["rolls"]
            ],
            "events": [
                [e["payload"]["kind"], e["payload"]["data"]]
                for e in following
                if e["kind"] == "Game.Recorded"
            ],
        }
        again = {
            "rolls": [r.as_dict() for r in dice.rolled],
            "events": [[e.type, e.data] for e in decided],
        }
        if canonical_json(recorded) != canonical_json(again):
            what = "dice" if recorded["rolls"] != again["rolls"] else "events"
            raise RecordError(
                number,
                f"event {seq}: this server's {rules.name} rules decide the command to other "
                f"{what} than the record holds",
            )
        return 1

    def _event(self, number: int, item: Mapping[str, Any], game_id: UUID) -> Any:
        kind = str(item.get("kind"))
        owner, _, name = kind.partition(".")
        cls = getattr(Game, name, None) if owner == "Game" else None
        if not isinstance(cls, type) or not issubclass(cls, Game.Event):
            raise RecordError(number, f"event {item.get('seq')}: unknown kind {kind!r}")
        payload = item.get("payload")
        if not isinstance(payload, Mapping):
            raise RecordError(number, f"event {item.get('seq')}: its payload is not an object")
        fields = {n for k in cls.__mro__ for n in getattr(k, "__annotations__", {})}
        fields -= {"originator_id_type", "originator_topic", "bookkeeping"}
        unknown = sorted(set(payload) - fields)
        if unknown:
            raise RecordError(
                number, f"event {item.get('seq')}: a {kind} has no field {', '.join(unknown)}"
            )
        event = object.__new__(cls)
        digest = item.get("hash")
        event.__dict__.update(
            copy.deepcopy(dict(payload)),
            originator_id=game_id,
            originator_version=item["seq"],
            timestamp=datetime.fromisoformat(str(item.get("at"))),
            prev_hash=item.get("prev_hash"),
            hash=digest,
            seal=self.store.ports.seal(digest) if isinstance(digest, str) else None,
            sealed=copy.deepcopy(item.get("sealed")),
        )
        if cls is Game.Created:
            event.__dict__["originator_topic"] = get_topic(Game)
        wrong = payloads.problems(event)
        if wrong:
            said = "; ".join(f"{name}: {' '.join(why)}" for name, why in sorted(wrong.items()))
            raise RecordError(
                number, f"event {item.get('seq')}: a {kind} whose fields are wrong ({said})", wrong
            )
        return event
