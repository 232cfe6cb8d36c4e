"""schemathesis against a real ``arbiter serve`` (a free port, a temporary ARBITER_VAR), from its
``/api/openapi.json``: every operation, with a real game's id, the active side's token and the
game's current ``expected_version`` put into each generated request so that it reaches the rules
(a random version would be a 409 before any rule runs): no 5xx, every error in the documented
shape.  Live streams are left out (each holds its connection for its window)."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import given

from tests.e2e.test_server_process import Server
from tests.fuzz.support import error_problems, fuzz_settings
from tests.support.api import PASSWORD

pytestmark = pytest.mark.slow(
    "schemathesis against a real server, every operation with a live game"
)


class Live:
    """The served app with a game of each system and a user per side."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.url = server.url
        self.tokens: dict[str, str] = {}
        self.games: list[dict[str, Any]] = []
        self._turn = itertools.count()

    def token(self, user: str) -> str:
        if user not in self.tokens:
            body = {"username": user, "password": PASSWORD}
            requests.post(self.url + "/api/users", json=body, timeout=10)
            answer = requests.post(self.url + "/api/tokens", json=body, timeout=10)
            self.tokens[user] = answer.json()["token"]
        return self.tokens[user]

    def create_games(self) -> None:
        seen: set[str] = set()
        for scenario in requests.get(self.url + "/api/scenarios", timeout=10).json():
            if scenario["system"] in seen:
                continue
            seen.add(scenario["system"])
            users = {s: f"{scenario['system'][:6]}-{i}" for i, s in enumerate(scenario["sides"])}
            creator = next(iter(users.values()))
            for user in users.values():
                self.token(user)
            made = requests.post(
                self.url + "/api/games",
                json={  # public: aimed by anonymous reads (the fuzzed calls revoke tokens)
                    "system": scenario["system"],
                    "scenario": scenario["id"],
                    "sides": users,
                    "public": True,
                },
                headers={"Authorization": f"Bearer {self.token(creator)}"},
                timeout=30,
            )
            assert made.status_code == 201, made.text
            self.games.append({**made.json(), "users": users})

    def aim(self, case: Any) -> dict[str, str]:
        """Point ``case`` at a real game (the next one in turn), with its version and active side;
        the headers of that side's user."""
        game = self.games[next(self._turn) % len(self.games)]
        now = requests.get(f"{self.url}/api/games/{game['id']}", timeout=10).json()
        side = (now.get("active_sides") or list(game["users"]))[0]
        params = case.path_parameters or {}
        if "game_id" in params:
            params["game_id"] = game["id"]
        if "name" in params:
            params["name"] = game["system"]
        if isinstance(case.body, dict):
            if "expected_version" in case.body:
                case.body["expected_version"] = now["version"]
            if "side" in case.body:
                case.body["side"] = side
        return {"Authorization": f"Bearer {self.token(game['users'][side])}"}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    env = dict(os.environ)
    env.update(
        ARBITER_VAR=str(tmp_path_factory.mktemp("served") / "var"),
        ARBITER_PLUGINS="tests.fixtures.skirmish",
        ARBITER_STORE="sqlite",
    )
    env.pop("REDIS_URL", None)
    server = Server(env)
    server.start()
    try:
        served = Live(server)
        served.create_games()
        yield served
    finally:
        server.stop()


def operations(live: Live) -> list[Any]:
    schema = schemathesis.openapi.from_url(live.url + "/api/openapi.json")
    found = [result.ok() for result in schema.get_all_operations()]
    return [op for op in found if not op.path.endswith("/stream")]


def test_every_operation_reaches_the_rules_without_a_5xx(live: Live) -> None:
    """Positive and negative cases of each operation (schemathesis's own generation)."""
    served = operations(live)
    assert len(served) >= 30, [op.path for op in served]
    failures: list[Any] = []
    for operation in served:
        cases = operation.as_strategy(schemathesis.GenerationMode.POSITIVE) | operation.as_strategy(
            schemathesis.GenerationMode.NEGATIVE
        )

        @fuzz_settings(6)
        @given(case=cases)
        def probe(case: Any) -> None:
            headers = live.aim(case)
            response = case.call(base_url=live.url, headers=headers, timeout=30)
            problems = error_problems(response)
            if problems:
                failures.append((problems, case.method, case.formatted_path, str(case.body)[:300]))

        probe()
    assert not failures, failures[:10]
