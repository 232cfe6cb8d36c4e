"""Each shipped scenario lists its options in ``GET /api/systems`` (what the web's forms draw as
controls), each described in words, and every value it lists is one the server accepts: a game
created with it starts and holds it; a value outside the list is refused, naming the option."""

from __future__ import annotations

import re
from typing import Any

import pytest

from service.config import Config
from tests.support.api import ApiHelper

KINDS = {"boolean", "integer", "number", "string"}
#: a knowledge-base entry's id (``merida:conflict-leader-zoc``): a person reads its heading instead
ENTRY_ID = re.compile(r"\b(backbone|barcelona|bizkaya|merida|fwtbt-faq):[a-z0-9.-]+")


@pytest.fixture
def config(config: Config) -> Config:
    """One player creates a hot-seat game per listed value of every option (more than
    ``ARBITER_HOTSEAT_PER_USER``'s 20 in progress at once)."""
    from dataclasses import replace

    return replace(config, hotseat_per_user=1000)


def _scenarios(api: ApiHelper) -> list[tuple[str, dict[str, Any]]]:
    systems = api.client.get("/api/systems").get_json()
    return [(s["name"], sc) for s in systems for sc in s["scenarios"]]


def test_every_shipped_scenario_describes_its_options(api: ApiHelper) -> None:
    listed = {(system, sc["id"]): sc["options"] for system, sc in _scenarios(api)}
    for (system, scenario), options in listed.items():
        assert options, f"{system} {scenario} lists no options"
        for option in options:
            where = f"{system} {scenario} {option['name']}"
            assert option["kind"] in KINDS, where
            assert option["description"].strip(), f"{where} has no description"
            assert not ENTRY_ID.search(option["description"]), f"{where} shows an entry's id"
            if option["choices"] is not None:
                assert option["default"] in option["choices"], where
    names = {o["name"] for o in listed[("backbone", "scenario-1")]}
    assert {"limited_intelligence", "harsher_winter"} <= names  # 19.2 and 19.1, the optional rules


def test_every_listed_value_is_accepted_and_held(api: ApiHelper) -> None:
    for system, scenario in _scenarios(api):
        me = {side: "ana" for side in scenario["sides"]}  # all sides one player: it starts at once
        for option in scenario["options"]:
            if option["choices"] is not None:
                values = option["choices"]
            elif option["kind"] == "boolean":
                values = [not option["default"]]
            else:
                values = [option["max"] if option["max"] is not None else option["default"]]
            for value in values:
                game = api.create_game(system, scenario["id"], me, {option["name"]: value})
                assert game["options"][option["name"]] == value, (system, option["name"])


def test_a_value_outside_the_list_is_refused_and_named(api: ApiHelper) -> None:
    api.user("ana")
    r = api.client.post(
        "/api/games",
        json={
            "system": "bizkaya",
            "scenario": "bizkaya-1937",
            "sides": {"nationalist": "ana", "republican": "ana"},
            "options": {"zoc_retreat_loss": "all_of_them"},
        },
        headers=api.user("ana"),
    )
    assert r.status_code == 422, r.get_json()
    assert "options.zoc_retreat_loss" in r.get_json()["details"]


def test_an_open_game_with_a_value_outside_the_list_is_refused_and_nothing_opens(
    api: ApiHelper,
) -> None:
    """An open game is checked when it opens, as a new game is: not when someone joins it (the
    joiner would meet the seeker's mistake, after the seek was claimed)."""
    bad = {"system": "bizkaya", "scenario": "bizkaya-1937", "options": {"zoc_retreat_loss": "x"}}
    r = api.client.post("/api/seeks", json=bad, headers=api.user("ana"))
    assert r.status_code == 422, r.get_json()
    assert "options.zoc_retreat_loss" in r.get_json()["details"]
    r = api.client.post(
        "/api/seeks", json=bad | {"options": {"fog": True}}, headers=api.user("ana")
    )
    assert r.status_code == 422 and "options.fog" in r.get_json()["details"], r.get_json()
    assert api.client.get("/api/seeks", headers=api.user("ana")).get_json() == []
