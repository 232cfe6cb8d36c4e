"""The log is tamper-evident: rows changed directly in SQLite and PostgreSQL are caught at the event
where they differ -- a changed byte, a deleted row, two swapped rows, a forged row appended (even one
whose SHA-256 chain link is correct) -- and so is a tampered NDJSON export, offline."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from click.testing import CliRunner

from service.application.events import export_lines
from service.application.services import Services
from service.bootstrap import build_services
from service.cli import main
from service.config import Config
from service.domain.chain import event_hash
from service.domain.game import Game
from service.views.games import GameQuery


class Rows:
    """Direct access to a store's event rows, bypassing the application."""

    def __init__(self, config: Config) -> None:
        self.config = config
        if config.store == "sqlite":
            self.conn: Any = sqlite3.connect(config.sqlite_file, isolation_level=None)
            self.table, self.mark = "stored_events", "?"
        else:
            import psycopg

            self.conn = psycopg.connect(
                dbname=config.postgres_dbname, host="127.0.0.1", user="postgres", autocommit=True
            )
            self.table, self.mark = "arbiter_events", "%s"

    def key(self, game: UUID) -> Any:
        return game.hex if self.config.store == "sqlite" else game

    def run(self, sql: str, *params: Any) -> list[Any]:
        cursor = self.conn.execute(sql.replace("?", self.mark), params)
        return cursor.fetchall() if cursor.description else []

    def state(self, game: UUID, version: int) -> bytes:
        return bytes(
            self.run(
                f"SELECT state FROM {self.table} WHERE originator_id = ? AND originator_version = ?",
                self.key(game),
                version,
            )[0][0]
        )

    def set_state(self, game: UUID, version: int, state: bytes, topic: str | None = None) -> None:
        self.run(
            f"UPDATE {self.table} SET state = ? WHERE originator_id = ? AND originator_version = ?",
            state,
            self.key(game),
            version,
        )
        if topic is not None:
            self.run(
                f"UPDATE {self.table} SET topic = ? WHERE originator_id = ? AND originator_version = ?",
                topic,
                self.key(game),
                version,
            )

    def topic(self, game: UUID, version: int) -> str:
        return str(
            self.run(
                f"SELECT topic FROM {self.table} WHERE originator_id = ? AND originator_version = ?",
                self.key(game),
                version,
            )[0][0]
        )

    def delete(self, game: UUID, version: int) -> None:
        self.run(
            f"DELETE FROM {self.table} WHERE originator_id = ? AND originator_version = ?",
            self.key(game),
            version,
        )


def played(svc: Services) -> UUID:
    alice = svc.users.register("alice", "correct horse")
    svc.users.register("bob", "battery staple")
    game = svc.games.create(
        system="skirmish", scenario="meeting", sides={"red": "alice", "blue": "bob"}, creator=alice
    )
    svc.games.execute(
        game.id,
        alice,
        {"type": "move", "unit": "r2", "path": ["D3", "D4", "D5", "D6"]},
        expected_version=1,
    )
    version = svc.games.get(game.id).version
    svc.games.execute(game.id, alice, {"type": "end_phase"}, expected_version=version)
    attack = (
        svc.games.actions(svc.games.get(game.id), alice, None)[1].of_type("attack")[0].command()
    )
    svc.games.execute(game.id, alice, attack, expected_version=svc.games.get(game.id).version)
    return game.id


def change_a_byte(rows: Rows, game: UUID, version: int) -> None:
    state = bytearray(rows.state(game, version))
    at = state.index(b'"side"') + len(b'"side": "') + 1  # inside the side's name: JSON stays valid
    state[at] = ord("x") if state[at] != ord("x") else ord("y")
    rows.set_state(game, version, bytes(state))


def corrupt_a_byte(rows: Rows, game: UUID, version: int) -> None:
    state = bytearray(rows.state(game, version))
    state[len(state) // 2] = ord("{")  # no longer decodes
    rows.set_state(game, version, bytes(state))


def swap(rows: Rows, game: UUID, version: int) -> None:
    a, b = rows.state(game, version), rows.state(game, version + 1)
    ta, tb = rows.topic(game, version), rows.topic(game, version + 1)
    rows.set_state(game, version, b, tb)
    rows.set_state(game, version + 1, a, ta)


def forge_with_a_valid_link(svc: Services, game: UUID) -> int:
    """A forger with write access to the database who knows the hash recipe: the chain link is
    right, only the server's seal is missing."""
    head = svc.games.get(game)
    payload = {
        "side": "red",
        "user": head.sides["red"],
        "kind": "UnitEliminated",
        "data": {"unit": "b2"},
        "prev_hash": head.last_hash,
    }
    timestamp = Game.Recorded.create_timestamp()
    digest = event_hash(game, head.version + 1, "Game.Recorded", timestamp, payload)
    forged = Game.Recorded(  # type: ignore[call-arg]
        originator_id=game,
        originator_version=head.version + 1,
        timestamp=timestamp,
        hash=digest,
        seal="0" * 64,
        sealed=None,
        **payload,
    )
    svc.store.recorder.insert_events([svc.store.mapper.to_stored_event(forged)])
    return head.version + 1


def first_bad(config: Config) -> dict[str, Any] | None:
    fresh = build_services(config)  # a new process's view: no cache
    try:
        return fresh.audit.verify(list(fresh.index.every(GameQuery(everything=True)))[0]["id"])[
            "first_bad"
        ]
    finally:
        fresh.close()


@pytest.mark.parametrize(
    ("case", "tamper"),
    [
        ("change a byte", change_a_byte),
        ("corrupt a byte", corrupt_a_byte),
        ("delete a row", lambda rows, game, v: rows.delete(game, v)),
        ("swap two rows", swap),
    ],
)
def test_tampered_rows_are_caught_at_the_event(
    store_config: Config, case: str, tamper: Callable[..., None]
) -> None:
    svc = build_services(store_config)
    game = played(svc)
    report = svc.audit.verify(game)
    assert report["ok"] and report["dice"]["verified"] and report["seals"] == "checked", report
    target = 4  # the CommandAccepted of the end_phase, mid-log
    tamper(Rows(store_config), game, target)
    found = first_bad(store_config)
    assert found is not None and found["seq"] == target, (case, found)
    svc.close()


def test_a_forged_row_with_a_correct_chain_link_is_caught_by_its_seal(store_config: Config) -> None:
    svc = build_services(store_config)
    game = played(svc)
    seq = forge_with_a_valid_link(svc, game)
    found = first_bad(store_config)
    assert (
        found is not None
        and found == {"seq": seq, "reason": found["reason"]}
        and "seal" in found["reason"]
    )
    svc.close()


def test_a_naively_forged_row_breaks_the_chain(store_config: Config) -> None:
    svc = build_services(store_config)
    game = played(svc)
    rows = Rows(store_config)
    head = svc.games.get(game).version
    copy = svc.store.recorder.select_events(game, gt=head - 1)[0]
    svc.store.recorder.insert_events(
        [type(copy)(copy.originator_id, head + 1, copy.topic, copy.state)]
    )
    found = first_bad(store_config)
    assert found is not None and found["seq"] == head + 1
    assert rows.state(game, head + 1)
    svc.close()


def export(svc: Services, game: UUID, path: Path) -> list[dict[str, Any]]:
    """``arbiter games export``'s lines: the events, then the anchored head (returned last)."""
    lines = list(export_lines(svc.games.iter_all_events(game), svc.audit.anchored_head(game)))
    path.write_text("".join(lines))
    return [json.loads(line) for line in lines]


def verify_file(path: Path, secret: str | None = "test-secret") -> Any:
    args = ["audit", "verify", "--file", str(path)] + (["--secret", secret] if secret else [])
    return CliRunner().invoke(main, args)


def test_an_export_verifies_offline_and_every_tampered_copy_fails(
    tmp_path: Path, config: Config
) -> None:
    svc = build_services(config)
    game = played(svc)
    good = tmp_path / "game.ndjson"
    *events, head = export(svc, game, good)
    result = verify_file(good)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["ok"]

    def write(name: str, items: list[Any]) -> Path:
        path = tmp_path / name
        path.write_text("\n".join(i if isinstance(i, str) else json.dumps(i) for i in items) + "\n")
        return path

    changed = json.loads(json.dumps(events))
    changed[3]["payload"]["side"] = "blue"
    changed.append(head)
    deleted = events[:3] + events[4:] + [head]
    swapped = events[:3] + [events[4], events[3]] + events[5:] + [head]
    forged = dict(events[-1], seq=len(events) + 1, prev_hash=events[-1]["hash"])
    forged["hash"] = event_hash(
        str(game),
        forged["seq"],
        forged["kind"],
        __import__("datetime").datetime.fromisoformat(forged["at"]),
        {**forged["payload"], "prev_hash": forged["prev_hash"]},
    )
    cases = {
        "changed": (write("changed.ndjson", changed), 4),
        "deleted": (write("deleted.ndjson", deleted), 4),
        "swapped": (write("swapped.ndjson", swapped), 4),
        "forged": (write("forged.ndjson", [*events, forged, head]), len(events) + 1),
        "garbled": (
            write(
                "garbled.ndjson",
                [json.dumps(e) for e in events[:3]]
                + ["{not json"]
                + [json.dumps(e) for e in [*events[4:], head]],
            ),
            4,
        ),
    }
    for name, (path, seq) in cases.items():
        result = verify_file(path)
        assert result.exit_code == 1, (name, result.output)
        assert json.loads(result.output.split("\nFAILED")[0])["first_bad"]["seq"] == seq, name
    svc.close()


def test_audit_verify_cli_on_the_live_store(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = build_services(config)
    game = played(svc)
    svc.close()
    monkeypatch.setenv("ARBITER_VAR", str(config.var_dir))
    monkeypatch.setenv("ARBITER_SECRET_KEY", config.secret_key)
    monkeypatch.setenv("ARBITER_PLUGINS", "tests.fixtures.skirmish")
    ok = CliRunner().invoke(main, ["audit", "verify", str(game)])
    assert ok.exit_code == 0 and json.loads(ok.output)["ok"], ok.output
    change_a_byte(Rows(config), game, 4)
    bad = CliRunner().invoke(main, ["audit", "verify", str(game)])
    assert bad.exit_code == 1 and "FAILED at event 4" in bad.output
    assert CliRunner().invoke(main, ["audit", "verify"]).exit_code != 0
