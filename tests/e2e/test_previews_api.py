"""Attack previews through POST /api/games/<id>/preview for the shipped rules modules: the odds and
every modifier with its rule, computed on the side's own view, nothing written; then the attack sent
meets what the preview showed.  The server's dice are real, so the games are driven to an attack by
commands whose outcome does not depend on them."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from tests.support.api import ApiHelper, build, every


def preview(
    client: FlaskClient, api: ApiHelper, game_id: str, user: str, side: str, command: dict
) -> Any:
    return client.post(
        f"/api/games/{game_id}/preview",
        json={"command": command, "side": side},
        headers=api.user(user),
    )


MERIDA = {"nationalist": "franco", "republican": "rojo"}


def _merida_to_combat(api: ApiHelper, game_id: str) -> None:
    """Deploy as the API test does, bring the 21 Div next to the guerrilla at Medellin (X3), end the
    phases (moving first any unit the server says must regain its line, rule 10) up to combat."""
    for unit, hex_ in (("r-68-div-4", "AC10"), ("r-37-div-4", "Y7")):
        r = api.command(
            game_id, "rojo", {"type": "deploy", "unit": unit, "hex": hex_}, side="republican"
        )
        assert r.status_code == 201, r.get_json()
    assert api.command(game_id, "rojo", {"type": "end_phase"}, side="republican").status_code == 201
    move = {"type": "move", "units": ["n-1-21-div", "n-2-21-div"], "path": ["AA3", "Z3", "Y3"]}
    assert api.command(game_id, "franco", move, side="nationalist").status_code == 201
    for _ in range(40):
        game = api.game(game_id, "franco")
        side, phase = game["active_sides"][0], game["phase"]["phase"]
        if phase == "combat" and side == "nationalist":
            return
        actions = api.actions(game_id, MERIDA[side], side=side)["actions"]
        ends = [a for a in actions if a["type"] == "end_phase"]
        # end the phase when the rules allow it, else make a move they require (rule 10)
        command = build(ends[0] if ends else next(a for a in actions if a["type"] == "move"))
        r = api.command(game_id, MERIDA[side], command, side=side)
        assert r.status_code == 201, (command, r.get_json())
    raise AssertionError("the Nationalist combat phase was not reached")


def test_merida_attack_previewed_then_resolved_on_the_same_column(
    api: ApiHelper, client: FlaskClient
) -> None:
    game_id = api.create_game("merida", "merida-1938", MERIDA)["id"]
    _merida_to_combat(api, game_id)
    offered = api.template(game_id, "franco", "attack", side="nationalist", hex="X3")
    command = every(offered)
    version = api.game(game_id, "franco")["version"]
    r = preview(client, api, game_id, "franco", "nationalist", command)
    assert r.status_code == 200, r.get_json()
    shown = r.get_json()
    assert shown["table"] == "crt" and shown["rule"] == "8" and shown["defenders"]
    assert (
        shown["odds"]["column"] == shown["column"] and shown["attack"] == shown["attack_strength"]
    )
    assert all(m["rule"] for m in shown["modifiers"] + shown["strength_effects"])
    assert api.game(game_id, "franco")["version"] == version  # nothing written

    refused = preview(client, api, game_id, "rojo", "republican", command)
    assert refused.status_code == 422 and refused.get_json()["details"]["rule"] == ["4"]
    bad = preview(client, api, game_id, "franco", "nationalist", {"type": "end_phase"})
    assert bad.status_code == 400 and "command.type" in bad.get_json()["details"]

    assert api.command(game_id, "franco", command, side="nationalist").status_code == 201
    events = api.events(game_id, "franco", after=version)
    record = next(e for e in events if e["type"] == "CombatResolved")["payload"]["data"]
    for key in ("attack_strength", "defense_strength", "column", "modifiers"):
        assert record[key] == shown[key]


BACKBONE = {"allied": "ike", "spanish": "paco"}


def test_merida_move_previewed_with_its_cost_and_the_zoc_it_stops_in(
    api: ApiHelper, client: FlaskClient
) -> None:
    """Issue 16: a move's preview gives its cost hex by hex (TEC) and what it triggers (rule 7: it
    stops in the guerrilla's ZOC; rule 8: it must attack), nothing written; a bad or refused move
    is a 4xx naming the field or the rule."""
    game_id = api.create_game("merida", "merida-1938", MERIDA)["id"]
    for unit, hex_ in (("r-68-div-4", "AC10"), ("r-37-div-4", "Y7")):
        r = api.command(
            game_id, "rojo", {"type": "deploy", "unit": unit, "hex": hex_}, side="republican"
        )
        assert r.status_code == 201, r.get_json()
    assert api.command(game_id, "rojo", {"type": "end_phase"}, side="republican").status_code == 201
    move = {"type": "move", "units": ["n-1-21-div", "n-2-21-div"], "path": ["AA3", "Z3", "Y3"]}
    version = api.game(game_id, "franco")["version"]
    r = preview(client, api, game_id, "franco", "nationalist", move)
    assert r.status_code == 200, r.get_json()
    shown = r.get_json()
    assert shown["type"] == "move" and shown["costs"] and shown["text"]
    assert all(e["rule"] == "TEC" and e["steps"][-1]["hex"] == "Y3" for e in shown["costs"])
    rules = [c["rule"] for c in shown["consequences"]]
    assert "7" in rules, shown["consequences"]
    assert all(
        isinstance(c["text"], str) and "n-1-21" not in c["text"] for c in shown["consequences"]
    )
    assert api.game(game_id, "franco")["version"] == version  # nothing written

    bad = preview(client, api, game_id, "franco", "nationalist", {**move, "path": ["AA3"]})
    assert bad.status_code == 400 and "command.path" in bad.get_json()["details"]
    refused = preview(
        client, api, game_id, "franco", "nationalist", {**move, "path": ["AA3", "Y3"]}
    )
    assert refused.status_code == 422 and refused.get_json()["details"]["rule"] == ["5"]

    assert api.command(game_id, "franco", move, side="nationalist").status_code == 201
    events = api.events(game_id, "franco", after=version)
    moved = next(e for e in events if e["type"] == "UnitsMoved")["payload"]["data"]
    assert moved["costs"] == {u: e["cost"] for e in shown["costs"] for u in e["units"]}


def _backbone_step(game: dict[str, Any], side: str, moved: bool) -> dict[str, Any]:
    step = game["phase"]["phase"]
    if step in ("deployment", "allied_deployment"):
        return {"type": "deploy"}
    if step == "administrative":
        return {"type": "begin_turn"}
    if step == "events":
        if "tunisia" in game["state"]["events"]["hands"][side]:
            return {"type": "play_event", "chit": "tunisia", "units": ["us-70tk", "us-601td"]}
        return {"type": "pass"}
    if step == "strait":
        return {"type": "roll_strait"}
    if step == "amphibious":
        return {"type": "land", "hex": "4,22", "units": ["uk-21tk", "uk-commando"]}
    if step == "allied_movement" and not moved:  # the CCB/2nd AD next to Larache (8,2)
        return {"type": "move", "unit": "us-ccb2ad", "path": ["11,2", "10,2", "9,2"]}
    return {"type": "end_phase"}


def test_backbone_attack_previewed_on_the_attackers_view_under_limited_intelligence(
    api: ApiHelper, client: FlaskClient
) -> None:
    """19.2: the Allies see only the top unit of the Larache stack; the preview counts it alone,
    says so, and names nothing under it; the declared attack then reveals and fights the stack."""
    game_id = api.create_game(
        "backbone", "scenario-1", BACKBONE, options={"limited_intelligence": True}
    )["id"]
    moved = False
    for _ in range(40):
        game = api.game(game_id)
        side = game["active_sides"][0]
        if game["phase"]["phase"] == "allied_combat":
            break
        command = _backbone_step(api.game(game_id, BACKBONE[side]), side, moved)
        moved = moved or command["type"] == "move"
        r = api.command(game_id, BACKBONE[side], command, side=side)
        assert r.status_code == 201, (command, r.get_json())
    else:
        raise AssertionError("the Allied combat phase was not reached")
    in_larache = {
        u["id"] for u in api.game(game_id, "paco")["state"]["units"].values() if u["hex"] == "8,2"
    }
    seen = {
        u["id"] for u in api.game(game_id, "ike")["state"]["units"].values() if u["hex"] == "8,2"
    }
    hidden = in_larache - seen
    assert len(seen) == 1 and hidden

    command = {"type": "attack", "target": "8,2", "units": ["us-ccb2ad"]}
    version = api.game(game_id, "ike")["version"]
    r = preview(client, api, game_id, "ike", "allied", command)
    assert r.status_code == 200, r.get_json()
    shown = r.get_json()
    assert shown["defenders"] == sorted(seen) and shown["limited_intelligence"]["rule"] == "19.2"
    assert shown["odds"]["column"] == shown["column"] and shown["table"] == "crt"
    assert all(s["rule"] for s in shown["shifts"]) and shown["defender_supports"]["rule"] == "16.3"
    assert not any(uid in r.get_data(as_text=True) for uid in hidden)
    assert api.game(game_id, "ike")["version"] == version  # nothing written, nothing revealed

    refused = preview(client, api, game_id, "paco", "spanish", command)
    assert refused.status_code == 422 and refused.get_json()["details"]["rule"] == ["8.2"]

    assert api.command(game_id, "ike", command, side="allied").status_code == 201
    declared = next(
        e for e in api.events(game_id, "ike", after=version) if e["type"] == "CombatDeclared"
    )
    assert set(declared["payload"]["data"]["combat"]["defenders"]) == in_larache
