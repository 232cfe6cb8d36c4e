"""``GET /api/games/<id>/record``, the open game record (docs/game-record.md), reads like the game:
a private game's record is a 404 to whoever may not read it, and in a game that hides something
each reader's record shows that reader's form of each event -- no hidden unit leaks -- names the
digest of the state that reader sees, and its events verify offline as the NDJSON export's do."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from click.testing import CliRunner

from service.bootstrap import build_services
from service.cli import main
from service.domain.chain import canonical_json
from tests.conftest import make_config
from tests.support.api import ApiHelper
from tests.support.hidden_games import backbone_hiding_a_unit
from tests.support.records import play_at_random


def record(api: ApiHelper, gid: str, user: str | None, status: int = 200) -> str:
    headers = api.user(user) if user else {}
    r = api.client.get(f"/api/games/{gid}/record", headers=headers)
    assert r.status_code == status, r.get_data(as_text=True)[:200]
    return r.get_data(as_text=True)


def header(text: str, tag: str) -> object:
    line = next(line for line in text.split("\n") if line.startswith(f"[{tag} "))
    return json.loads(line[len(tag) + 2 : -1])


def test_a_private_games_record_is_its_readers_only(api: ApiHelper) -> None:
    gid = api.create_game("skirmish", "meeting", {"red": "alice", "blue": "bob"})["id"]
    api.user("eve")
    for user in ("eve", None):
        r = api.client.get(f"/api/games/{gid}/record", headers=api.user(user) if user else {})
        assert r.status_code == 404 and r.get_json()["error"] == "not_found", user
    r = api.client.get(f"/api/games/{gid}/record", headers=api.user("alice"))
    assert r.status_code == 200 and r.mimetype == "text/plain"
    assert r.headers["Content-Disposition"] == f'attachment; filename="game-{gid}.record"'
    text = r.get_data(as_text=True)
    assert text.startswith('[Format "arbiter-game-record 1"]\n')
    assert header(text, "Sides") == {"red": "alice", "blue": "bob"}
    assert header(text, "Status") == "active" and header(text, "Events") >= 1
    system = api.client.get("/api/systems/skirmish").get_json()
    assert header(text, "RulesVersion") == system["rules_version"] == "1"


def test_each_readers_record_shows_what_they_may_see_and_verifies(
    api: ApiHelper, tmp_path: Path
) -> None:
    gid, hidden = backbone_hiding_a_unit(api)  # public: a visitor reads the spectator's form
    for reader, side in (("ike", "allied"), ("paco", "spanish"), (None, "*")):
        text = record(api, gid, reader)
        assert (hidden in text) == (side == "spanish"), reader
        assert header(text, "Shown") == side
        seen = api.client.get(f"/api/games/{gid}", headers=api.user(reader) if reader else {})
        state = seen.get_json()["state"]
        digest = "sha256:" + hashlib.sha256(canonical_json(state).encode()).hexdigest()
        assert header(text, "StateDigest") == digest, reader
        # the record's data lines are the NDJSON export's events: they verify offline
        data = [line for line in text.split("\n") if line.startswith("{")]
        path = tmp_path / f"{side}.ndjson"
        path.write_text("\n".join(data) + "\n")
        result = CliRunner().invoke(main, ["audit", "verify", "--file", str(path)])
        assert result.exit_code == 0, result.output[-500:]
        assert json.loads(result.output)["ok"]


def test_a_site_admin_imports_a_record_from_another_server(api: ApiHelper, tmp_path: Path) -> None:
    source = build_services(make_config(tmp_path / "source"))
    try:
        gid = play_at_random(source, "bizkaya", 2, commands=12)
        text = "".join(source.records.lines(gid, full=True))
    finally:
        source.close()
    svc = api.client.application.extensions["arbiter"]
    root = api.user("root")
    admin = svc.users.by_name("root")
    admin.grant("admin")
    svc.store.commit(admin)
    referee = api.reader(None)  # a site arbiter: reads a private game of no club

    r = api.client.post("/api/games/import", json={"record": text}, headers=api.user("eve"))
    assert r.status_code == 403 and r.get_json()["details"] == {"record": ["site admins only"]}
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("[Events "))
    tampered = "\n".join(lines[:at] + ["[Events 9999]"] + lines[at + 1 :])
    r = api.client.post("/api/games/import", json={"record": tampered}, headers=root)
    assert r.status_code == 400 and r.get_json()["details"] == {"line": [str(at + 1)]}
    assert api.client.get(f"/api/games/{gid}", headers=referee).status_code == 404

    r = api.client.post("/api/games/import", json={"record": text}, headers=root)
    assert r.status_code == 201, r.get_json()
    found = r.get_json()
    assert found["game"] == gid and found["audit"]["ok"] and found["audit"]["dice"]["verified"]
    game = api.client.get(f"/api/games/{gid}", headers=referee).get_json()
    assert game["status"] == "ended"
    assert set(game["sides"].values()) == {"bizkaya-player-0", "bizkaya-player-1"}
    assert api.client.get(f"/api/games/{gid}/audit", headers=referee).get_json()["ok"]
    assert (
        api.client.get(f"/api/games/{gid}/record", headers=referee).get_data(as_text=True) == text
    )
    assert api.client.get(f"/api/games/{gid}/record", headers=api.user("eve")).status_code == 404
    r = api.client.post("/api/games/import", json={"record": text}, headers=root)
    assert r.status_code == 409
