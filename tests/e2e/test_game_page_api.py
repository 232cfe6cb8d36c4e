"""What the game page (issue 16) needs from the API: large JSON answers gzipped for clients that
accept it (a Merida movement phase's action list well under 100 KB on the wire), the same JSON once
decompressed, nothing compressed for a client that refuses gzip; and each side's counter colour as
its rulebook prints it (Merida rule 2: Nationalists blue, Republicans green)."""

from __future__ import annotations

import gzip
import json

from flask.testing import FlaskClient

from tests.support.api import ApiHelper

SIDES = {"nationalist": "franco", "republican": "rojo"}


def _merida_turn_1(api: ApiHelper) -> str:
    game = api.create_game("merida", "merida-1938", SIDES)
    for unit, hex_ in (("r-37-div-4", "Y7"), ("r-68-div-4", "AC10")):
        t = next(
            t for t in api.actions(game["id"], "rojo")["actions"] if t["fixed"].get("unit") == unit
        )
        api.command(
            game["id"], "rojo", {"type": t["type"], **t["fixed"], next(iter(t["choose"])): hex_}
        )
    end = next(t for t in api.actions(game["id"], "rojo")["actions"] if t["type"] == "end_phase")
    api.command(game["id"], "rojo", {"type": "end_phase", **end["fixed"]})
    return str(game["id"])


def test_the_movement_action_list_goes_gzipped_and_reads_the_same(
    client: FlaskClient, api: ApiHelper
) -> None:
    game_id = _merida_turn_1(api)
    url = f"/api/games/{game_id}/actions"
    plain = client.get(url, headers={**api.user("franco"), "Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "Content-Encoding" not in plain.headers
    assert plain.get_json()["actions"], "the Nationalist movement phase offers moves"
    zipped = client.get(url, headers={**api.user("franco"), "Accept-Encoding": "gzip, br"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped.headers["Vary"]
    assert len(zipped.data) < 100 * 1024 < len(plain.data)
    assert json.loads(gzip.decompress(zipped.data)) == plain.get_json()
    # q=0 refuses gzip
    refused = client.get(url, headers={**api.user("franco"), "Accept-Encoding": "gzip;q=0"})
    assert "Content-Encoding" not in refused.headers


def test_small_answers_and_errors_stay_plain(client: FlaskClient, api: ApiHelper) -> None:
    game_id = _merida_turn_1(api)
    small = client.get(
        f"/api/games/{game_id}/actions", headers={**api.user("rojo"), "Accept-Encoding": "gzip"}
    )
    assert small.status_code == 200 and "Content-Encoding" not in small.headers
    missing = client.get(
        "/api/games/not-a-game/actions", headers={**api.user("rojo"), "Accept-Encoding": "gzip"}
    )
    assert missing.status_code == 404 and missing.get_json()["error"]


def test_the_map_goes_gzipped(client: FlaskClient) -> None:
    r = client.get(
        "/api/systems/merida/scenarios/merida-1938/board", headers={"Accept-Encoding": "gzip"}
    )
    assert r.headers["Content-Encoding"] == "gzip"
    assert len(json.loads(gzip.decompress(r.data))["hexes"]) > 1000


def test_side_colours_as_the_rulebook_prints_them(client: FlaskClient) -> None:
    # rule 2: "Nationalist ... forces are represented by the blue counters, while Republican ...
    # forces are represented by the green counters"
    assert client.get("/api/systems/merida").get_json()["side_colours"] == {
        "nationalist": "blue",
        "republican": "green",
    }
    # a game whose rulebook names no colours leaves the page its palette
    assert client.get("/api/systems/skirmish").get_json()["side_colours"] == {}


def test_the_page_scripts_and_stylesheet_go_gzipped(client: FlaskClient) -> None:
    for path in ("/static/js/game.js", "/static/css/app.css"):
        plain = client.get(path)
        zipped = client.get(path, headers={"Accept-Encoding": "gzip"})
        assert zipped.status_code == 200 and zipped.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(zipped.data) == plain.data and len(zipped.data) < len(plain.data) / 2
        plain.close()
        zipped.close()
