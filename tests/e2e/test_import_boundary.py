"""Nothing from a record becomes an event the site cannot digest (issue 44): each event of a record
is checked against the type its kind declares before anything is written, and a refusal names the
line and the field; a record whose ``sides`` or ``labels`` is a list is a 400, never a 500."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from service.views.games import GameQuery
from tests.support.api import ApiHelper
from tests.support.records import rechained


def site_admin(api: ApiHelper) -> dict[str, str]:
    headers = api.user("root")
    svc = api.client.application.extensions["arbiter"]
    admin = svc.users.by_name("root")
    admin.grant("admin")
    svc.store.commit(admin)
    return headers


def ended_record(api: ApiHelper, **labels: Any) -> str:
    """The full record of a skirmish game alice (red) resigned at once: no dice rolled, so it
    imports again under any id."""
    game = api.create_game("skirmish", "meeting", {"red": "alice", "blue": "bob"})
    r = api.client.post(
        f"/api/games/{game['id']}/resign", json={"side": "red"}, headers=api.user("alice")
    )
    assert r.status_code == 200, r.get_json()
    svc = api.client.application.extensions["arbiter"]
    return "".join(svc.records.lines(game["id"], full=True))


def nothing_written(api: ApiHelper, game: str) -> None:
    svc = api.client.application.extensions["arbiter"]
    assert not list(svc.store.events.get(UUID(game), limit=1))
    every = svc.index.every(GameQuery(everything=True))
    assert game not in {row["id"] for row in every}


def line_of(text: str, kind: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), 1) if f'"kind": "{kind}"' in line)


def test_a_record_whose_creator_is_null_is_refused_naming_line_and_field(api: ApiHelper) -> None:
    """Finding 1: re-chained under a new id with ``created_by: null``, the record was committed
    (the answer a 500) and the games view failed on it for ever after."""
    root = site_admin(api)
    text = ended_record(api)

    def nobody(items: list[dict[str, Any]]) -> None:
        items[0]["payload"]["created_by"] = None

    forged = rechained(text, nobody)
    game = forged.split('[Game "', 1)[1].split('"', 1)[0]
    r = api.client.post("/api/games/import", json={"record": forged}, headers=root)
    assert r.status_code == 400, r.get_json()
    body = r.get_json()
    assert body["details"]["line"] == [str(line_of(forged, "Game.Created"))]
    assert "created_by" in body["details"] and "created_by" in body["message"]
    nothing_written(api, game)
    # the site goes on: a new game is created and listed
    after = api.create_game("skirmish", "meeting", {"red": "alice", "blue": "bob"})
    assert after["id"]


@pytest.mark.parametrize("name", ["sides", "labels"])
def test_sides_or_labels_given_as_a_list_is_a_400_naming_it(api: ApiHelper, name: str) -> None:
    """Finding 8 (import): ``sides`` or ``labels`` as a list answered 500."""
    root = site_admin(api)
    text = ended_record(api)

    def listed(items: list[dict[str, Any]]) -> None:
        items[0]["payload"][name] = list(items[0]["payload"][name].items())

    forged = rechained(text, listed)
    game = forged.split('[Game "', 1)[1].split('"', 1)[0]
    r = api.client.post("/api/games/import", json={"record": forged}, headers=root)
    assert r.status_code == 400, r.get_json()
    details = r.get_json()["details"]
    assert details["line"] == [str(line_of(forged, "Game.Created"))] and name in details
    nothing_written(api, game)


def test_a_record_naming_a_ladder_and_club_here_moves_no_standings_nor_lists(
    api: ApiHelper,
) -> None:
    """Finding 2: a record whose labels named a local ladder and club (ids are the same on every
    server) imported 201, moved the ladder's standings (1500 -> 1662 / 1338) and showed in the
    club's list.  Its labels cannot be dropped (the first event's hash covers them): refused."""
    root = site_admin(api)
    svc = api.client.application.extensions["arbiter"]
    api.user("alice"), api.user("bob")
    alice, bob = svc.users.by_name("alice"), svc.users.by_name("bob")
    club = svc.clubs.create("Wargamers", alice)
    svc.clubs.add_member("Wargamers", alice, "bob", ["player"])
    ladder = svc.ladders.create(
        str(club.id), alice, name="Mill", system="skirmish", scenario="meeting", settings={}
    )
    for user in (alice, bob):
        svc.ladders.join(str(ladder.id), user)
    text = ended_record(api)
    api.work()
    standings = svc.ladders.standings(str(ladder.id))["standings"]
    listed = list(svc.index.every(GameQuery(everything=True, club=str(club.id))))

    def local(items: list[dict[str, Any]]) -> None:
        items[0]["payload"]["labels"] |= {"ladder": str(ladder.id), "club": str(club.id)}

    forged = rechained(text, local)
    game = forged.split('[Game "', 1)[1].split('"', 1)[0]
    r = api.client.post("/api/games/import", json={"record": forged}, headers=root)
    api.work()  # the worker records ladder results: none from the record
    assert r.status_code == 400, r.get_json()
    body = r.get_json()
    assert body["details"]["line"] == [str(line_of(forged, "Game.Created"))]
    assert {"labels.ladder", "labels.club"} <= set(body["details"])
    assert "ladder, club" in body["message"]
    nothing_written(api, game)
    assert svc.ladders.standings(str(ladder.id))["standings"] == standings
    assert list(svc.index.every(GameQuery(everything=True, club=str(club.id)))) == listed
