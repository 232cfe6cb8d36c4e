"""The new user's story, against a real `arbiter serve` process: two users, a game with dice, a 409,
4xx on bad input, a restart that keeps the game, and dice verified by the CLI and by hand."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from service.domain import dice
from tests.support.api import every
from tests.support.kb import seed_index

ARBITER = str(Path(sys.executable).parent / "arbiter")
REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the server; a port another process took between ``free_port`` and the bind
        (tests run on several workers at once) is given up for a fresh one, twice at most."""
        for attempt in range(3):
            try:
                return self._start()
            except AssertionError as exc:
                if "Address already in use" not in str(exc) or attempt == 2:
                    raise
                self.port = free_port()
                self.url = f"http://127.0.0.1:{self.port}"

    def _start(self) -> None:
        seed_index(self.env["ARBITER_VAR"])
        self.proc = subprocess.Popen(
            [ARBITER, "serve", "--port", str(self.port)],
            env=self.env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(self.url + "/healthz", timeout=1).ok:
                    return
            except (requests.ConnectionError, requests.Timeout):
                time.sleep(0.1)
            if self.proc.poll() is not None:
                raise AssertionError(
                    self.proc.stderr.read().decode() if self.proc.stderr else "server died"
                )
        raise AssertionError("server did not start")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    values = dict(os.environ)
    values.update(
        ARBITER_VAR=str(tmp_path / "var"),
        ARBITER_PLUGINS="tests.fixtures.skirmish",
        ARBITER_STORE="sqlite",
    )
    values.pop("REDIS_URL", None)
    return values


@pytest.fixture
def server(env: dict[str, str]) -> Iterator[Server]:
    srv = Server(env)
    srv.start()
    yield srv
    srv.stop()


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ARBITER, *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=60
    )


@pytest.mark.slow("a new user's story through a real server process")
def test_a_new_users_story(server: Server, env: dict[str, str]) -> None:
    for name in ("alice", "bob"):
        assert cli(env, "users", "add", name, "--password", "correct horse").returncode == 0
    tokens = {}
    for name in ("alice", "bob"):
        r = requests.post(
            server.url + "/api/tokens", json={"username": name, "password": "correct horse"}
        )
        tokens[name] = {"Authorization": f"Bearer {r.json()['token']}"}
    r = requests.post(
        server.url + "/api/games",
        json={
            "system": "skirmish",
            "scenario": "meeting",
            "sides": {"red": "alice", "blue": "bob"},
            "options": {"turns": 1},
        },
        headers=tokens["alice"],
    )
    assert r.status_code == 201
    game = r.json()
    url = f"{server.url}/api/games/{game['id']}"
    assert game["status"] == "invited"  # naming bob asks him first
    r = requests.post(url + "/accept", headers=tokens["bob"])
    assert r.status_code == 200 and r.json()["status"] == "active"
    started = r.json()["version"]

    def command(user: str, body: dict, version: int) -> requests.Response:
        return requests.post(
            url + "/commands",
            json={"expected_version": version, "command": body},
            headers=tokens[user],
        )

    r = command("alice", {"type": "move", "unit": "r2", "path": ["D3", "D4", "D5", "D6"]}, started)
    assert r.status_code == 201
    version = r.json()["version"]
    assert command("alice", {"type": "end_phase"}, started).status_code == 409  # stale
    assert command("alice", {"type": "teleport"}, version).status_code == 400  # bad input
    assert command("bob", {"type": "end_phase"}, version).status_code == 403  # not bob's turn
    r = command("alice", {"type": "end_phase"}, version)
    assert r.status_code == 201
    attack = every(
        next(
            a
            for a in requests.get(url + "/actions", headers=tokens["alice"]).json()["actions"]
            if a["type"] == "attack"
        )
    )
    r = command("alice", attack, r.json()["version"])
    assert r.status_code == 201 and any(e["type"] == "DiceRolled" for e in r.json()["events"])
    before = requests.get(url, headers=tokens["alice"]).json()

    server.stop()
    server.start()
    after = requests.get(url, headers=tokens["alice"]).json()
    assert (after["version"], after["state"]) == (before["version"], before["state"])

    verified = cli(env, "dice", "verify", game["id"])
    assert verified.returncode == 0 and json.loads(verified.stdout)["ok"]
    version = after["version"]
    for user in ("alice", "bob", "bob"):
        r = command(user, {"type": "end_phase"}, version)
        assert r.status_code == 201, r.text
        version = r.json()["version"]
    final = requests.get(url, headers=tokens["alice"]).json()
    assert final["status"] == "ended"
    seed = final["dice"]["seed"]
    rolls = [
        roll
        for e in requests.get(url + "/events", headers=tokens["alice"]).json()["events"]
        if e["type"] == "DiceRolled"
        for roll in e["payload"]["rolls"]
    ]
    assert rolls and all(
        dice.derive_roll(seed, game["id"], x["index"], x["entropy"], x["sides"]) == x["value"]
        for x in rolls
    )
