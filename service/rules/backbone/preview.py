"""``preview``: what an ``attack`` would meet before it is declared (16.1-16.4).

It runs the declaration's own checks and assessment (``combat_flow.declaration`` and ``assess``,
i.e. ``combat.evaluate``), so it cannot disagree with ``decide`` on what the side may know.  Two
things are not known before the declaration, and the preview says so rather than guessing:

* the defender's supports (air, naval, HQ, Legion, an efficiency tie), designated after the
  attacker's (16.3): none is counted, only the terrain and fortification modifiers;
* with limited intelligence (19.2) the units under the top of the enemy stack: the caller passes
  the side's view, which does not hold them, so the defence is the visible units' alone; the whole
  stack is revealed, and fought, once the attack is declared.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.backbone import combat_flow
from service.rules.backbone.combat import CombatError, evaluate, parse_situation
from service.rules.backbone.declared import COMMANDS, guard
from service.rules.backbone.units import State
from service.rules.base import InvalidCommand, RuleViolation, rule_words

DEFENDER_SUPPORTS = (
    "the defender designates its supports (air, naval, HQ, Legion, the efficiency of a tie) after "
    "the attack is declared: none is counted here"
)
HIDDEN_NOTE = (
    "limited intelligence: only the top unit of the enemy stack in {target} is shown to you, so the "
    "defence, the defender's efficiency and the odds count the units you can see; any units under "
    "it are revealed when the attack is declared, and the combat is fought against the whole stack "
    "-- on the 1:2 column if the whole stack puts the ratio below 1:2 (19.2: a declared combat "
    "must be carried out)"
)


def preview_attack(state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
    """Strengths, the ratio and column, every column shift and die modifier with its rule, the
    caps (16.3) and the table, on ``state`` as ``side`` sees it."""
    limited = bool(state["options"].get("limited_intelligence"))
    combat = combat_flow.declaration(state, side, command)
    try:
        found = combat_flow.assess(state, combat)
    except RuleViolation as exc:
        if not limited:
            raise
        message = f"{exc.message} (judged on the enemy units you can see, 19.2)"
        raise RuleViolation(exc.rule, message, exc.field) from exc
    target = combat["target"]
    out: dict[str, Any] = {
        "type": "attack",
        "target": target,
        "attackers": list(combat["attackers"]),
        "defenders": list(combat["defenders"]),
        "attack": found["attack"]["total"],
        "defence": found["defense"]["total"],
        "strengths": {"attack": found["attack"]["stacks"], "defence": found["defense"]["stacks"]},
        "base_ratio": found["base_ratio"],
        "column": found["column"],
        "odds": {
            "column": found["column"],
            "base_ratio": found["base_ratio"],
            "base_index": found["base_column_index"],
            "index": found["final_column_index"],
            "shift": found["final_column_index"] - found["base_column_index"],
            "above_max": found["column_capped"],
        },
        "shifts": [
            {"cause": s["source"], "shift": s["columns"], "rule": s["rule"]}
            for s in found["column_shifts"]
        ],
        "efficiency": found["efficiency"],
        "modifiers": _modifiers(found),
        "caps": found["caps"],
        "net_drm": found["net_drm"],
        "defender_supports": {
            "designated": False,
            "rule": "16.3",
            "cap": found["caps"]["defender"]["cap"],
            "note": DEFENDER_SUPPORTS,
        },
        "table": "crt",
        "rule": "16",
    }
    if limited:
        out["limited_intelligence"] = {
            "rule": "19.2",
            "assessed_on": "visible units",
            "note": HIDDEN_NOTE.format(target=target),
        }
    return out


def _modifiers(found: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every die modifier with its side and rule, in the attacker's favour (positive) or the
    defender's (negative), and a correction where a side's sum is capped (16.3): they add up to
    ``net_drm``."""
    out: list[dict[str, Any]] = []
    for role in ("attacker", "defender"):
        for m in found["die_modifiers"][role]:
            out.append({"side": role, "cause": m["source"], "value": m["drm"], "rule": m["rule"]})
        cap = found["caps"][role]
        if cap["applied"] != cap["raw"]:
            out.append(
                {
                    "side": role,
                    "cause": f"the {role}'s modifiers capped at {cap['cap']:+d}",
                    "value": cap["applied"] - cap["raw"],
                    "rule": cap["rule"],
                }
            )
    return out


class BackbonePreviews:
    commands = frozenset({"attack"})

    """The previews capability: an attack before it is declared, a combat situation's odds."""

    def preview(self, state: State, side: str, command: Mapping[str, Any]) -> dict[str, Any]:
        """An attack on ``side``'s view (16, 19.2): parsed and guarded on that view, so a unit the
        side cannot see is unknown to it."""
        if not isinstance(command, Mapping) or command.get("type") != "attack":
            raise InvalidCommand("only attacks are previewed", {"type": ["attack"]})
        spec, parsed = COMMANDS.parse(state, command)
        guard(state, side, spec)
        return preview_attack(state, side, parsed)

    def combat_preview(self, situation: Mapping[str, Any]) -> dict[str, Any]:
        """Odds, modifiers and, with a roll, the result of a situation (16); InvalidCommand naming
        the field of a malformed situation or of one the rules forbid."""
        try:
            return evaluate(parse_situation(situation))
        except CombatError as exc:
            message = f"{exc.message} ({rule_words(exc.rule)})"
            raise InvalidCommand(message, {exc.field: [message]}) from exc
