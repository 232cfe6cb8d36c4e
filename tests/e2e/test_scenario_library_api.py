"""The club scenario library through the HTTP API (issue 18): a club's organiser turns Merida's
placeholder scenario into the club's own, publishes it, and a game started from that version plays
on it (TEC movement costs, the river's combat effect) -- checked through the game's own API; bad
input reported at its place with nothing published; permissions; diff; CSV; pinning; forks."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.api import ApiHelper, build

SIDES = {"nationalist": "franco", "republican": "rojo"}


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.get_json()
    return response.get_json()


@pytest.fixture
def club(api: ApiHelper) -> dict[str, Any]:
    """Merida Club: ann organises (admin); mel, franco and rojo are members (players)."""
    body = ok(
        api.client.post("/api/clubs", json={"name": "Merida Club"}, headers=api.user("ann")), 201
    )
    for name in ("mel", *SIDES.values()):
        api.user(name)
        api.admit(
            f"/api/clubs/{body['id']}/members",
            {"username": name, "roles": ["player"]},
            api.user("ann"),
        )
    return body


def start(api: ApiHelper, club: dict[str, Any], title: str = "Merida as printed") -> dict[str, Any]:
    return ok(
        api.client.post(
            f"/api/clubs/{club['id']}/scenarios",
            json={"system": "merida", "base": "merida-1938", "title": title},
            headers=api.user("ann"),
        ),
        201,
    )


def edit(api: ApiHelper, sid: str, *changes: dict[str, Any], user: str = "ann") -> Any:
    return api.client.post(
        f"/api/club-scenarios/{sid}/edits", json={"changes": list(changes)}, headers=api.user(user)
    )


def publish(api: ApiHelper, sid: str, user: str = "ann") -> Any:
    return api.client.post(f"/api/club-scenarios/{sid}/versions", json={}, headers=api.user(user))


CLUB_EDITS = (
    {"kind": "terrain", "hex": "AB4", "terrain": "mountain"},
    {"kind": "hexside", "hexes": ["R16", "S16"], "features": ["river"]},
    {"kind": "unit_edited", "unit": "n-19-div", "field": "values.strength", "value": 5},
    {"kind": "setup", "unit": "n-19-div", "hex": "R16"},
)


def play_to(api: ApiHelper, gid: str, phase: str) -> dict[str, Any]:
    """Deploy every unit due once (spread over the hexes offered) and end phases until ``phase``
    of turn 1 comes for the Nationalists."""
    placed: set[str] = set()
    for _ in range(80):
        game = api.game(gid, "franco")
        side = game["active_sides"][0]
        if game["phase"]["phase"] == phase and side == "nationalist":
            return game
        listed = api.actions(gid, SIDES[side], side)["actions"]
        todo = [t for t in listed if t["type"] == "deploy" and t["fixed"]["unit"] not in placed]
        if todo:
            placed.add(todo[0]["fixed"]["unit"])
            hexes = todo[0]["choose"]["hex"]["one_of"]
            command = build(todo[0], hex=hexes[len(placed) % len(hexes)])
        else:
            command = end_or_regain_line(api, gid, side, listed)
        assert api.command(gid, SIDES[side], command, side=side).status_code == 201
    raise AssertionError(f"never reached {phase}")


def end_or_regain_line(
    api: ApiHelper, gid: str, side: str, listed: list[dict[str, Any]]
) -> dict[str, Any]:
    """End the phase, or first move a unit that must regain its line (rule 10) to a hex the
    refusal names."""
    ends = [t for t in listed if t["type"] == "end_phase"]
    if ends:
        return build(ends[0])
    blocked = api.actions(gid, SIDES[side], side)["blocked"]
    reach = [
        hex_.strip()
        for b in blocked
        if b["rule"] == "10" and "can reach" in b["reason"]
        for hex_ in b["reason"].rsplit("can reach", 1)[1].strip(" )").split(",")
    ]
    for template in listed:
        if template["type"] == "move":
            paths = [p for p in template["choose"]["path"]["one_of"] if p[-1] in reach]
            if paths:
                return build(template, path=paths[0])
    raise AssertionError(f"stuck: {blocked}")


def moved_cost(api: ApiHelper, gid: str, unit: str, path: list[str]) -> float:
    """The movement points the game recorded for ``unit`` moving along ``path``."""
    template = api.template(gid, "franco", "move", side="nationalist", units=[unit])
    assert path in template["choose"]["path"]["one_of"]
    done = ok(api.command(gid, "franco", build(template, path=path), side="nationalist"), 201)
    moved = [e for e in done["events"] if e["type"] == "UnitsMoved"]
    return float(moved[0]["payload"]["data"]["costs"][unit])


def test_organiser_enters_the_map_and_a_game_plays_on_it(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    scenario = start(api, club)
    sid = scenario["id"]
    assert scenario["errors"] == [] and scenario["completeness"] == 0
    strength = [p["field"] for p in scenario["placeholders"] if p["place"] == "unit n-19-div"]
    assert strength and strength[0].endswith(".values.strength")
    draft = ok(edit(api, sid, *CLUB_EDITS))
    assert draft["errors"] == [] and draft["edits"] == 4
    assert strength[0] not in [p["field"] for p in draft["placeholders"]]  # entered for real
    published = ok(publish(api, sid), 201)
    assert published["latest"] == 1 and published["versions"][0]["hash"].startswith("sha256:")
    listed = ok(api.client.get(f"/api/clubs/{club['id']}/scenarios", headers=api.user("mel")))
    assert [(s["id"], s["latest"], s["hash"]) for s in listed] == [
        (sid, 1, published["versions"][0]["hash"])
    ]

    for name in SIDES.values():
        api.user(name)
    game = ok(
        api.client.post(
            "/api/games",
            json={
                "system": "merida",
                "scenario": sid,
                "scenario_version": 1,
                "sides": SIDES,
            },
            headers=api.user("franco"),
        ),
        201,
    )
    gid = game["id"]
    api.accept_all(game, "franco")  # rojo accepts the invitation: play starts
    assert game["labels"]["club_scenario"] == sid
    assert game["labels"]["scenario_version"] == 1
    assert game["labels"]["scenario_hash"] == published["versions"][0]["hash"]
    assert game["title"] == "Merida as printed"
    # the game's own board shows the club's terrain and river
    board = ok(api.client.get(f"/api/games/{gid}/board", headers=api.user("rojo")))
    assert board == ok(  # the club's own members read the version through the library too
        api.client.get(
            f"/api/systems/merida/scenarios/{game['scenario']}/board", headers=api.user("mel")
        )
    )
    assert board["terrain"]["AB4"] == "mountain"
    assert {"hexes": ["R16", "S16"], "features": ["river"]} in board["hexsides"]
    assert game["state"]["map"]["terrain"]["AB4"] == "mountain"
    assert game["state"]["units"]["n-19-div"]["hex"] == "R16"
    assert game["state"]["units"]["n-19-div"]["strength"] == 5

    # TEC: infantry entering mountain pays 2 MP (clear: 1)
    play_to(api, gid, "movement")
    assert moved_cost(api, gid, "n-1-21-div", ["AA3", "AB4"]) == 2.0
    assert moved_cost(api, gid, "n-2-21-div", ["AA3", "AA4"]) == 1.0

    # TEC: the defender is doubled when attacked exclusively across a river
    game = play_to(api, gid, "combat")
    attack = api.template(gid, "franco", "attack", side="nationalist")
    command = build(attack)
    preview = ok(
        api.client.post(
            f"/api/games/{gid}/preview",
            json={"command": command, "side": "nationalist"},
            headers=api.user("franco"),
        )
    )
    assert command["hex"] == "S16" and command["attackers"] == ["n-19-div"]
    assert preview["attack_strength"] == 5  # the club's counter value
    units = game["state"]["units"]
    printed = sum(units[u]["strength"] for u in preview["defenders"])
    assert preview["defense_strength"] == 2 * printed
    assert {"cause": "defender doubled: attacked exclusively across river", "rule": "TEC"} in (
        preview["strength_effects"]
    )


def test_a_game_keeps_its_version_when_the_scenario_is_republished(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    sid = start(api, club)["id"]
    ok(edit(api, sid, {"kind": "terrain", "hex": "J7", "terrain": "mountain"}))
    first = ok(publish(api, sid), 201)["versions"][0]
    for name in SIDES.values():
        api.user(name)
    body = {"system": "merida", "scenario": sid, "scenario_version": 1, "sides": SIDES}
    game = ok(api.client.post("/api/games", json=body, headers=api.user("franco")), 201)
    ok(edit(api, sid, {"kind": "terrain", "hex": "J7", "terrain": "clear"}))
    second = ok(publish(api, sid), 201)["versions"][1]
    assert second["hash"] != first["hash"]
    again = api.game(game["id"], "franco")
    assert again["state"]["map"]["terrain"]["J7"] == "mountain"
    assert again["labels"]["scenario_version"] == 1
    assert again["labels"]["scenario_hash"] == first["hash"]
    # a new game without a version takes the latest
    newer = ok(
        api.client.post(
            "/api/games",
            json={"system": "merida", "scenario": sid, "sides": SIDES},
            headers=api.user("franco"),
        ),
        201,
    )
    assert newer["labels"]["scenario_version"] == 2
    assert newer["state"]["map"]["terrain"].get("J7", "clear") == "clear"
    # and the diff says exactly what changed, in words
    diff = ok(
        api.client.get(f"/api/club-scenarios/{sid}/diff?from=1&to=2", headers=api.user("mel"))
    )
    assert diff["changes"] == ["J7: mountain → clear"]
    # each published version lists its options, as the built-in scenario does (the start forms)
    listed = ok(api.client.get("/api/club-scenarios", headers=api.user("franco")))
    ours = next(x for x in listed if x["id"] == sid)
    builtin = next(s for s in ok(api.client.get("/api/systems/merida"))["scenarios"])
    assert [v["options"] for v in ours["versions"]] == [builtin["options"]] * 2


def test_the_diff_lists_exactly_the_changed_facts(api: ApiHelper, club: dict[str, Any]) -> None:
    sid = start(api, club)["id"]
    ok(publish(api, sid), 201)
    ok(edit(api, sid, *CLUB_EDITS))
    ok(publish(api, sid), 201)
    diff = ok(
        api.client.get(f"/api/club-scenarios/{sid}/diff?from=1&to=2", headers=api.user("ann"))
    )
    assert diff["changes"] == [
        "AB4: clear → mountain",
        "hexside R16/S16: none → river",
        "19 Div set-up hex O10 → R16",
        "19 Div strength 4 → 5",
    ]


@pytest.mark.parametrize(
    ("change", "place", "reason"),
    [
        ({"kind": "terrain", "hex": "J7", "terrain": "forest"}, "hex J7", "unknown terrain"),
        ({"kind": "terrain", "hex": "Z99", "terrain": "clear"}, "hex Z99", "unknown hex Z99"),
        (
            {"kind": "hexside", "hexes": ["J7", "J9"], "features": ["river"]},
            "hexside J7/J9",
            "not adjacent",
        ),
        (
            {
                "kind": "unit_added",
                "unit": {
                    "id": "n-19-div",
                    "side": "nationalist",
                    "type": "infantry",
                    "hex": "O10",
                    "values": {"strength": 4},
                },
            },
            "unit n-19-div",
            "duplicate unit id",
        ),
        (
            {
                "kind": "unit_edited",
                "unit": "n-19-div",
                "field": "values.strength",
                "value": "five",
            },
            "unit n-19-div",
            "number",
        ),
    ],
)
def test_bad_input_is_reported_at_its_place_and_nothing_is_published(
    api: ApiHelper, club: dict[str, Any], change: dict[str, Any], place: str, reason: str
) -> None:
    sid = start(api, club)["id"]
    draft = ok(edit(api, sid, change))
    found = [e for e in draft["errors"] if e["place"] == place]
    assert found and reason in found[0]["reason"], draft["errors"]
    assert draft["publishable"] is False
    refused = publish(api, sid)
    assert refused.status_code == 422
    assert any(reason in r for r in refused.get_json()["details"][place])
    after = ok(api.client.get(f"/api/club-scenarios/{sid}", headers=api.user("ann")))
    assert after["versions"] == [] and after["latest"] == 0


def test_a_change_that_names_nothing_is_refused_and_nothing_is_written(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    sid = start(api, club)["id"]
    bad = edit(api, sid, {"kind": "unit_edited", "unit": "nobody", "field": "name", "value": "x"})
    assert bad.status_code == 422 and "changes[0].unit" in bad.get_json()["details"]
    shape = edit(api, sid, {"kind": "terrain", "hex": "J7"})
    assert shape.status_code == 400, shape.get_json()
    assert any(k.startswith("changes") for k in shape.get_json()["details"])
    after = ok(api.client.get(f"/api/club-scenarios/{sid}", headers=api.user("ann")))
    assert after["edits"] == 0


def test_placeholders_are_listed_at_their_place_and_completeness_grows(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    scenario = start(api, club)
    sid = scenario["id"]
    before = scenario["placeholders"]
    assert {"place": "field turns", "field": "turns"}.items() <= next(
        p for p in before if p["field"] == "turns"
    ).items()
    assert any(p["place"] == "hex N14" for p in before)  # Logrosan: a placeholder town
    after = ok(
        edit(
            api,
            sid,
            {"kind": "field", "path": "turns", "value": 15},
            {"kind": "confirm", "path": "map.orientation"},
            {"kind": "confirm", "path": "map.offset"},
        )
    )
    assert len(after["placeholders"]) == len(before) - 3
    assert not any(p["field"] in ("turns", "map.orientation") for p in after["placeholders"])
    assert after["completeness"] == round(100 * 3 / len(before))


def test_counter_list_csv_round_trips(api: ApiHelper, club: dict[str, Any]) -> None:
    sid = start(api, club)["id"]
    headers = api.user("ann")
    exported = api.client.get(f"/api/club-scenarios/{sid}/units.csv", headers=headers)
    assert exported.status_code == 200 and exported.mimetype == "text/csv"
    text = exported.get_data(as_text=True)
    assert text.splitlines()[0].startswith("id,side,type,name,steps,hex,notes,strength")
    same = ok(
        api.client.post(f"/api/club-scenarios/{sid}/units.csv", json={"csv": text}, headers=headers)
    )
    assert same["changes"] == 0 and same["edits"] == 0
    changed = text.replace(
        "n-19-div,nationalist,infantry,19 Div,,O10,,4",
        "n-19-div,nationalist,infantry,19 Div,,R16,,5",
    )
    assert changed != text
    done = ok(
        api.client.post(
            f"/api/club-scenarios/{sid}/units.csv", json={"csv": changed}, headers=headers
        )
    )
    assert done["changes"] == 2
    again = api.client.get(f"/api/club-scenarios/{sid}/units.csv", headers=headers)
    lines = again.get_data(as_text=True).splitlines()
    import difflib

    assert list(difflib.unified_diff(changed.splitlines(), lines, n=0)) == []
    assert again.get_data(as_text=True) == changed


def test_only_organisers_edit_members_read_other_clubs_see_what_is_shared(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    sid = start(api, club)["id"]
    assert edit(api, sid, CLUB_EDITS[0], user="mel").status_code == 403
    assert publish(api, sid, user="mel").status_code == 403
    member_view = ok(api.client.get(f"/api/club-scenarios/{sid}", headers=api.user("mel")))
    assert member_view["may_edit"] is False and "document" in member_view
    other = ok(
        api.client.post("/api/clubs", json={"name": "Badajoz Club"}, headers=api.user("bea")), 201
    )
    assert api.client.get(f"/api/club-scenarios/{sid}", headers=api.user("bea")).status_code == 404
    assert ok(api.client.get(f"/api/clubs/{club['id']}/scenarios", headers=api.user("bea"))) == []
    fork = {"club": other["id"]}
    assert (
        api.client.post(
            f"/api/club-scenarios/{sid}/forks", json=fork, headers=api.user("bea")
        ).status_code
        == 404
    )
    ok(publish(api, sid), 201)
    shared = api.client.put(
        f"/api/club-scenarios/{sid}/sharing", json={"sharing": "shared"}, headers=api.user("ann")
    )
    assert ok(shared)["sharing"] == "shared"
    seen = ok(api.client.get(f"/api/club-scenarios/{sid}", headers=api.user("bea")))
    assert "document" not in seen and seen["latest"] == 1
    assert api.client.get(f"/api/club-scenarios/{sid}", headers={}).status_code == 404
    forked = ok(
        api.client.post(f"/api/club-scenarios/{sid}/forks", json=fork, headers=api.user("bea")), 201
    )
    assert forked["club"] == other["id"] and forked["forked_from"] == {
        "scenario": sid,
        "version": 1,
    }
    assert forked["may_edit"] is True
    ok(
        api.client.put(
            f"/api/club-scenarios/{sid}/sharing",
            json={"sharing": "public"},
            headers=api.user("ann"),
        )
    )
    assert ok(api.client.get(f"/api/club-scenarios/{sid}"))["sharing"] == "public"


def test_barcelona_table_in_inches_pieces_zones_objectives(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    """Barcelona's table is edited the same way, in inches: a terrain piece as a shape with its
    effects, a deployment zone, an objective; the same checks, each problem at its place."""
    scenario = ok(
        api.client.post(
            f"/api/clubs/{club['id']}/scenarios",
            json={"system": "barcelona", "base": "skirmish", "title": "Ebro road, our table"},
            headers=api.user("ann"),
        ),
        201,
    )
    sid = scenario["id"]
    assert scenario["errors"] == [] and scenario["completeness"] == 0
    assert [p["field"] for p in scenario["placeholders"]] == ["placeholder"]
    bad = ok(
        edit(
            api,
            sid,
            {
                "kind": "piece",
                "id": "ruin",
                "name": "Ruined chapel",
                "effects": ["swamp"],
                "rect": [44, 10, 8, 6],
            },
            {"kind": "zone", "side": "republican", "rect": [0, 30, 48, 10]},
            {"kind": "objective", "name": "Chapel", "point": [60, 12]},
        )
    )
    errors = {(e["place"], e["reason"]) for e in bad["errors"]}
    assert ("piece Ruined chapel", "unknown effect swamp") in errors
    assert ("piece Ruined chapel", "[52.0, 10.0] is off the table") in errors
    assert ("zone republican", "[48.0, 40.0] is off the table") in errors
    assert ("objective Chapel", "[60.0, 12.0] is off the table") in errors
    assert publish(api, sid).status_code == 422
    fixed = ok(
        edit(
            api,
            sid,
            {
                "kind": "piece",
                "id": "ruin",
                "name": "Ruined chapel",
                "effects": ["cover"],
                "polygon": [[40, 10], [46, 10], [43, 15]],
            },
            {"kind": "zone", "side": "republican", "rect": [0, 28, 48, 8]},
            {"kind": "objective", "name": "Chapel", "point": [43, 12], "values": {"vp": 2}},
            {"kind": "field", "path": "placeholder", "value": False},
        )
    )
    assert fixed["errors"] == [] and fixed["completeness"] == 100
    ok(publish(api, sid), 201)
    diff = ok(
        api.client.get(f"/api/club-scenarios/{sid}/diff?from=1&to=draft", headers=api.user("ann"))
    )
    assert diff["changes"] == []
    ok(
        edit(
            api,
            sid,
            {"kind": "objective", "name": "Chapel", "point": [44, 12.5], "values": {"vp": 3}},
        )
    )
    ok(publish(api, sid), 201)
    diff = ok(
        api.client.get(f"/api/club-scenarios/{sid}/diff?from=1&to=2", headers=api.user("ann"))
    )
    assert diff["changes"] == [
        "objective Chapel at: (43, 12) → (44, 12.5)",
        "objective Chapel vp: 2 → 3",
    ]
    board = ok(
        api.client.get(f"/api/club-scenarios/{sid}/board?version=1", headers=api.user("mel"))
    )
    assert board["kind"] == "table" and board["units"] == "inches"
    assert {"name": "Chapel", "point": [43, 12], "values": {"vp": 2}} in board["objectives"]
    game = ok(
        api.client.post(
            "/api/games",
            json={"system": "barcelona", "scenario": sid, "sides": SIDES},
            headers=api.user("franco"),
        ),
        201,
    )
    areas = {a["id"]: a for a in game["state"]["areas"]}
    assert areas["ruin"]["polygon"] == [[40, 10], [46, 10], [43, 15]]
    assert game["state"]["deployment"]["republican"] == {"rect": [0, 28, 48, 8]}
    assert game["labels"]["scenario_version"] == 2


def test_backbone_starts_from_a_club_scenario_drawn_as_printed(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    """Issue 32: every hex game starts from its club's map -- Backbone too (it answered 422).  The
    club's copy of scenario 1 with one hex edited starts a game whose state has the edit, whose
    board is turned as the shipped one is (the printed map's row,column labels), and whose first
    deployment is offered and taken."""
    made = ok(
        api.client.post(
            f"/api/clubs/{club['id']}/scenarios",
            json={"system": "backbone", "base": "scenario-1", "title": "Backbone, ours"},
            headers=api.user("ann"),
        ),
        201,
    )
    assert made["errors"] == []
    shipped = ok(api.client.get("/api/systems/backbone/scenarios/scenario-1/board"))
    land = next(h["hex"] for h in shipped["hexes"] if h["terrain"] == "clear")
    ok(edit(api, made["id"], {"kind": "terrain", "hex": land, "terrain": "mountain"}))
    ok(publish(api, made["id"]), 201)
    sides = dict(zip(made["document"]["sides"], SIDES.values(), strict=True))
    game = ok(
        api.client.post(
            "/api/games",
            json={"system": "backbone", "scenario": made["id"], "sides": sides},
            headers=api.user("franco"),
        ),
        201,
    )
    game = api.accept_all(game, "franco")
    assert game["labels"]["club_scenario"] == made["id"]
    assert game["state"]["map"]["terrain"][land] == "mountain"
    board = ok(api.client.get(f"/api/games/{game['id']}/board", headers=api.user("rojo")))
    centre = {h["hex"]: (h["x"], h["y"]) for h in board["hexes"]}
    assert centre == {h["hex"]: (h["x"], h["y"]) for h in shipped["hexes"]}
    assert board["drawing"]["transposed"] is True
    assert {h["hex"]: h["terrain"] for h in board["hexes"]}[land] == "mountain"
    acting = next(u for s, u in sides.items() if api.actions(game["id"], u)["actions"])
    first = api.actions(game["id"], acting)["actions"][0]
    command = {"type": first["type"], **first["fixed"]}
    for name, choice in first["choose"].items():
        command[name] = choice["options"][0] if not choice.get("many") else choice["options"][:1]
    api.command(game["id"], acting, command)
    assert api.game(game["id"], acting)["version"] > game["version"]


def test_a_club_scenario_of_another_system_or_version_starts_nothing(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    made = ok(
        api.client.post(
            f"/api/clubs/{club['id']}/scenarios",
            json={"system": "backbone", "base": "scenario-1", "title": "Backbone, ours"},
            headers=api.user("ann"),
        ),
        201,
    )
    ok(publish(api, made["id"]), 201)
    wrong = api.client.post(
        "/api/games",
        json={"system": "merida", "scenario": made["id"], "sides": SIDES},
        headers=api.user("franco"),
    )
    assert wrong.status_code == 400 and "system" in wrong.get_json()["details"]
    missing = api.client.post(
        "/api/games",
        json={"system": "merida", "scenario": made["id"], "scenario_version": 9, "sides": SIDES},
        headers=api.user("franco"),
    )
    assert missing.status_code == 422 and "scenario_version" in missing.get_json()["details"]


def test_a_blank_map_is_a_hex_map_and_a_table_has_none(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    """A blank map comes from the game (its ``CustomScenarios``): a hex game's is an empty grid
    that draws; Back to Barcelona, played on a table in inches, has none -- a 422 naming ``blank``
    that says to start from its table, and nothing is written."""
    blank = {
        "bounds": {"min_col": 1, "max_col": 6, "min_row": 1, "max_row": 4},
        "sides": ["a", "b"],
    }
    hexes = ok(
        api.client.post(
            f"/api/clubs/{club['id']}/scenarios",
            json={"system": "bizkaya", "title": "Empty grid", "blank": blank},
            headers=api.user("ann"),
        ),
        201,
    )
    board = ok(api.client.get(f"/api/club-scenarios/{hexes['id']}/board", headers=api.user("ann")))
    assert len(board["hexes"]) == 24
    listed = ok(api.client.get(f"/api/clubs/{club['id']}/scenarios", headers=api.user("ann")))
    refused = api.client.post(
        f"/api/clubs/{club['id']}/scenarios",
        json={"system": "barcelona", "title": "Empty table", "blank": blank},
        headers=api.user("ann"),
    )
    assert refused.status_code == 422
    assert "skirmish" in refused.get_json()["details"]["blank"][0]
    again = ok(api.client.get(f"/api/clubs/{club['id']}/scenarios", headers=api.user("ann")))
    assert [s["title"] for s in again] == [s["title"] for s in listed] == ["Empty grid"]
