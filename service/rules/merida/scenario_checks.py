"""What a Merida scenario's data makes impossible under the rules, for ``arbiter scenarios check``
(and the club scenario library, one code path): each an error at its place, naming the rule.

* a reinforcement that can never enter: none of its hexes takes it (the armored train is placed on
  a rail hex, rule 5: with no rail at any entry hex it would stay due all game, never entering);
* units that can never be supplied: a side with units that need a line of supply (rule 10) and no
  supply source on the map.
"""

from __future__ import annotations

from service.rules.merida import board
from service.rules.merida.reinforce import map_problem
from service.rules.scenario import Scenario

Report = list[dict[str, str]]


def check(scen: Scenario) -> Report:
    return never_enter(scen) + never_supplied(scen)


def _error(place: str, message: str) -> dict[str, str]:
    return {"level": "error", "place": place, "message": message}


def never_enter(scen: Scenario) -> Report:
    """Each reinforcement none of whose hexes the map lets its unit be placed in."""
    found: Report = []
    for index, arrival in enumerate(scen.reinforcements):
        spec = scen.units.get(arrival.unit)
        if spec is None or not arrival.hexes:
            continue
        problems = [map_problem(scen.map, spec.type, hex_) for hex_ in arrival.hexes]
        if not all(problems):
            continue
        rule, why = problems[0] or ("", "")
        where = (
            f"the {len(arrival.hexes)} hex(es) of its entry {arrival.entry!r}"
            if arrival.entry
            else f"its hex {arrival.hexes[0]}"
        )
        found.append(
            _error(
                f"reinforcements[{index}]",
                f"rule {rule}: {spec.name or spec.id} ({spec.id}) can never enter on turn "
                f"{arrival.turn}: {why}, and none of {where} is one",
            )
        )
    return found


def never_supplied(scen: Scenario) -> Report:
    """Rule 10: a side whose units need a supply line and which has no supply source."""
    found: Report = []
    for side in scen.sides:
        needing = [
            u for u in scen.units.values() if u.side == side and board.needs_lines({"type": u.type})
        ]
        if needing and not scen.map.supply_sources.get(side):
            found.append(
                _error(
                    f"map.supply_sources.{side}",
                    f"rule 10: {side} has no supply source, so its {len(needing)} unit(s) that "
                    "need a line of supply can never be supplied",
                )
            )
    return found
