"""Games are private unless made public (docs/game-lifecycle.md, "Who may read a game"): one rule
for the list, the state, events, NDJSON, stream, board, dice, audit, disputes and rulings.  Signed
out, every game was listed and ``events.ndjson`` (whose ``GameCreated`` line carries a club
scenario's whole initial state) and a club version's board answered 200 to anyone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_club_scenarios_elsewhere_api import club_with_scenario
from tests.support.api import ApiHelper

#: every read of one game; ``{v}`` is a version the game has
READS = (
    "",
    "?version=1",
    "/events",
    "/events.ndjson",
    "/record",
    "/review",
    "/report.html",
    "/report.md",
    "/dice",
    "/board",
    "/stream?window=1",
    "/audit",
    "/audit/actions",
    "/audit/diff?from=1&to=2",
    "/events/2/rulings",
)


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def reads(api: ApiHelper, game_id: str, user: str | None) -> dict[str, int]:
    headers = api.user(user) if user else {}
    return {
        path: api.client.get(f"/api/games/{game_id}{path}", headers=headers).status_code
        for path in READS
    }


def listed(api: ApiHelper, user: str | None, path: str = "/api/games") -> set[str]:
    headers = api.user(user) if user else {}
    return {g["id"] for g in ok(api.client.get(path, headers=headers))}


@pytest.fixture
def games(api: ApiHelper) -> dict[str, str]:
    """A private game (alice v bob), a public one (alice v bob), and a private club game of Hex
    Club (ann v cat, with dan a member who does not play); eve is no one's."""
    private = api.create_game("skirmish", "meeting", {"red": "alice", "blue": "bob"})
    r = api.client.post(
        "/api/games",
        json={
            "system": "skirmish",
            "scenario": "meeting",
            "sides": {"red": "alice", "blue": "alice"},
            "public": True,
        },
        headers=api.user("alice"),
    )
    public = ok(r, 201)
    club = ok(
        api.client.post("/api/clubs", json={"name": "Hex Club"}, headers=api.user("ann")), 201
    )
    for name in ("cat", "dan"):
        api.user(name)
        api.admit(
            f"/api/clubs/{club['id']}/members",
            {"username": name, "roles": ["player"]},
            api.user("ann"),
        )
    r = api.client.post(
        "/api/games",
        json={
            "system": "skirmish",
            "scenario": "meeting",
            "sides": {"red": "ann", "blue": "cat"},
            "club": club["id"],
        },
        headers=api.user("ann"),
    )
    club_game = api.accept_all(ok(r, 201), "ann")
    api.user("eve")
    for game in (private["id"], public["id"], club_game["id"]):  # something to audit and diff
        players = api.game(game, "alice" if game != club_game["id"] else "ann")["sides"]
        red = players["red"]
        assert api.command(game, red, {"type": "end_phase"}).status_code == 201
    return {"private": private["id"], "public": public["id"], "club": club_game["id"]}


def test_a_visitor_and_a_stranger_read_nothing_of_a_private_game(
    api: ApiHelper, games: dict[str, str]
) -> None:
    for user in (None, "eve"):
        for game in ("private", "club"):
            assert set(reads(api, games[game], user).values()) == {404}, (user, game)
        assert set(reads(api, games["public"], user).values()) == {200}, user
        r = api.client.get(f"/api/games/{games['private']}", headers=api.user(user) if user else {})
        assert r.get_json()["details"] == {"game": ["unknown game"]}  # as if it did not exist


def test_players_club_members_and_site_arbiters_read_what_they_should(
    api: ApiHelper, app: Any, games: dict[str, str]
) -> None:
    for user in ("alice", "bob"):
        assert set(reads(api, games["private"], user).values()) == {200}, user
    for user in ("ann", "cat", "dan"):  # dan plays no side: a member of the game's club
        assert set(reads(api, games["club"], user).values()) == {200}, user
    assert set(reads(api, games["club"], "alice").values()) == {404}
    svc = app.extensions["arbiter"]
    api.user("carol")
    carol = svc.users.by_name("carol")
    carol.grant("arbiter")
    svc.store.commit(carol)
    assert set(reads(api, games["private"], "carol").values()) == {200}  # rules on its disputes
    assert set(reads(api, games["club"], "carol").values()) == {404}  # the club's arbiters do


def test_the_game_list_and_profiles_show_only_readable_games(
    api: ApiHelper, games: dict[str, str]
) -> None:
    assert listed(api, None) == {games["public"]}
    assert listed(api, "eve") == {games["public"]}
    assert listed(api, "bob") == {games["public"], games["private"]}
    assert listed(api, "dan") == {games["public"], games["club"]}
    assert listed(api, None, "/api/games?public=false") == set()
    profile = ok(api.client.get("/api/users/alice/profile"))
    assert {g["id"] for g in profile["games"]} == {games["public"]}
    mine = ok(api.client.get("/api/users/alice/profile", headers=api.user("bob")))
    assert {g["id"] for g in mine["games"]} == {games["public"], games["private"]}


def test_commands_on_a_game_one_may_not_read_are_not_found(
    api: ApiHelper, games: dict[str, str]
) -> None:
    r = api.client.post(
        f"/api/games/{games['private']}/commands",
        json={"expected_version": 1, "command": {"type": "end_phase"}},
        headers=api.user("eve"),
    )
    assert r.status_code == 404
    r = api.client.post(f"/api/games/{games['club']}/disputes", json={}, headers=api.user("eve"))
    assert r.status_code == 404
    # a club member reads the club game, but plays no side in it
    r = api.command(games["club"], "dan", {"type": "end_phase"})
    assert r.status_code == 403 and "not a player" in r.get_json()["message"]


def test_a_club_scenario_and_its_games_stay_in_the_club(api: ApiHelper) -> None:
    club, scenario = club_with_scenario(api)
    r = api.client.post(
        "/api/games",
        json={
            "system": "merida",
            "scenario": scenario["id"],
            "scenario_version": 1,
            "sides": {"nationalist": "franco", "republican": "rojo"},
            "club": club["id"],
        },
        headers=api.user("franco"),
    )
    game = api.accept_all(ok(r, 201), "franco")
    board = f"/api/systems/merida/scenarios/{scenario['id']}@1/board"
    api.user("eve")
    for user in (None, "eve"):
        headers = api.user(user) if user else {}
        assert api.client.get(board, headers=headers).status_code == 404, user
        for path in ("", "/events.ndjson", "/board"):
            assert (
                api.client.get(f"/api/games/{game['id']}{path}", headers=headers).status_code == 404
            )
    drawn = ok(api.client.get(board, headers=api.user("ann")))  # a member reads the club's map
    assert drawn == ok(api.client.get(f"/api/games/{game['id']}/board", headers=api.user("rojo")))
    ndjson = api.client.get(f"/api/games/{game['id']}/events.ndjson", headers=api.user("rojo"))
    assert ndjson.status_code == 200 and b"GameCreated" in ndjson.data
