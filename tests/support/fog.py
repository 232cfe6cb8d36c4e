"""Fog of war as a property (tests/e2e/test_fog_property.py): random play through the HTTP API and,
after a sample of commands, every read path as each reader who may not see everything, judged by
the game's own probe (:mod:`service.fuzz.probes`) against the truth kept by the service.

The probes judge a view (``probe.view(state, seen, side)``) or an event as shown
(``probe.event(event, shown, state_before, side)``).  A read path that is neither is framed as one:

* an answer that is not a view (dice, audit, actions, an SSE message, a preview) is put beside the
  side's own view, under ``_rest``, so a probe that looks for hidden names anywhere (Backbone 19.2)
  sees all of it;
* an event's whole line (its text, envelope, and the command that caused it) is laid over the event
  data as shown, so a probe that looks for a hidden field or name finds it there;
* a state diff must be the difference of the reader's own views at its two versions.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from service.application.audit import state_diff
from service.application.services import Services
from service.fuzz.checks import copy_json
from service.fuzz.player import Move, RandomPlayer
from service.fuzz.probes import Probe, probe_for
from service.fuzz.runner import identity
from service.rules.actions import Actions, Choice, Template
from service.rules.base import RulesEvent, RulesSystem, State
from tests.support.api import ApiHelper
from tests.support.scale import fuzz_scale

Json = Any
SPECTATOR, ANONYMOUS = "watcher", None
PREVIEWED = ("attack", "shoot")


def games(in_make_test: int) -> int:
    """How many random games a fog property plays: ``in_make_test`` times ``ARBITER_FUZZ_SCALE``
    (``make fuzz`` runs ten times as many)."""
    return max(1, round(in_make_test * fuzz_scale()))


def actions_from_json(body: Mapping[str, Any]) -> Actions:
    """The ``Actions`` a ``GET /actions`` answer lists (so the fuzzer's player can choose)."""
    out = Actions()
    for t in body["actions"]:
        choose = {}
        for name, c in t["choose"].items():
            many = "some_of" in c
            options = tuple(c["some_of"] if many else c["one_of"])
            choose[name] = Choice(
                options, tuple(c["labels"]), many, c.get("min", 1), c.get("max", 1)
            )
        out.add(Template(t["type"], t["label"], dict(t["fixed"]), choose, dict(t["kinds"])))
    return out


@dataclass(frozen=True)
class Reader:
    """Who reads: ``user`` (None: anonymous) and the side whose view the server must give them."""

    user: str | None
    side: str | None

    @property
    def name(self) -> str:
        if self.user is None:
            return "an anonymous reader"
        return f"{self.user} ({self.side})" if self.side else f"{self.user} (spectator)"


class Truth:
    """What the service really holds (not a read path: the oracle), cached per version."""

    def __init__(self, svc: Services, game_id: str) -> None:
        self.svc, self.game_id = svc, game_id
        self._states: dict[int, State] = {}
        self.events: dict[int, dict[str, Any]] = {}

    def state(self, version: int) -> State:
        if version not in self._states:
            game = self.svc.games.get(self.game_id, version=version)
            self._states[version] = copy_json(game.state)
        return self._states[version]

    def refresh(self) -> None:
        self.events = {e["seq"]: e for e in self.svc.games.iter_all_events(self.game_id)}

    def rules_event(self, seq: int) -> RulesEvent | None:
        item = self.events.get(seq)
        if item is None or item["kind"] != "Game.Recorded":
            return None
        return RulesEvent(item["payload"]["kind"], copy_json(item["payload"]["data"]))


@dataclass
class Judge:
    """The probe of one game, applied to what a reader got."""

    rules: RulesSystem
    probe: Probe
    truth: Truth
    problems: list[str] = field(default_factory=list)

    def report(self, where: str, reader: Reader, found: list[str]) -> None:
        self.problems.extend(f"{where} read by {reader.name}: {p}" for p in found)

    def view(self, where: str, reader: Reader, version: int, seen: State, rest: Json) -> None:
        framed = {**seen, "_rest": rest}
        self.report(where, reader, self.probe.view(self.truth.state(version), framed, reader.side))

    def other(self, where: str, reader: Reader, version: int, body: Json) -> None:
        """An answer that is not a view, beside the side's own view of the truth."""
        own = self.rules.view(copy_json(self.truth.state(version)), reader.side)
        self.view(where, reader, version, own, body)

    def event(self, where: str, reader: Reader, seq: int, data: Json, rest: Json) -> None:
        """Event ``seq`` shown as ``data`` (what a reader got of its data) with ``rest`` beside."""
        event = self.truth.rules_event(seq)
        if event is None:
            self.other(where, reader, seq, {"data": data, "rest": rest})
            return
        shown = RulesEvent(event.type, {**(data or {}), "_rest": rest})
        before = self.truth.state(seq - 1)
        self.report(where, reader, self.probe.event(event, shown, before, reader.side))

    def log(self, where: str, reader: Reader, items: list[dict[str, Any]]) -> None:
        """Event lines (events page, export): each judged, and each command laid over the data of
        the events it caused as the same reader got them."""
        shown = {i["seq"]: i for i in items}
        for item in items:
            payload = dict(item["payload"])
            data = payload.pop("data", None) if item["kind"] == "Game.Recorded" else None
            rest = {**{k: v for k, v in item.items() if k != "payload"}, "payload": payload}
            self.event(f"{where} #{item['seq']}", reader, item["seq"], data, rest)
            if item["kind"] == "Game.CommandAccepted":
                command = payload.get("command", {})
                for seq in effects(self.truth, item["seq"]):
                    got = shown.get(seq, {}).get("payload", {}).get("data")
                    overlay = {**(got or {}), **command}
                    self.event(f"{where} command #{item['seq']}", reader, seq, overlay, {})


def effects(truth: Truth, seq: int) -> Iterator[int]:
    """The rules events a command at ``seq`` caused (the Recorded ones up to the next command)."""
    after = seq + 1
    while after in truth.events and truth.events[after]["kind"] in (
        "Game.Recorded",
        "Game.DiceRolled",
    ):
        if truth.events[after]["kind"] == "Game.Recorded":
            yield after
        after += 1


# -- the game, played and read over HTTP ------------------------------------------------------------


class FogGame:
    """One random game through the HTTP API, with every read path read after a sample of commands."""

    def __init__(
        self, api: ApiHelper, svc: Services, spec: Mapping[str, Any], seed: int, log: list[str]
    ) -> None:
        self.api, self.svc, self.c = api, svc, api.client
        self.rng = random.Random(f"fog:{spec['system']}:{seed}")
        self.player = RandomPlayer(self.rng)
        rules = svc.registry.get(spec["system"])
        self.sides: dict[str, str] = {
            side: f"p{seed}{side[:3]}" for side in spec["sides"]
        }  # side -> user
        body = self.create(spec, seed)
        self.gid, self.version = body["id"], body["version"]
        self.active: list[str] = body["active_sides"]
        self.status: str = body["status"]
        api.user(SPECTATOR)
        probe = probe_for(spec["system"])
        assert probe is not None, f"{spec['system']} hides information but has no probe"
        self.judge = Judge(rules, probe, Truth(svc, self.gid))
        self.readers = [Reader(u, s) for s, u in self.sides.items()]
        self.readers += [Reader(SPECTATOR, None), Reader(ANONYMOUS, None)]
        self.read_versions = 0  # versions already read with ?version=N
        self.commands = self.refused = self.reads = 0
        self.log = log

    def create(self, spec: Mapping[str, Any], seed: int) -> dict[str, Any]:
        """Create the game over HTTP with the fuzzer's game id and dice seed for ``seed``
        (:func:`service.fuzz.runner.identity`), so the seed replays the same game."""
        games = self.svc.games
        game_id, dice_seed = identity(f"fog-{spec['system']}", seed)
        games.create = partial(type(games).create, games, seed=dice_seed, game_id=game_id)  # type: ignore[method-assign]
        try:
            return self.api.create_game(  # public: spectators and visitors read it too
                spec["system"], spec["scenario"], self.sides, spec["options"], public=True
            )
        finally:
            del games.create

    # -- HTTP -----------------------------------------------------------------------------------
    def get(self, reader: Reader, path: str, **query: Any) -> Any:
        headers = self.api.user(reader.user) if reader.user else {}
        response = self.c.get(f"/api/games/{self.gid}{path}", query_string=query, headers=headers)
        self.reads += 1
        assert response.status_code < 500, (path, query, response.get_data(as_text=True))
        return response

    def ok(self, reader: Reader, path: str, **query: Any) -> Json:
        response = self.get(reader, path, **query)
        assert response.status_code == 200, (path, query, reader, response.get_json())
        return response.get_json()

    # -- play -----------------------------------------------------------------------------------
    def actions_of(self, side: str) -> Actions:
        body = self.ok(Reader(self.sides[side], side), "/actions", side=side)
        return actions_from_json(body)

    def step(self) -> bool:
        """Send one random command; False when the game is over or no one may act."""
        if self.status == "ended" or not self.active:
            return False
        move = self.player.next(self.active, self.actions_of)
        if move is None:
            return False
        response = self.api.command(
            self.gid, self.sides[move.side], move.command, self.version, move.side
        )
        assert response.status_code in (201, 422), (move, response.get_json())
        if response.status_code == 422:
            self.refused += 1
            return True
        self.commands += 1
        self.log.append(f"{move.side}: {json.dumps(move.command, sort_keys=True)}")
        game = self.api.game(self.gid, self.sides[move.side])
        self.version, self.active, self.status = (
            game["version"],
            game["active_sides"],
            game["status"],
        )
        return True

    def play(self, commands: int, read_every: int) -> None:
        self.read_all()
        while self.commands + self.refused < commands and self.step():
            if self.status != "ended" and self.commands % read_every == 0:
                self.read_all()
        if self.status != "ended":
            self.read_all()

    # -- every read path --------------------------------------------------------------------------
    def read_all(self) -> None:
        self.judge.truth.refresh()
        for reader in self.readers:
            self.read_as(reader)
        self.read_versions = self.version

    def read_as(self, reader: Reader) -> None:
        j, v = self.judge, self.version
        game = self.ok(reader, "")
        assert game["viewer_side"] == reader.side, (reader, game["viewer_side"])
        j.view("the game", reader, v, game["state"], without(game, "state"))
        self.read_versions_as(reader)
        items = self.events_as(reader)
        j.log("the events", reader, items)
        j.log("the export", reader, self.export_as(reader))
        self.read_audit_as(reader, items)
        self.read_misc_as(reader)
        for seq in self.rng.sample(range(1, v + 1), min(3, v)):
            body = self.ok(reader, f"/events/{seq}/rulings")
            data = next((i["payload"].get("data") for i in items if i["seq"] == seq), None)
            j.event(f"the rulings of #{seq}", reader, seq, data, body)
        if reader.side is not None:
            self.forbidden_as(reader)
            self.preview_as(reader)

    def read_versions_as(self, reader: Reader) -> None:
        for n in range(max(1, self.read_versions), self.version + 1):
            body = self.ok(reader, "", version=n)
            self.judge.view(
                f"the game at version {n}", reader, n, body["state"], without(body, "state")
            )
        pairs = {(1, self.version), (max(1, self.version - 1), self.version)}
        a = self.rng.randint(1, self.version)
        pairs.add((a, self.rng.randint(a, self.version)))
        for a, b in sorted(pairs):
            self.read_diff_as(reader, a, b)

    def read_diff_as(self, reader: Reader, a: int, b: int) -> None:
        """The diff shows exactly what the reader's own views at ``a`` and ``b`` show (each judged
        as a view above), nothing more."""
        diff = self.ok(reader, "/audit/diff", **{"from": a, "to": b})
        at_a = self.ok(reader, "", version=a)["state"]
        at_b = self.ok(reader, "", version=b)["state"]
        if diff["changes"] != json.loads(json.dumps(list(state_diff(at_a, at_b)))):
            self.judge.problems.append(
                f"the diff {a}..{b} read by {reader.name} shows other than its views at {a} and {b}"
            )

    def events_as(self, reader: Reader) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        after: int | None = 0
        while after is not None:
            page = self.ok(reader, "/events", after=after, limit=self.rng.choice([7, 50, 1000]))
            items += page["events"]
            after = page["next_after"]
        return items

    def export_as(self, reader: Reader) -> list[dict[str, Any]]:
        response = self.get(reader, "/events.ndjson")
        assert response.status_code == 200
        lines = [json.loads(x) for x in response.get_data(as_text=True).splitlines() if x]
        self.judge.other("the export's head", reader, self.version, lines[-1])
        return lines[:-1]

    def read_audit_as(self, reader: Reader, items: list[dict[str, Any]]) -> None:
        j, v = self.judge, self.version
        j.other("the audit", reader, v, self.ok(reader, "/audit"))
        data = {i["seq"]: i["payload"].get("data") for i in items}
        for row in self.ok(reader, "/audit/actions"):
            rest = without(row, "effects")
            if row["action"] != "command":
                j.other(f"the audit actions #{row['seq']}", reader, row["seq"], rest)
                continue
            j.other(f"the audit actions #{row['seq']}", reader, row["seq"] - 1, rest)
            for e in row["effects"]:
                shown = {**(data.get(e["seq"]) or {}), **row["command"]}
                j.event(f"the audit actions #{e['seq']}", reader, e["seq"], shown, e)

    def read_misc_as(self, reader: Reader) -> None:
        j, v = self.judge, self.version
        j.other("the dice", reader, v, self.ok(reader, "/dice"))
        j.other("the disputes", reader, v, self.ok(reader, "/disputes"))
        listed = self.c.get("/api/games", headers=self.api.user(reader.user) if reader.user else {})
        j.other("the games list", reader, v, listed.get_json())
        if reader.user is not None:
            mine = self.c.get(
                "/api/games", query_string={"mine": "true"}, headers=self.api.user(reader.user)
            )
            j.other("my games", reader, v, mine.get_json())
        for note in self.stream_as(reader):
            j.other("the stream", reader, v, note)
        if reader.side in self.active:
            j.other("the actions", reader, v, self.ok(reader, "/actions", side=reader.side))

    def stream_as(self, reader: Reader) -> list[Json]:
        """The first messages of the SSE stream from a version back (then it is closed)."""
        headers = self.api.user(reader.user) if reader.user else {}
        since = max(0, self.version - 2)
        response = self.c.get(
            f"/api/games/{self.gid}/stream",
            query_string={"since": since, "window": 1},
            headers=headers,
            buffered=False,
        )
        assert response.status_code == 200
        notes: list[Json] = []
        try:
            for chunk in response.response:
                text = chunk.decode() if isinstance(chunk, bytes) else chunk
                notes += [
                    json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")
                ]
                if notes or "retry:" in text:
                    break
        finally:
            response.close()
        self.reads += 1
        return notes

    def forbidden_as(self, reader: Reader) -> None:
        """Another side's view is refused while the game is on."""
        for side in self.sides:
            if side != reader.side:
                for path in ("", "/events", "/audit/diff"):
                    query = {"side": side, "from": 1, "to": 1} if path else {"side": side}
                    status = self.get(reader, path, **query).status_code
                    assert status == 403, f"{reader.name} reads {side}'s {path or 'view'}: {status}"

    def preview_as(self, reader: Reader) -> None:
        """Previews of the reader's own attacks (when it may attack now), on its view."""
        if reader.side not in self.active or self.judge.rules.previews is None:
            return
        templates = [t for t in self.actions_of(reader.side).templates if t.type in PREVIEWED]
        for template in self.rng.sample(templates, min(2, len(templates))):
            command = Move(reader.side, template.command()).command
            response = self.c.post(
                f"/api/games/{self.gid}/preview",
                json={"command": command, "side": reader.side},
                headers=self.api.user(reader.user or ""),
            )
            self.reads += 1
            assert response.status_code in (200, 400, 422), response.get_json()
            if response.status_code == 200:
                self.judge.other("a preview", reader, self.version, response.get_json())


def without(body: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != key}
