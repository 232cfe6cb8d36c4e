"""Closing the Merida Pocket's rulebook for the knowledge base: where its sections start and the
conflicts between its rules, with the reading this module applies."""

from __future__ import annotations

import re

from service.rules.base import Rulebook
from service.rules.rulebook import Conflict, Heading, Link, Reading, RulebookSpec, headings

SPEC = RulebookSpec(
    numbered=re.compile(r"^(\d{1,2})\. (\S.*)$"),
    headings=(
        Heading("Closing the Merida Pocket - Extremadura, 1938", "intro"),
        Heading("Types of movement:"),
        *headings("Retreats", "Advances", "Automatic victory"),
        Heading("Recommended reading:", "reference"),
        *headings(
            "Movement points available:",
            "Terrain Effects:",
            "Combat Results:",
            "Victory Points:",
            "Air Point availability:",
            "Set up table:",
            "Reinforcements:",
            kind="chart",
        ),
    ),
    number_kinds=(("13", "errata"),),
)

STRATEGIC_MOVEMENT_MODIFIER = Conflict(
    key="strategic-movement-modifier",
    heading="Conflict: rules 5 and 8 -- die-roll modifier against a unit that moved strategically",
    refs=("5", "8"),
    readings=(
        Reading(
            "5",
            "If they are attacked in the next players phase, the attacker subtracts 2 from the "
            "combat die roll.",
        ),
        Reading("8", "+2 if defender moved by strategic movement in previous phase"),
    ),
    engine_reading="rule 8's +2 by default. When a unit that used strategic movement is attacked "
    "in the next player's phase, the attacker adds 2 to the combat die roll. On the Merida CRT "
    "high rolls favour the attacker, and strategic movement trades safety for speed (a doubled "
    "allowance, no attacking, no entering enemy ZOCs), so a rules judge reads the modifier as a "
    "penalty for the unit that moved; rule 5's 'subtracts' would reward it. The modifier is "
    "reported with the rule it came from.",
    option="rule 5's literal text (the attacker subtracts 2): scenario option "
    "strategic_modifier = -2.",
    topics=("combat", "movement"),
)

ZOC_TO_ZOC = Conflict(
    key="zoc-to-zoc",
    heading="Conflict: rules 5 and 7 -- moving from one enemy ZOC to another",
    refs=("5", "7"),
    readings=(
        Reading(
            "5", "Units may not move directly from one ZOC to another ZOC of the same enemy unit."
        ),
        Reading("7", "Units may never move directly from one ZOC to another."),
    ),
    engine_reading="rule 5's reading by default: a unit may not move directly from one ZOC hex "
    "to another ZOC hex of the same enemy unit (for stacks: of any exerting stack in common). "
    "Rule 5 is the movement rule and the more specific statement; since units stop on entering "
    "an enemy ZOC (rule 7), the question only arises for a unit leaving its start hex.",
    option="rule 7's stricter reading (never from one enemy ZOC hex to another, whoever exerts "
    "them): scenario option zoc_to_zoc = 'any'.",
    topics=("zoc", "movement"),
)

LEADER_ZOC = Conflict(
    key="leader-zoc",
    heading="Conflict: rules 2 and 7 -- do leaders exert a zone of control?",
    refs=("7", "2", "8"),
    readings=(
        Reading("7", "The six hexes adjacent to a unit are called its zone of control (ZOC)."),
        Reading(
            "2",
            "Leaders: Add to both attack or defense. Are used to count command range. Are "
            "eliminated if the units they are stacked with are eliminated.",
        ),
        Reading("8", "All units exerting a ZOC must be attacked"),
    ),
    engine_reading="leaders exert no ZOC by default. Rule 7 speaks of 'a unit', and a leader is a "
    "counter on the map, but rule 2 gives leaders only three functions -- adding to a stack's "
    "attack or defence, counting command range, and dying with their stack -- and none of a "
    "combat unit's. A leader alone would otherwise stop enemy movement, block retreats and "
    "lines of supply and command, and force an attack on itself (rule 8) with no strength to "
    "defend; a rules judge reads the ZOC as a property of combat units. A leader stacked with "
    "combat units is inside their ZOC anyway, so the reading only matters for a leader alone.",
    option="rule 7 literally (every unit, leaders too, exerts a ZOC): scenario option "
    "leader_zoc = 'exerted'.",
    topics=("zoc", "leaders"),
)

COMMAND_CHECK_PHASE = Conflict(
    key="command-check-phase",
    heading="Conflict: rules 4, 5 and 10 -- when is command checked?",
    refs=("4", "5", "10"),
    readings=(
        Reading(
            "4",
            "D. Command. The phasing player checks his command structure and line of "
            "communication. Units that are not in command may not attack, and must automatically "
            "retreat instead.",
        ),
        Reading("5", "Units that are out of command have their movement halved."),
        Reading(
            "10",
            "If units begin a turn out of command, they must attempt to move in such a manner so "
            "as to regain their line of command.",
        ),
    ),
    engine_reading="command is checked twice by default: in phase B with supply, and again in "
    "phase D as rule 4 says. Rule 4 places the check in phase D, after movement, yet rules 5 "
    "and 10 act on command during movement (halved movement, no entering enemy ZOCs, the "
    "obligation to regain the line of units that 'begin a turn out of command'). The status "
    "at the start of the phasing player's turn is the one the phase B check finds; the last "
    "phase D check was made before the enemy's whole turn had moved the lines. Phase D still "
    "decides who may attack and who retreats (rule 10). Both checks are recorded events "
    "(StatusChecked, CommandChecked).",
    option="rule 4 literally (command is checked in phase D only; movement uses the result of "
    "the last phase D check): scenario option command_check = 'D_only'.",
    topics=("command", "sequence of play"),
)

RIVER_CROSSING_COST = Conflict(
    key="river-crossing-cost",
    heading="Conflict: Terrain Effects Chart -- a river crossing's cost, in total or added?",
    refs=("TEC", "5"),
    readings=(
        Reading("TEC", "2 mp for all others"),
        Reading("TEC", "prohibited for Art and Arm except along road"),
        Reading("TEC", "3 mp for Art and Arm"),
    ),
    engine_reading="a river hexside costs 2 MP in total by default (or the cost of the hex "
    "entered if that is higher: a mountain hex across a river costs its mountain cost). The "
    "chart prints the river's cost in the same form as the mountain's ('2 mp for Inf and Cav', "
    "'3 mp for Art and Arm'), which are costs of entering, not additions; nothing in the text "
    "says 'additional' or '+2'. A road crossing a river costs the road's 1/2 MP.",
    option="the river as an extra cost (2 MP added to the terrain cost of the hex entered): "
    "scenario option river_cost = 'added'.",
    topics=("terrain", "movement"),
)

COMBAT_ONCE_PER_TURN = Conflict(
    key="combat-once-per-turn",
    heading='Conflict: rules 4 and 8 -- "once per turn": each player\'s turn, or the game turn?',
    refs=("8", "4"),
    readings=(
        Reading("8", "Each unit may only attack or be attacked once per turn"),
        Reading(
            "4",
            "H. The above phases are repeated with the nonphasing player now considered the "
            "phasing player. The turn is then over, and the marker is advanced.",
        ),
        Reading("8", "All units in an enemy ZOC must attack"),
        Reading("8", "All units exerting a ZOC must be attacked"),
    ),
    engine_reading="each player's turn by default: a unit attacks at most once in its own "
    "combat phase and is attacked at most once in the enemy's; the marks go when the next "
    "player's turn begins. Why: rule 8's obligations (\"All units in an enemy ZOC must attack\", "
    '"All units exerting a ZOC must be attacked") presume that the units which fought in one '
    "player's combat phase can fight in the next one; read over the whole game turn (rule 4: \"The turn is then over, "
    "and the marker is advanced\"), the units of the first player's battles could neither attack "
    "nor be attacked in the second player's phase, however they stand. A game under way keeps "
    'the reading it started with. Clubs that read "turn" as rule 4\'s game turn set the game '
    "option combat_once_per to game_turn: one combat per unit, attacking or attacked, from the "
    "Nationalist's turn to the end of the Republican's -- a unit that fought may neither attack "
    "nor be attacked again, and neither must it (rule 8's obligations leave it out).",
    option="combat_once_per",
    topics=("combat", "sequence of play"),
)

ARMORED_TRAIN = Conflict(
    key="armored-train",
    heading="Conflict: rule 5 -- does the armored train move under the strategic-movement rules?",
    refs=("5",),
    readings=(
        Reading("5", "Armored train movement: unlimited movement along the rail line."),
        Reading(
            "5",
            "Rail movement: strategic movement along a rail line is unlimited. The maximum is one "
            "brigade per turn (the armored train does not count against this limit). Units may "
            "only move by rail along rail hexes they control. Otherwise, the same rules given "
            "above for strategic movement apply.",
        ),
        Reading(
            "5",
            "Units may freely exit an enemy zone of control (ZOC) at the beginning of their "
            "movement, and must stop when they enter a ZOC of an enemy unit.",
        ),
    ),
    engine_reading="rule 5's own line by default: the train has unlimited movement along the "
    "rail line and otherwise keeps the rules every moving unit keeps -- it may leave an enemy ZOC "
    "at the start of its move, must stop when it enters one, may attack in the combat phase, an "
    "attack on it gets no strategic-movement modifier, and it need not control the rail hexes it "
    "uses. Why: rule 5 lists the armored train as a type of movement of its own, after rail "
    "movement, and gives it only 'unlimited movement along the rail line'; the sentence that "
    "brings in 'the same rules given above for strategic movement' closes the rail movement of "
    "brigades, whose one-a-turn limit the train 'does not count against'. Clubs that read the "
    "train as rail movement set the game option armored_train to strategic: the train may not "
    "begin in, move through or enter an enemy ZOC, may not attack after moving, and the "
    "attacker adds the strategic-movement modifier when it is attacked in the next player's "
    "phase.",
    option="armored_train",
    topics=("movement", "rail", "zoc"),
)

#: the options this module declares for every scenario: the other reading of each conflict above
#: that clubs differ on (``RulesSystem.declared_options``, the scenario file's option format)
OPTIONS = {
    "combat_once_per": {
        "default": "player_turn",
        "choices": ["player_turn", "game_turn"],
        "description": "8 Each unit may only attack or be attacked once per turn: in each "
        "player's turn (player turn, the default), or once in the whole game turn, attacking or "
        "attacked (game turn) (rules search: the conflict “once per turn”)",
    },
    "armored_train": {
        "default": "unlimited",
        "choices": ["unlimited", "strategic"],
        "description": "5 Armored train movement: unlimited movement along the rail line, "
        "stopping on entering an enemy ZOC and free to attack (unlimited, the default), or "
        "under the strategic-movement rules of rail movement: never into an enemy ZOC, no "
        "attack, +2 when attacked (strategic) (rules search: the conflict “armored train”)",
    },
}

#: what each event links to in this rulebook beside the sections its declaration names: the
#: charts, the sub-sections and the conflicts that apply, and those only when the event's facts
#: say so (``when``)
COMBAT = ("CombatResolved",)
LINKS = (
    Link("8", COMBAT, "rule 8: how a combat is resolved"),
    Link("chart-combat-results", COMBAT, "the combat results table gives the result for the odds and die roll"),
    Link("chart-terrain-effects", COMBAT, "the terrain effects chart: the defender's terrain and rivers"),
    Link("10", ("UnitsRetreated", "RetreatsDue"), "rule 10: units out of command retreat", when=("out of command",)),
    Link("8-retreats", (*COMBAT, "UnitsRetreated", "RetreatsDue", "DecisionTaken"), "rule 8's retreats", when=("retreat",)),
    Link("chart-combat-results", ("DecisionTaken",), "the combat result's losses", when=("loss",)),
    Link("8-advances", (*COMBAT, "UnitsAdvanced"), "rule 8's advances after combat", when=("advance",)),
    Link("conflict-combat-once-per-turn", COMBAT, "a unit fights once per turn: each player's turn, or the game turn?", when=("game turn",)),
    Link("conflict-strategic-movement-modifier", COMBAT, "the defender moved by strategic movement: rules 5 and 8 disagree on the modifier", when=("strategic",)),
    Link("chart-air-point-availability", (*COMBAT, "AirAllocated"), "air points available this turn", when=("air",)),
    Link("8-automatic-victory", ("OverrunDeclared",), "an overrun is rule 8's automatic victory"),
    Link("chart-combat-results", ("OverrunDeclared",), "the odds column of the combat results table"),
    Link("5", ("UnitsMoved",), "rule 5: movement"),
    Link("5-types-of-movement", ("UnitsMoved",), "tactical, strategic or rail movement"),
    Link("chart-terrain-effects", ("UnitsMoved",), "the terrain effects chart: the cost of each hex and hexside entered"),
    Link("chart-movement-points-available", ("UnitsMoved",), "the movement points each unit type has"),
    Link("7", ("UnitsMoved",), "the move entered an enemy zone of control", when=("zone of control",)),
    Link("conflict-zoc-to-zoc", ("UnitsMoved",), "the move entered an enemy zone of control: rules 5 and 7 disagree", when=("zone of control",)),
    Link("conflict-armored-train", ("UnitsMoved",), "the armored train moved: its own line of rule 5, or rail movement's strategic rules?", when=("armored train",)),
    Link("conflict-river-crossing-cost", ("UnitsMoved",), "the move crossed a river: the chart's cost is read two ways", when=("river",)),
    Link("conflict-leader-zoc", ("UnitsMoved", "UnitsRetreated"), "a leader moved: do leaders exert a zone of control?", when=("leader",)),
    Link("7", ("UnitsRetreated",), "the retreat met an enemy zone of control", when=("zone of control",)),
    Link("12", ("UnitDeployed",), "rule 12: set up"),
    Link("chart-set-up-table", ("UnitDeployed",), "the set-up table: where each unit starts"),
    Link("chart-reinforcements", ("ReinforcementsDue", "ReinforcementPlaced", "RemovalsDue", "UnitRemoved", "UnitReturned", "UnitKept"), "the reinforcement schedule"),
    Link("chart-victory-points", ("GameEnded", "UnitKept"), "the victory points table"),
    Link("11", ("GameEnded",), "rule 11: victory conditions"),
    Link("chart-air-point-availability", ("AirAllocated",), "air points available this turn"),
    Link("conflict-command-check-phase", ("StatusChecked", "CommandChecked"), "rules 4, 5 and 10 disagree on when command is checked"),
)  # fmt: skip

RULEBOOK = Rulebook(
    document="merida",
    corpus_file="closing-the-merida-pocket.txt",
    spec=SPEC,
    links=LINKS,
    conflicts=(
        STRATEGIC_MOVEMENT_MODIFIER,
        ZOC_TO_ZOC,
        LEADER_ZOC,
        COMMAND_CHECK_PHASE,
        RIVER_CROSSING_COST,
        COMBAT_ONCE_PER_TURN,
        ARMORED_TRAIN,
    ),
)
