"""``preview``: what an ``attack`` would meet before it is sent (rule 8).

It runs the checks and the assessment ``decide`` runs (the declaration's parse and guard,
``battle.check_attack``, ``battle.situation``, ``combat.assess``), so the preview cannot disagree
with the decision.  The one thing it cannot know is the air loss rolls made at resolution: the
headline odds count every committed air point, and ``air.outcomes`` gives the column for each
possible loss (one point a side at most)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.base import InvalidCommand, State
from service.rules.merida import battle, combat
from service.rules.merida.commands import COMMANDS, check_turn

AIR_NOTE = (
    "each side with air points here rolls one die before the combat; on a 6 it rolls again: 1-3 "
    "one point aborts, 4-6 one point is shot down (the Republican on turns 1-3 and 13+ loses one "
    "on a first roll of 5 or 6); each point left adds 1 strength"
)


class MeridaPreviews:
    """The previews capability: an attack before it is sent (rule 8), and any combat situation."""

    def preview(self, state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
        return preview_attack(state, side, command)

    def combat_preview(self, situation: Mapping[str, Any]) -> dict[str, Any]:
        return combat.assess(situation)


def preview_attack(state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
    """Strengths, the odds column, every strength effect and die modifier with its rule."""
    spec, parsed = COMMANDS.parse(state, command)
    if spec.type != "attack":
        raise InvalidCommand("only attacks are previewed", {"type": ["attack"]})
    check_turn(state, side, spec)
    attackers, defenders = battle.check_attack(state, side, parsed)
    hex_ = parsed["hex"]
    air = {
        "attacker": len(battle.committed_air(state, hex_, "attack")),
        "defender": len(battle.committed_air(state, hex_, "defense")),
    }
    assessment = combat.assess(battle.situation(state, attackers, hex_, air))
    found: dict[str, Any] = {
        "type": "attack",
        "hex": hex_,
        "attackers": [u["id"] for u in attackers],
        "defenders": [u["id"] for u in defenders],
        "attack": assessment["attack_strength"],
        "defence": assessment["defense_strength"],
        **assessment,
        "table": "crt",
        "rule": "8",
    }
    if air["attacker"] or air["defender"]:
        found["air"] = {
            **air,
            "rule": "8",
            "note": AIR_NOTE,
            "outcomes": _air_outcomes(state, attackers, hex_, air),
        }
    if battle.tanks_alone(defenders):
        found["automatic"] = {
            "result": "tanks alone",
            "rule": "2",
            "note": "the defending tanks are eliminated without a roll; the attackers may advance",
        }
    return found


def _air_outcomes(
    state: State, attackers: list[dict[str, Any]], hex_: str, air: dict[str, int]
) -> list[dict[str, Any]]:
    """The column after each possible result of the air loss rolls (rule 8)."""
    outcomes = []
    for attacker_air in sorted({air["attacker"], max(0, air["attacker"] - 1)}, reverse=True):
        for defender_air in sorted({air["defender"], max(0, air["defender"] - 1)}, reverse=True):
            counted = {"attacker": attacker_air, "defender": defender_air}
            assessment = combat.assess(battle.situation(state, attackers, hex_, counted))
            outcomes.append(
                {
                    "attacker_air": attacker_air,
                    "defender_air": defender_air,
                    "attack_strength": assessment["attack_strength"],
                    "defense_strength": assessment["defense_strength"],
                    "column": assessment["column"],
                }
            )
    return outcomes
