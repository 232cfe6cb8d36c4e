"""Issue 47: every move that follows a path -- a move, an advance after combat, a retreat (and a
displacement) -- enters each of its hexes, the first included, under the movement rules' bans.

Twenty fuzz games of each hex system are played at the rules level (``service.fuzz.player.
play_rules``: seeded random legal play from the action list), and every path-taking event is walked
hex by hex against an independent check: the map and the terrain tables' ban functions (Merida's
``terrain.judge``, Backbone's ``geography.step_cost``, Bizkaya's ``board.playable`` and impassable
hexsides), never the path validation of the command that made the event.  Each hex entered must be
adjacent to the one before, free of enemy units (but an advance's vacated hex), and not prohibited
to the unit's type across that hexside.  Back to Barcelona measures in inches: no hexes to walk."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from service.fuzz.player import play_rules
from service.rules.backbone import SYSTEM as BACKBONE
from service.rules.backbone import geography
from service.rules.backbone import units as backbone_units
from service.rules.base import RulesSystem, State
from service.rules.bizkaya import SYSTEM as BIZKAYA
from service.rules.bizkaya import board as bizkaya_board
from service.rules.bizkaya import tables as bizkaya_tables
from service.rules.merida import SYSTEM as MERIDA
from service.rules.merida import board as merida_board
from service.rules.merida import terrain as merida_terrain

pytestmark = pytest.mark.slow(
    "twenty fuzz games per hex system, every hex of every offered path checked"
)

#: the issue's floor: twenty fuzz games of each system
GAMES = 20
#: commands per game: the cap that keeps the three systems' 60 games near 60 s on CI (runs of
#: 90-220 commands a game took 261 s in all)
COMMANDS = {"merida": 25, "backbone": 25, "bizkaya": 50}

#: a path entered by units: (units, side, the hexes in order -- the first the hex they leave --,
#: the hex whose enemy is gone: an advance's vacated hex)
Walk = tuple[list[dict[str, Any]], str, list[str], str | None]


# -- the paths each system's events take ---------------------------------------------------------
def merida_walks(event_type: str, data: dict[str, Any], state: State) -> Iterator[Walk]:
    units = state["units"]

    def of(ids: list[str]) -> list[dict[str, Any]]:
        return [units[i] for i in ids]

    if event_type == "UnitsMoved":
        yield of(data["units"]), data["side"], list(data["path"]), None
    elif event_type == "UnitsAdvanced":
        for unit in of(data["units"]):  # the first hex from each unit's own
            yield [unit], data["side"], [unit["hex"], *data["path"]], data["path"][0]
    elif event_type in ("CombatResolved", "UnitsRetreated"):
        for move in [*data.get("retreats", []), *data.get("displaced", [])]:
            moving = of(move["units"])
            yield moving, moving[0]["side"], list(move["path"]), None
    elif event_type == "DecisionTaken":
        for move in [data.get("displaced"), data if data.get("path") else None]:
            if move:
                moving = of(move["units"])
                yield moving, moving[0]["side"], list(move["path"]), None


def merida_banned(state: State, unit: dict[str, Any], frm: str, to: str) -> str | None:
    mapdata = merida_board.map_of(state)
    rule, _ = merida_terrain.judge(
        mapdata, unit["type"], frm, to, merida_terrain.river_added(state)
    )
    return rule


def merida_grid(state: State) -> Any:
    return merida_board.map_of(state).grid


def merida_enemy(state: State, side: str) -> set[str]:
    return merida_board.occupied(state, merida_board.other(side))


def backbone_walks(event_type: str, data: dict[str, Any], state: State) -> Iterator[Walk]:
    units = state["units"]
    if event_type == "UnitMoved":
        unit = units[data["unit"]]
        yield [unit], unit["side"], list(data["path"]), None
    elif event_type == "UnitsRetreated" and data.get("to") is not None:
        moving = [units[i] for i in data["units"] if i not in data.get("eliminated", [])]
        if moving:
            yield moving, moving[0]["side"], [data["from"], data["to"]], None
    elif event_type == "UnitsAdvanced":
        for uid in data["units"]:
            unit = units[uid]
            yield [unit], unit["side"], [unit["hex"], data["to"]], data["to"]


def backbone_banned(state: State, unit: dict[str, Any], frm: str, to: str) -> str | None:
    return "15.2" if geography.step_cost(state, unit, frm, to) is None else None


def backbone_grid(state: State) -> Any:
    return geography.board(state).grid


def backbone_enemy(state: State, side: str) -> set[str]:
    return backbone_units.occupied(state, backbone_units.enemy(side))


def bizkaya_walks(event_type: str, data: dict[str, Any], state: State) -> Iterator[Walk]:
    units = state["units"]
    if event_type == "UnitsMoved":
        yield [units[i] for i in data["units"]], data["side"], list(data["path"]), None
    elif event_type == "UnitsRetreated":
        for move in data["moves"]:
            yield [units[i] for i in move["units"]], data["side"], list(move["path"]), None
    elif event_type == "UnitsAdvanced":
        for uid in data["units"]:
            unit = units[uid]
            yield [unit], data["side"], [unit["hex"], data["hex"]], data["hex"]


def bizkaya_banned(state: State, unit: dict[str, Any], frm: str, to: str) -> str | None:
    blocked = set(bizkaya_tables.terrain()["impassable_hexsides"])
    if not bizkaya_board.playable(state, to):
        return "3"  # terrain no unit enters
    if bizkaya_board.map_of(state).hexside_features(frm, to) & blocked:
        return "3"  # an impassable hexside
    return None


def bizkaya_grid(state: State) -> Any:
    return bizkaya_board.map_of(state).grid


def bizkaya_enemy(state: State, side: str) -> set[str]:
    return bizkaya_board.occupied_by(state, bizkaya_board.other(side))


Banned = Callable[[State, dict[str, Any], str, str], "str | None"]
SYSTEMS: dict[str, tuple[RulesSystem, Any, Banned, Any, Any]] = {
    "merida": (MERIDA, merida_walks, merida_banned, merida_grid, merida_enemy),
    "backbone": (BACKBONE, backbone_walks, backbone_banned, backbone_grid, backbone_enemy),
    "bizkaya": (BIZKAYA, bizkaya_walks, bizkaya_banned, bizkaya_grid, bizkaya_enemy),
}


def problems_of(name: str, seed: int, kinds: dict[str, int]) -> tuple[list[str], int, int]:
    """The entered hexes of fuzz game ``seed`` that break a ban, the hexes checked, the commands."""
    system, walks, banned, grid_of, enemy_of = SYSTEMS[name]
    play = play_rules(system, seed, COMMANDS[name])
    found: list[str] = []
    checked = 0
    for event, before in play.events:
        for units, side, path, vacated in walks(event.type, event.data, before):
            kinds[event.type] = kinds.get(event.type, 0) + 1
            grid, enemy = grid_of(before), enemy_of(before, side) - {vacated}
            for frm, to in zip(path, path[1:], strict=False):
                checked += 1
                where = f"{name} seed {seed} {event.type} {path}: {frm}->{to}"
                if frm != to and not grid.adjacent(frm, to):
                    found.append(f"{where} skips hexes")
                if to in enemy:
                    found.append(f"{where} enters enemy units")
                for unit in units:
                    rule = banned(before, unit, frm, to) if frm != to else None
                    if rule is not None:
                        found.append(f"{where} is prohibited to {unit['type']} (rule {rule})")
    return found, checked, len(play.states)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_every_hex_a_path_enters_is_legal_in_twenty_fuzz_games(name: str) -> None:
    """Merida rule 2 ("They may never enter towns or cities") and the TEC (river "prohibited for
    Art and Arm except along road"); Backbone 15.2 (mountain "impassable terrain" for armour
    "except through the roads"; sea impassable); Bizkaya's impassable terrain and hexsides -- for
    every hex of every move, advance and retreat, the first included."""
    started = time.perf_counter()
    found: list[str] = []
    checked = commands = 0
    kinds: dict[str, int] = {}
    for seed in range(1, GAMES + 1):
        problems, hexes, played = problems_of(name, seed, kinds)
        found += problems
        checked += hexes
        commands += played
    seconds = time.perf_counter() - started
    print(
        f"{name}: {GAMES} games, {commands} commands, {checked} hexes entered, {seconds:.1f} s, paths {kinds}"
    )
    assert found == []
    assert checked > 0  # the games took paths
