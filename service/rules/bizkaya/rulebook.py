"""Bizkaya, the Fall of the North's rulebook for the knowledge base: where its sections start and
the readings this module applies where the text is unclear (``Conflict`` entries, kind
``conflict`` in the knowledge base)."""

from __future__ import annotations

import re

from service.rules.base import Rulebook
from service.rules.rulebook import Conflict, Heading, Link, Reading, RulebookSpec, headings

SPEC = RulebookSpec(
    numbered=re.compile(r"^(\d{1,2})\.\s?([A-Z][^.]*)\.?$"),
    headings=(
        *headings(
            "The Fall of the North Historical Intro",
            "The Plans",
            "The Nationalist Offensive",
            kind="intro",
        ),
        Heading("Bizcaya The Spring 1937 Nationalist Offensive.", "intro"),
        Heading("Game Index", "reference"),
        *headings("Introduction.", "Scales."),
        *headings("The Counters.", "Definition of terms included in the Units.", "The Map."),
        *headings("Geographical Peculiarities.", "Initial Segment.", "Administrative Segment."),
        *headings("Operations Segment.", "Stacking Limits.", "Overstacking.", "Placement of Units"),
        *headings(
            "Second Echelon.", "Restrictions.", "Effects of ZoC", "Demoralization.", "Euphoria."
        ),
        *headings(
            "Morale Check.", "Artillery Types.", "Artillery in Combat.", "Artillery Barrages."
        ),
        *headings("Procedure.", "Barrage Results.", "Movement Procedure.", "Movement Sequence."),
        *headings("Combat.", "Procedure.", "Combat Results.", "Step Reduction.", "Retreats."),
        *headings("Supply Sources.", "The Iron Belt", "Bilbao.", "Nationalist.", "Republican"),
        *headings(
            "Credits", "Suggested Bibliography", "Historical Designations.", kind="reference"
        ),
        *headings("Designer Notes", "The Orders of Battle", "Basic Estructures.", kind="notes"),
        *headings("The Special Rules", "Other Considerations", kind="notes"),
    ),
)

ZOC_RETREAT_STACK = Conflict(
    key="zoc-retreat-stack",
    heading="Conflict: a stack retreating across enemy ZoC -- one random step in all, or one per unit",
    refs=("5", "13"),
    readings=(
        Reading(
            "5",
            "Retreats. Each unit retreating across enemy ZoC becomes demoralized. If it was already "
            "demoralized, loses 1 step. If it is a stack of units, eliminate 1 step (choose it at "
            "random) for ALL units.",
        ),
    ),
    engine_reading="one step in all. A stack retreating across enemy ZoC loses one step, chosen "
    "at random among its combat units (a die with one face per unit), and its units that were not "
    'demoralized become demoralized. Why: a single step "chosen at random" only makes sense '
    'among several units, so "for ALL units" reads as "for the whole stack"; one step per '
    "unit would need no random choice at all. Clubs that read it as one step for every unit of the "
    "stack set the scenario option zoc_retreat_loss to one_step_per_unit.",
    option="zoc_retreat_loss",
    topics=("retreat", "ZoC", "step losses"),
)

FOREST_EXAMPLE = Conflict(
    key="forest-combat-example",
    heading="Conflict: the combat example's total of 12 needs a -1 for the forest hex",
    refs=("13", "TEC"),
    readings=(
        Reading("13", "Example. We have a 6:1 attack against a forest hex."),
        Reading(
            "13",
            "The die roll of both dice is 5. We add up both results (5 +5 = 10), plus +3 drm "
            "because of the difference of morale favoring the attacker. The final result is 12 "
            "on the 6:1 column.",
        ),
        Reading("TEC", "Terrain. See the Terrain Effects Table."),
    ),
    engine_reading="a forest hex gives the defender -1 to the combat roll. 10 + 3 = 13, yet the "
    "example reads 12 and names no other modifier, and it is fought against a forest hex: the "
    "only way its arithmetic holds is a -1 for the forest, which the Terrain Effects Table "
    "(not in the text) must then carry. The value lives in the terrain table (tables/terrain.json, "
    "combat_modifier.forest): a club that publishes a different Terrain Effects Table replaces it, "
    "so no separate scenario option is needed; the table check reports the example it breaks.",
    topics=("combat", "terrain"),
)

EUPHORIA_DOUBLING = Conflict(
    key="euphoria-doubling",
    heading="Conflict: euphoria doubles the morale difference -- whichever side it favours?",
    refs=("6", "13"),
    readings=(
        Reading(
            "6",
            "Euphoria Effects. If all attacking stacks are Euphoric, the morale modifier "
            "difference of the leader unit(s) is doubled. Same if all defending",
        ),
        Reading(
            "6",
            "units are euphoric. If the stack of both attackers and defenders are euphoric, do "
            "not apply this rule.",
        ),
        Reading(
            "6",
            'Stacks become "Euphoric" when they get a favorable result (A DR3 on a grey '
            "background) in attack.",
        ),
        Reading(
            "13",
            "That is, if the attacking leader has 5 morale and the defender 3, the attacker gets "
            "a +2 drm in attack. Or, if the attacker leader has 3 Morale and the defender 4, the "
            "attack gets a -1 drm.",
        ),
    ),
    engine_reading="the text as written by default: the leaders' morale difference is doubled "
    "whichever side it favours, when all attacking stacks or all defending units (not both) are "
    "euphoric -- a euphoric defender whose leader has 3 morale against an attacking leader of 5 "
    'turns the attacker\'s +2 into +4. Why: 6 doubles "the morale modifier difference", the '
    "signed drm 13 defines (+2, -1), and names no side it must favour; and a game already under "
    "way keeps the reading it started with (a game's state records the option only when it is "
    "not the default). Read so, euphoria works against its own side when the euphoric side's "
    "leader has the lower morale, which many clubs find backwards: euphoria is won by a "
    "favourable result and lost by an unfavourable one (6), a reward. Those clubs set the game "
    "option euphoria_doubling to in_its_favour: the difference is doubled only when it favours "
    "the euphoric side (a euphoric defender then doubles a -1 to -2, and leaves a +2 as it is).",
    option="euphoria_doubling",
    topics=("combat", "morale", "euphoria"),
)

HOLD_CHECK = Conflict(
    key="hold-check",
    heading="Conflict: holding instead of retreating -- do the units that pass stay, or must all pass?",
    refs=("13", "6"),
    readings=(
        Reading(
            "13",
            "To avoid retreat, all units must pass a morale check. The number to the right of the "
            '"Retreat" result of the CRT indicates the die roll modifier that must be applied.',
        ),
        Reading(
            "13",
            "If the units fail the morale check, became demoralized and must retreat. Demoralized "
            "units may not attempt avoiding retreat.",
        ),
        Reading("13", "Retreat procedure. Retreating units can move to different hexes."),
        Reading(
            "6",
            "Procedure. Roll 1d6 for each unit, and add any drm's. If the die roll is less or "
            "equal to its morale factor, the unit pass the check. If it is greater, it fails.",
        ),
    ),
    engine_reading="each unit by default: every unit that may try rolls its own check (6: "
    '"Roll 1d6 for each unit"); those that pass stay, those that fail are demoralized and '
    "retreat, and demoralized units retreat without trying. Why: 6 makes the morale check and its "
    'failure a unit\'s ("the unit pass the check", "When an unit fails a morale check ... it '
    'becomes demoralized"), 13 lets retreating units part ("can move to different hexes"), "If '
    'the units fail" reads as the units that fail; and a game already under way keeps the reading '
    'it started with. Clubs that read "all units must pass" as a condition on the whole group '
    "set the game option hold_check to whole_stack: every unit rolls, and if one fails they all "
    "retreat (those that failed demoralized); a demoralized unit among them, which may not try, "
    "keeps the group from holding at all.",
    option="hold_check",
    topics=("retreat", "morale check"),
)

#: the options this module declares for every scenario: the other reading of each conflict above
#: that clubs differ on (``RulesSystem.declared_options``, the scenario file's option format)
OPTIONS = {
    "euphoria_doubling": {
        "default": "any_difference",
        "choices": ["any_difference", "in_its_favour"],
        "description": "6 Euphoria doubles the leaders' morale difference: whichever side it "
        "favours (any difference, the text as written, the default), or only when it favours the "
        "euphoric side (in its favour) (rules search: the conflict “euphoria doubles the morale "
        "difference”)",
    },
    "hold_check": {
        "default": "each_unit",
        "choices": ["each_unit", "whole_stack"],
        "description": "13 Holding instead of retreating: each unit that passes its morale check "
        "stays (each unit, the default), or the units hold only if every one passes (whole "
        "stack) (rules search: the conflict “holding instead of retreating”)",
    },
}

#: what each event links to beside the sections its declaration names: the sub-sections of
#: rules 4, 5, 6, 12 and 13 that apply, and conflicts only when the event's facts say so
MOVED = ("UnitsMoved",)
COMBAT = ("CombatResolved",)
LINKS = (
    Link("13-movement-procedure", MOVED, "rule 13's movement procedure"),
    Link("13-movement-sequence", MOVED, "rule 13's movement sequence"),
    Link("5-effects-of-zoc", MOVED, "the move entered an enemy zone of control", when=("zone of control",)),
    Link("5-restrictions", MOVED, "zone of control restrictions on movement", when=("zone of control",)),
    Link("13-combat", COMBAT, "rule 13: combat"),
    Link("13-combat-results", COMBAT, "the combat results"),
    Link("13-procedure", (*COMBAT, "AttackDeclared"), "rule 13's combat procedure"),
    Link("13-step-reduction", COMBAT, "step losses", when=("result 1", "result 2", "result 3", "eliminated")),
    Link("6-euphoria", COMBAT, "the attack was euphoric", when=("euphoric", "euphoria")),
    Link("conflict-euphoria-doubling", COMBAT, "euphoria doubled the morale difference: whichever side it favours?", when=("euphoric", "euphoria")),
    Link("9", COMBAT, "the defender held trenches", when=("fortified", "trench")),
    Link("conflict-forest-combat-example", COMBAT, "a forest hex: the rulebook's example misses the -1", when=("forest",)),
    Link("13-retreats", ("UnitsRetreated", "RetreatDue", "HoldChecked"), "rule 13's retreats"),
    Link("conflict-hold-check", ("HoldChecked",), "a hold: do the units that pass stay, or must all pass?"),
    Link("conflict-zoc-retreat-stack", ("UnitsRetreated",), "a stack retreated through enemy zones of control: one step or one per unit", when=("zone of control",)),
    Link("4-overstacking", ("UnitsRetreated", "UnitsEliminated"), "overstacking after the move"),
    Link("12-artillery-barrages", ("BarrageResolved",), "rule 12's artillery barrages"),
    Link("12-procedure", ("BarrageResolved",), "rule 12's barrage procedure"),
    Link("12-barrage-results", ("BarrageResolved",), "the barrage results"),
    Link("6-morale-check", ("BarrageResolved", "HoldChecked", "RecoveryRolled", "LeaderChosen"), "a morale check", when=("morale", "demoralized")),
    Link("6-demoralization", ("RecoveryRolled",), "demoralized units recover"),
    Link("4-second-echelon", ("EchelonChanged", "EchelonsSettled"), "rule 4's second echelon"),
    Link("4-stacking-limits", ("EchelonsSettled", "UnitsEliminated"), "stacking limits"),
    Link("15-bilbao", ("BilbaoRolled", "BrigadesWithdrawn"), "the special rules for Bilbao"),
    Link("17-nationalist", ("ReinforcementsArrived",), "the Nationalist order of battle", when=("nationalist",)),
    Link("17-republican", ("ReinforcementsArrived",), "the Republican order of battle", when=("republican",)),
    Link("2-operations-segment", ("PhaseBegan",), "the operations segment's impulses"),
    Link("15-supply-sources", ("SupplyChecked",), "the supply sources"),
)  # fmt: skip

RULEBOOK = Rulebook(
    document="bizkaya",
    corpus_file="bizkaya-fall-of-the-north.txt",
    spec=SPEC,
    links=LINKS,
    conflicts=(ZOC_RETREAT_STACK, FOREST_EXAMPLE, EUPHORIA_DOUBLING, HOLD_CHECK),
)
