"""``GET /api/games/<id>/record``, the open game record (docs/game-record.md), reads like the game:
a private game's record is a 404 to whoever may not read it, and in a game that hides something
each reader's record shows that reader's form of each event -- no hidden unit leaks -- names the
digest of the state that reader sees, and its events verify offline as the NDJSON export's do."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from click.testing import CliRunner

from service.cli import main
from service.domain.chain import canonical_json
from tests.support.api import ApiHelper
from tests.support.hidden_games import backbone_hiding_a_unit


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
