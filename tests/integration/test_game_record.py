"""The open game record (docs/game-record.md): a game of each shipped system, played at random,
exported as a record on one server, imports into a fresh server (SQLite and PostgreSQL) under its
own id, replays to the same state digest and verifies there -- its chain, its sealed forms, its
dice and its anchored head.  A one-byte change to any checked line, an unknown rules or scenario
version, a malformed line, a game in progress are each refused naming the line, writing nothing."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from service.application.records import RecordRefused, state_digest
from service.bootstrap import build_services, build_worker
from service.config import Config
from service.domain.chain import event_hash
from service.domain.errors import Conflict
from service.views.games import GameQuery
from tests.conftest import make_config
from tests.support.games import alice_and_bob
from tests.support.records import play_at_random

pytestmark = pytest.mark.slow(
    "a game of each system played, exported, imported and replayed on SQLite and PostgreSQL"
)

SYSTEMS = ("merida", "backbone", "bizkaya", "barcelona")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    """One finished game of each system on a source server: its record, id and final state."""
    svc = build_services(make_config(tmp_path_factory.mktemp("source")))
    out: dict[str, dict[str, Any]] = {}
    try:
        for seed, system in enumerate(SYSTEMS, start=1):
            # Merida's random play attacks rarely: long enough for its dice too
            gid = play_at_random(svc, system, seed, commands=300 if system == "merida" else 40)
            game = svc.games.get(gid)
            out[system] = {
                "id": gid,
                "text": "".join(svc.records.lines(gid, full=True)),
                "digest": state_digest(game.state),
                "version": game.version,
                "rolls": svc.games.verify_dice(gid)["rolls"],
            }
            short = play_at_random(svc, system, seed, commands=40) if system == "merida" else gid
            out[system]["short"] = "".join(svc.records.lines(short, full=True))
        yield out
    finally:
        svc.close()


@pytest.fixture
def target(store_config: Config) -> Iterator[Any]:
    """A fresh server under another key (its own seals and heads)."""
    from dataclasses import replace

    svc = build_services(replace(store_config, secret_key="another-servers-secret"))
    try:
        yield svc
    finally:
        svc.close()


def refusal(svc: Any, text: str) -> RecordRefused:
    with pytest.raises(RecordRefused) as caught:
        svc.records.import_text(text, by="operator")
    return caught.value


def line_of(text: str, startswith: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith(startswith))


def with_line(text: str, number: int, line: str) -> str:
    lines = text.split("\n")
    lines[number - 1] = line
    return "\n".join(lines)


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_record_of_each_system_imports_replays_and_verifies(
    played: dict[str, dict[str, Any]], target: Any, system: str
) -> None:
    game = played[system]
    found = target.records.import_text(game["text"], by="operator")
    assert found["game"] == game["id"] and found["status"] == "ended"
    assert found["state_digest"] == game["digest"]
    audit = found["audit"]
    assert audit["ok"], audit["problems"]
    assert audit["seals"] == "checked" and audit["anchor"]["head"] == game["version"]
    assert audit["dice"] == {"rolls": game["rolls"], "verified": True} and game["rolls"] > 0
    # the game is this server's now: read it, travel in time, verify it, export it again
    here = target.games.get(game["id"])
    assert state_digest(here.state) == game["digest"] and here.version == game["version"]
    assert target.games.get(game["id"], version=2).version == 2
    assert target.audit.verify(game["id"])["ok"]
    assert target.games.verify_dice(game["id"])["ok"]
    assert "".join(target.records.lines(game["id"], full=True)) == game["text"]
    view = target.games.view(here, None)
    assert set(view["sides"].values()) == {f"{system}-player-{i}" for i in range(2)}
    events = target.games.events(game["id"], limit=5, viewer=None)
    players = {f"{system}-player-{i}" for i in range(2)}
    assert events[1]["user"] in players  # the name the record holds, not an id
    listed = target.index.every(GameQuery(everything=True, status="ended"))
    assert game["id"] in {row["id"] for row in listed}  # the games view has it too
    build_worker(target, process=target.notifications.process).step()  # its players: no users here
    again = refusal_or_conflict(target, game["text"])
    assert isinstance(again, Conflict) and "already on this server" in again.message


def refusal_or_conflict(svc: Any, text: str) -> Exception:
    try:
        svc.records.import_text(text, by="operator")
    except (RecordRefused, Conflict) as exc:
        return exc
    raise AssertionError("imported twice")


@pytest.mark.parametrize("store_config", ["sqlite"], indirect=True)
@pytest.mark.parametrize("system", SYSTEMS)
def test_a_one_byte_change_to_any_checked_line_is_refused_naming_it(
    played: dict[str, dict[str, Any]], target: Any, system: str
) -> None:
    text = played[system]["short"]  # a game of 40 commands: each refusal reads it whole
    rng = random.Random(31)
    checked = [
        (number, line)
        for number, line in enumerate(text.split("\n"), 1)
        if line.strip() and not line.startswith("#")
    ]
    assert len(checked) > 40
    events = [c for c in checked if c[1].startswith('{"game"')]
    heads = [c for c in checked if c not in events]  # the headers and the head
    assert len(heads) >= 18 and events
    for number, line in heads + rng.sample(events, min(len(events), 100)):
        # a byte inside the line (not its first: a "[" or "{" changed is a malformed line)
        at = rng.randrange(1, len(line))
        old = line[at]
        new = "7" if old != "7" else "3"
        changed = with_line(text, number, line[:at] + new + line[at + 1 :])
        refused = refusal(target, changed)
        assert refused.details.get("line") == [str(number)], (number, line[:80], refused.message)
    gid = UUID(text.split('[Game "', 1)[1].split('"', 1)[0])
    assert not list(target.store.events.get(gid, limit=1))  # nothing written
    assert target.records.import_text(text, by="operator")["audit"]["ok"]


@pytest.mark.parametrize("store_config", ["sqlite"], indirect=True)
def test_what_is_not_a_record_or_not_this_servers_is_refused_saying_which(
    played: dict[str, dict[str, Any]], target: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = played["merida"]["text"]
    number = line_of(text, "[RulesVersion ")
    refused = refusal(target, with_line(text, number, '[RulesVersion "7"]'))
    assert refused.details["line"] == [str(number)]
    assert "unknown rules version" in refused.message and "version 7" in refused.message
    number = line_of(text, "[Format ")
    refused = refusal(target, with_line(text, number, '[Format "arbiter-game-record 2"]'))
    assert refused.details["line"] == ["1"] and "format version 2" in refused.message
    number = line_of(text, "[System ")
    refused = refusal(target, with_line(text, number, '[System "chess"]'))
    assert "unknown rules system 'chess'" in refused.message
    # a malformed line, an event line cut out, the head cut off
    lines = text.split("\n")
    first_event = line_of(text, "{")
    malformed = "\n".join([*lines[:first_event], "this is not a record line", *lines[first_event:]])
    refused = refusal(target, malformed)
    assert refused.details["line"] == [str(first_event + 1)]
    cut = "\n".join(lines[: first_event + 2] + lines[first_event + 3 :])
    refused = refusal(target, cut)
    third = next(i for i, line in enumerate(cut.split("\n"), 1) if '"seq": 3,' in line)
    assert refused.details["line"] == [str(third)], refused.message
    assert "event 2 was expected here, not event 3" in refused.message
    headless = "\n".join(line for line in lines if not line.startswith('{"head"'))
    assert "without its head line" in refusal(target, headless).message
    # the scenario this server ships is another version than the record's
    rules = target.registry.get("merida")
    real = type(rules).initial_state

    def changed(self: Any, scenario: str, options: Any) -> Any:
        state = real(self, scenario, options)
        state["turn"] = 99
        return state

    monkeypatch.setattr(type(rules), "initial_state", changed)
    refused = refusal(target, text)
    assert "unknown scenario version" in refused.message
    assert refused.details["line"] == [str(line_of(text, "[ScenarioHash "))]
    monkeypatch.undo()
    assert not list(target.store.events.get(played["merida"]["id"], limit=1))


@pytest.mark.parametrize("store_config", ["sqlite"], indirect=True)
def test_a_game_in_progress_or_a_players_record_is_refused(tmp_path: Path, target: Any) -> None:
    source = build_services(make_config(tmp_path / "source"))
    try:
        gid = play_at_random(source, "barcelona", 5, commands=6, end=False)
        full = "".join(source.records.lines(gid, full=True))
        side = next(iter(source.games.get(gid).sides))
        players = "".join(source.records.lines(gid, viewer=side))
    finally:
        source.close()
    refused = refusal(target, full)
    assert "only a finished game's record" in refused.message
    assert refused.details["line"] == [str(line_of(full, "[Status "))]
    assert '"redacted": true' in players and '[Shown "' + side + '"]' in players
    assert "only a finished game's record" in refusal(target, players).message


@pytest.mark.parametrize("store_config", ["sqlite"], indirect=True)
def test_a_game_with_a_takeback_imports_with_what_it_took_back(tmp_path: Path, target: Any) -> None:
    source = build_services(make_config(tmp_path / "source"))
    try:
        alice, bob, game = alice_and_bob(source, takeback_policy="always")
        move = {"type": "move", "unit": "r2", "path": ["D3", "D4", "D5", "D6"]}
        moved = source.games.execute(game.id, alice, move, expected_version=1)
        source.disputes.request_takeback(game.id, alice, side="red", from_seq=None)
        source.disputes.answer_takeback(game.id, bob, accept=True, side="blue")
        again = source.games.get(game.id)
        source.games.execute(game.id, alice, move, expected_version=again.version)
        source.lifecycle.resign(game.id, bob, "blue")
        text = "".join(source.records.lines(game.id, full=True))
        retracted = [e["seq"] for e in source.games.events(game.id, limit=100) if e["retracted"]]
        digest = state_digest(source.games.get(game.id).state)
    finally:
        source.close()
    assert retracted and moved.game.version in retracted
    assert '"kind": "Game.Retracted"' in text
    found = target.records.import_text(text, by="operator")
    assert found["audit"]["ok"] and found["state_digest"] == digest
    here = [e["seq"] for e in target.games.events(str(game.id), limit=100) if e["retracted"]]
    assert here == retracted


def test_a_game_an_arbiter_decided_imports_with_the_decision(tmp_path: Path, target: Any) -> None:
    """A club event's game ended by an arbiter's forfeit (``Game.Adjudicated``, then ``Ended``)
    travels in its record like any ended game: imported, verified, the decision in its log."""
    source = build_services(make_config(tmp_path / "source"))
    try:
        _alice, _bob, game = alice_and_bob(source)
        decided = source.games.get(game.id)
        decided.adjudicate(
            arbiter="an-arbiter",
            kind="forfeit",
            winner="blue",
            note="red never moved",
            seed=source.games.seed_of(decided),
            ports=source.games.ports,
        )
        source.store.commit(decided)
        text = "".join(source.records.lines(game.id, full=True))
    finally:
        source.close()
    assert '"kind": "Game.Adjudicated"' in text
    found = target.records.import_text(text, by="operator")
    assert found["status"] == "ended" and found["audit"]["ok"], found["audit"]
    here = target.games.get(str(game.id))
    assert here.result is not None and here.result["reason"] == "forfeit"
    assert here.result["winner"] == "blue"


def forged(text: str, change: Any) -> tuple[str, int]:
    """``text`` with ``change(item)`` made to the first rules event after a command, every hash
    from there on recomputed and the head moved to match: what a forger who knows the recipe
    writes.  Returns the forged record and the line of the command."""
    lines = text.split("\n")
    events = [i for i, line in enumerate(lines) if line.startswith('{"')]
    kinds = [json.loads(lines[i])["kind"] for i in events[:-1]]
    at = next(n for n, k in enumerate(kinds) if k == "Game.Recorded" and "Command" in kinds[n - 1])
    command_line = events[at - 1] + 1
    previous = json.loads(lines[events[at - 1]])["hash"]
    for i in events[at:-1]:
        item = json.loads(lines[i])
        if i == events[at]:
            change(item)
        item["prev_hash"] = previous
        covered = dict(item["payload"], prev_hash=previous)
        item["hash"] = previous = event_hash(
            item["game"], item["seq"], item["kind"], datetime.fromisoformat(item["at"]), covered
        )
        lines[i] = json.dumps(item)
    head = json.loads(lines[events[-1]])
    head["head"]["hash"] = previous
    lines[events[-1]] = json.dumps(head)
    return "\n".join(lines), command_line


@pytest.mark.parametrize("store_config", ["sqlite"], indirect=True)
def test_a_rehashed_forgery_is_refused_where_the_rules_decide_otherwise(
    played: dict[str, dict[str, Any]], target: Any
) -> None:
    """A forger who recomputes the chain passes the hashes; the rules, deciding each command
    again with the seed's dice, do not agree with what the forger wrote."""
    text = played["bizkaya"]["text"]

    def change(item: dict[str, Any]) -> None:
        item["payload"]["data"]["forged"] = True

    changed, line = forged(text, change)
    refused = refusal(target, changed)
    assert refused.details["line"] == [str(line)], refused.message
    assert "rules decide the command to other events than the record holds" in refused.message
    assert not list(target.store.events.get(played["bizkaya"]["id"], limit=1))
