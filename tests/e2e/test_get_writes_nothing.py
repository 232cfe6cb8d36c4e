"""No GET request writes anything (issue 27's read side; the project's standard "GETs never
write"): a store seeded through the API with a bit of everything (users, a club with members, a
ladder with results, a campaign, games of several systems -- ended, active, invited --, a dispute,
open games, club scenarios, tokens, webhooks, notifications), then every GET route of the app,
API and web pages, asked as a visitor, a player, a club admin and a signed-in non-player (bearer
token and web session cookie), with no worker running.  Every SQLite file of the store is compared
before and after, and each request is checked for a commit by anyone (``PRAGMA data_version``)."""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from PIL import Image

from service.application.notifications import unsubscribe_token
from service.bootstrap import build_worker
from tests.conftest import app_of, make_config
from tests.support.api import PASSWORD, ApiHelper

#: a floor on the GET routes asked, so that the test cannot pass by asking nothing
MIN_ROUTES = 70


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, (response.request.path, response.get_json())
    return response.get_json()


@pytest.fixture
def app(tmp_path: Path, index_template: Path) -> Iterator[Flask]:
    config = make_config(tmp_path, webhook_allow_private=True, public_url="http://arbiter.test")
    assert not config.embedded_worker  # nothing runs but the requests of the test
    with app_of(config, index_template) as application:
        yield application


def play_to_the_end(api: ApiHelper, game_id: str, reader: str) -> None:
    """One turn of skirmish (options turns=1): red takes the Crossroads, every phase ends."""
    game = api.game(game_id, reader)
    red, blue = game["sides"]["red"], game["sides"]["blue"]
    ok(api.command(game_id, red, {"type": "move", "unit": "r2", "path": ["D3", "D4"]}), 201)
    for user in (red, red, blue, blue):
        ok(api.command(game_id, user, {"type": "end_phase"}), 201)
    assert api.game(game_id, reader)["status"] == "ended"


def challenge(api: ApiHelper, lid: str, low: int, above: int) -> dict[str, Any]:
    """The player ranked ``low`` challenges the one ranked ``above`` (indexes of the standings)."""
    rows = ok(api.client.get(f"/api/ladders/{lid}/standings"))["standings"]
    return ok(  # type: ignore[no-any-return]
        api.client.post(
            f"/api/ladders/{lid}/challenges",
            json={"opponent": rows[above]["username"], "side": "red", "options": {"turns": 1}},
            headers=api.user(rows[low]["username"]),
        ),
        201,
    )


def accepted(api: ApiHelper, challenge: dict[str, Any]) -> str:
    """The challenge accepted: its game's id."""
    opponent = api.user(challenge["opponent"])
    done = ok(api.client.post(f"/api/challenges/{challenge['id']}/accept", headers=opponent), 201)
    return str(done["game"])


def seed(app: Flask, api: ApiHelper) -> dict[str, str]:
    """A store with a bit of everything, made through the API; the ids GET routes are asked with."""
    post = api.client.post
    ann, bob = api.user("ann"), api.user("bob")
    for name in ("cat", "dan", "eve"):
        api.user(name)
    svc = app.extensions["arbiter"]
    arbiter = svc.users.by_name("ann")
    arbiter.grant("arbiter")  # a site arbiter: the disputes queue has something to show
    svc.store.commit(arbiter)
    club = ok(post("/api/clubs", json={"name": "Hex Club"}, headers=ann), 201)
    cid = club["id"]
    for name in ("bob", "cat", "dan"):
        api.admit(f"/api/clubs/{cid}/members", {"username": name, "roles": ["player"]}, ann)
    # an invitation and a join request waiting (eve's), for their lists
    api.user("fay")
    ok(post(f"/api/clubs/{cid}/invitations", json={"username": "fay"}, headers=ann), 201)
    ok(post(f"/api/clubs/{cid}/requests", headers=api.user("eve")), 201)
    # a ladder with a game result and a face-to-face result
    ladder = ok(
        post(
            f"/api/clubs/{cid}/ladders",
            json={
                "name": "Mill ladder",
                "system": "skirmish",
                "scenario": "meeting",
                "settings": {"challenge_range": 5},
            },
            headers=ann,
        ),
        201,
    )
    lid = ladder["id"]
    for name in ("bob", "cat", "dan"):
        ok(post(f"/api/ladders/{lid}/players", headers=api.user(name)), 201)
    ended = accepted(api, challenge(api, lid, -1, -2))
    play_to_the_end(api, ended, "ann")
    report = ok(
        post(
            f"/api/ladders/{lid}/reports",
            json={"sides": {"red": "bob", "blue": "cat"}, "winner": "blue"},
            headers=bob,
        ),
        201,
    )
    ok(post(f"/api/reports/{report['id']}/confirm", headers=api.user("cat")))
    # a campaign whose first step's game is played to the end
    campaign = ok(
        post(
            f"/api/clubs/{cid}/campaigns",
            json={
                "name": "Autumn campaign",
                "sides": ["red", "blue"],
                "steps": [
                    {"title": "Meeting at the Mill", "system": "skirmish", "scenario": "meeting"},
                    {"title": "The river crossing", "system": "skirmish", "scenario": "meeting"},
                ],
                "scoring": {"victory": 3, "decisive": 5, "draw": 1},
            },
            headers=ann,
        ),
        201,
    )
    step = ok(
        post(
            f"/api/campaigns/{campaign['id']}/steps/0/start",
            json={"sides": {"red": "bob", "blue": "cat"}, "options": {"turns": 1}},
            headers=ann,
        ),
        201,
    )
    play_to_the_end(api, step["game"], "ann")
    # games of several systems: active (one public), with a dispute, and an invitation
    active = api.create_game("skirmish", "meeting", {"red": "bob", "blue": "dan"})["id"]
    moved = ok(
        api.command(active, "bob", {"type": "move", "unit": "r2", "path": ["D3", "D4"]}), 201
    )
    seq = moved["events"][-1]["seq"]
    dispute = ok(
        post(
            f"/api/games/{active}/disputes",
            json={"seq": seq, "claim": "the Crossroads were out of reach"},
            headers=api.user("dan"),
        ),
        201,
    )
    merida = api.create_game(
        "merida", "merida-1938", {"nationalist": "bob", "republican": "dan"}, public=True
    )["id"]
    api.create_game("bizkaya", "bizkaya-1937", {"nationalist": "dan", "republican": "bob"})
    invited = ok(
        post(
            "/api/games",
            json={
                "system": "skirmish",
                "scenario": "meeting",
                "sides": {"red": "bob", "blue": "dan"},
            },
            headers=bob,
        ),
        201,
    )["id"]
    # open games, one of them the club's
    ok(
        post(
            "/api/seeks",
            json={"system": "skirmish", "scenario": "meeting", "side": "blue"},
            headers=api.user("cat"),
        ),
        201,
    )
    ok(
        post(
            "/api/seeks",
            json={"system": "skirmish", "scenario": "meeting", "club": cid},
            headers=api.user("dan"),
        ),
        201,
    )
    # a club scenario: published once, then edited again (a draft)
    scenario = ok(
        post(
            f"/api/clubs/{cid}/scenarios",
            json={"system": "merida", "base": "merida-1938", "title": "Merida, our map"},
            headers=ann,
        ),
        201,
    )
    sid = scenario["id"]
    scan = io.BytesIO()  # the scan of its printed map (docs/scenario-library.md "Map image")
    Image.new("RGB", (640, 480), (200, 190, 150)).save(scan, format="PNG")
    ok(
        post(
            f"/api/club-scenarios/{sid}/map-image",
            data=scan.getvalue(),
            content_type="image/png",
            headers=ann,
        ),
        201,
    )
    fit = [
        {"hex": "A1", "x": 20, "y": 20},
        {"hex": "A10", "x": 290, "y": 37},
        {"hex": "J1", "x": 20, "y": 332},
    ]
    ok(
        api.client.put(
            f"/api/club-scenarios/{sid}/map-image/calibration", json={"points": fit}, headers=ann
        )
    )
    for terrain in ("mountain", "clear"):
        change = {"kind": "terrain", "hex": "AB4", "terrain": terrain}
        ok(post(f"/api/club-scenarios/{sid}/edits", json={"changes": [change]}, headers=ann))
        if terrain == "mountain":
            ok(post(f"/api/club-scenarios/{sid}/versions", json={}, headers=ann), 201)
    # a game on that version: its board draws the scan under the hexes
    scan_game = api.create_game(
        "merida", sid, {"nationalist": "ann", "republican": "bob"}, creator="ann", public=True
    )
    # tokens (a second one of bob's), webhooks of a user and of the club
    ok(post("/api/tokens", json={"username": "bob", "password": PASSWORD, "label": "phone"}), 201)
    hook = ok(post("/api/me/webhooks", json={"url": "http://127.0.0.1:9/bob"}, headers=bob), 201)
    club_hook = ok(
        post(f"/api/clubs/{cid}/webhooks", json={"url": "http://127.0.0.1:9/club"}, headers=ann),
        201,
    )
    # the worker's step: notifications, deliveries (to nowhere: they fail), results
    worker = build_worker(svc, process=svc.notifications.process)
    worker.step()
    worker.stop()
    # an open challenge; then a ladder game and a campaign game that end after the worker's
    # last step and after every ladder or campaign request: their results wait for the worker
    challenge(api, lid, -1, -2)
    late = accepted(api, challenge(api, lid, -2, 0))
    step = ok(
        post(
            f"/api/campaigns/{campaign['id']}/steps/1/start",
            json={"sides": {"red": "cat", "blue": "bob"}, "options": {"turns": 1}},
            headers=ann,
        ),
        201,
    )
    play_to_the_end(api, late, "ann")
    play_to_the_end(api, step["game"], "ann")
    for game in (active, invited):  # a chat and notes to read (issue 30)
        ok(
            api.client.post(
                f"/api/games/{game}/chat", json={"text": "hi"}, headers=api.user("bob")
            ),
            201,
        )
        ok(api.client.put(f"/api/games/{game}/notes", json={"text": "n"}, headers=api.user("bob")))
    # a club event whose game ends after the worker's last step: its result waits for the worker
    event = ok(
        post(
            f"/api/clubs/{cid}/events",
            json={"name": "Swiss", "format": "swiss", "rounds": 1, "system": "skirmish"}
            | {"scenario": "meeting", "options": {"turns": 1}},
            headers=ann,
        ),
        201,
    )
    for name in ("bob", "cat"):
        ok(post(f"/api/events/{event['id']}/join", headers=api.user(name)), 201)
    started = ok(post(f"/api/events/{event['id']}/start", headers=ann), 201)
    event_game = started["rounds"][0]["games"][0]["game"]  # under way since it was paired
    play_to_the_end(api, event_game, "ann")
    bob_user = svc.users.by_name("bob")
    return {
        "campaign_id": campaign["id"],
        "event_id": event["id"],
        "club": cid,
        "scenario": sid,
        "hook": hook["id"],
        "club_hook": club_hook["id"],
        "ladder_id": lid,
        "ended": ended,
        "active": active,
        "merida": merida,
        "scan_game": scan_game["id"],
        "invited": invited,
        "dispute": str(dispute["dispute"]),
        "table": ok(api.client.get("/api/systems/merida"))["tables"][0],
        "unsubscribe": f"user={bob_user.id}&kind=turn&token="
        + unsubscribe_token(svc.config.secret_key, str(bob_user.id), "turn"),
    }


def urls(ids: dict[str, str]) -> dict[str, list[str]]:
    """Each GET rule of the app and the paths it is asked with (a new GET route must be added
    here: the test fails on a rule it has no path for).  The streams are asked too: each ends
    after its window (1 s, the least), its idle steps run meanwhile."""
    games = [ids[k] for k in ("ended", "active", "merida", "invited")]
    lid, cid, sid = ids["ladder_id"], ids["club"], ids["scenario"]
    return {
        "/": ["/"],
        "/api/campaigns/<campaign_id>": [f"/api/campaigns/{ids['campaign_id']}"],
        "/api/club-scenarios": ["/api/club-scenarios", "/api/club-scenarios?system=merida"],
        "/api/club-scenarios/<scenario>": [f"/api/club-scenarios/{sid}"],
        "/api/club-scenarios/<scenario>/board": [f"/api/club-scenarios/{sid}/board"],
        "/api/club-scenarios/<scenario>/map-image": [
            f"/api/club-scenarios/{sid}/map-image?width=300",
            f"/api/club-scenarios/{sid}/map-image?version=1",
        ],
        "/api/club-scenarios/<scenario>/diff": [f"/api/club-scenarios/{sid}/diff?from=1"],
        "/api/club-scenarios/<scenario>/units.csv": [f"/api/club-scenarios/{sid}/units.csv"],
        "/api/club-scenarios/<scenario>/versions/<int:version>": [
            f"/api/club-scenarios/{sid}/versions/1"
        ],
        "/api/clubs": ["/api/clubs"],
        "/api/clubs/<club>": [f"/api/clubs/{cid}", "/api/clubs/Hex Club"],
        "/api/clubs/<club>/campaigns": [f"/api/clubs/{cid}/campaigns"],
        "/api/clubs/<club>/events": [f"/api/clubs/{cid}/events"],
        "/api/events/<event_id>": [f"/api/events/{ids['event_id']}"],
        "/api/clubs/<club>/ladders": [f"/api/clubs/{cid}/ladders"],
        "/api/clubs/<club>/members": [
            f"/api/clubs/{cid}/members",
            f"/api/clubs/{cid}/members?role=arbiter",
        ],
        "/api/clubs/<club>/invitations": [f"/api/clubs/{cid}/invitations"],
        "/api/clubs/<club>/requests": [f"/api/clubs/{cid}/requests"],
        "/api/clubs/<club>/scenarios": [f"/api/clubs/{cid}/scenarios"],
        "/api/clubs/<club>/webhooks": [f"/api/clubs/{cid}/webhooks"],
        "/api/clubs/<club>/webhooks/<hook_id>/deliveries": [
            f"/api/clubs/{cid}/webhooks/{ids['club_hook']}/deliveries"
        ],
        "/api/disputes/queue": ["/api/disputes/queue"],
        "/api/games": [
            "/api/games",
            "/api/games?mine=true",
            "/api/games?invited=true",
            "/api/games?status=ended",
            "/api/games?public=true",
            "/api/games?claimed=true",
        ],
        "/api/games/<game:game_id>": [f"/api/games/{g}" for g in games]
        + [f"/api/games/{ids['active']}?version=2"],
        "/api/games/<game_id>/actions": [f"/api/games/{g}/actions" for g in games],
        "/api/games/<game_id>/audit": [f"/api/games/{g}/audit" for g in games],
        "/api/games/<game_id>/audit/actions": [f"/api/games/{g}/audit/actions" for g in games],
        "/api/games/<game_id>/audit/diff": [
            f"/api/games/{g}/audit/diff?from=1&to=2" for g in games
        ],
        "/api/games/<game_id>/board": [f"/api/games/{g}/board" for g in games],
        "/api/games/<game_id>/map-image": [
            f"/api/games/{ids['scan_game']}/map-image?width=300",
            f"/api/games/{ids['merida']}/map-image",
        ],
        "/api/games/<game_id>/dice": [f"/api/games/{g}/dice" for g in games],
        "/api/games/<game_id>/disputes": [f"/api/games/{g}/disputes" for g in games],
        "/api/games/<game_id>/arbiters": [f"/api/games/{g}/arbiters" for g in games],
        "/api/games/<game_id>/events": [f"/api/games/{g}/events" for g in games],
        "/api/games/<game_id>/events.ndjson": [f"/api/games/{g}/events.ndjson" for g in games],
        "/api/games/<game_id>/record": [f"/api/games/{g}/record" for g in games],
        "/api/games/<game_id>/review": [f"/api/games/{g}/review" for g in games],
        "/api/games/<game_id>/report.html": [f"/api/games/{g}/report.html" for g in games],
        "/api/games/<game_id>/report.md": [f"/api/games/{g}/report.md" for g in games],
        "/api/games/<game_id>/events/<int:seq>/rulings": [
            f"/api/games/{ids['active']}/events/2/rulings"
        ],
        "/api/games/<game_id>/events/<int:seq>/readings": [
            f"/api/games/{ids['active']}/events/2/readings"
        ],
        "/api/games/<game_id>/disputes/<dispute>/what-if": [
            f"/api/games/{ids['active']}/disputes/{ids['dispute']}/what-if"
        ],
        "/api/games/<game_id>/stream": [f"/api/games/{ids['active']}/stream?window=1"],
        "/api/games/<game_id>/chat": [f"/api/games/{g}/chat" for g in games],
        "/api/games/<game_id>/chat/stream": [f"/api/games/{ids['active']}/chat/stream?window=1"],
        "/api/games/<game_id>/notes": [f"/api/games/{g}/notes" for g in games],
        "/api/games/<game_id>/notes/shared": [f"/api/games/{g}/notes/shared" for g in games],
        "/api/ladders/<ladder_id>": [f"/api/ladders/{lid}"],
        "/api/ladders/<ladder_id>/challenges": [f"/api/ladders/{lid}/challenges"],
        "/api/ladders/<ladder_id>/history/<username>": [f"/api/ladders/{lid}/history/bob"],
        "/api/ladders/<ladder_id>/reports": [f"/api/ladders/{lid}/reports"],
        "/api/ladders/<ladder_id>/sides": [f"/api/ladders/{lid}/sides"],
        "/api/ladders/<ladder_id>/standings": [f"/api/ladders/{lid}/standings"],
        "/api/ladders/<ladder_id>/stream": [f"/api/ladders/{lid}/stream?window=1"],
        "/api/me": ["/api/me"],
        "/api/me/ladders": ["/api/me/ladders"],
        "/api/me/club-invitations": ["/api/me/club-invitations"],
        "/api/me/club-requests": ["/api/me/club-requests"],
        "/api/me/notification-preferences": ["/api/me/notification-preferences"],
        "/api/me/notifications": ["/api/me/notifications"],
        "/api/me/notifications/stream": ["/api/me/notifications/stream?window=1"],
        "/api/me/tokens": ["/api/me/tokens"],
        "/api/me/webhooks": ["/api/me/webhooks"],
        "/api/me/push-subscriptions": ["/api/me/push-subscriptions"],
        "/api/push/key": ["/api/push/key"],
        "/api/me/webhooks/<hook_id>/deliveries": [f"/api/me/webhooks/{ids['hook']}/deliveries"],
        "/api/openapi.json": ["/api/openapi.json"],
        "/api/rules/<path:entry_id>": ["/api/rules/merida:8-retreats"],
        "/api/rules/search": [
            "/api/rules/search?q=retreat",
            f"/api/rules/search?q=retreat&game={ids['merida']}",
        ],
        "/api/scenarios": ["/api/scenarios"],
        "/api/seeks": ["/api/seeks", "/api/seeks?limit=1"],
        "/api/systems": ["/api/systems"],
        "/api/systems/<name>": ["/api/systems/merida", "/api/systems/skirmish"],
        "/api/systems/<name>/scenarios/<scenario>/board": [
            "/api/systems/merida/scenarios/merida-1938/board",
            f"/api/systems/merida/scenarios/{sid}@1/board",
        ],
        "/api/systems/<name>/tables/<table>": [f"/api/systems/merida/tables/{ids['table']}"],
        "/api/unsubscribe": [f"/api/unsubscribe?{ids['unsubscribe']}"],
        "/api/users/<username>/profile": ["/api/users/bob/profile", "/api/users/eve/profile"],
        "/archive": ["/archive"],
        "/campaigns/<campaign_id>": [f"/campaigns/{ids['campaign_id']}"],
        "/events/<event_id>": [f"/events/{ids['event_id']}"],
        "/club-scenarios/<scenario>": [f"/club-scenarios/{sid}"],
        "/clubs": ["/clubs"],
        "/clubs/<club>": [f"/clubs/{cid}"],
        "/clubs/<club>/scenarios": [f"/clubs/{cid}/scenarios"],
        "/disputes": ["/disputes"],
        "/games/<game_id>": [f"/games/{g}" for g in games],
        "/games/<game_id>/audit": [f"/games/{ids['ended']}/audit"],
        "/games/<game_id>/review": [f"/games/{g}/review" for g in games],
        "/games/<game_id>/disputes/<dispute>": [
            f"/games/{ids['active']}/disputes/{ids['dispute']}"
        ],
        "/healthz": ["/healthz"],
        "/ladders/<ladder_id>": [f"/ladders/{lid}"],
        "/reset-password": ["/reset-password"],
        "/rules": ["/rules"],
        "/rules/<path:entry_id>": ["/rules/merida:8-retreats"],
        "/seeks": ["/seeks"],
        "/settings": ["/settings"],
        "/manifest.webmanifest": ["/manifest.webmanifest"],
        "/sw.js": ["/sw.js"],
        "/static/<path:filename>": ["/static/js/api.js"],
        "/unsubscribe": [f"/unsubscribe?{ids['unsubscribe']}"],
        "/users/<username>": ["/users/bob"],
    }


class Writes:
    """Every SQLite file of the store: a read-only connection to each, asked after each request
    whether anyone committed (``PRAGMA data_version``), and a dump of each to compare."""

    def __init__(self, var_dir: Path) -> None:
        files = [p for p in sorted(var_dir.rglob("*")) if p.is_file() and _is_sqlite(p)]
        assert len(files) >= 2, files  # the events and the notifications at least
        self.connections = {
            p: sqlite3.connect(f"file:{p}?mode=ro", uri=True, check_same_thread=False)
            for p in files
        }
        self._versions = self.versions()

    def versions(self) -> dict[Path, int]:
        return {
            p: c.execute("PRAGMA data_version").fetchone()[0] for p, c in self.connections.items()
        }

    def changed(self) -> list[str]:
        """The files committed to since the last call."""
        now = self.versions()
        changed = [p.name for p, v in now.items() if v != self._versions[p]]
        self._versions = now
        return changed

    def dump(self) -> dict[str, list[str]]:
        return {p.name: list(c.iterdump()) for p, c in self.connections.items()}

    def close(self) -> None:
        for c in self.connections.values():
            c.close()


def _is_sqlite(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(16) == b"SQLite format 3\x00"


@contextmanager
def watching(var_dir: Path) -> Iterator[Writes]:
    writes = Writes(var_dir)
    try:
        yield writes
    finally:
        writes.close()


@pytest.mark.slow("every GET route read over played games, the store compared before and after")
def test_no_get_request_writes_anything(app: Flask, api: ApiHelper) -> None:
    ids = seed(app, api)
    svc = app.extensions["arbiter"]
    # an hour on: every token is due for a record of its use (which a GET must not make)
    clock = svc.users.clock
    svc.users.clock = lambda: clock() + timedelta(hours=2)
    web = app.test_client()  # eve's web session: the cookie, no bearer token
    ok(web.post("/api/session", json={"username": "eve", "password": PASSWORD}), 201)
    callers: dict[str, tuple[FlaskClient, dict[str, str]]] = {
        "visitor": (app.test_client(), {}),
        "player": (api.client, api.user("bob")),
        "club admin": (api.client, api.user("ann")),
        "non-player (token)": (api.client, api.user("eve")),
        "non-player (cookie)": (web, {}),
    }
    table = urls(ids)
    rules = {r.rule for r in app.url_map.iter_rules() if "GET" in (r.methods or ())}
    assert not rules - set(table), f"GET routes with no path to ask: {sorted(rules - set(table))}"
    assert not set(table) - rules, f"paths for routes that are gone: {sorted(set(table) - rules)}"
    writers: list[str] = []
    answered: dict[str, set[int]] = {rule: set() for rule in table}
    with watching(svc.config.var_dir) as writes:
        before = writes.dump()
        for who, (client, headers) in callers.items():
            for rule, paths in table.items():
                for path in paths:
                    r = client.get(path, headers=headers)
                    r.get_data()  # a stream runs to the end of its window
                    assert r.status_code < 500, (who, path, r.status_code, r.get_data()[:300])
                    answered[rule].add(r.status_code)
                    changed = writes.changed()
                    if changed:
                        writers.append(f"{who}: GET {path} -> {r.status_code} wrote {changed}")
        after = writes.dump()
    assert not writers, "GET requests wrote:\n" + "\n".join(writers)
    for name, rows in before.items():
        assert rows == after[name], f"{name} changed during the GETs"
    asked = [rule for rule, codes in answered.items() if codes]
    assert len(asked) >= MIN_ROUTES and len(asked) == len(rules), (len(asked), len(rules))
    # every route was answered with something other than a refusal at least once (its path is real)
    refused = {rule: codes for rule, codes in answered.items() if not any(c < 400 for c in codes)}
    assert not refused, refused
