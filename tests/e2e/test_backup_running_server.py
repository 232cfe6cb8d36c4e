"""A club moves (issue 34, item 8): a real `arbiter serve` on SQLite plays games, has users, a club
with a ladder and notices, all through its HTTP API; `arbiter backup` is taken while a game is being
played; `arbiter restore` loads it into a fresh PostgreSQL database, and a server started on it
serves the same games, users, ladder and notices, `arbiter audit verify --all` is clean, and play
and notices go on."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.services import PG, postgres_database
from tests.support.tcp_proxy import free_port

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow(
        "a real server plays games, is backed up while playing and restored into PostgreSQL, then served again"
    ),
]

ARBITER = str(Path(sys.executable).parent / "arbiter")
REPO = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery"
END = {"type": "end_phase"}


class Server:
    """`arbiter serve` in a subprocess (its embedded notification worker included)."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.url = f"http://127.0.0.1:{free_port()}"
        self.tokens: dict[str, dict[str, str]] = {}
        port = self.url.rsplit(":", 1)[1]
        self.proc = subprocess.Popen(
            [ARBITER, "serve", "--port", port],
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=open(log, "wb"),  # noqa: SIM115 - the child's; a pipe nobody reads fills up
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if requests.get(self.url + "/healthz", timeout=1).ok:
                    return
            except requests.RequestException:
                time.sleep(0.1)
            if self.proc.poll() is not None:
                raise AssertionError(log.read_text())
        raise AssertionError("the server did not start")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)

    def call(self, method: str, path: str, user: str | None = None, **kwargs: Any) -> Any:
        headers = self.tokens[user] if user else {}
        return requests.request(method, self.url + path, headers=headers, timeout=10, **kwargs)

    def ok(
        self, method: str, path: str, user: str | None = None, status: int = 200, **kw: Any
    ) -> Any:
        r = self.call(method, path, user, **kw)
        assert r.status_code == status, (method, path, r.status_code, r.text)
        return r.json()

    def sign_in(self, name: str) -> dict[str, str]:
        body = self.ok(
            "POST", "/api/tokens", status=201, json={"username": name, "password": PASSWORD}
        )
        self.tokens[name] = {"Authorization": f"Bearer {body['token']}"}
        return self.tokens[name]

    def end_phase(self, gid: str, reader: str) -> int:
        """The active side's player ends its phase (the game read as ``reader``); the status."""
        game = self.ok("GET", f"/api/games/{gid}", reader)
        player = game["sides"][game["active_sides"][0]]
        body = {"expected_version": game["version"], "command": END}
        return int(self.call("POST", f"/api/games/{gid}/commands", player, json=body).status_code)


def env_for(root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARBITER_", "POSTGRES_"))}
    env.pop("REDIS_URL", None)
    env.update(
        ARBITER_VAR=str(root / "var"),
        ARBITER_SECRET_KEY="club-moves-secret",
        ARBITER_PLUGINS="tests.fixtures.skirmish",
        **extra,
    )
    return env


def arbiter(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ARBITER, *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=180
    )


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        server.stop()


def new_game(server: Server, red: str, blue: str) -> str:
    body = {"system": "skirmish", "scenario": "meeting", "sides": {"red": red, "blue": blue}}
    game = server.ok("POST", "/api/games", red, status=201, json=body)
    server.ok("POST", f"/api/games/{game['id']}/accept", blue)
    return str(game["id"])


def notices(server: Server, user: str) -> list[dict[str, Any]]:
    return list(
        server.ok("GET", "/api/me/notifications", user, params={"limit": 200})["notifications"]
    )


def settled(read: Any, timeout: float = 30, until: Any = bool) -> Any:
    """``read()`` once two reads a second apart agree and ``until`` holds of it (the worker has
    caught up: on a busy machine two reads may agree before the worker has taken a new event)."""
    deadline = time.monotonic() + timeout
    last = read()
    while time.monotonic() < deadline:
        time.sleep(1)
        now = read()
        if now == last and until(now):
            return now
        last = now
    raise AssertionError("the notification worker did not catch up")


def what_it_serves(server: Server, gid: str, ladder: str, club: str) -> dict[str, Any]:
    return {
        "game": server.ok("GET", f"/api/games/{gid}", "alice"),
        "events": server.ok("GET", f"/api/games/{gid}/events", "alice")["events"],
        "ladder": server.ok("GET", f"/api/ladders/{ladder}"),
        "standings": server.ok("GET", f"/api/ladders/{ladder}/standings"),
        "club": server.ok("GET", f"/api/clubs/{club}", "alice"),
        "me": {name: server.ok("GET", "/api/me", name) for name in ("alice", "bob")},
        "notices": {name: notices(server, name) for name in ("alice", "bob")},
    }


def test_a_running_sqlite_servers_backup_restores_into_postgresql_and_serves_the_same(
    tmp_path: Path, servers: list[Server]
) -> None:
    source = Server(env_for(tmp_path / "sqlite"), tmp_path / "sqlite.log")
    servers.append(source)
    for name in ("alice", "bob", "carol", "dave"):
        source.ok("POST", "/api/users", status=201, json={"username": name, "password": PASSWORD})
        source.sign_in(name)
    club = source.ok("POST", "/api/clubs", "alice", status=201, json={"name": "Mill Club"})["id"]
    source.ok(
        "POST",
        f"/api/clubs/{club}/members",
        "alice",
        status=201,
        json={"username": "bob", "roles": ["player"]},
    )
    source.ok("POST", f"/api/clubs/{club}/invitation", "bob", json={"accept": True})
    ladder = source.ok(
        "POST",
        f"/api/clubs/{club}/ladders",
        "alice",
        status=201,
        json={"name": "Mill ladder", "system": "skirmish", "scenario": "meeting"},
    )["id"]
    for name in ("alice", "bob"):
        source.ok("POST", f"/api/ladders/{ladder}/players", name, status=201)
    gid = new_game(source, "alice", "bob")
    for _ in range(5):
        assert source.end_phase(gid, "alice") == 201
    settled(lambda: notices(source, "bob"))
    first = notices(source, "bob")[-1]["id"]
    source.ok("POST", "/api/me/notifications/read", "bob", json={"ids": [first]})
    before = settled(lambda: what_it_serves(source, gid, ladder, club))

    # carol and dave play on (a new game when one ends) while the backup is taken
    busy: list[str] = []
    stop, played = threading.Event(), []

    def keep_playing() -> None:
        while not stop.is_set() and len(played) < 2000:
            game = source.ok("GET", f"/api/games/{busy[-1]}", "carol") if busy else None
            if game is None or not game["active_sides"]:
                busy.append(new_game(source, "carol", "dave"))
                continue
            played.append(source.end_phase(busy[-1], "carol"))

    player = threading.Thread(target=keep_playing)
    player.start()
    try:
        while len(played) < 3:
            assert player.is_alive(), "the player stopped"
            time.sleep(0.05)
        during = len(played)
        started = time.monotonic()
        done = arbiter(source.env, "backup", str(tmp_path / "club.backup"))
        took = time.monotonic() - started
        during = len(played) - during
    finally:
        stop.set()
        player.join()
    assert done.returncode == 0, done.stderr
    assert during > 0 and set(played) == {201}  # the server wrote while the backup was taken
    live = {b: source.ok("GET", f"/api/games/{b}/events", "carol")["events"] for b in busy}
    size = (tmp_path / "club.backup").stat().st_size
    print(f"backup of a running server: {took:.1f} s, {size} bytes, {len(played)} moves meanwhile")
    source.stop()

    with postgres_database() as dbname:
        env = env_for(
            tmp_path / "postgres",
            ARBITER_STORE="postgres",
            POSTGRES_DBNAME=dbname,
            POSTGRES_HOST=PG["host"],
            POSTGRES_PORT=str(PG["port"]),
            POSTGRES_USER=PG["user"],
        )
        started = time.monotonic()
        done = arbiter(env, "restore", str(tmp_path / "club.backup"))
        print(f"restore into PostgreSQL: {time.monotonic() - started:.1f} s; {done.stdout}")
        assert done.returncode == 0, done.stderr
        verified = re.search(r"(\d+) of (\d+) games verify", done.stdout)
        assert verified and verified[1] == verified[2] and int(verified[1]) >= 2, done.stdout
        verify = arbiter(env, "audit", "verify", "--all")
        assert verify.returncode == 0, verify.stdout + verify.stderr

        moved = Server(env, tmp_path / "postgres.log")
        servers.append(moved)
        moved.tokens = dict(source.tokens)  # the same bearer tokens still sign in
        after = what_it_serves(moved, gid, ladder, club)
        assert after == before
        for name in ("alice", "carol"):
            moved.sign_in(name)  # and the same passwords
        # the games played during the backup: each a consistent prefix of what the server went
        # on to hold (a game created after the backup is not there at all)
        restored = 0
        for game, events in live.items():
            r = moved.call("GET", f"/api/games/{game}/events", "carol")
            if r.status_code == 404:
                continue
            restored += 1
            assert r.status_code == 200 and 0 < len(r.json()["events"]) <= len(events)
            assert r.json()["events"] == events[: len(r.json()["events"])]
        assert restored + 1 == int(verified[1])
        heads = arbiter(env, "audit", "heads")
        assert heads.returncode == 0 and len(heads.stdout.splitlines()) == restored + 1

        # play goes on, anchored, and the notification worker carries on from its position
        assert moved.end_phase(gid, "alice") == 201
        had = len(before["notices"]["bob"])
        told = settled(lambda: notices(moved, "bob"), until=lambda now: len(now) > had)
        assert len(told) > had
        assert len({n["id"] for n in told}) == len(told)  # nothing derived twice
        verify = arbiter(env, "audit", "verify", "--all")
        assert verify.returncode == 0, verify.stdout + verify.stderr
        moved.stop()
