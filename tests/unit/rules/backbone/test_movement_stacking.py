"""Land movement (15), zones of control (7) and stacking (5)."""

from __future__ import annotations

import pytest

from service.rules.backbone import geography as geo
from service.rules.backbone.movement import destinations, stacking_violations
from service.rules.base import RuleViolation
from tests.unit.rules.backbone.fixtures import REQUIRED_CITIES, board, counter, play, state


def one(
    unit: dict,
    terrain: dict | None = None,
    hexsides: list | None = None,
    others: list | None = None,
    **kw,
) -> dict:
    mapd = board(
        terrain=terrain, hexsides=hexsides, places=[*REQUIRED_CITIES, ("Fez", "9,9", False)]
    )
    return state([unit, *(others or [])], mapd, **kw)


@pytest.mark.parametrize(
    ("terrain", "cost"), [("clear", 1), ("broken", 1), ("half_mountain", 2), ("mountain", 3)]
)
def test_15_2_terrain_costs(terrain: str, cost: int) -> None:
    st = one(counter("a", "allied", "5,5", mp=3), terrain={"5,6": terrain})
    assert (
        play(st, "allied", {"type": "move", "unit": "a", "path": ["5,5", "5,6"]})[0].data["cost"]
        == cost
    )


def test_15_2_armor_cannot_enter_mountain_except_by_road() -> None:
    tank = counter("t", "allied", "5,5", type_="armor", mp=5)
    st = one(tank, terrain={"5,6": "mountain"})
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", {"type": "move", "unit": "t", "path": ["5,5", "5,6"]})
    assert err.value.rule == "15.2"
    st = one(
        counter("t", "allied", "5,5", type_="armor", mp=5),
        terrain={"5,6": "mountain"},
        hexsides=[("5,5", "5,6", ["road"])],
    )
    assert (
        play(st, "allied", {"type": "move", "unit": "t", "path": ["5,5", "5,6"]})[0].data["cost"]
        == 0.5
    )


def test_15_2_roads_half_mp_for_4_5_mp_units_and_hqs_1_for_the_rest() -> None:
    roads = [("5,5", "5,6", ["road"]), ("5,6", "5,7", ["road"])]
    fast = one(
        counter("f", "allied", "5,5", mp=4),
        terrain={"5,6": "mountain", "5,7": "mountain"},
        hexsides=roads,
    )
    assert (
        play(fast, "allied", {"type": "move", "unit": "f", "path": ["5,5", "5,6", "5,7"]})[0].data[
            "cost"
        ]
        == 1
    )
    slow = one(counter("s", "allied", "5,5", mp=3), terrain={"5,6": "mountain"}, hexsides=roads)
    assert (
        play(slow, "allied", {"type": "move", "unit": "s", "path": ["5,5", "5,6", "5,7"]})[0].data[
            "cost"
        ]
        == 2
    )
    hq = one(counter("h", "allied", "5,5", type_="hq", mp=3), hexsides=roads)
    assert (
        play(hq, "allied", {"type": "move", "unit": "h", "path": ["5,5", "5,6", "5,7"]})[0].data[
            "cost"
        ]
        == 1
    )


def test_15_2_river_plus_1_except_on_a_road() -> None:
    st = one(counter("a", "allied", "5,5"), hexsides=[("5,5", "5,6", ["river"])])
    assert (
        play(st, "allied", {"type": "move", "unit": "a", "path": ["5,5", "5,6"]})[0].data["cost"]
        == 2
    )
    st = one(counter("a", "allied", "5,5"), hexsides=[("5,5", "5,6", ["river", "road"])])
    assert (
        play(st, "allied", {"type": "move", "unit": "a", "path": ["5,5", "5,6"]})[0].data["cost"]
        == 1
    )


def test_10_1_bad_weather_4_5_mp_to_3_and_12_2_out_of_supply_halved() -> None:
    tank = counter("t", "allied", "5,5", type_="armor", mp=5)
    st = one(tank, weather="bad")
    assert geo.movement_allowance(st, tank) == 3
    tank["supplied"] = False
    assert geo.movement_allowance(st, tank) == 1  # 3 / 2 rounded down (3: always round down)
    st["weather"] = "good"
    assert geo.movement_allowance(st, tank) == 2
    infantry = counter("i", "allied", "5,6", mp=3, supplied=False)
    assert geo.movement_allowance(st, infantry) == 3


def test_15_1_a_unit_moves_once_and_not_through_enemy_units() -> None:
    st = one(counter("a", "allied", "5,5"), others=[counter("e", "spanish", "3,3")])
    play(st, "allied", {"type": "move", "unit": "a", "path": ["5,5", "5,6"]})
    with pytest.raises(RuleViolation):
        play(st, "allied", {"type": "move", "unit": "a", "path": ["5,6", "5,7"]})


def test_7_zoc_not_across_rivers_nor_into_sea() -> None:
    st = one(
        counter("e", "spanish", "5,5"), terrain={"4,5": "sea"}, hexsides=[("5,5", "5,6", ["river"])]
    )
    zoc = geo.zoc_of(st, "spanish")
    assert "5,6" not in zoc and "4,5" not in zoc and "6,5" in zoc


def test_7_armor_zoc_not_into_mountain_and_from_mountain_only_along_roads() -> None:
    st = one(counter("t", "spanish", "5,5", type_="armor"), terrain={"5,6": "mountain"})
    assert "5,6" not in geo.zoc_of(st, "spanish")
    st = one(
        counter("t", "spanish", "5,5", type_="armor"),
        terrain={"5,5": "mountain"},
        hexsides=[("5,5", "6,5", ["road"])],
    )
    assert geo.zoc_of(st, "spanish") == {"6,5"}


def test_7_1_zoc_to_zoc_as_the_only_move_and_friendly_units_do_not_negate() -> None:
    enemy = [counter("e1", "spanish", "5,7"), counter("e2", "spanish", "3,5")]
    st = one(counter("a", "allied", "4,6"), others=[*enemy, counter("f", "allied", "4,7")])
    zoc = geo.enemy_zoc(st, "allied")
    assert "4,6" in zoc and "4,7" in zoc
    events = play(st, "allied", {"type": "move", "unit": "a", "path": ["4,6", "4,7"]})
    assert events[0].data["zoc_to_zoc"]
    st = one(counter("a", "allied", "4,6"), others=[*enemy, counter("f", "allied", "4,7")])
    with pytest.raises(RuleViolation) as err:  # the friendly unit in 4,7 does not negate the ZOC
        play(st, "allied", {"type": "move", "unit": "a", "path": ["4,6", "4,7", "5,8"]})
    assert err.value.rule == "7.1"


def test_9_2_moors_ignore_the_first_enemy_zoc() -> None:
    moor = counter("m", "spanish", "8,5", type_="regulars", mp=4)
    foot = counter("f", "spanish", "8,5", type_="infantry", mp=4)
    st = one(moor, others=[foot, counter("a", "allied", "5,5")], step="spanish_movement")
    zoc = geo.enemy_zoc(st, "spanish")
    beyond = set(destinations(st, moor)) - set(destinations(st, foot))
    assert beyond and beyond <= zoc  # only the Moors reach a second ZOC hex
    path = ["8,5", "7,5", "6,5", "6,4"]
    assert "6,5" in zoc and "6,4" in zoc
    assert play(st, "spanish", {"type": "move", "unit": "m", "path": path})[0].data[
        "ignored_zoc"
    ] == ["6,5"]


def test_5_stacking_limits_checked_at_the_end_of_movement() -> None:
    units = [counter(f"u{i}", "allied", "5,5", steps=4) for i in range(4)] + [
        counter("x", "allied", "5,6", steps=1)
    ]
    st = one(units[0], others=units[1:], terrain={"5,6": "mountain"})
    assert stacking_violations(st, "allied") == []
    play(
        st, "allied", {"type": "move", "unit": "x", "path": ["5,6", "5,5"]}
    )  # 17 steps, allowed mid-phase
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", {"type": "end_phase"})
    assert err.value.rule == "5"


@pytest.mark.parametrize(
    ("terrain", "city", "limit"),
    [
        ("clear", False, 16),
        ("broken", False, 16),
        ("clear", True, 10),
        ("half_mountain", False, 10),
        ("mountain", False, 8),
    ],
)
def test_5_stacking_limit_by_terrain(terrain: str, city: bool, limit: int) -> None:
    places = [*REQUIRED_CITIES] + ([("Town", "5,5", True)] if city else [])
    st = state([], board(terrain={"5,5": terrain}, places=places))
    assert geo.stacking_limit(st, "5,5") == limit


def test_5_us_and_british_may_pass_but_not_end_together_spanish_and_german_may() -> None:
    st = one(
        counter("us", "allied", "5,5"),
        others=[counter("uk", "allied", "5,6", nation="uk", formation="I CE")],
    )
    play(st, "allied", {"type": "move", "unit": "uk", "path": ["5,6", "5,5", "5,4"]})
    assert stacking_violations(st, "allied") == []
    st = one(counter("us", "allied", "5,5"), others=[counter("uk", "allied", "5,6", nation="uk")])
    play(st, "allied", {"type": "move", "unit": "uk", "path": ["5,6", "5,5"]})
    assert stacking_violations(st, "allied")[0]["limit"] == "US and British units together"
    st = one(counter("es", "spanish", "5,5"), others=[counter("de", "spanish", "5,5", nation="de")])
    assert stacking_violations(st, "spanish") == []
