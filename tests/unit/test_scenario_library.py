"""The club scenario aggregate and its words, without a store: changes at their places, placeholder
wrappers replaced or confirmed, the diff in words, the counter list as CSV, content hashes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from service.application.counter_list import csv_units, unit_changes, units_csv
from service.application.scenarios import completeness
from service.domain.errors import Conflict, Invalid, Unprocessable
from service.domain.scenarios import ClubScenario, applied, content_hash, plain
from service.rules.scenario.documents import changed as diff_words
from service.rules.scenario.documents import place_of
from service.rules.scenario.placeholders import unwrap

FORD = json.loads(
    (Path(__file__).parents[2] / "docs" / "scenario-format.md")
    .read_text(encoding="utf-8")
    .split("```json\n")[2]
    .split("```")[0]
)


def scenario() -> Any:
    return ClubScenario.create("club", "skirmish", "ford", "The Ford, as printed", FORD, "ann")


def test_the_documented_example_is_the_fixture() -> None:
    assert FORD["id"] == "ford" and len(FORD["units"]) == 3


def test_a_change_inside_a_placeholder_keeps_it_and_one_at_it_replaces_it() -> None:
    doc = applied(
        FORD,
        [
            {"kind": "terrain", "hex": "A1", "terrain": "hill"},  # inside the wrapped terrain
            {"kind": "unit_edited", "unit": "b1", "field": "values.attack", "value": 5},
        ],
    )
    _, placeholders = unwrap(doc)
    assert [p.place for p in placeholders] == ["map.terrain"]  # the attack is real now
    assert plain(doc)["map"]["terrain"] == {"B2": "forest", "C4": "hill", "A1": "hill"}
    assert doc["units"][2]["values"]["attack"] == 5
    assert FORD["units"][2]["values"]["attack"]["placeholder"] is True  # the original is kept


def test_confirm_unwraps_and_refuses_what_is_no_placeholder() -> None:
    doc = applied(FORD, [{"kind": "confirm", "path": "map.terrain"}])
    assert doc["map"]["terrain"] == {"B2": "forest", "C4": "hill"}
    with pytest.raises(Unprocessable) as refused:
        applied(doc, [{"kind": "confirm", "path": "map.terrain"}])
    assert "changes[0].path" in refused.value.details


def test_hexsides_places_set_up_and_reinforcements_by_what_they_name() -> None:
    doc = applied(
        FORD,
        [
            {"kind": "hexside", "hexes": ["B4", "B3"], "features": ["road"]},  # either order
            {"kind": "hexside", "hexes": ["C3", "C4"], "features": []},  # removed
            {"kind": "hexside", "hexes": ["A1", "A2"], "features": ["river"]},
            {
                "kind": "place",
                "name": "Mill",
                "hex": "A2",
                "place_kind": "objective",
                "values": {"vp": 1},
            },
            {"kind": "setup", "unit": "r1", "hex": "B1"},
            {"kind": "reinforcement", "unit": "r2", "turn": 3, "entry": "west edge"},
        ],
    )
    assert doc["map"]["hexsides"] == [
        {"hexes": ["B4", "B3"], "features": ["road"]},
        {"hexes": ["A1", "A2"], "features": ["river"]},
    ]
    assert doc["map"]["places"][-1] == {
        "name": "Mill",
        "hex": "A2",
        "kind": "objective",
        "values": {"vp": 1},
    }
    assert doc["units"][0]["hex"] == "B1"
    assert doc["reinforcements"] == [{"turn": 3, "unit": "r2", "entry": "west edge"}]


def test_edits_naming_nothing_are_refused_and_leave_the_draft() -> None:
    scen = scenario()
    before = copy.deepcopy(scen.draft)
    with pytest.raises(Unprocessable) as refused:
        scen.edit(
            [
                {"kind": "terrain", "hex": "A1", "terrain": "hill"},
                {"kind": "unit_removed", "unit": "zz"},
            ],
            "ann",
        )
    assert "changes[1].unit" in refused.value.details
    assert scen.draft == before and scen.edits == 0
    with pytest.raises(Invalid):
        scen.edit([], "ann")
    with pytest.raises(Unprocessable):
        scen.edit([{"kind": "field", "path": "system", "value": "merida"}], "ann")


def test_publishing_numbers_versions_hashes_the_canonical_json_and_refuses_errors() -> None:
    scen = scenario()
    with pytest.raises(Unprocessable) as refused:
        scen.publish(
            [{"place": "hex Z9", "field": "map.terrain.Z9", "reason": "unknown hex Z9"}], "ann"
        )
    assert refused.value.details == {"hex Z9": ["unknown hex Z9"]} and scen.versions == []
    scen.publish([], "ann")
    assert scen.latest == 1 and scen.versions[0]["hash"] == content_hash(scen.draft)
    reordered = json.loads(json.dumps(scen.draft, sort_keys=True))
    assert content_hash(reordered) == scen.versions[0]["hash"]  # canonical: key order is no fact
    with pytest.raises(Conflict):
        scen.publish([], "ann")  # nothing changed
    scen.edit([{"kind": "field", "path": "turns", "value": 4}], "ann")
    scen.publish([], "ann")
    assert [v["version"] for v in scen.versions] == [1, 2]
    assert scen.versions[0]["hash"] != scen.versions[1]["hash"]


def test_forks_only_from_a_shared_or_own_scenario() -> None:
    scen = scenario()
    scen.publish([], "ann")
    from service.domain.errors import Forbidden

    with pytest.raises(Forbidden):
        ClubScenario.fork(scen, 1, "other-club", "", "bea")
    scen.share("shared", "ann")
    forked = ClubScenario.fork(scen, 1, "other-club", "Our Ford", "bea")
    assert forked.club == "other-club" and forked.forked_from == {
        "scenario": str(scen.id),
        "version": 1,
    }
    assert forked.draft["title"] == "Our Ford" and forked.versions == []


def test_the_diff_names_each_changed_fact_in_words() -> None:
    new = applied(
        FORD,
        [
            {"kind": "terrain", "hex": "A1", "terrain": "hill"},
            {"kind": "hexside", "hexes": ["A1", "A2"], "features": ["river"]},
            {"kind": "unit_edited", "unit": "r1", "field": "values.attack", "value": 5},
            {"kind": "unit_edited", "unit": "b1", "field": "name", "value": "2nd Coy"},
            {"kind": "unit_removed", "unit": "r2"},
            {"kind": "field", "path": "turns", "value": 4},
        ],
    )
    assert diff_words(FORD, new) == [
        "turns: 3 → 4",
        "A1: clear → hill",
        "hexside A1/A2: none → river",
        "2nd Coy name none → 2nd Coy",
        "1st Coy attack 4 → 5",
        "unit r2 removed",  # and its arrival with it
    ]
    assert new["reinforcements"] == []
    assert diff_words(FORD, FORD) == []


def test_places_of_problems_in_an_organisers_words() -> None:
    assert place_of("map.terrain.J7", FORD) == "hex J7"
    assert place_of("map.hexsides[1].hexes", FORD) == "hexside C3/C4"
    assert place_of("units[2].values.attack", FORD) == "unit b1"
    assert place_of("map.places[0].hex", FORD) == "place Ford"
    assert place_of("reinforcements[0].turn", FORD) == "reinforcement of r2"
    assert place_of("turns", FORD) == "field turns"


def test_counter_list_csv_round_trips_exactly() -> None:
    text = units_csv(FORD)
    assert text.splitlines() == [
        "id,side,type,name,steps,hex,notes,attack,defence,movement",
        "r1,red,infantry,1st Coy,2,B2,,4,3,4",
        "r2,red,cavalry,,1,,,2,2,6",
        "b1,blue,infantry,,2,C5,,3,4,4",
    ]
    assert unit_changes(FORD, csv_units(text)) == []  # nothing differs: placeholders kept
    assert units_csv(applied(FORD, unit_changes(FORD, csv_units(text)))) == text
    edited = text.replace(
        "b1,blue,infantry,,2,C5,,3,4,4", "b1,blue,infantry,Blue Coy,2,C4,,3.5,4,4"
    )
    changes = unit_changes(FORD, csv_units(edited))
    assert [(c["field"], c["value"]) for c in changes] == [
        ("name", "Blue Coy"),
        ("hex", "C4"),
        ("values.attack", 3.5),
    ]
    assert units_csv(applied(FORD, changes)) == edited
    wrong = csv_units(text.replace(",1,,,2,2,6", ",1,,,two,2,6"))
    assert wrong[1]["values"]["attack"] == "two"  # kept as typed: the checks report its place
    with pytest.raises(Invalid):
        csv_units("name,side\nx,red\n")


def test_completeness_is_the_share_of_placeholders_dealt_with() -> None:
    assert completeness(10, 10) == 0
    assert completeness(10, 4) == 60
    assert completeness(0, 0) == 100


@pytest.mark.parametrize(
    ("system", "scenario"),
    [("merida", "merida-1938"), ("bizkaya", "bizkaya-1937"), ("barcelona", "skirmish")],
)
def test_a_club_copy_of_a_shipped_scenario_starts_the_same_game(system: str, scenario: str) -> None:
    """``custom_scenarios`` builds from a document with the code the shipped scenarios use."""
    from service.rules.registry import build_registry

    rules = build_registry().get(system)
    assert rules.custom_scenarios is not None
    root = Path(__file__).parents[2] / "service" / "rules" / system
    document = json.loads(next(root.rglob(f"{scenario}.json")).read_text(encoding="utf-8"))
    options = rules.default_options(scenario)
    assert rules.custom_scenarios.default_options_from(document) == options
    own = rules.initial_state(scenario, options)
    club = rules.custom_scenarios.initial_state_from(document, options)
    assert club == own
