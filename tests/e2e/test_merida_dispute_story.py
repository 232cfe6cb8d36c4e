"""A disputed retreat in a Merida game, end to end (issue 6's story).

The 2nd infantry stands out of command in a Republican ZOC, so when the Nationalist movement phase
ends it retreats two hexes automatically (rule 10).  The Republican player disputes the retreat,
an arbiter overturns it with a rebase citing rule 10 and an FWtBT ruling and makes a club ruling of
it; the later moves stand; the ruling is then returned with a later retreat; the audit passes on the
live store and on the export, and fails on a tampered copy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from flask import Flask

from service.cli import main
from tests.e2e.test_merida_api import _next_command
from tests.support.api import ApiHelper
from tests.support.boards import start_on_board
from tests.unit.rules.merida.conftest import board_state, unit

SIDES = {"nationalist": "franco", "republican": "rojo"}
RULE_10 = "merida:10"
RULING = {
    "heading": "Out-of-command retreats need an enemy ZOC at the start of the command phase",
    "text": "A unit retreats under rule 10 only if it is out of command and in an enemy ZOC when "
    "the command phase begins; the arbiter checks the command line before any retreat.",
    "rule_refs": ["10"],
    "event_types": ["UnitsRetreated", "CombatResolved"],
}


def start(app: Flask, api: ApiHelper) -> str:
    """A small Merida board: the leader at A1 is more than 7 hexes from the 2nd infantry at E9,
    which stands in the ZOC of the Republican infantry at E10."""
    svc = app.extensions["arbiter"]
    for name in SIDES.values():
        api.user(name)
    state = board_state(
        [
            unit("l", "nationalist", "leader", 0, "A1"),
            unit("u", "nationalist", "infantry", 3, "E9"),
            unit("w", "nationalist", "infantry", 3, "B2"),
            unit("r", "republican", "infantry", 3, "E10"),
            unit("rl", "republican", "leader", 0, "J12"),
            unit("s", "republican", "infantry", 3, "I12"),
        ]
    )
    return start_on_board(svc, state, SIDES, title="Rule 10 at E9")


def send(api: ApiHelper, gid: str, side: str, command: dict[str, Any]) -> dict[str, Any]:
    r = api.command(gid, SIDES[side], command, side=side)
    assert r.status_code == 201, (command, r.get_json())
    return r.get_json()


def retreats(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "UnitsRetreated"]


def test_a_disputed_retreat_overturned_by_rebase_and_a_club_ruling(
    app: Flask, api: ApiHelper, tmp_path: Path
) -> None:
    client = api.client
    gid = start(app, api)
    ended = send(api, gid, "nationalist", {"type": "end_phase"})
    disputed = retreats(ended["events"])[0]
    assert disputed["payload"]["data"]["rule"] == "10" and disputed["payload"]["data"]["retreats"][
        0
    ]["units"] == ["u"]
    send(api, gid, "republican", {"type": "move", "units": ["s"], "path": ["I12", "H12"]})
    send(api, gid, "republican", {"type": "end_phase"})
    send(api, gid, "nationalist", {"type": "move", "units": ["w"], "path": ["B2", "C2"]})

    faq = next(
        r["id"]
        for r in client.get(
            "/api/rules/search",
            query_string={"q": "retreat zone of control", "document": "fwtbt-faq"},
        ).get_json()["results"]
    )
    opened = client.post(
        f"/api/games/{gid}/disputes",
        json={
            "seq": disputed["seq"],
            "claim": "the 2nd infantry was in command; it must not retreat",
            "citations": [RULE_10],
        },
        headers=api.user("rojo"),
    )
    assert opened.status_code == 201, opened.get_json()
    dispute = opened.get_json()["dispute"]

    headers = api.user("judge")
    svc = app.extensions["arbiter"]
    judge = svc.users.by_name("judge")
    judge.grant("arbiter")
    svc.store.save(judge)
    queue = client.get("/api/disputes/queue", headers=headers).get_json()
    assert [(q["game"], q["dispute"]) for q in queue] == [(gid, dispute)]
    resolved = client.post(
        f"/api/games/{gid}/disputes/{dispute}/resolution",
        json={
            "verdict": "overturned",
            "remedy": "rebase",
            "citations": [RULE_10, faq],
            "club_ruling": RULING,
        },
        headers=headers,
    )
    assert resolved.status_code == 201, resolved.get_json()
    result = resolved.get_json()
    assert [c["id"] for c in result["citations"]] == [RULE_10, faq]
    assert all(len(c["text_hash"]) == 64 for c in result["citations"])
    # The later legal moves stand.  With the retreat undone the Republican infantry stands in the
    # 2nd infantry's ZOC and must attack it (rule 8), so the Nationalist move is not yet due: dropped.
    report = [(r["command"], r["side"], r["status"]) for r in result["report"]]
    assert report == [
        ("move", "republican", "kept"),
        ("end_phase", "republican", "kept"),
        ("move", "nationalist", "dropped"),
    ]
    assert "not Nationalist's turn" in result["report"][2]["reason"]
    game = api.game(gid, "rojo")
    units = game["state"]["units"]
    assert (units["u"]["hex"], units["s"]["hex"], units["w"]["hex"]) == ("E9", "H12", "B2")
    assert game["active_sides"] == ["republican"] and game["phase"]["turn"] == 2
    assert client.get("/api/disputes/queue", headers=headers).get_json() == []

    # a later retreat-bearing event: the forced attack on the 2nd infantry
    later = None
    for _ in range(10):  # through the air allocations to the combat the rules force
        game = api.game(gid, "rojo")
        side = game["active_sides"][0]
        events = send(api, gid, side, _next_command(api, gid, side, game["phase"]["phase"]))[
            "events"
        ]
        later = next((e for e in events if e["type"] == "CombatResolved"), None)
        if later:
            break
    assert later is not None and later["side"] == "republican"
    assert later["seq"] > disputed["seq"]
    rulings = client.get(
        f"/api/games/{gid}/events/{later['seq']}/rulings", headers=api.reader(None)
    ).get_json()
    assert rulings["related"][0]["heading"] == RULING["heading"]
    assert rulings["sections"][0] == "8" and rulings["governing"][0]["id"].startswith("merida:8")
    retreat_rulings = client.get(
        f"/api/games/{gid}/events/{disputed['seq']}/rulings", headers=api.reader(None)
    ).get_json()
    assert retreat_rulings["governing"][0]["id"] == RULE_10
    found = client.get(
        "/api/rules/search", query_string={"q": "command line before any retreat"}
    ).get_json()["results"]
    assert found[0]["kind"] == "club-ruling"

    events = {e["seq"]: e for e in api.events(gid, "franco", limit=1000)}
    assert events[disputed["seq"]]["retracted"] and not events[disputed["seq"] - 1]["retracted"]
    audit = client.get(f"/api/games/{gid}/audit", headers=api.reader(None)).get_json()
    assert audit["ok"], audit

    export = tmp_path / "story.ndjson"
    export.write_bytes(
        client.get(f"/api/games/{gid}/events.ndjson", headers=api.reader(None)).get_data()
    )
    secret = app.extensions["arbiter"].config.secret_key
    offline = CliRunner().invoke(
        main, ["audit", "verify", "--file", str(export), "--secret", secret]
    )
    assert offline.exit_code == 0 and json.loads(offline.output)["ok"], offline.output
    lines = export.read_text().splitlines()
    tampered = json.loads(lines[disputed["seq"] - 1])
    tampered["payload"]["data"]["retreats"] = []
    lines[disputed["seq"] - 1] = json.dumps(tampered)
    forged = tmp_path / "tampered.ndjson"
    forged.write_text("\n".join(lines) + "\n")
    caught = CliRunner().invoke(
        main, ["audit", "verify", "--file", str(forged), "--secret", secret]
    )
    assert caught.exit_code == 1 and f"FAILED at event {disputed['seq']}" in caught.output
