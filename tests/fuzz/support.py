"""What the fuzz suite and the input-gate tests share: an app that answers a 500 (not raises it),
one game of every system with a user per side, the documented error shape, a valid situation of
each system's combat preview."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings
from werkzeug.test import TestResponse

from service.app import create_app
from tests.conftest import make_config
from tests.support.api import PASSWORD
from tests.support.scale import fuzz_scale

ERROR_KEYS = {"error", "message", "details"}


def fuzz_settings(examples: int) -> settings:
    """``examples`` per property by default (``ARBITER_FUZZ_SCALE=10`` runs ten times as many),
    derandomized under CI so that a run is repeatable."""
    scale = fuzz_scale()
    return settings(
        max_examples=max(1, int(examples * scale)),
        deadline=None,
        derandomize=os.environ.get("CI") == "true",
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


def error_problems(response: TestResponse | Any, status: int | None = None) -> list[str]:
    """What is wrong with an answer: a 5xx, or a 4xx not in the documented error shape
    (``{"error": code, "message": text, "details": {field: [reasons]}}``)."""
    code = getattr(response, "status_code", None)
    found = []
    if code is None or code >= 500:
        found.append(f"status {code}")
    if status is not None and code != status:
        found.append(f"status {code}, expected {status}")
    if code is not None and code >= 400:
        body = _json(response)
        if not isinstance(body, dict) or set(body) != ERROR_KEYS:
            found.append(f"not the error shape: {str(body)[:200]}")
        else:
            details = body["details"]
            ok = isinstance(body["error"], str) and isinstance(body["message"], str)
            ok = ok and isinstance(details, dict)
            ok = ok and all(
                isinstance(v, list) and all(isinstance(x, str) for x in v) for v in details.values()
            )
            if not ok:
                found.append(f"malformed error body: {str(body)[:200]}")
    return found


def _json(response: Any) -> Any:
    if hasattr(response, "get_json"):
        return response.get_json(silent=True)
    try:
        return response.json()
    except ValueError:
        return None


def assert_error(response: Any, status: int | None = None, field: str | None = None) -> dict:
    problems = error_problems(response, status)
    body = response.get_json(silent=True)
    assert not problems and (code := response.status_code) >= 400, (problems, code, body)
    if field is not None:
        assert field in body["details"], (field, body)
    return body


#: a valid situation of each system's ``POST /api/systems/<name>/combat-preview``
SITUATIONS: dict[str, list[dict[str, Any]]] = {
    "merida": [
        {
            "attackers": [{"type": "infantry", "strength": 6}, {"type": "armor", "strength": 2}],
            "defenders": [{"type": "infantry", "strength": 2}],
            "settlement": "town",
            "terrain": "mountain",
            "across_river": True,
            "attacker_air": 1,
            "defender_air": 1,
            "strategic_modifier": 2,
            "roll": 3,
        }
    ],
    "backbone": [
        {
            "attacker_side": "allied",
            "terrain": "broken",
            "amphibious": True,
            "attackers": [
                {"id": "tk", "attack": 7, "efficiency": 2, "steps": 4, "from": "sea"},
                {"id": "cdo", "attack": 3, "efficiency": 3, "steps": 1, "amphibious": True},
            ],
            "defenders": [{"id": "cav", "defense": 2, "efficiency": 1, "steps": 2}],
            "attacker": {"naval": 2, "air": 2},
            "defender": {"air": 1},
            "roll": 2,
        }
    ],
    "bizkaya": [
        {
            "attackers": [
                {"id": "g", "attack": 18, "morale": 3},
                {"id": "lacar", "attack": 2, "morale": 5},
            ],
            "defenders": [{"id": "v16", "defence": 3, "morale": 2}],
            "terrain": "forest",
            "dice": {"nationalist": 5, "republican": 5},
        },
        {"kind": "barrage", "factors": 14, "entrenched": True, "roll": 5},
    ],
    "barcelona": [
        {
            "weapon": "Field Gun",
            "distance": 50,
            "target": {"kind": "figures", "works": True},
            "rolls": [3, 5],
            "firer_moved": True,
        },
        {"weapon": "HMG", "distance": 10, "target": {"kind": "afv", "class": "A"}, "rolls": [6, 6]},
    ],
}


@dataclass
class Table:
    """An app on a temporary store with a game of every system, a user per side."""

    app: Flask
    client: FlaskClient
    tokens: dict[str, str] = field(default_factory=dict)
    games: dict[str, dict[str, Any]] = field(default_factory=dict)

    def headers(self, username: str) -> dict[str, str]:
        if username not in self.tokens:
            body = {"username": username, "password": PASSWORD}
            self.client.post("/api/users", json=body)
            token = self.client.post("/api/tokens", json=body).get_json()["token"]
            self.tokens[username] = token
        return {"Authorization": f"Bearer {self.tokens[username]}"}

    def game(self, system: str) -> dict[str, Any]:
        """The game of ``system`` now, as its first side sees it."""
        gid = self.games[system]["id"]
        user = next(iter(self.games[system]["users"].values()))
        return self.client.get(f"/api/games/{gid}", headers=self.headers(user)).get_json()

    def actor(self, system: str) -> tuple[str, str]:
        """An active side of ``system``'s game and its user (the first side once it has ended)."""
        game = self.game(system)
        users = self.games[system]["users"]
        side = (game["active_sides"] or list(users))[0]
        return side, users[side]

    def version(self, system: str) -> int:
        return int(self.game(system)["version"])


def open_table(var: Path, index_template: Path) -> Table:
    config = make_config(var, testing=False)
    shutil.copytree(index_template, config.index_dir)
    app = create_app(config)
    table = Table(app, app.test_client())
    seen: set[str] = set()
    for scenario in table.client.get("/api/scenarios").get_json():
        if scenario["system"] in seen:
            continue
        seen.add(scenario["system"])
        users = {side: f"{scenario['system'][:6]}-{i}" for i, side in enumerate(scenario["sides"])}
        creator = next(iter(users.values()))
        for user in users.values():
            table.headers(user)
        made = table.client.post(
            "/api/games",
            json={"system": scenario["system"], "scenario": scenario["id"], "sides": users},
            headers=table.headers(creator),
        )
        assert made.status_code == 201, made.get_json()
        gid = made.get_json()["id"]
        for user in dict.fromkeys(users.values()):  # the other named players accept
            if user != creator:
                r = table.client.post(f"/api/games/{gid}/accept", headers=table.headers(user))
                assert r.status_code == 200, r.get_json()
        game = table.client.get(f"/api/games/{gid}", headers=table.headers(creator)).get_json()
        table.games[scenario["system"]] = {**game, "users": users}
    return table
