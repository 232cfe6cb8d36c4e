"""``actions`` as a client sends them: every listed move path (15, 7.1, 9.2) and every listed
attack (16.1, 16.7, 19.2) is accepted by ``decide`` as it stands."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from service.rules.backbone import SYSTEM
from service.rules.backbone import geography as geo
from service.rules.backbone.movement import stacking_violations
from service.rules.base import RuleViolation
from tests.support.dice import ScriptedDice
from tests.unit.rules.backbone.fixtures import REQUIRED_CITIES, board, counter, first, play, state
from tests.unit.rules.backbone.test_zoc_example import zoc_state

#: the supports a side designates (16.3, 16.4, 9.1, 9.2): choices of an attack or a defence
SUPPORTS = {"air", "naval", "hq", "legion", "efficiency", "efficiency_as"}


def of_type(st: dict[str, Any], side: str, kind: str) -> list[dict[str, Any]]:
    """The listed templates of ``kind``, as plain data: a move as ``{"type", "unit", "paths":
    {destination: path}}``, an attack with every unit it lists (a ``some_of`` when several: 16.1
    "one, some or all units"), any other as its fixed fields; supports and loss preferences are
    choices (16.3, 16.6)."""
    found = []
    for t in SYSTEM.actions(st, side).of_type(kind):
        if kind == "move":
            paths = t.choose["path"].options
            found.append(
                {"type": "move", "unit": t.fixed["unit"], "paths": {p[-1]: p for p in paths}}
            )
        else:
            listed = dict(t.fixed)
            if "units" in t.choose:  # 16.1: at least one, up to all of them
                units = t.choose["units"]
                assert (units.min, units.max) == (1, len(units.options))
                listed["units"] = list(t.choose["units"].options)
            assert not set(t.choose) - {"units", *SUPPORTS, "own_losses", "enemy_losses"}
            found.append({"type": kind, **listed})
    return found


def accepted_paths(st: dict[str, Any], side: str) -> int:
    """Decide every listed path; return how many there were."""
    count = 0
    for template in SYSTEM.actions(st, side).of_type("move"):
        assert template.kinds == {"unit": "unit", "path": "path"}
        for command in template.commands():
            [moved] = SYSTEM.decide(st, side, command, ScriptedDice())
            assert moved.data["path"] == command["path"]
            count += 1
    return count


def scenario_movement(side: str) -> dict[str, Any]:
    """Scenario 1 as set up (18.1), in ``side``'s movement phase of turn 1."""
    st = SYSTEM.initial_state("scenario-1", {})
    st["step"] = f"{side}_movement"
    return st


@pytest.mark.parametrize("side", ["allied", "spanish"])
def test_15_every_listed_path_of_the_scenario_is_accepted_by_decide(side: str) -> None:
    st = scenario_movement(side)
    moves = of_type(st, side, "move")
    assert len(moves) >= 10
    assert accepted_paths(st, side) > 300


def test_15_1_a_unit_that_moved_is_no_longer_listed() -> None:
    st = scenario_movement("allied")
    move = of_type(st, "allied", "move")[0]
    path = next(iter(move["paths"].values()))
    play(st, "allied", {"type": "move", "unit": move["unit"], "path": path})
    assert move["unit"] not in {a["unit"] for a in of_type(st, "allied", "move")}
    assert of_type(st, "allied", "end_phase") == [{"type": "end_phase"}]


def test_7_1_listed_paths_stop_at_the_first_enemy_zoc_hex() -> None:
    st = zoc_state()
    zoc = geo.enemy_zoc(st, "allied")
    [cca] = [a for a in of_type(st, "allied", "move") if a["unit"] == "cca"]
    assert "7,17" in cca["paths"] and "6,17" not in cca["paths"]
    assert all(not set(p[1:-1]) & zoc for p in cca["paths"].values())
    accepted_paths(st, "allied")


def test_9_2_rangers_paths_go_on_through_the_first_zoc_hex_only() -> None:
    """The worked example: the Rangers ignore the ZOC of 7,17 and stop in 6,17 or 7,16; they may
    not go on to 6,15 through the second ZOC hex."""
    st = zoc_state()
    zoc = geo.enemy_zoc(st, "allied")
    [rangers] = [a for a in of_type(st, "allied", "move") if a["unit"] == "rangers"]
    assert rangers["paths"]["6,17"] == ["8,18", "7,17", "6,17"]
    assert rangers["paths"]["7,16"] == ["8,18", "7,17", "7,16"]
    assert "6,15" not in rangers["paths"]
    assert all(len(set(p[1:-1]) & zoc) <= 1 for p in rangers["paths"].values())
    accepted_paths(st, "allied")


def combat_state(units: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    mapd = board(
        terrain=kw.pop("terrain", None),
        hexsides=kw.pop("hexsides", None),
        places=REQUIRED_CITIES,
    )
    return state(units, mapd, step="allied_combat", **kw)


def test_16_1_one_attack_per_target_hex_with_its_adjacent_units() -> None:
    st = combat_state(
        [
            counter("a", "allied", "6,5", attack=8),
            counter("b", "allied", "5,6", attack=8),
            counter("far", "allied", "8,8", attack=8),
            counter("hq", "allied", "6,6", type_="hq", attack=0),
            counter("d", "spanish", "5,5", defense=4),
            counter("e", "spanish", "7,9", defense=2),
        ]
    )
    attacks = of_type(st, "allied", "attack")
    assert attacks == [
        {"type": "attack", "target": "5,5", "units": ["a", "b"]},  # not the HQ (4)
        {"type": "attack", "target": "7,9", "units": ["far"]},
    ]
    for action in attacks:
        declared = first(SYSTEM.decide(st, "allied", action, ScriptedDice()), "CombatDeclared")
        assert declared["combat"]["attackers"] == action["units"]


def test_16_1_units_that_attacked_and_hexes_attacked_are_not_listed_again() -> None:
    st = combat_state(
        [
            counter("a", "allied", "6,5", attack=12),
            counter("b", "allied", "5,6", attack=12),
            counter("d", "spanish", "5,5", defense=4),
            counter("e", "spanish", "6,6", defense=1),
        ],
        attacked_units=["a"],
        attacked_hexes=["6,6"],
    )
    assert of_type(st, "allied", "attack") == [{"type": "attack", "target": "5,5", "units": ["b"]}]


def test_16_1_an_attack_below_1_to_2_is_not_listed() -> None:
    st = combat_state(
        [counter("a", "allied", "6,5", attack=1), counter("d", "spanish", "5,5", defense=12)]
    )
    assert of_type(st, "allied", "attack") == []


def test_16_1_us_and_british_units_are_offered_apart() -> None:
    st = combat_state(
        [
            counter("us", "allied", "6,5", attack=8, nation="us"),
            counter("uk", "allied", "5,6", attack=8, nation="uk"),
            counter("d", "spanish", "5,5", defense=2),
        ]
    )
    attacks = of_type(st, "allied", "attack")
    assert [a["units"] for a in attacks] == [["us"], ["uk"]]
    for action in attacks:
        SYSTEM.decide(st, "allied", action, ScriptedDice())


def test_16_3_armor_is_offered_against_a_mountain_hex_only_along_a_road() -> None:
    def mountain(road: bool) -> dict[str, Any]:
        return combat_state(
            [
                counter("tk", "allied", "6,5", type_="armor", attack=10),
                counter("inf", "allied", "5,6", attack=10),
                counter("d", "spanish", "5,5", defense=2),
            ],
            terrain={"5,5": "mountain"},
            hexsides=[("6,5", "5,5", ["road"])] if road else None,
        )

    assert [a["units"] for a in of_type(mountain(False), "allied", "attack")] == [["inf"]]
    st = mountain(True)
    [attack] = of_type(st, "allied", "attack")
    assert attack["units"] == ["tk", "inf"]
    SYSTEM.decide(st, "allied", attack, ScriptedDice())


def test_16_7_exploiting_armor_is_offered_against_the_retreated_units() -> None:
    st = combat_state(
        [
            counter("tk", "allied", "5,5", type_="armor", attack=10),
            counter("inf", "allied", "5,4", attack=10),
            counter("d", "spanish", "4,5", defense=2),
        ],
        attacked_units=["tk", "inf"],
        attacked_hexes=["5,5"],
        exploiters=["tk"],
        exploit_target="4,5",
    )
    [attack] = of_type(st, "allied", "attack")
    assert attack == {"type": "attack", "target": "4,5", "units": ["tk"], "exploitation": True}
    declared = first(SYSTEM.decide(st, "allied", attack, ScriptedDice()), "CombatDeclared")
    assert declared["combat"]["exploitation"] is True


def fogged(hidden_defence: int) -> dict[str, Any]:
    """Limited intelligence (19.2): a Spanish stack whose top unit (placed last) is all the
    Allies see."""
    st = combat_state(
        [
            counter("a", "allied", "6,5", attack=6),
            counter("under", "spanish", "5,5", defense=hidden_defence),
            counter("top", "spanish", "5,5", defense=2),
        ]
    )
    st["options"] = {**st["options"], "limited_intelligence": True}
    return st


def test_19_2_attacks_are_listed_from_what_the_side_can_see() -> None:
    """The list is the same whatever the hidden unit is, and the same as on a board without it:
    nothing in it comes from a unit the Allies cannot see."""
    weak, strong = fogged(1), fogged(30)
    listed = of_type(weak, "allied", "attack")
    assert listed == [{"type": "attack", "target": "5,5", "units": ["a"]}]
    assert of_type(strong, "allied", "attack") == listed
    without = copy.deepcopy(weak)
    del without["units"]["under"]
    assert of_type(without, "allied", "attack") == listed
    first(SYSTEM.decide(weak, "allied", listed[0], ScriptedDice()), "CombatDeclared")
    # 19.2: a listed attack is declared whatever the hidden unit is ("which must be carried out
    # obligatorily"); the whole stack then gives the ratio (test_limited_intelligence.py)
    declared = first(SYSTEM.decide(strong, "allied", listed[0], ScriptedDice()), "CombatDeclared")
    assert sorted(declared["combat"]["defenders"]) == ["top", "under"]


def test_16_3_when_weak_units_would_lower_the_efficiency_below_1_to_2_they_are_left_out() -> None:
    """16.3: the efficiency with most steps is used.  With the 3-step efficiency-1 unit the column
    falls two to the left, below 1:2 (16.1); without it the attack is 1:2 and is offered."""
    st = combat_state(
        [
            counter("x", "allied", "6,5", attack=4, efficiency=3, steps=1),
            counter("y", "allied", "6,5", attack=1, efficiency=1, steps=3),
            counter("d", "spanish", "5,5", defense=8, efficiency=3),
        ]
    )
    with pytest.raises(RuleViolation):
        SYSTEM.decide(
            st, "allied", {"type": "attack", "target": "5,5", "units": ["x", "y"]}, ScriptedDice()
        )
    [attack] = of_type(st, "allied", "attack")
    assert attack["units"] == ["x"]
    SYSTEM.decide(st, "allied", attack, ScriptedDice())


def behind_armor(limited: bool) -> dict[str, Any]:
    """The only way out of 5,7 is the mountain hex 5,6, next to a Spanish stack of an armored unit
    on top (no ZOC into a mountain off the road, 7) over an infantry unit (which has one)."""
    sea = {h: "sea" for h in ("6,7", "6,6", "4,7", "5,8", "6,8")}
    st = state(
        [
            counter("under", "spanish", "5,5"),
            counter("top", "spanish", "5,5", type_="armor"),
            counter("a", "allied", "5,7", mp=6),
        ],
        board(terrain={"5,6": "mountain", **sea}, places=REQUIRED_CITIES),
    )
    st["options"] = {**st["options"], "limited_intelligence": limited}
    return st


def test_19_2_moves_are_listed_from_what_the_side_can_see() -> None:
    """Seen: only the armor, whose ZOC does not reach the mountain, so the paths go on through 5,6;
    the list is the one of a board without the hidden unit.  The move then meets the hidden
    infantry's ZOC and stops there (7.1), as it would at the table: not a refusal, which would
    tell the mover what he may not see (19.2)."""
    full = of_type(behind_armor(False), "allied", "move")
    assert full == [{"type": "move", "unit": "a", "paths": {"5,6": ["5,7", "5,6"]}}]
    fogged = behind_armor(True)
    [move] = of_type(fogged, "allied", "move")
    without = copy.deepcopy(fogged)
    del without["units"]["under"]
    assert of_type(without, "allied", "move") == [move]
    onwards = [p for p in move["paths"].values() if len(p) > 2]
    assert onwards and all(p[1] == "5,6" for p in onwards)
    # the move is not refused: the hidden infantry's ZOC stops it in 5,6 (7.1), as at the table
    moved = first(
        SYSTEM.decide(
            fogged, "allied", {"type": "move", "unit": "a", "path": onwards[0]}, ScriptedDice()
        ),
        "UnitMoved",
    )
    assert moved["path"] == ["5,7", "5,6"] and moved["stopped"] == {"hex": "5,6", "rule": "7.1"}


def test_5_moves_are_not_listed_into_a_stack_they_would_put_over_the_limit() -> None:
    """5: 8 steps in a mountain hex, counted at the end of the movement phase; a unit moves once
    (15.1), so a listed move that over-stacks a hex whose units have moved could never be put right
    and the phase could not end.  Such a destination is not listed (decide still allows stacking
    over the limit in mid-phase, test_5_stacking_limits_checked_at_the_end_of_movement); US and
    British units are not listed into each other's hex either (5)."""
    units = [
        counter("a", "allied", "5,6", steps=4),
        counter("b", "allied", "5,6", steps=3),
        counter("x", "allied", "5,7", steps=2),
        counter("y", "allied", "5,7", steps=1),
        counter("uk", "allied", "4,6", nation="uk", formation="I CE", steps=1),
    ]
    st = state(units, board(terrain={"5,6": "mountain"}, places=REQUIRED_CITIES))
    st["moved"] = ["a", "b"]  # 7 steps in the mountain hex, both moved this phase
    moves = {m["unit"]: m["paths"] for m in of_type(st, "allied", "move")}
    assert "5,6" not in moves["x"]  # 7 + 2 > 8
    assert "5,6" in moves["y"]  # 7 + 1 = 8
    assert "5,6" not in moves["uk"]  # US and British do not end together
    for command in (c for t in SYSTEM.actions(st, "allied").of_type("move") for c in t.commands()):
        after = copy.deepcopy(st)
        play(after, "allied", command)
        assert stacking_violations(after, "allied") == []
