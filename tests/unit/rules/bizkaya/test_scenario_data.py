"""The shipped scenario's data against the text: four-step brigades (13) and city levels (12)."""

from __future__ import annotations

import json

from service.rules.bizkaya import SYSTEM, board
from service.rules.bizkaya.setup import SCENARIO_DIR
from tests.unit.rules.bizkaya.conftest import CHECKS

SCENARIO = SCENARIO_DIR / "bizkaya-1937.json"

#: 17, Republican: "Eight 4-4/3 Bdes (1, 2nd, 5th, 6th, 9th, 11th, 13th, 14th vasca) Five 4-4/2
#: Bdes (3rd, 4th, 10th, 12th, 15th vasca) One 3-3/2 Brigade (16th Vasca)", reinforcements "Two
#: 4-5*/3 Brigades (1st, 2nd Exp Asturiana) One 4-4/3 Bde (7th vasca) One 4-4/2 Bde (8th vasca)",
#: "One 4-5*/3 Bde (3rd Exp Asturias) One 3-4*/2 Bde (1st Exp Santanderina)", "One 4-5*/3 Bde (4th
#: Exp asturiana) One 3-4*/2 Bde (2nd Exp santanderina)", "Two 3-4*/2 Bdes (17, 18 vasca)", "One
#: 3-3/2 Bde (Montaña)"
BRIGADES = {
    *(f"r-{n}-vasca" for n in (1, 2, 5, 6, 9, 11, 13, 14, 3, 4, 10, 12, 15, 16, 7, 8, 17, 18)),
    *(f"r-{n}-exp-asturiana" for n in (1, 2, 3, 4)),
    "r-1-exp-santanderina",
    "r-2-exp-santanderina",
    "r-montana",
}


def test_13_the_brigades_of_the_orders_of_battle_are_four_step_units() -> None:
    """13 (Multi-Step units): "when a four step brigade suffers one step loss, it is flipped back
    to its reverse side. If it suffers another step loss, it is substituted by a 2-step substitute
    counter, etc."; "Some units that have only one step remaining are in "C" (Cadre) status".
    Every unit the orders of battle (17) call a brigade has four steps (all had 3): it shows its
    factors reduced step by step and is a cadre after three losses, eliminated by the fourth. The
    Nationalist groups and regiments are not called brigades and keep 3 (placeholder)."""
    state = SYSTEM.initial_state("bizkaya-1937", {})
    four = {uid for uid, u in state["units"].items() if u["max_steps"] == 4}
    assert four == BRIGADES
    assert all(state["units"][uid]["steps"] == 4 for uid in BRIGADES)
    groups = [u for u in state["units"].values() if u["type"] == "brigade" and u["id"] not in four]
    assert groups and {u["side"] for u in groups} == {"nationalist"}
    assert {u["max_steps"] for u in groups} == {3}
    brigade = dict(state["units"]["r-1-vasca"])  # a 4-4/3 Bde
    shown = []
    for steps in (4, 3, 2, 1):  # full, reverse side, 2-step substitute, cadre
        brigade["steps"] = steps
        shown.append(int(board.factor(brigade, "defence")))
    assert shown == [4, 3, 2, 1]


def test_12_city_levels_the_text_does_not_print_are_flagged_placeholders() -> None:
    """12: siege artillery's factor "is doubled" "when firing against cities or fortifications of
    level 2 or higher" -- the text names levels but prints none: Bilbao 3, Baracaldo/Sestao 2,
    Vitoria 2 and every other level are labelled placeholders that ``arbiter scenarios check``
    lists (a club enters the printed map's); a peak or sector has no level."""
    raw = json.loads(SCENARIO.read_text(encoding="utf-8"))
    report = CHECKS.check_scenario_file(str(SCENARIO))
    notes = {r["place"]: r["message"] for r in report if r["level"] == "warning"}
    levels = {}
    for index, place in enumerate(raw["map"]["places"]):
        if place["kind"] in ("city", "major_city", "fort"):
            assert f"map.places[{index}].values.level" in notes, place["name"]
            levels[place["name"]] = place["values"]["level"]["value"]
        else:
            assert "level" not in place.get("values", {}), place["name"]
    assert (levels["Bilbao"], levels["Baracaldo/Sestao"], levels["Vitoria"]) == (3, 2, 2)
    bilbao = next(i for i, p in enumerate(raw["map"]["places"]) if p["name"] == "Bilbao")
    assert "prints no place's level" in notes[f"map.places[{bilbao}].values.level"]
