"""Anchored heads every host shares (issue 53): ``ARBITER_HEADS=postgresql://…`` keeps them in a
PostgreSQL database apart from the events', so a rollback of the events is refused through any
host.  Before, each host kept them in ``$ARBITER_KEYS/heads.sqlite``: with the database put back
to version 9 after host B served the game to version 15, host A -- whose file never saw B's heads
-- took the next command (201).

Two hosts here are two applications on one events database and one heads database, each with its
own var and keys folders (nothing on disk shared, as between two machines) and the same secret."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from flask import Flask

from service.app import create_app
from service.bootstrap import migrate
from service.config import Config, ConfigError
from tests.conftest import make_config
from tests.support.api import ApiHelper
from tests.support.services import PG, postgres_database

pytestmark = pytest.mark.postgres

END = {"type": "end_phase"}
SIDES = {"red": "alice", "blue": "alice"}
SECRET = "two-hosts-secret"
ARBITER = str(Path(sys.executable).parent / "arbiter")


def url(dbname: str) -> str:
    return f"postgresql://{PG['user']}@{PG['host']}:{PG['port']}/{dbname}"


def connect(dbname: str) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(url(dbname), autocommit=True)


@pytest.fixture
def databases() -> Iterator[tuple[str, str]]:
    with postgres_database() as events, postgres_database() as heads:
        yield events, heads


def host(root: Path, events: str, heads: str | None) -> Config:
    return make_config(
        root,
        store="postgres",
        postgres_dbname=events,
        heads_url=url(heads) if heads else None,
        secret_key=SECRET,
        var_dir=root / "var",
        keys_dir=root / "keys",
    )


def test_a_rollback_is_refused_through_the_host_that_did_not_serve_the_later_commands(
    tmp_path: Path, databases: tuple[str, str]
) -> None:
    events, heads = databases
    configs = [host(tmp_path / name, events, heads) for name in ("a", "b")]
    migrate(configs[0])
    apps: list[Flask] = [create_app(config) for config in configs]
    try:
        a, b = (ApiHelper(app.test_client()) for app in apps)
        gid = a.create_game("skirmish", "meeting", SIDES)["id"]
        b.tokens["alice"] = a.tokens["alice"]
        for _ in range(2):
            assert a.command(gid, "alice", END).status_code == 201
        dumped = a.game(gid, "alice")["version"]
        for _ in range(3):  # host B serves the later commands
            assert b.command(gid, "alice", END).status_code == 201
        served = b.game(gid, "alice")["version"]
        with connect(events) as conn:  # the events database put back to a dump taken at ``dumped``
            conn.execute(
                "DELETE FROM arbiter_events WHERE originator_id = %s AND originator_version > %s",
                (gid, dumped),
            )

        r = a.command(gid, "alice", END, expected_version=dumped)
        assert r.status_code == 409 and r.get_json()["error"] == "log_behind_head", r.get_json()
        assert f"anchored head is {served}" in r.get_json()["message"]
        with connect(heads) as conn:  # one head, in the shared database, at B's last version
            assert conn.execute("SELECT game, version FROM arbiter_heads").fetchall() == [
                (gid, served)
            ]
        report = apps[0].extensions["arbiter"].audit.verify(gid)
        assert not report["ok"] and report["first_bad"]["reason"] == (
            f"the log ends at {dumped} but its anchored head is {served}"
        )
    finally:
        for app in apps:
            app.extensions["arbiter"].close()


def test_the_heads_database_must_not_be_the_events_database(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="another database than the events'"):
        host(tmp_path, "arbiter_same", "arbiter_same").validate()
    host(tmp_path, "arbiter_events", "arbiter_heads").validate()  # another database: fine
    with pytest.raises(ConfigError, match="must name its database"):
        make_config(tmp_path, heads_url=f"postgresql://{PG['host']}:{PG['port']}").validate()
    env = {"ARBITER_HEADS": "postgresql://h.example/heads", "ARBITER_VAR": str(tmp_path)}
    assert Config.from_env(env).heads_url == "postgresql://h.example/heads"
    assert Config.from_env(env).heads_path is None
    assert Config.from_env(env).heads_place == "the heads database 'heads' on h.example:5432"


@pytest.mark.slow(
    "a backup, a restore and an audit of heads through the installed command, each a process of "
    "its own on PostgreSQL (19.6 s on an idle CI machine, 21 s with a load beside it)"
)
def test_backup_restore_and_audit_heads_read_and_write_the_heads_database(
    tmp_path: Path, databases: tuple[str, str]
) -> None:
    events, heads = databases
    source = host(tmp_path / "source", events, heads)
    migrate(source)
    app = create_app(source)
    try:
        api = ApiHelper(app.test_client())
        gid = api.create_game("skirmish", "meeting", SIDES)["id"]
        for _ in range(3):
            assert api.command(gid, "alice", END).status_code == 201
        version = api.game(gid, "alice")["version"]
    finally:
        app.extensions["arbiter"].close()

    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARBITER_", "POSTGRES_"))}
    env.pop("REDIS_URL", None)
    env.update(
        ARBITER_PLUGINS="tests.fixtures.skirmish",
        ARBITER_SECRET_KEY=SECRET,
        ARBITER_STORE="postgres",
        POSTGRES_HOST=str(PG["host"]),
        POSTGRES_PORT=str(PG["port"]),
        POSTGRES_USER=str(PG["user"]),
    )

    def arbiter(root: Path, dbname: str, heads_db: str, *args: str) -> str:
        done = subprocess.run(
            [ARBITER, *args],
            env=dict(
                env,
                ARBITER_VAR=str(root / "var"),
                POSTGRES_DBNAME=dbname,
                ARBITER_HEADS=url(heads_db),
            ),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr + done.stdout
        return done.stdout

    listed = arbiter(tmp_path / "source", events, heads, "audit", "heads")
    assert [(h["game"], h["version"]) for h in map(json.loads, listed.splitlines())] == [
        (gid, version)
    ]
    backup = tmp_path / "site.arbiter"
    said = arbiter(tmp_path / "source", events, heads, "backup", str(backup))
    assert "1 anchored heads" in said, said
    with postgres_database() as target, postgres_database() as target_heads:
        arbiter(tmp_path / "target", target, target_heads, "db", "migrate")
        restored = arbiter(tmp_path / "target", target, target_heads, "restore", str(backup))
        assert "1 anchored heads" in restored, restored
        with connect(target_heads) as conn:
            assert conn.execute("SELECT game, version FROM arbiter_heads").fetchall() == [
                (gid, version)
            ]
        # a second restore into the same heads database is refused: it is not empty
        again = subprocess.run(
            [ARBITER, "restore", str(backup)],
            env=dict(
                env,
                ARBITER_VAR=str(tmp_path / "other" / "var"),
                POSTGRES_DBNAME=events,
                ARBITER_HEADS=url(target_heads),
            ),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert again.returncode != 0
        assert "the heads database" in again.stderr + again.stdout
        assert "holds 1 anchored heads" in again.stderr + again.stdout
