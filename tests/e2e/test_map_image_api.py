"""A club scenario's map image through the HTTP API (issue 32): an admin uploads the scan of the
printed map (drawn here by Pillow: tests/support/printed_map.py), calibrates it with three hexes,
asks for a proposal from one example per terrain and one river hexside, accepts it, and the
draft's board then has the terrain; the image is private like the scenario and pinned by the
version that publishes it.  Bad uploads, calibrations and proposals are refused at their field,
writing nothing."""

from __future__ import annotations

import io
from collections import defaultdict
from typing import Any

import pytest
from PIL import Image

from tests.support.api import ApiHelper
from tests.support.printed_map import PrintedMap, render


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.get_json()
    return response.get_json()


@pytest.fixture(scope="module")
def printed() -> PrintedMap:
    return render()


@pytest.fixture
def scenario(api: ApiHelper) -> str:
    """A blank Bizkaya map of 30x24 hexes of the club ``Printed``: ann admin, mel a member."""
    club = ok(api.client.post("/api/clubs", json={"name": "Printed"}, headers=api.user("ann")), 201)
    api.user("mel")
    api.admit(
        f"/api/clubs/{club['id']}/members",
        {"username": "mel", "roles": ["player"]},
        api.user("ann"),
    )
    blank = {
        "coordinates": "four-digit",
        "orientation": "flat",
        "offset": "odd",
        "bounds": {"min_col": 1, "max_col": 30, "min_row": 1, "max_row": 24},
        "sides": ["nationalist", "republican"],
        "terrain_types": ["clear", "forest", "rough", "mountain"],
        "turns": 3,
    }
    body = ok(
        api.client.post(
            f"/api/clubs/{club['id']}/scenarios",
            json={"system": "bizkaya", "title": "Printed map", "blank": blank},
            headers=api.user("ann"),
        ),
        201,
    )
    return str(body["id"])


def upload(api: ApiHelper, sid: str, data: bytes, kind: str = "image/jpeg", user: str = "ann"):
    return api.client.post(
        f"/api/club-scenarios/{sid}/map-image",
        data=data,
        content_type=kind,
        headers=api.user(user),
    )


def points(printed: PrintedMap, labels: tuple[str, ...] = ("0101", "3001", "1524")) -> list:
    return [
        {"hex": h, "x": round(printed.pixel(h)[0]) + 1, "y": round(printed.pixel(h)[1]) - 1}
        for h in labels
    ]


def examples(printed: PrintedMap) -> dict[str, Any]:
    by: dict[str, list[str]] = defaultdict(list)
    for label in printed.grid.labels():
        by[printed.terrain[label]].append(label)
    river = sorted(sorted(side) for side in printed.rivers)[0]
    return {
        "hexes": {terrain: [labels[len(labels) // 2]] for terrain, labels in by.items()},
        "hexsides": {"river": [river]},
    }


def draft(api: ApiHelper, sid: str) -> dict[str, Any]:
    return ok(api.client.get(f"/api/club-scenarios/{sid}", headers=api.user("ann")))


def test_upload_calibrate_propose_accept_publish(
    api: ApiHelper, scenario: str, printed: PrintedMap
) -> None:
    sid = scenario
    image = ok(upload(api, sid, printed.data), 201)
    assert (image["width"], image["height"], image["media_type"]) == (
        printed.width,
        printed.height,
        "image/jpeg",
    )
    assert draft(api, sid)["document"]["map"]["image"]["sha256"] == image["sha256"]

    # members read it, sized for the screen; others see nothing
    small = api.client.get(
        f"/api/club-scenarios/{sid}/map-image?width=390", headers=api.user("mel")
    )
    assert small.status_code == 200 and small.mimetype == "image/jpeg"
    with Image.open(io.BytesIO(small.data)) as seen:
        assert seen.width == 512
    full = api.client.get(f"/api/club-scenarios/{sid}/map-image", headers=api.user("mel"))
    with Image.open(io.BytesIO(full.data)) as seen:
        assert seen.size == (printed.width, printed.height)
    again = api.client.get(
        f"/api/club-scenarios/{sid}/map-image",
        headers={**api.user("mel"), "If-None-Match": full.headers["ETag"]},
    )
    assert again.status_code == 304
    assert (
        api.client.get(f"/api/club-scenarios/{sid}/map-image", headers=api.user("olga")).status_code
        == 404
    )
    assert api.client.get(f"/api/club-scenarios/{sid}/map-image").status_code == 404
    assert upload(api, sid, printed.data, user="mel").status_code == 403

    fit = ok(
        api.client.put(
            f"/api/club-scenarios/{sid}/map-image/calibration",
            json={"points": points(printed)},
            headers=api.user("ann"),
        )
    )
    assert fit["residual_px"] < 0.01  # three points: the fit goes through them
    assert [p["hex"] for p in fit["per_point"]] == ["0101", "3001", "1524"]
    calibration = draft(api, sid)["document"]["map"]["image"]["calibration"]
    assert len(calibration["points"]) == 3 and len(calibration["affine"]) == 2

    before = draft(api, sid)["edits"]
    proposal = ok(
        api.client.post(
            f"/api/club-scenarios/{sid}/map-image/proposal",
            json=examples(printed),
            headers=api.user("ann"),
        )
    )
    assert draft(api, sid)["edits"] == before  # a proposal writes nothing
    labels = list(printed.grid.labels())
    right = sum(proposal["hexes"][h]["terrain"] == printed.terrain[h] for h in labels)
    assert right / len(labels) >= 0.97
    rivers = {frozenset(s["between"]) for s in proposal["hexsides"] if s["feature"] == "river"}
    assert len(rivers & printed.rivers) / len(printed.rivers) >= 0.90

    accepted = ok(
        api.client.post(
            f"/api/club-scenarios/{sid}/map-image/proposal/accept",
            json={"hexes": proposal["hexes"], "hexsides": proposal["hexsides"]},
            headers=api.user("ann"),
        )
    )
    assert accepted["changes"] > 0 and accepted["errors"] == []
    board = ok(api.client.get(f"/api/club-scenarios/{sid}/board", headers=api.user("ann")))
    drawn = {h["hex"]: h["terrain"] for h in board["hexes"]}
    assert all(drawn[h] == proposal["hexes"][h]["terrain"] for h in labels)
    assert sum(drawn[h] == printed.terrain[h] for h in labels) / len(labels) >= 0.97
    river_sides = {frozenset(s["hexes"]) for s in board["hexsides"] if "river" in s["features"]}
    assert river_sides == rivers
    # accepting the same again changes nothing
    same = ok(
        api.client.post(
            f"/api/club-scenarios/{sid}/map-image/proposal/accept",
            json={"hexes": proposal["hexes"], "hexsides": proposal["hexsides"]},
            headers=api.user("ann"),
        )
    )
    assert same["changes"] == 0

    version = ok(
        api.client.post(f"/api/club-scenarios/{sid}/versions", json={}, headers=api.user("ann")),
        201,
    )
    assert version["latest"] == 1
    pinned = ok(api.client.get(f"/api/club-scenarios/{sid}/versions/1", headers=api.user("ann")))
    assert pinned["map"]["image"]["sha256"] == image["sha256"]
    # a game started from version 1 draws the scan under its hexes, for whoever reads the game
    game = api.create_game(
        "bizkaya", sid, {"nationalist": "ann", "republican": "mel"}, creator="ann"
    )
    board = ok(api.client.get(f"/api/games/{game['id']}/board", headers=api.user("mel")))
    assert board["image"]["url"] == f"/api/games/{game['id']}/map-image"
    assert board["image"]["affine"] == calibration["affine"]
    assert (board["image"]["width"], board["image"]["height"]) == (printed.width, printed.height)
    scan = api.client.get(f"{board['image']['url']}?width=700", headers=api.user("mel"))
    with Image.open(io.BytesIO(scan.data)) as seen:
        assert seen.width == 768
    refused = api.client.get(board["image"]["url"], headers=api.user("olga"))
    assert refused.status_code == 404  # a private game: as if it did not exist
    # a new image in the draft leaves version 1 on its own
    other = io.BytesIO()
    Image.new("RGB", (300, 200), (10, 200, 10)).save(other, format="PNG")
    ok(upload(api, sid, other.getvalue(), "image/png"), 201)
    lines = ok(api.client.get(f"/api/club-scenarios/{sid}/diff?from=1", headers=api.user("ann")))
    said = [line for line in lines["changes"] if line.startswith("map image")]
    assert said[0].startswith(f"map image: {image['sha256'][:12]}… ({printed.width}×")
    assert said[0].endswith("(300×200 px)")
    assert said[1].startswith("map image calibration: on 0101, 3001, 1524 (residual")
    assert said[1].endswith("→ none")
    v1 = api.client.get(f"/api/club-scenarios/{sid}/map-image?version=1", headers=api.user("mel"))
    assert v1.mimetype == "image/jpeg" and v1.data == full.data
    assert (
        api.client.get(f"/api/club-scenarios/{sid}/map-image", headers=api.user("mel")).mimetype
        == "image/png"
    )
    # shared publicly, version 1's image is everyone's; the draft's is still the club's
    ok(
        api.client.put(
            f"/api/club-scenarios/{sid}/sharing",
            json={"sharing": "public"},
            headers=api.user("ann"),
        )
    )
    outside = api.client.get(
        f"/api/club-scenarios/{sid}/map-image?version=1", headers=api.user("olga")
    )
    assert outside.status_code == 200 and outside.data == full.data
    latest = api.client.get(f"/api/club-scenarios/{sid}/map-image", headers=api.user("olga"))
    assert latest.data == full.data  # not a member: the latest version's, never the draft's


def test_bad_uploads_are_refused_and_write_nothing(api: ApiHelper, scenario: str) -> None:
    sid = scenario
    before = draft(api, sid)["edits"]
    refused = upload(api, sid, b"GIF89a not really", "image/png")
    assert refused.status_code == 400 and "image" in refused.get_json()["details"]
    refused = upload(api, sid, b"GIF89a....", "image/gif")
    assert refused.status_code == 415 and "image/png" in refused.get_json()["details"]["image"][0]
    refused = upload(api, sid, b"\x89PNG" + b"\0" * (20 * 1024 * 1024), "image/png")
    assert refused.status_code == 413 and "20 MB" in refused.get_json()["details"]["image"][0]
    wide = io.BytesIO()
    Image.new("L", (12_001, 2)).save(wide, format="PNG")
    refused = upload(api, sid, wide.getvalue(), "image/png")
    assert refused.status_code == 413 and "12,000 px" in refused.get_json()["details"]["image"][0]
    assert draft(api, sid)["edits"] == before
    gone = api.client.get(f"/api/club-scenarios/{sid}/map-image", headers=api.user("ann"))
    assert gone.status_code == 404 and "image" in gone.get_json()["details"]


def test_a_scenario_names_ten_images_at_most(api: ApiHelper, scenario: str) -> None:
    def image(shade: int) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (40, 30), (shade, 90, 90)).save(out, format="PNG")
        return out.getvalue()

    for shade in range(10):
        ok(upload(api, scenario, image(shade), "image/png"), 201)
    ok(upload(api, scenario, image(3), "image/png"), 201)  # one it named before: no new image
    refused = upload(api, scenario, image(200), "image/png")
    assert refused.status_code == 409
    assert "at most 10 images" in refused.get_json()["details"]["image"][0]


def test_calibration_and_proposal_refusals(
    api: ApiHelper, scenario: str, printed: PrintedMap
) -> None:
    sid = scenario

    def calibrate(body: Any) -> Any:
        return api.client.put(
            f"/api/club-scenarios/{sid}/map-image/calibration", json=body, headers=api.user("ann")
        )

    def propose(body: Any) -> Any:
        return api.client.post(
            f"/api/club-scenarios/{sid}/map-image/proposal", json=body, headers=api.user("ann")
        )

    assert "image" in ok(calibrate({"points": points(printed)}), 422)["details"]
    ok(upload(api, sid, printed.data), 201)
    assert "calibration" in ok(propose(examples(printed)), 422)["details"]
    before = draft(api, sid)["edits"]
    line = points(printed, ("0101", "0102", "0103"))
    assert "one line" in ok(calibrate({"points": line}), 422)["details"]["points"][0]
    unknown = points(printed)
    unknown[1]["hex"] = "3101"
    assert "points[1].hex" in ok(calibrate({"points": unknown}), 422)["details"]
    wrong = points(printed, ("0101", "3001", "0124", "3024"))
    wrong[3]["y"] -= 40  # a click on the hex above
    assert "points[3]" in ok(calibrate({"points": wrong}), 422)["details"]
    assert (
        "points.0.x"
        in ok(calibrate({"points": [{"hex": "0101", "x": "left", "y": 3}]}), 400)["details"]
    )
    assert (
        api.client.put(
            f"/api/club-scenarios/{sid}/map-image/calibration",
            json={"points": points(printed)},
            headers=api.user("mel"),
        ).status_code
        == 403
    )
    assert draft(api, sid)["edits"] == before

    ok(calibrate({"points": points(printed)}))
    body = examples(printed)
    assert (
        "hexes.swamp"
        in ok(propose({**body, "hexes": {**body["hexes"], "swamp": ["0101"]}}), 422)["details"]
    )
    assert (
        "hexsides.canal"
        in ok(propose({**body, "hexsides": {"canal": [["0101", "0102"]]}}), 422)["details"]
    )
    assert (
        "hexsides.river[0]"
        in ok(propose({**body, "hexsides": {"river": [["0101", "0505"]]}}), 422)["details"]
    )
    assert "hexes" in ok(propose({"hexes": {"clear": ["0101"]}}), 422)["details"]
    accept = api.client.post(
        f"/api/club-scenarios/{sid}/map-image/proposal/accept",
        json={"hexes": {"0101": {"terrain": "swamp"}}},
        headers=api.user("ann"),
    )
    assert accept.status_code == 422 and "hexes.0101" in accept.get_json()["details"]


def test_merida_read_from_its_printed_map_plays_by_the_terrain_read(api: ApiHelper) -> None:
    """Merida's shipped map is every hex clear; the club scans its printed map (drawn here: a
    patch of mountains, AB4 among them, and a river between R16 and S16), reads it with one
    example of each terrain and of the river, accepts the proposal, publishes, and a game on that
    version charges what the TEC says for the terrain read (rule: TEC -- infantry entering a
    mountain hex pays 2 MP, clear 1), checked through the game's own API."""
    from service.rules.kernel.grid import Bounds, HexGrid
    from tests.e2e.test_scenario_library_api import SIDES, moved_cost, play_to

    club = ok(
        api.client.post("/api/clubs", json={"name": "Merida Scan"}, headers=api.user("ann")), 201
    )
    for name in SIDES.values():
        api.user(name)
        member = {"username": name, "roles": ["player"]}
        api.admit(f"/api/clubs/{club['id']}/members", member, api.user("ann"))
    sid = ok(
        api.client.post(
            f"/api/clubs/{club['id']}/scenarios",
            json={"system": "merida", "base": "merida-1938", "title": "Merida as printed"},
            headers=api.user("ann"),
        ),
        201,
    )["id"]
    grid = HexGrid("letter-number", Bounds(1, 26, 1, 43), "flat", "odd")
    mountains = {"AB4", "AB5", "AC4", "AC5", "AD5"} | {
        grid.label(col, row) for col in range(18, 23) for row in range(36, 41)
    }
    terrain = {h: "mountain" if h in mountains else "clear" for h in grid.labels()}
    river = {frozenset(("R16", "S16")), frozenset(("S16", "T16"))}
    printed = render(grid=grid, terrain=terrain, rivers=river, radius=22.0, seed=11)
    ok(upload(api, sid, printed.data), 201)
    ok(
        api.client.put(
            f"/api/club-scenarios/{sid}/map-image/calibration",
            json={"points": points(printed, ("A1", "A26", "AQ13"))},
            headers=api.user("ann"),
        )
    )
    proposal = ok(
        api.client.post(
            f"/api/club-scenarios/{sid}/map-image/proposal",
            json={
                "hexes": {"clear": ["J7"], "mountain": ["AB4"]},
                "hexsides": {"river": [["R16", "S16"]]},
            },
            headers=api.user("ann"),
        )
    )
    read = {h: p["terrain"] for h, p in proposal["hexes"].items()}
    assert read == terrain  # all 1,118 hexes
    assert {frozenset(s["between"]) for s in proposal["hexsides"]} == river
    accepted = ok(
        api.client.post(
            f"/api/club-scenarios/{sid}/map-image/proposal/accept",
            json=proposal,
            headers=api.user("ann"),
        )
    )
    assert accepted["changes"] == len(mountains) + len(river)  # the clear hexes were clear
    ok(
        api.client.post(f"/api/club-scenarios/{sid}/versions", json={}, headers=api.user("ann")),
        201,
    )

    game = ok(
        api.client.post(
            "/api/games",
            json={"system": "merida", "scenario": sid, "sides": SIDES},
            headers=api.user("franco"),
        ),
        201,
    )
    gid = game["id"]
    api.accept_all(game, "franco")
    assert game["state"]["map"]["terrain"]["AB4"] == "mountain"
    board = ok(api.client.get(f"/api/games/{gid}/board", headers=api.user("rojo")))
    assert {"hexes": ["R16", "S16"], "features": ["river"]} in board["hexsides"]
    assert board["image"]["url"] == f"/api/games/{gid}/map-image"
    play_to(api, gid, "movement")
    assert moved_cost(api, gid, "n-1-21-div", ["AA3", "AB4"]) == 2.0
    assert moved_cost(api, gid, "n-2-21-div", ["AA3", "AA4"]) == 1.0
