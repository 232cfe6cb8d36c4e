"""The scenario format: a valid file loads; every kind of problem is reported with its place."""

import copy
import json

import pytest

from service.rules.base import ScenarioError
from service.rules.scenario import check_file, load_scenario, validate

VALID = {
    "format": "arbiter-scenario/1",
    "id": "ford",
    "system": "test",
    "title": "The Ford",
    "sides": ["north", "south"],
    "turns": 3,
    "map": {
        "coordinates": "letter-number",
        "orientation": "flat",
        "offset": "odd",
        "bounds": {"min_col": 1, "max_col": 4, "min_row": 1, "max_row": 4},
        "terrain_types": ["clear", "woods"],
        "terrain": {"B2": "woods"},
        "hex_features": {"C3": ["town"]},
        "hexsides": [{"hexes": ["B2", "B3"], "features": ["river"]}],
        "places": [{"name": "Ford", "hex": "B3", "kind": "objective", "values": {"vp": 3}}],
        "supply_sources": {"north": ["A1"], "south": ["D4"]},
        "entries": [{"name": "north edge", "side": "north", "hexes": ["A1", "A2"]}],
    },
    "units": [
        {
            "id": "n1",
            "side": "north",
            "type": "infantry",
            "steps": 2,
            "hex": "A2",
            "values": {"attack": 4},
        },
        {"id": "n2", "side": "north", "type": "cavalry", "values": {"attack": 2}},
        {"id": "s1", "side": "south", "type": "infantry", "hex": "D3", "values": {"attack": 3}},
        {"id": "s2", "side": "south", "type": "artillery", "hex": "D4", "values": {"attack": 5}},
    ],
    "reinforcements": [{"turn": 2, "unit": "n2", "entry": "north edge"}],
    "options": {
        "fog": {"default": False, "description": "hidden units"},
        "turns": {"default": 3, "min": 1, "max": 5},
    },
}


def problems_of(data):
    _, problems, _ = validate(data)
    return problems


def changed(edit):
    data = copy.deepcopy(VALID)
    edit(data)
    return problems_of(data)


def test_valid_scenario_loads():
    scenario = load_scenario(VALID)
    assert scenario.sides == ("north", "south")
    assert scenario.map.terrain("B2") == "woods"
    assert scenario.map.has_hexside("B3", "B2", "river")
    assert scenario.units["n1"].values == {"attack": 4.0}
    assert scenario.units["s1"].steps == 1
    assert scenario.set_up() == {"n1": "A2", "s1": "D3", "s2": "D4"}
    assert [(r.unit, r.hexes) for r in scenario.arriving(2)] == [("n2", ("A1", "A2"))]
    assert scenario.default_options() == {"fog": False, "turns": 3}
    assert scenario.info().placeholder is False
    assert problems_of(VALID) == []


def test_unknown_unit_hex_is_reported_with_its_place():
    problems = changed(lambda d: d["units"][3].update(hex="Z99"))
    assert problems == [("units[3].hex", "unknown hex Z99")]
    with pytest.raises(ScenarioError) as err:
        load_scenario(
            json.loads(
                json.dumps(
                    {**VALID, "units": [*VALID["units"][:3], {**VALID["units"][3], "hex": "Z99"}]}
                )
            )
        )
    assert err.value.problems == {"units[3].hex": ["unknown hex Z99"]}
    assert "units[3].hex: unknown hex Z99" in str(err.value)


def test_every_problem_is_reported_at_once():
    def edit(d):
        d["units"][0]["hex"] = "E1"
        d["units"][2]["side"] = "east"
        d["map"]["terrain"]["A9"] = "woods"
        del d["title"]

    places = [place for place, _ in changed(edit)]
    assert places == ["map.terrain.A9", "title", "units[0].hex", "units[2].side"]


@pytest.mark.parametrize(
    ("edit", "place", "message"),
    [
        (lambda d: d.pop("sides"), "sides", "Missing data for required field."),
        (lambda d: d.update(bogus=1), "bogus", "Unknown field."),
        (lambda d: d.update(turns="three"), "turns", "Not a valid integer."),
        (lambda d: d.update(turns=0), "turns", "Must be greater than or equal to 1."),
        (lambda d: d.update(format="v2"), "format", "Must be equal to arbiter-scenario/1."),
        (lambda d: d.update(id="Has Spaces"), "id", "String does not match expected pattern."),
        (lambda d: d["map"].update(coordinates="hexagonal"), "map.coordinates", "Must be one of"),
        (lambda d: d["map"].update(orientation="round"), "map.orientation", "Must be one of"),
        (lambda d: d["map"].update(offset="both"), "map.offset", "Must be one of"),
        (lambda d: d["map"]["terrain"].update(A1=5), "map.terrain.A1", "Not a valid string."),
        (
            lambda d: d["units"][1]["values"].update(attack="x"),
            "units[1].values.attack",
            "Not a valid number.",
        ),
        (
            lambda d: d["units"][0].update(steps=0),
            "units[0].steps",
            "Must be greater than or equal to 1.",
        ),
        (
            lambda d: d["map"]["hexsides"][0].update(hexes=["B2"]),
            "map.hexsides[0].hexes",
            "Length must be 2.",
        ),
    ],
)
def test_shape_errors(edit, place, message):
    problems = changed(edit)
    assert any(p == place and m.startswith(message) for p, m in problems), problems


@pytest.mark.parametrize(
    ("edit", "place", "message"),
    [
        (lambda d: d["map"]["bounds"].update(min_col=5), "map.bounds", "the bounds hold no hex"),
        (  # was accepted, and the map then failed to list its hexes
            lambda d: d["map"]["bounds"].update(min_row=0),
            "map.bounds",
            "the bounds leave the letter-number coordinates: no letters for row 0",
        ),
        (lambda d: d["map"]["terrain"].update(Z9="woods"), "map.terrain.Z9", "unknown hex Z9"),
        (
            lambda d: d["map"]["terrain"].update(A1="swamp"),
            "map.terrain.A1",
            "unknown terrain 'swamp'",
        ),
        (
            lambda d: d["map"].update(default_terrain="sand"),
            "map.default_terrain",
            "unknown terrain 'sand'",
        ),
        (
            lambda d: d["map"]["hex_features"].update(E5=["town"]),
            "map.hex_features.E5",
            "unknown hex E5",
        ),
        (
            lambda d: d["map"]["hexsides"][0].update(hexes=["B2", "E9"]),
            "map.hexsides[0].hexes[1]",
            "unknown hex E9",
        ),
        (
            lambda d: d["map"]["hexsides"][0].update(hexes=["A1", "D4"]),
            "map.hexsides[0].hexes",
            "A1 and D4 are not adjacent",
        ),
        (
            lambda d: d["map"]["hexsides"].append({"hexes": ["B3", "B2"], "features": ["road"]}),
            "map.hexsides[1]",
            "hexside B2/B3 already given at hexsides[0]",
        ),
        (lambda d: d["map"]["places"][0].update(hex="Q1"), "map.places[0].hex", "unknown hex Q1"),
        (
            lambda d: d["map"]["places"].append({"name": "Ford", "hex": "A1"}),
            "map.places[1].name",
            "duplicate place 'Ford'",
        ),
        (
            lambda d: d["map"]["supply_sources"].update(east=["A1"]),
            "map.supply_sources.east",
            "unknown side 'east'",
        ),
        (
            lambda d: d["map"]["supply_sources"].update(south=["D4", "D9"]),
            "map.supply_sources.south[1]",
            "unknown hex D9",
        ),
        (
            lambda d: d["map"]["entries"][0].update(side="west"),
            "map.entries[0].side",
            "unknown side 'west'",
        ),
        (
            lambda d: d["map"]["entries"][0].update(hexes=["A0"]),
            "map.entries[0].hexes[0]",
            "unknown hex A0",
        ),
        (
            lambda d: d["map"]["entries"].append({"name": "north edge", "hexes": ["A3"]}),
            "map.entries[1].name",
            "duplicate entry 'north edge'",
        ),
        (lambda d: d.update(sides=["north", "north"]), "sides[1]", "duplicate side 'north'"),
        (
            lambda d: d["units"][2].update(id="n1"),
            "units[2].id",
            "duplicate unit id 'n1' (also units[0])",
        ),
        (lambda d: d["units"][2].update(side="east"), "units[2].side", "unknown side 'east'"),
        (
            lambda d: d["reinforcements"][0].update(unit="n9"),
            "reinforcements[0].unit",
            "unknown unit 'n9'",
        ),
        (
            lambda d: d["reinforcements"][0].update(turn=4),
            "reinforcements[0].turn",
            "turn 4 is not in 1..3",
        ),
        (
            lambda d: d["reinforcements"][0].update(hex="A1"),
            "reinforcements[0]",
            "give exactly one of entry and hex",
        ),
        (
            lambda d: d["reinforcements"][0].pop("entry"),
            "reinforcements[0]",
            "give exactly one of entry and hex",
        ),
        (
            lambda d: d["reinforcements"][0].update(entry="south edge"),
            "reinforcements[0].entry",
            "unknown entry 'south edge'",
        ),
        (
            lambda d: d["reinforcements"].append({"turn": 1, "unit": "s1", "hex": "D4"}),
            "reinforcements[1].unit",
            "unit 's1' is already set up in D3",
        ),
        (
            lambda d: d["reinforcements"].append({"turn": 3, "unit": "n2", "hex": "A1"}),
            "reinforcements[1].unit",
            "unit 'n2' already arrives at reinforcements[0]",
        ),
        (
            lambda d: d["reinforcements"].append({"turn": 3, "unit": "n2", "hex": "X1"}),
            "reinforcements[1].hex",
            "unknown hex X1",
        ),
        (
            lambda d: (
                d["reinforcements"].append({"turn": 2, "unit": "s3", "entry": "north edge"})
                or d["units"].append({"id": "s3", "side": "south", "type": "infantry"})
            ),
            "reinforcements[1].entry",
            "entry 'north edge' belongs to 'north'",
        ),
        (
            lambda d: d["reinforcements"].clear(),
            "units[1]",
            "unit 'n2' is neither set up (hex) nor a reinforcement",
        ),
        (
            lambda d: d["options"]["turns"].update(default=9),
            "options.turns.default",
            "must be at most 5",
        ),
        (
            lambda d: d["options"]["turns"].update(default="3", type="integer"),
            "options.turns.default",
            "must be an integer, not '3'",
        ),
        (
            lambda d: d["options"]["turns"].update(type="float"),
            "options.turns.type",
            "Must be one of",
        ),
        (
            lambda d: d["options"]["fog"].update(choices=[True]),
            "options.fog.default",
            "must be one of [True]",
        ),
    ],
)
def test_reference_errors(edit, place, message):
    problems = changed(edit)
    assert (place, message) in [(p, m[: len(message)]) for p, m in problems], problems


def test_what_loads_of_a_malformed_part_is_still_checked_in_its_place():
    def edit(d):
        d["units"][0].update(steps="x", hex="Z9")
        d["map"]["supply_sources"]["south"] = [5, "D9"]
        d["reinforcements"][0]["entry"] = 5  # mistyped, but given: not "give exactly one"

    assert changed(edit) == [
        ("map.supply_sources.south[0]", "Not a valid string."),
        ("map.supply_sources.south[1]", "unknown hex D9"),
        ("reinforcements[0].entry", "Not a valid string."),
        ("units[0].hex", "unknown hex Z9"),
        ("units[0].steps", "Not a valid integer."),
    ]


def test_not_an_object():
    assert problems_of([1, 2]) == [("", "a scenario must be a JSON object")]


def test_wrong_system():
    with pytest.raises(ScenarioError) as err:
        load_scenario(VALID, system="other")
    assert err.value.problems == {"system": ["this scenario is for 'test', not 'other'"]}


def test_options_are_merged_and_checked():
    scenario = load_scenario(VALID)
    assert scenario.options_with({"fog": True}) == {"fog": True, "turns": 3}
    with pytest.raises(ScenarioError) as err:
        scenario.options_with({"fog": 1, "turns": 7, "weather": "rain"})
    assert set(err.value.problems) == {"options.fog", "options.turns", "options.weather"}
    assert err.value.problems["options.fog"] == ["must be a boolean, not 1"]
    assert err.value.problems["options.turns"] == ["must be at most 5"]


def test_options_a_rules_module_declares_are_added_offered_and_recorded_only_when_chosen():
    """A game's own options (``RulesSystem.declared_options``) join every scenario's: offered and
    checked like the file's, the file's own declaration of a name wins, and a state records one
    only when it is not the default."""
    declared = {
        "reading": {"default": "a", "choices": ["a", "b"], "description": "rule 5 read two ways"},
        "fog": {"default": True, "description": "the game's own fog (the file's wins)"},
    }
    scenario = load_scenario(VALID, declared=declared)
    assert scenario.default_options() == {"fog": False, "turns": 3, "reading": "a"}
    assert [o["name"] for o in scenario.info().options] == ["fog", "turns", "reading"]
    assert scenario.options_with({}) == {"fog": False, "turns": 3}
    assert scenario.options_with({"reading": "a"}) == {"fog": False, "turns": 3}
    assert scenario.options_with({"reading": "b"}) == {"fog": False, "turns": 3, "reading": "b"}
    with pytest.raises(ScenarioError) as err:
        scenario.options_with({"reading": "c"})
    assert err.value.problems == {"options.reading": ["must be one of ['a', 'b'], not 'c'"]}
    assert load_scenario(VALID).default_options() == {"fog": False, "turns": 3}


def test_placeholders_are_unwrapped_and_listed():
    data = copy.deepcopy(VALID)
    data["units"][0]["values"]["attack"] = {"placeholder": True, "value": 4, "note": "not printed"}
    data["map"]["terrain"] = {
        "placeholder": True,
        "value": {"B2": "woods"},
        "note": "map not given",
    }
    scenario = load_scenario(data)
    assert scenario.units["n1"].values["attack"] == 4.0
    assert scenario.map.terrain("B2") == "woods"
    assert [p.place for p in scenario.placeholders] == ["map.terrain", "units[0].values.attack"]
    assert scenario.info().placeholder is True


def test_a_placeholder_wrapper_with_a_bad_value_is_still_checked():
    data = copy.deepcopy(VALID)
    data["units"][3]["hex"] = {"placeholder": True, "value": "Z99", "note": "guess"}
    assert problems_of(data) == [("units[3].hex", "unknown hex Z99")]


def test_check_file_lists_errors_and_placeholder_warnings(tmp_path):
    data = copy.deepcopy(VALID)
    data["units"][1]["values"]["attack"] = {
        "placeholder": True,
        "value": 2,
        "note": "strength not printed",
    }
    data["units"][3]["hex"] = "Z99"
    path = tmp_path / "ford.json"
    path.write_text(json.dumps(data))
    assert check_file(path) == [
        {"level": "error", "place": "units[3].hex", "message": "unknown hex Z99"},
        {
            "level": "warning",
            "place": "units[1].values.attack",
            "message": "placeholder: strength not printed",
        },
    ]


def test_check_file_reports_bad_json_and_missing_files(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"id": "x",\n  oops}')
    report = check_file(path)
    assert len(report) == 1 and report[0]["level"] == "error"
    assert report[0]["place"] == "line 2 column 3"
    missing = check_file(tmp_path / "nope.json")
    assert missing[0]["level"] == "error" and "cannot read" in missing[0]["message"]


def test_check_file_of_a_good_file_is_empty(tmp_path):
    path = tmp_path / "ford.json"
    path.write_text(json.dumps(VALID))
    assert check_file(path) == []
