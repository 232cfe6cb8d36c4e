"""Backbone through the HTTP API, and the fog of war (10.2 hidden chits, 13.2 hidden replacements,
19.2 limited intelligence) in every read path: state, events, the ndjson export."""

from __future__ import annotations

import json

from service.rules.backbone import SYSTEM
from service.rules.base import RulesEvent
from tests.support.api import ApiHelper
from tests.unit.rules.backbone.fixtures import play

SIDES = {"allied": "ike", "spanish": "paco"}


def test_16_6_api_crt_table_with_the_errata(api: ApiHelper) -> None:
    r = api.client.get("/api/systems/backbone/tables/crt")
    assert r.status_code == 200
    table = r.get_json()
    assert table["columns"] == ["1:2", "1:1", "2:1", "3:1", "4:1", "5:1", "6:1"]
    assert table["rows"][0]["roll"] == "<0"
    assert table["rows"][8]["results"][6] == "-/4"


def test_16_3_api_combat_preview_and_bad_situation(api: ApiHelper) -> None:
    situation = {
        "attacker_side": "allied",
        "terrain": "broken",
        "amphibious": True,
        "attackers": [
            {
                "id": "tk",
                "attack": 7,
                "efficiency": 2,
                "steps": 4,
                "amphibious": True,
                "from": "sea",
            },
            {
                "id": "inf",
                "attack": 5,
                "efficiency": 2,
                "steps": 4,
                "amphibious": True,
                "from": "sea",
            },
            {
                "id": "cdo",
                "attack": 3,
                "efficiency": 3,
                "steps": 1,
                "amphibious": True,
                "from": "sea",
            },
        ],
        "defenders": [{"id": "cav", "defense": 2, "efficiency": 1, "steps": 2}],
        "attacker": {"naval": 2, "air": 2},
        "defender": {"air": 1},
        "roll": 2,
    }
    r = api.client.post("/api/systems/backbone/combat-preview", json=situation)
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert (body["column"], body["net_drm"], body["result"]["text"]) == ("4:1", 2, "1/1R")
    r = api.client.post(
        "/api/systems/backbone/combat-preview", json={**situation, "attacker": {"air": 4}}
    )
    assert r.status_code == 400
    assert "attacker.air" in json.dumps(r.get_json())


def test_8_2_api_game_created_and_rule_violation_cites_the_rule(api: ApiHelper) -> None:
    game = api.create_game("backbone", "scenario-1", SIDES)
    assert game["active_sides"] == ["spanish"]
    r = api.command(game["id"], "paco", {"type": "deploy", "fortifications": ["14,2"]})
    assert r.status_code == 422
    assert "13.3" in json.dumps(r.get_json())
    r = api.command(game["id"], "paco", {"type": "deploy", "fortifications": ["4,7"]})
    assert r.status_code == 201, r.get_json()
    assert api.command(game["id"], "ike", {"type": "deploy"}).status_code == 201
    r = api.command(game["id"], "ike", {"type": "begin_turn"})
    assert r.status_code == 201
    assert api.game(game["id"], "ike")["phase"]["phase"] == "events"


def test_10_2_drawn_chit_hidden_from_the_allies_in_state_events_and_export(api: ApiHelper) -> None:
    game = api.create_game("backbone", "scenario-1", SIDES)
    api.command(game["id"], "paco", {"type": "deploy", "fortifications": []})
    api.command(game["id"], "ike", {"type": "deploy"})
    api.command(game["id"], "ike", {"type": "begin_turn"})
    spanish = api.game(game["id"], "paco")["state"]["events"]["hands"]["spanish"]
    assert len(spanish) == 1 and spanish[0] != "hidden"
    chit = spanish[0]
    allied_view = api.game(game["id"], "ike")["state"]["events"]
    assert allied_view["hands"]["spanish"] == ["hidden"]
    assert set(allied_view["cups"]["spanish"]) == {"hidden"}
    drawn = [e for e in api.events(game["id"], "ike") if e["type"] == "EventChitDrawn"]
    permanent = chit in ("luftwaffe", "dissensions", "baraka")
    assert drawn and (drawn[0]["payload"]["data"]["chit"] == ("hidden" if not permanent else chit))
    r = api.client.get(f"/api/games/{game['id']}/events.ndjson", headers=api.user("ike"))
    assert r.status_code == 200
    export = r.get_data(as_text=True)
    if not permanent:
        assert f'"{chit}"' not in export.split("EventChitDrawn", 1)[1].split("\n", 1)[0]
    public = api.game(game["id"])["state"]["events"]["hands"]["spanish"]
    assert public == ["hidden"]


def test_19_2_limited_intelligence_only_the_top_unit_of_enemy_stacks(api: ApiHelper) -> None:
    game = api.create_game("backbone", "scenario-1", SIDES, options={"limited_intelligence": True})
    allied = api.game(game["id"], "ike")["state"]["units"]
    spanish = api.game(game["id"], "paco")["state"]["units"]
    in_larache = [u for u in spanish.values() if u["hex"] == "8,2"]
    assert len(in_larache) == 2
    seen = [u for u in allied.values() if u["hex"] == "8,2"]
    assert len(seen) == 1 and seen[0]["seq"] == max(u["seq"] for u in in_larache)
    assert all(u["id"] in allied for u in spanish.values() if u["side"] == "allied")
    public = api.game(game["id"])["state"]["units"]
    assert len([u for u in public.values() if u["hex"] == "8,2"]) == 1


def fogged_state() -> dict:
    st = SYSTEM.initial_state("scenario-1", {"limited_intelligence": True})
    play(st, "spanish", {"type": "deploy", "fortifications": []})
    play(st, "allied", {"type": "deploy"})
    play(st, "allied", {"type": "begin_turn"}, [1])
    play(st, "spanish", {"type": "pass"})
    play(st, "allied", {"type": "roll_strait"}, [6])
    return st


def test_19_2_a_declared_combat_reveals_the_whole_stack() -> None:
    st = fogged_state()
    assert len([u for u in SYSTEM.view(st, "allied")["units"].values() if u["hex"] == "2,7"]) == 1
    play(st, "allied", {"type": "land", "hex": "2,7", "units": ["uk-21tk", "uk-commando"]})
    seen = SYSTEM.view(st, "allied")["units"]
    assert {"es-gfri1", "es-gfri2"} <= set(seen)


def test_19_2_a_move_from_under_one_stack_to_under_another_is_withheld() -> None:
    from tests.unit.rules.backbone.fixtures import counter, state

    units = [
        counter("s1", "spanish", "5,5"),
        counter("s2", "spanish", "5,5"),
        counter("s3", "spanish", "5,7"),
        counter("a", "allied", "9,9"),
    ]
    st = state(units, step="spanish_movement", options={"limited_intelligence": True})
    st["units"]["s2"]["seq"] = 10**6  # on top of 5,5
    st["units"]["s3"]["seq"] = 10**6 + 1  # on top of 5,7
    assert set(SYSTEM.view(st, "allied")["units"]) == {"s2", "s3", "a"}
    before = json.loads(json.dumps(st))
    events = play(st, "spanish", {"type": "move", "unit": "s1", "path": ["5,5", "5,6", "5,7"]})
    assert SYSTEM.event_view(events[0], before, "allied").data == {"unit": "hidden", "hidden": True}
    assert SYSTEM.event_view(events[0], before, "spanish").data["unit"] == "s1"
    assert SYSTEM.event_view(events[0], before, None).data["unit"] == "hidden"
    assert "s1" not in SYSTEM.view(st, "allied")["moved"]  # nor named in the state's lists
    assert SYSTEM.view(st, "spanish")["moved"] == ["s1"]


def test_13_2_replacements_chosen_event_hidden_from_the_other_side() -> None:
    st = SYSTEM.initial_state("scenario-1", {})
    event = RulesEvent(
        "ReplacementsChosen", {"side": "allied", "steps": [{"unit": "us-7ri", "hex": None}]}
    )
    assert SYSTEM.event_view(event, st, "spanish").data["steps"] == "hidden"
    assert SYSTEM.event_view(event, st, "allied").data["steps"] == [{"unit": "us-7ri", "hex": None}]


def test_16_1_and_19_2_declared_combats_drawn_chits_and_placed_replacements_reveal() -> None:
    assert SYSTEM.reveals(RulesEvent("CombatDeclared", {}))
    assert SYSTEM.reveals(RulesEvent("EventChitDrawn", {}))
    assert SYSTEM.reveals(RulesEvent("ReplacementsPlaced", {}))
    assert not SYSTEM.reveals(RulesEvent("UnitMoved", {}))
