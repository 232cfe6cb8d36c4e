"""Rule 5 listings and what they keep between calls: a player's successive listings in a phase
reuse the searches of units whose surroundings did not change, and never a search the board has
outdated -- an enemy unit that moved (its ZOC, rules 5 and 7), a rail hex whose control changed
(rule 5) -- so every listing equals one computed from nothing."""

from __future__ import annotations

from typing import Any

from service.rules.base import State, clone
from service.rules.merida import SYSTEM, reach
from tests.unit.rules.merida.conftest import board_state, play, unit
from tests.unit.rules.merida.test_move_destinations import RAIL, every_listed_move_is_accepted


def listing(state: State, side: str) -> list[dict[str, Any]]:
    return [t.as_dict() for t in SYSTEM.actions(state, side).templates]


def cold(state: State, side: str) -> list[dict[str, Any]]:
    """The listing computed from nothing kept."""
    reach.forget()
    return listing(state, side)


def strategic(state: State, uid: str) -> set[str]:
    [found] = [
        t
        for t in SYSTEM.actions(state, "nationalist").of_type("move")
        if t.fixed == {"units": [uid], "mode": "strategic"}
    ]
    return {path[-1] for path in found.choose["path"].options}


def tactical(state: State, uid: str) -> dict[str, list[str]]:
    [found] = [
        t
        for t in SYSTEM.actions(state, "nationalist").of_type("move")
        if t.fixed == {"units": [uid], "mode": "tactical"}
    ]
    return {path[-1]: path for path in found.choose["path"].options}


def test_5_7_a_listing_after_the_enemy_moves_follows_its_new_zoc() -> None:
    """Rule 5: strategic movement may not enter an enemy ZOC.  Listed once with the Republican in
    E6, then with it in E9: E5 (next to E6) is listed now, E8 (next to E9) no longer is."""
    units = [
        unit("n", "nationalist", "infantry", 3, "E3"),
        unit("r", "republican", "infantry", 3, "E6"),
    ]
    state = board_state(units)
    assert "E5" not in strategic(state, "n")
    moved = clone(state)
    moved["units"]["r"]["hex"] = "E9"
    assert "E5" in strategic(moved, "n")
    assert "E8" not in strategic(moved, "n")
    assert listing(moved, "nationalist") == cold(moved, "nationalist")


def test_5_a_listing_after_rail_control_changes_stops_at_the_lost_hex() -> None:
    """Rule 5: units move by rail only along rail hexes they control.  B1-B5 are Nationalist; once
    the Republicans control B4 the rail move stops at B3."""
    state = board_state([unit("n", "nationalist", "infantry", 3, "B1")], hexsides=RAIL)
    before = [t for t in SYSTEM.actions(state, "nationalist").of_type("move")]
    rail = [t for t in before if t.fixed["mode"] == "rail"][0]
    assert {p[-1] for p in rail.choose["path"].options} == {"B2", "B3", "B4", "B5"}
    lost = clone(state)
    lost["control"]["B4"] = "republican"
    after = SYSTEM.actions(lost, "nationalist").of_type("move")
    rail = [t for t in after if t.fixed["mode"] == "rail"][0]
    assert {p[-1] for p in rail.choose["path"].options} == {"B2", "B3"}
    assert listing(lost, "nationalist") == cold(lost, "nationalist")


def test_5_6_successive_listings_in_a_phase_equal_listings_from_nothing() -> None:
    """Rules 5 and 6: after each move of a phase the next listing (reusing the searches of the units
    that did not move) is the one computed from nothing, and every listed move is accepted; the
    stack three infantry fill is no longer listed for a fourth."""
    units = [
        unit("a", "nationalist", "infantry", 3, "C2"),
        unit("b", "nationalist", "infantry", 3, "D2"),
        unit("c", "nationalist", "infantry", 3, "E2"),
        unit("d", "nationalist", "infantry", 3, "F4"),
        unit("r", "republican", "infantry", 3, "E8"),
    ]
    state = board_state(units)
    reach.forget()
    for uid in ("a", "b", "c"):
        warm = listing(state, "nationalist")
        assert warm == cold(state, "nationalist")
        paths = tactical(state, uid)
        if uid == "c":  # a and b stand in C4 (six thirds of nine): c still fits
            assert "C4" in paths
            break
        play(state, "nationalist", {"type": "move", "units": [uid], "path": paths["C4"]})
    assert listing(state, "nationalist") == cold(state, "nationalist")
    assert every_listed_move_is_accepted(state, "nationalist") > 0
    state["units"]["c"]["hex"] = "C4"  # three infantry: the stack is full (rule 6)
    assert "C4" not in tactical(state, "d")
    assert listing(state, "nationalist") == cold(state, "nationalist")


def test_5_6_a_seeded_walk_of_the_shipped_game_lists_warm_what_it_lists_from_nothing() -> None:
    """Rules 5 and 6 over the shipped scenario: along a seeded walk of play (stacks that move as
    one, units out of supply, rail), every movement listing made with what earlier listings kept
    (each unit's and each stack's area on empty hexes, rule 6 applied per listing) equals the one
    computed from nothing."""
    import random

    from service.fuzz.player import SeededDice, pick
    from service.rules.base import RulesEvent, RuleViolation

    rng = random.Random(5)
    dice = SeededDice(rng)
    state = SYSTEM.initial_state("merida-1938", SYSTEM.default_options("merida-1938"))
    compared = 0
    reach.forget()
    for _ in range(400):
        if SYSTEM.result(state) is not None or compared >= 25:
            break
        side = SYSTEM.active_sides(state)[0]
        if state["phase"] == "movement":
            warm = listing(state, side)
            assert warm == cold(state, side)
            compared += 1
        templates = SYSTEM.actions(state, side).templates
        others = [t for t in templates if t.type != "end_phase"]
        ends = [t for t in templates if t.type == "end_phase"]
        template = rng.choice(ends if ends and (not others or rng.random() < 0.1) else others)
        command = template.command(**{k: pick(c, rng) for k, c in template.choose.items()})
        try:
            events = SYSTEM.decide(state, side, command, dice)
        except RuleViolation:
            continue
        for event in events:
            state = SYSTEM.apply(state, RulesEvent(event.type, event.data))
    assert compared >= 25


def test_6_a_stack_moving_as_one_is_not_listed_onto_a_stack_it_no_longer_fits() -> None:
    """Rule 6: "Three ground units of any type" a hex; the Set up table note: on turn 1 units set up
    with a leader move with it as one stack.  The leader's stack of two infantry may join a lone
    infantry in C4 (three units); once a second infantry of theirs stands there, the next listing
    (reusing what the first kept) no longer offers C4, and equals the listing from nothing."""
    units = [
        unit("L", "nationalist", "leader", 0, "C2"),
        unit("a", "nationalist", "infantry", 3, "C2"),
        unit("b", "nationalist", "infantry", 3, "C2"),
        unit("x", "nationalist", "infantry", 3, "C4"),
        unit("y", "nationalist", "infantry", 3, "F4"),
        unit("r", "republican", "infantry", 3, "J10"),
    ]
    state = board_state(units, turn=1)
    for uid in ("a", "b"):  # bound to L as the Set up table's stacks are (setup.bind)
        state["units"][uid]["stay_with"] = "L"

    def group_ends(state: State) -> set[str]:
        [found] = [
            t
            for t in SYSTEM.actions(state, "nationalist").of_type("move")
            if t.fixed == {"units": ["L", "a", "b"], "mode": "tactical"}
        ]
        return {path[-1] for path in found.choose["path"].options}

    reach.forget()
    assert "C4" in group_ends(state)
    state["units"]["y"]["hex"] = "C4"
    assert "C4" not in group_ends(state)
    assert listing(state, "nationalist") == cold(state, "nationalist")
