"""What the rulebook text gives about the map and the counters, in the shipped scenario: the main
highway of rule 10, the VP places as cities (rule 11, TEC) and the errata's 5/3 Cav (rule 13)."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation, State
from service.rules.merida import SYSTEM, board
from tests.unit.rules.merida.conftest import play

HIGHWAY = ["J7", "I7", "I8", "H8", "G9", "F9", "E9", "E10", "D10", "C11", "B11", "B12", "A12"]


def shipped(phase: str = "movement", side: str = "nationalist") -> State:
    state = SYSTEM.initial_state("merida-1938", {})
    state.update(phase=phase, side=side, turn=2)
    for u in state["units"].values():
        u["stay_with"] = None
    return state


def test_10_tec_the_main_highway_from_trujillo_north_to_a12_is_a_road() -> None:
    """Rule 10: "Nationalists trace to the west map edge, or to the main highway that runs through
    Trujillo to the north (hex A12)"; TEC: "Road 1/2 mp if moved along". The text does not give the
    highway's hexes: the shipped placeholder road runs from Trujillo (J7) to A12, and an infantry
    division (6 MP) moves its 12 hexes in one tactical move; off the road 6 hexes is its limit."""
    state = shipped()
    state["units"]["n-19-div"]["hex"] = "J7"
    play(state, "nationalist", {"type": "move", "units": ["n-19-div"], "path": HIGHWAY})
    assert state["units"]["n-19-div"]["hex"] == "A12"
    state = shipped()
    state["units"]["n-19-div"]["hex"] = "J7"
    off_road = ["J7", "J8", "I9", "H9", "G10", "F10", "E11", "D11"]  # 7 clear hexes
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "move", "units": ["n-19-div"], "path": off_road})
    assert err.value.rule == "5"


def _attack_preview(defender_hex: str, attacker_hex: str) -> dict:
    state = shipped(phase="combat")
    for u in state["units"].values():  # an empty neighbourhood: only the two units meet
        if u["hex"] in (defender_hex, attacker_hex):
            u["hex"] = "A1" if u["side"] == "nationalist" else "AQ26"
    state["units"]["r-37-div-1"]["hex"] = defender_hex
    state["units"]["n-19-div"]["hex"] = attacker_hex
    command = {"type": "attack", "attackers": ["n-19-div"], "hex": defender_hex}
    return SYSTEM.previews.preview(state, "nationalist", command)


@pytest.mark.parametrize(("place", "attacker"), [("J7", "J6"), ("AD25", "AD24"), ("M3", "M2")])
def test_11_tec_each_vp_place_is_a_city_the_defender_doubled(place: str, attacker: str) -> None:
    """Rule 11: "Points are given for each city listed" (the Victory Point table: Trujilo (J7),
    Almaden (AD25), ... Guarena (M3)); TEC: "City ... Defender doubled", where a town gives
    "Attacker -1 to die roll" and "Defenders ignore retreats" (rule 8: "-1 if defender in a
    town"). Every VP place was a town: now a city doubles its defender and no -1 applies."""
    preview = _attack_preview(place, attacker)
    assert preview["strength_effects"] == [{"cause": "defender doubled: city", "rule": "TEC"}]
    assert preview["modifiers"] == []
    assert preview["defence"] == 2 * preview["attack"]  # both placeholder infantry strength 4


def test_tec_a_set_up_place_outside_the_vp_table_stays_a_placeholder_town() -> None:
    """The Set up table names places the VP table does not (Logrosan N14): the text does not say
    town or city, so they stay placeholder towns (TEC: attacker -1, no doubling)."""
    preview = _attack_preview("N14", "N13")
    assert preview["strength_effects"] == []
    assert preview["modifiers"] == [{"cause": "defender in a town", "value": -1, "rule": "TEC"}]


def test_13_errata_the_5_3_cav_is_one_of_the_3_cav_units_at_zalamea() -> None:
    """Rule 13 (errata): "substitute the 5/3 Cav unit (green) for the mismarked infantry unit in
    the mix"; the Set up table: "Zalamea (AF10): 3 Cav (2 units)". Green is Republican (rule 2):
    the 5/3 Cav is one of the two 3 Cav cavalry units, and the game names it so."""
    state = SYSTEM.initial_state("merida-1938", {})
    cavalry = {
        uid: u
        for uid, u in state["units"].items()
        if u["side"] == "republican" and u["type"] == "cavalry"
    }
    assert sorted(cavalry) == ["r-3-cav-1", "r-3-cav-2"]
    assert {u["hex"] for u in cavalry.values()} == {"AF10"}
    assert SYSTEM.names(state).unit("r-3-cav-1") == "5/3 Cav"


@pytest.mark.parametrize(
    ("town", "set_up", "vp"), [("Guarena", "AA3", "M3"), ("Talarrubia", "V18", "V19")]
)
def test_12_a_town_the_two_tables_place_apart_reads_as_the_town_at_both_hexes(
    town: str, set_up: str, vp: str
) -> None:
    """Rule 12's Set up table: "Guarena (AA3): 1/21 Div, 2/21 Div"; the Victory Point table of rule
    11: "Guarena (M3)". Both hexes read as the town (orders, the log: "Guarena (AA3)"), never as
    "Guarena (Set up table)"; the set-up hex's note says which table puts it where."""
    from service.rules.hexgame import HexNames

    state = SYSTEM.initial_state("merida-1938", {})
    names = HexNames(state)
    assert names.hex(set_up) == f"{town} ({set_up})"
    assert names.hex(vp) == f"{town} ({vp})"
    places = {p["hex"]: p for p in state["map"]["places"]}
    assert places[set_up]["label"] == town
    assert f"Set up table places {town} at {set_up}" in places[set_up]["note"]
    assert f"Victory Point table at {vp}" in places[set_up]["note"]
    assert all("(" not in (p.get("label") or p["name"]) for p in state["map"]["places"])


def test_every_counter_of_a_side_has_a_name_of_its_own():
    """Two Nationalist counters are printed "Leader 0" (rule 12's Set up table: V1 and A12): a
    player who reads the log or the orders must tell them apart (issue 51, finding 8), so they
    are numbered as the other repeated counters are ("68 Div #4")."""
    state = SYSTEM.initial_state("merida-1938", {})
    for side in ("nationalist", "republican"):
        names = [u["name"] for u in state["units"].values() if u["side"] == side]
        assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_the_set_up_tables_misspelt_town_reads_as_the_town():
    """The Set up table prints "Qunitana (AC9): 68 Div"; the town is Quintana (de la Serena): the
    map's label is spelt right and its note says what was printed."""
    state = SYSTEM.initial_state("merida-1938", {})
    place = next(p for p in board.map_of(state).places.values() if p.hex == "AC9")
    assert place.name == "Quintana" and "Qunitana" in place.note
