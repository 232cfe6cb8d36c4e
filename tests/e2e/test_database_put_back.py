"""The database put back under a running server (issue 53): the README's PostgreSQL recipe serves
a game, every command through it, so its memory holds the game at its last version; the game's
rows are then put back as restoring an earlier dump would.  The next command, decided on what the
server remembers, is refused (409) and nothing is stored past the end (before: accepted, and
stored at versions the dump never reached -- a gap); the game then reads as stored, and play from
there is refused as a rollback until an operator reconciles it (``log_behind_head``)."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from tests.support.races import END, GAME, Client, base_env, on_postgres, server, token
from tests.support.services import PG, postgres_database

pytestmark = pytest.mark.postgres


def test_a_command_past_a_database_put_back_under_a_running_server_is_refused(
    tmp_path: Path,
) -> None:
    with postgres_database() as dbname:
        env = on_postgres(base_env(tmp_path / "var"), dbname)
        db = psycopg.connect(
            dbname=dbname, host=str(PG["host"]), port=str(PG["port"]), user=str(PG["user"]),
            autocommit=True,
        )  # fmt: skip
        with db, server(env) as port:
            client = Client(port, token(port, "racer"))
            status, game = client.call(
                "POST", "/api/games", dict(GAME, sides={"red": "racer", "blue": "racer"})
            )
            assert status == 201, game
            path, version = f"/api/games/{game['id']}", int(game["version"])
            for _ in range(6):
                status, body = client.call(
                    "POST", f"{path}/commands", {"expected_version": version, "command": END}
                )
                assert status == 201, body
                version = int(body["version"])
            dumped = version - 4

            stored = "SELECT originator_version FROM arbiter_events WHERE originator_id = %s"
            db.execute(
                "DELETE FROM arbiter_events WHERE originator_id = %s AND originator_version > %s",
                (game["id"], dumped),
            )  # the game's rows as a dump taken at ``dumped`` restores them

            status, body = client.call(
                "POST", f"{path}/commands", {"expected_version": version, "command": END}
            )
            assert status == 409, body
            rows = sorted(v for (v,) in db.execute(stored, (game["id"],)).fetchall())
            assert rows == list(range(1, dumped + 1))  # nothing stored past the end: no gap

            status, body = client.call("GET", path)
            assert status == 200 and body["version"] == dumped  # the cache let the game go
            status, body = client.call(
                "POST", f"{path}/commands", {"expected_version": dumped, "command": END}
            )
            assert status == 409 and body["error"] == "log_behind_head", body
            rows = sorted(v for (v,) in db.execute(stored, (game["id"],)).fetchall())
            assert rows == list(range(1, dumped + 1))
            client.close()
