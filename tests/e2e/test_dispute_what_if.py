"""A dispute decided on evidence (issue 28): the disputed combat re-decided under the claimed
reading with the same die, beside what was recorded; the verdict adopts exactly that.

Merida's strategic-movement modifier is a declared conflict: rule 8 prints "+2 if defender moved
by strategic movement in previous phase" (the default), rule 5 "the attacker subtracts 2 from the
combat die roll" (scenario option ``strategic_modifier: -2``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask

from service.cli import main
from tests.support.api import ApiHelper
from tests.support.boards import start_on_board
from tests.unit.rules.merida.conftest import board_state, play, unit

SIDES = {"nationalist": "franco", "republican": "rojo"}
RULE_5 = "merida:5"


def duel_state() -> dict[str, Any]:
    """The Nationalist 6 at E4 attacks the Republican 3 at E5 (2-1), which moved strategically
    in the previous phase; a second Nationalist unit at B2 moves afterwards."""
    state = board_state(
        [
            unit("a", "nationalist", "infantry", 6, "E4"),
            unit("d", "republican", "infantry", 3, "E5"),
            unit("w", "nationalist", "infantry", 3, "B2"),
            unit("s", "republican", "infantry", 3, "I12"),
        ],
        phase="combat",
    )
    state["units"]["d"]["strategic"] = True
    return state


def start(
    app: Flask, api: ApiHelper, state: dict[str, Any], labels: dict[str, Any] | None = None
) -> str:
    svc = app.extensions["arbiter"]
    for name in [*SIDES.values(), "judge"]:
        api.user(name)
    gid = start_on_board(svc, state, SIDES, title="Strategic movers at E5", labels=labels)
    judge = svc.users.by_name("judge")
    judge.grant("arbiter")
    svc.store.save(judge)
    return gid


def send(api: ApiHelper, gid: str, side: str, command: dict[str, Any]) -> dict[str, Any]:
    r = api.command(gid, SIDES[side], command, side=side)
    assert r.status_code == 201, (command, r.get_json())
    return r.get_json()


def fought(api: ApiHelper, gid: str) -> dict[str, Any]:
    events = send(api, gid, "nationalist", {"type": "attack", "attackers": ["a"], "hex": "E5"})
    return next(e for e in events["events"] if e["type"] == "CombatResolved")


def resolve(api: ApiHelper, gid: str, dispute: str, **body: Any) -> Any:
    """The judge's verdict on ``dispute``, as the HTTP answer."""
    return api.client.post(
        f"/api/games/{gid}/disputes/{dispute}/resolution", json=body, headers=api.user("judge")
    )


def open_dispute(api: ApiHelper, gid: str, seq: int, **extra: Any) -> Any:
    body = {"seq": seq, "claim": "rule 5: the attacker subtracts 2", "citations": [RULE_5]}
    return api.client.post(
        f"/api/games/{gid}/disputes", json=body | extra, headers=api.user("rojo")
    )


def test_the_what_if_shows_the_same_die_read_under_rule_5_and_the_verdict_applies_it(
    app: Flask, api: ApiHelper
) -> None:
    gid = start(app, api, duel_state())
    combat = fought(api, gid)
    recorded = combat["payload"]["data"]
    assert recorded["modifiers"][0]["value"] == 2 and recorded["modifiers"][0]["rule"] == "8"
    send(api, gid, "nationalist", {"type": "end_phase"})  # later commands whose fate is shown
    opened = open_dispute(api, gid, combat["seq"], reading={"strategic_modifier": -2})
    assert opened.status_code == 201, opened.get_json()
    dispute = opened.get_json()["dispute"]

    # what rule 5's reading makes of the same die, decided independently by the rules
    other = duel_state()
    other["options"]["strategic_modifier"] = -2
    expected = play(other, "nationalist", {"type": "attack", "attackers": ["a"], "hex": "E5"},
                    [recorded["die"]["value"]])  # fmt: skip
    wanted = next(e for e in expected if e.type == "CombatResolved").data

    url = f"/api/games/{gid}/disputes/{dispute}/what-if"
    judged = api.client.get(url, headers=api.user("judge"))
    assert judged.status_code == 200, judged.get_json()
    what_if = judged.get_json()
    assert [d["value"] for d in what_if["dice"] if d["reused"]] == [recorded["die"]["value"]]
    assert all(d["reused"] for d in what_if["dice"])
    alt = next(e for e in what_if["alternative"]["events"] if e["kind"] == "CombatResolved")
    assert alt["data"]["die"] == recorded["die"]  # the same die: its index, value, purpose
    assert alt["data"]["column"] == recorded["column"] == "2-1"
    for key in ("modifiers", "modified_roll", "result", "retreats", "eliminated"):
        assert alt["data"][key] == wanted[key], key
    assert alt["data"]["modifiers"][0] == {**wanted["modifiers"][0], "rule": "5", "value": -2}
    mine = next(e for e in what_if["recorded"]["events"] if e["kind"] == "CombatResolved")
    assert mine["seq"] == combat["seq"] and mine["data"] == recorded
    assert what_if["alternative"]["refused"] is None
    assert what_if["alternative"]["reading"][0]["words"] == "Strategic modifier: -2"
    assert [c["outcome"] for c in what_if["later"]] == ["kept"], what_if["later"]
    assert "Republican" in what_if["later"][0]["text"]  # the end of the phase, in words
    # on the 2-1 column every die reads otherwise under rule 5 (1: EX/A1, 2: DR/A1, 3: DR/AR,
    # 4: D1/AR, 5: D2/EX, 6: D2/DR): the other row of the CRT, the other result, and a board
    # that differs
    assert alt["data"]["modified_roll"] != recorded["modified_roll"]
    assert alt["data"]["result"] != recorded["result"]
    assert what_if["differences"], what_if
    assert not any("{" in d or "'" in d for d in what_if["differences"])

    # a player sees it too (their side's view), with the same digest
    player = api.client.get(url, headers=api.user("rojo")).get_json()
    assert player["digest"] == what_if["digest"] and player["dice"] == what_if["dice"]

    resolved = resolve(
        api,
        gid,
        dispute,
        **{
            "verdict": "overturned",
            "remedy": "rebase",
            "citations": [RULE_5],
            "reading": {"strategic_modifier": -2},
            "what_if": what_if["digest"],
        },
    )
    assert resolved.status_code == 201, resolved.get_json()
    assert [r["status"] for r in resolved.get_json()["report"]] == ["kept"]

    events = api.events(gid, "franco", limit=1000)
    live = [e for e in events if not e.get("retracted")]
    applied = [e for e in live if e["type"] == "CombatResolved"]
    assert [e["payload"]["data"] for e in applied] == [alt["data"]]  # exactly as previewed
    reused = [e for e in live if e["type"] == "DiceReused"]
    assert [r["value"] for r in reused[0]["payload"]["rolls"]] == [recorded["die"]["value"]]
    game = api.game(gid, "rojo")
    assert game["options"]["strategic_modifier"] == -2
    assert game["options_at_start"].get("strategic_modifier", 2) == 2
    (reading,) = game["readings"]
    attack = max(
        e["seq"] for e in events if e["type"] == "CommandAccepted" and e["seq"] < combat["seq"]
    )
    assert reading["from_seq"] == attack
    assert "Strategic modifier: -2" in reading["text"] and "judge" in reading["text"]
    audit = api.client.get(f"/api/games/{gid}/audit", headers=api.reader(None)).get_json()
    assert audit["ok"], audit

    # the resolved dispute keeps the what-if it was decided on
    kept = api.client.get(url, headers=api.user("judge")).get_json()
    assert kept["decided_on"] == {"digest": what_if["digest"], "matches": True}
    assert kept["alternative"]["events"] == what_if["alternative"]["events"]


def test_a_stale_what_if_is_refused_and_nothing_is_written(app: Flask, api: ApiHelper) -> None:
    gid = start(app, api, duel_state())
    combat = fought(api, gid)
    dispute = open_dispute(api, gid, combat["seq"], reading={"strategic_modifier": -2})
    dispute = dispute.get_json()["dispute"]
    before = api.game(gid, "rojo")["version"]
    r = resolve(
        api,
        gid,
        dispute,
        **{
            "verdict": "overturned",
            "remedy": "rebase",
            "citations": [RULE_5],
            "what_if": "0" * 64,
        },
    )
    assert r.status_code == 409 and "what_if" in r.get_json()["details"]
    assert api.game(gid, "rojo")["version"] == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"reading": {"no_such_option": 1}}, "reading.no_such_option"),
        ({"reading": {"strategic_modifier": 3}}, "reading.strategic_modifier"),
        ({"reading": {"strategic_modifier": "-2"}}, "reading.strategic_modifier"),
        ({"instead": {"type": "fly"}}, "instead.type"),
    ],
)
def test_a_claim_naming_what_the_game_cannot_decide_is_refused(
    app: Flask, api: ApiHelper, body: dict[str, Any], field: str
) -> None:
    gid = start(app, api, duel_state())
    combat = fought(api, gid)
    before = api.game(gid, "rojo")["version"]
    r = open_dispute(api, gid, combat["seq"], **body)
    assert r.status_code == 422, r.get_json()
    assert any(k.startswith(field) for k in r.get_json()["details"]), r.get_json()
    assert api.game(gid, "rojo")["version"] == before


def test_the_readings_offered_are_those_governing_the_event_in_words(
    app: Flask, api: ApiHelper
) -> None:
    gid = start(app, api, duel_state())
    combat = fought(api, gid)
    r = api.client.get(f"/api/games/{gid}/events/{combat['seq']}/readings",
                       headers=api.user("rojo"))  # fmt: skip
    assert r.status_code == 200, r.get_json()
    offered = {o["option"]: o for o in r.get_json()}
    strategic = offered["strategic_modifier"]
    assert [(c["words"], c["current"]) for c in strategic["choices"]] == [
        ("+2", True),
        ("-2", False),
    ]
    assert "strategic" in strategic["heading"].lower()


def test_only_players_and_arbiters_see_a_what_if(app: Flask, api: ApiHelper) -> None:
    gid = start(app, api, duel_state())
    combat = fought(api, gid)
    dispute = open_dispute(api, gid, combat["seq"], reading={"strategic_modifier": -2})
    url = f"/api/games/{gid}/disputes/{dispute.get_json()['dispute']}/what-if"
    api.user("stranger")
    assert api.client.get(url, headers=api.user("stranger")).status_code in (403, 404)


def test_the_audit_catches_a_reused_die_that_is_not_the_one_first_rolled(
    app: Flask, api: ApiHelper, tmp_path: Path
) -> None:
    gid = start(app, api, duel_state())
    combat = fought(api, gid)
    dispute = open_dispute(api, gid, combat["seq"], reading={"strategic_modifier": -2})
    resolved = resolve(
        api,
        gid,
        dispute.get_json()["dispute"],
        **{"verdict": "overturned", "remedy": "rebase", "citations": [RULE_5]},
    )
    assert resolved.status_code == 201, resolved.get_json()
    export = tmp_path / "reused.ndjson"
    export.write_bytes(
        api.client.get(f"/api/games/{gid}/events.ndjson", headers=api.reader(None)).get_data()
    )
    secret = app.extensions["arbiter"].config.secret_key
    verify = ["audit", "verify", "--file", str(export), "--secret", secret]
    fine = CliRunner().invoke(main, verify)
    assert fine.exit_code == 0 and json.loads(fine.output)["ok"], fine.output

    lines = export.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if json.loads(line)["kind"] == "Game.DiceReused")
    tampered = json.loads(lines[at])
    roll = tampered["payload"]["rolls"][0]
    roll["value"] = roll["value"] % 6 + 1  # a luckier die than the one first rolled
    lines[at] = json.dumps(tampered)
    forged = tmp_path / "forged.ndjson"
    forged.write_text("\n".join(lines) + "\n")
    caught = CliRunner().invoke(main, [*verify[:3], str(forged), *verify[4:]])
    assert caught.exit_code == 1, caught.output
    assert f"FAILED at event {tampered['seq']}" in caught.output
    assert "reused die" in caught.output and "does not match the roll recorded" in caught.output


def test_a_club_ruling_makes_the_adopted_reading_the_clubs_default_for_new_games(
    app: Flask, api: ApiHelper
) -> None:
    for name in [*SIDES.values(), "judge"]:
        api.user(name)
    made = api.client.post("/api/clubs", json={"name": "Mérida Circle"}, headers=api.user("franco"))
    assert made.status_code == 201, made.get_json()
    club = made.get_json()["id"]
    for name, roles in (("rojo", ["player"]), ("judge", ["arbiter"])):
        api.admit(f"/api/clubs/{club}/members", {"username": name, "roles": roles}, "franco")
    gid = start(app, api, duel_state(), labels={"club": club})
    combat = fought(api, gid)
    dispute = open_dispute(api, gid, combat["seq"], reading={"strategic_modifier": -2})
    ruling = {"heading": "Rule 5's -2 for strategic movers", "text": "The attacker subtracts 2.",
              "event_types": ["CombatResolved"]}  # fmt: skip
    d = dispute.get_json()["dispute"]
    default = ruling | {"default_reading": True}
    # an upheld event adopts no reading: nothing to make the club's default
    upheld = resolve(api, gid, d, verdict="upheld", citations=[RULE_5], club_ruling=default)
    assert (
        upheld.status_code == 422 and "club_ruling.default_reading" in upheld.get_json()["details"]
    )
    resolved = resolve(
        api, gid, d, verdict="overturned", remedy="rebase", citations=[RULE_5], club_ruling=default
    )
    assert resolved.status_code == 201, resolved.get_json()
    policies = api.client.get(f"/api/clubs/{club}", headers=api.user("rojo")).get_json()["policies"]
    assert policies["readings"] == {"merida": {"strategic_modifier": -2}}
    new = api.client.post(
        "/api/games",
        json={
            "system": "merida",
            "scenario": "merida-1938",
            "club": club,
            "sides": {"nationalist": "franco", "republican": "rojo"},
        },  # fmt: skip
        headers=api.user("franco"),
    )
    assert new.status_code == 201, new.get_json()
    assert new.get_json()["options"]["strategic_modifier"] == -2
    chosen = api.client.post(
        "/api/games",
        json={
            "system": "merida",
            "scenario": "merida-1938",
            "club": club,
            "options": {"strategic_modifier": 2},
            "sides": {"nationalist": "franco", "republican": "rojo"},
        },  # fmt: skip
        headers=api.user("franco"),
    )  # a game may still choose the other reading
    assert chosen.get_json()["options"]["strategic_modifier"] == 2


def test_a_claimed_command_instead_is_decided_in_the_what_if_or_refused_with_its_rule(
    app: Flask, api: ApiHelper
) -> None:
    gid = start(app, api, duel_state())
    combat = fought(api, gid)
    far = {"type": "attack", "attackers": ["w"], "hex": "E5"}  # w stands at B2, far from E5
    opened = open_dispute(api, gid, combat["seq"], instead=far)
    assert opened.status_code == 201, opened.get_json()
    url = f"/api/games/{gid}/disputes/{opened.get_json()['dispute']}/what-if"
    shown = api.client.get(url, headers=api.user("judge")).get_json()
    refused = shown["alternative"]["refused"]
    assert refused is not None and refused["rule"] and refused["reason"]
    assert shown["alternative"]["events"] == [] and shown["alternative"]["instead"] == far

    assert "must attack" in refused["reason"] or refused["rule"] == "8"

    state = duel_state()
    state["units"]["b"] = {**state["units"]["w"], "id": "b", "name": "b", "hex": "E6"}
    gid = start(app, api, state)
    combat = fought(api, gid)
    both = {"type": "attack", "attackers": ["a", "b"], "hex": "E5"}
    opened = open_dispute(api, gid, combat["seq"], instead=both)
    url = f"/api/games/{gid}/disputes/{opened.get_json()['dispute']}/what-if"
    shown = api.client.get(url, headers=api.user("judge")).get_json()
    assert shown["alternative"]["refused"] is None, shown["alternative"]
    alt = next(e for e in shown["alternative"]["events"] if e["kind"] == "CombatResolved")
    assert alt["data"]["attackers"] == ["a", "b"] and alt["data"]["attack_strength"] == 9
    assert alt["data"]["die"] == combat["payload"]["data"]["die"]  # the same luck


def test_a_private_games_what_if_and_readings_are_not_there_for_strangers(
    app: Flask, api: ApiHelper
) -> None:
    """Private unless public: a stranger and a signed-out client find neither the what-if nor the
    readings of a private game's event (404, as for the game itself)."""
    gid = start(app, api, duel_state())
    combat = fought(api, gid)
    dispute = open_dispute(api, gid, combat["seq"], reading={"strategic_modifier": -2})
    urls = [
        f"/api/games/{gid}/disputes/{dispute.get_json()['dispute']}/what-if",
        f"/api/games/{gid}/events/{combat['seq']}/readings",
    ]
    api.user("stranger")
    for url in urls:
        assert api.client.get(url, headers=api.user("stranger")).status_code == 404, url
        assert api.client.get(url).status_code in (401, 404), url
        assert api.client.get(url, headers=api.user("rojo")).status_code == 200, url


def test_a_rewind_of_a_dispute_that_claimed_a_reading_needs_no_reading(
    app: Flask, api: ApiHelper
) -> None:
    """The claim's reading is adopted only by a rebase; a rewind of the same dispute stands on its
    own (it was refused with a 422 naming ``remedy``), and records the what-if it was shown."""
    gid = start(app, api, duel_state())
    combat = fought(api, gid)
    dispute = open_dispute(api, gid, combat["seq"], reading={"strategic_modifier": -2})
    d = dispute.get_json()["dispute"]
    shown = api.client.get(f"/api/games/{gid}/disputes/{d}/what-if", headers=api.user("judge"))
    resolved = resolve(
        api,
        gid,
        d,
        **{
            "verdict": "overturned",
            "remedy": "rewind",
            "citations": [RULE_5],
            "what_if": shown.get_json()["digest"],
        },
    )
    assert resolved.status_code == 201, resolved.get_json()
    game = api.game(gid, "rojo")
    assert game["readings"] == [] and game["options"].get("strategic_modifier", 2) == 2

    # a reading named with the verdict itself asks for a rebase: with a rewind, 422, nothing written
    gid = start(app, api, duel_state())
    combat = fought(api, gid)
    d = open_dispute(api, gid, combat["seq"]).get_json()["dispute"]
    before = api.game(gid, "rojo")["version"]
    refused = resolve(
        api,
        gid,
        d,
        **{
            "verdict": "overturned",
            "remedy": "rewind",
            "citations": [RULE_5],
            "reading": {"strategic_modifier": -2},
        },
    )
    assert refused.status_code == 422 and "remedy" in refused.get_json()["details"]
    assert api.game(gid, "rojo")["version"] == before


def test_a_malformed_digest_or_event_is_named_and_nothing_is_written(
    app: Flask, api: ApiHelper
) -> None:
    gid = start(app, api, duel_state())
    combat = fought(api, gid)
    d = open_dispute(api, gid, combat["seq"]).get_json()["dispute"]
    before = api.game(gid, "rojo")["version"]
    bad = resolve(
        api, gid, d, **{"verdict": "upheld", "citations": [RULE_5], "what_if": "not a digest"}
    )
    assert bad.status_code == 400 and "what_if" in bad.get_json()["details"]
    assert api.game(gid, "rojo")["version"] == before
    far = api.client.get(
        f"/api/games/{gid}/events/{before + 50}/readings", headers=api.user("rojo")
    )
    assert far.status_code == 404 and "seq" in far.get_json()["details"]


def test_an_ended_games_dispute_shows_the_order_as_recorded_and_is_decided_by_an_upheld_verdict(
    app: Flask, api: ApiHelper
) -> None:
    """Issue 51, finding 4: a dispute opened after the game ended answered its what-if with a
    409, so its page showed neither the order nor a verdict form.  Nothing is re-decided in an
    ended game; the what-if shows the order as recorded and the arbiter upholds it (with a club
    ruling for later games if it was wrong)."""
    gid = start(app, api, duel_state())
    combat = fought(api, gid)
    r = api.client.post(
        f"/api/games/{gid}/resign", json={"side": "republican"}, headers=api.user("rojo")
    )
    assert r.status_code in (200, 201), r.get_json()
    assert api.game(gid, "rojo")["status"] == "ended"
    dispute = open_dispute(api, gid, combat["seq"], reading={"strategic_modifier": -2})
    assert dispute.status_code == 201, dispute.get_json()
    dispute = dispute.get_json()["dispute"]
    url = f"/api/games/{gid}/disputes/{dispute}/what-if"
    for who, may_rule in (("rojo", False), ("franco", False), ("judge", True)):
        r = api.client.get(url, headers=api.user(who))
        assert r.status_code == 200, r.get_json()
        shown = r.get_json()
        assert shown["ended"] is True and shown["alternative"] is None
        assert shown["digest"] is None and shown["may_rule"] is may_rule
        (event,) = [e for e in shown["recorded"]["events"] if e["kind"] == "CombatResolved"]
        assert event["seq"] == combat["seq"] and event["data"] == combat["payload"]["data"]
        assert "E5" in shown["focus"] and shown["recorded"]["counters"]
    refused = resolve(api, gid, dispute, verdict="overturned", remedy="rebase", citations=[RULE_5])
    assert refused.status_code == 409, refused.get_json()
    assert "club ruling" in json.dumps(refused.get_json()["details"])
    upheld = resolve(api, gid, dispute, verdict="upheld", citations=[RULE_5])
    assert upheld.status_code in (200, 201), upheld.get_json()
    (item,) = api.client.get(f"/api/games/{gid}/disputes", headers=api.user("rojo")).get_json()
    assert item["status"] == "upheld"
    # the resolved dispute's page still shows the order as recorded
    after = api.client.get(url, headers=api.user("rojo")).get_json()
    assert after["ended"] is True and not after["may_rule"]
