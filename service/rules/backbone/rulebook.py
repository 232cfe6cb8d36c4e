"""Operation Backbone's rulebook for the knowledge base: where its sections start, the conflict
between its Combat Results Table and the errata, and the readings of unclear passages (Baraka's
dice, retreating stacks) -- each with the reading this module applies."""

from __future__ import annotations

import re

from service.rules.base import Rulebook
from service.rules.rulebook import Conflict, Heading, Link, Reading, RulebookSpec

SPEC = RulebookSpec(
    numbered=re.compile(r"^(\d{1,2})\. ([A-Z][^.]*)$|^(\d{1,2}\.\d{1,2})\.? (.*)$"),
    headings=(
        Heading("Operation Backbone rules", "intro"),
        Heading("Example, Zone of Control and combat", "example"),
        Heading(
            "Operations Phase 14. Amphibious Invasion",
            number="14",
            title="Amphibious Invasion",
            body_line=True,  # keeps the phase label in the text
        ),
        Heading("Example of Amphibious Landing.", "example"),
        Heading("COMBAT RESULTS TABLE", "chart"),
        Heading("Allied Strategic Victory if:"),
        Heading("Combat example. The assault of Larache.", "example"),
        Heading("List of acronyms used", "reference"),
        Heading("Credits", "reference"),
        Heading(
            "The first thing that comes to mind when writing these design notes",
            "notes",
            title="Designer's notes",
            prefix=True,
            body_line=True,
        ),
        Heading("Errata. Backbone operation", "errata"),
    ),
)

CRT_ERRATA = Conflict(
    key="crt-errata",
    heading="Conflict: Combat Results Table and its errata -- 6:1 column, modified rolls 7 and 8",
    refs=("16.6", "16.3", "16"),
    readings=(
        Reading("CRT (printed)", "7\t2/2\t1/1R\t-/1R\t1/2R\t-/2R\t-/3R\t-/4R"),
        Reading("CRT (printed)", "8\t1/1R\t-/1R\t1/2R\t-/2R\t1/3R\t-/3R\t-/4R"),
        Reading(
            "Errata",
            "Substitute: the last two values, (with a modified roll of 7 or 8) in the column "
            "from 6 to 1, must be - / 4.",
        ),
        Reading(
            "Errata",
            "In the procedure for assigning cancellations, the text included in the rules is "
            "better expressed than that which appears under the table.",
        ),
    ),
    engine_reading="the errata. In the 6:1 column a modified roll of 7 or 8 gives -/4: the "
    "defender loses 4 steps and the attacker nothing, with no retreat (the printed -/4R is "
    "replaced). Losses are assigned by the procedure in the text of rule 16.6, not the summary "
    "under the table.",
    topics=("combat", "retreat"),
)

BARAKA_DICE = Conflict(
    key="baraka-dice",
    heading="Conflict: which dice Baraka re-rolls -- the text names no limit",
    refs=("10.2", "16.2", "16.5"),
    readings=(
        Reading("10.2", "Baraka: Fortuna, Divine luck."),
        Reading(
            "10.2",
            "Effects: The Spanish player re-rolls his own dice or those of the enemy in a combat, "
            "ignoring the results of the first roll.",
        ),
    ),
    engine_reading="the die of a combat's result (16.2, the Combat Results Table), in any combat "
    'the Spanish fight, attacking ("his own dice") or defending ("those of the enemy"), '
    "including the Allied landing's combat (14); once each turn from its draw. Not the weather, "
    "Strait, supply or event dice (they are rolled in no combat), and not the last stand roll "
    '(16.5). Why: "in a combat" limits Baraka to combat, and "ignoring the results of the '
    'first roll" is the CRT roll that gives a combat its results; the last stand roll comes '
    "after the combat's result has been applied, as the defender's answer to a retreat. Clubs "
    'that count the last stand roll as a die "in a combat" too set the scenario option '
    "baraka_dice to any_combat_die: the last stand then waits for the Spanish player's Baraka.",
    option="baraka_dice",
    topics=("Baraka", "events", "combat"),
)

RETREAT_STACK = Conflict(
    key="retreat-stack",
    heading="Conflict: does a retreating stack move together or may it split?",
    refs=("16.7", "16.5", "5"),
    readings=(
        Reading(
            "16.7",
            "Withdrawals: they are 1 hex and moving away from the attacking enemy units, and "
            "whenever possible it must be towards territory controlled by their side.",
        ),
        Reading(
            "16.7",
            "If the only possible option when retreating is to exceed the stacking limits, the "
            "unit may retreat one additional hex.",
        ),
    ),
    engine_reading="a stack may split. The defender retreats the whole stack to one hex or its "
    "units one at a time, each to a legal hex of its own; each part is judged as it moves (away "
    "from the attackers, towards its own territory when possible, an extra step through an empty "
    "enemy ZOC only when nothing else is open, one hex more when only over-stacked hexes are "
    'open). Why: the text forbids no split, and its one clause on a single unit ("the unit may '
    'retreat one additional hex") treats retreat unit by unit; the last stand (16.5) stays the '
    "whole hex's, so it is refused once part of the stack has gone. Exploiting armor (16.7) may "
    "follow any part. No option: keeping the stack together is always one of the choices.",
    topics=("retreat", "stacking", "exploitation"),
)

LEGION_FIRST_LOSS = Conflict(
    key="legion-first-loss",
    heading="Conflict: does the Legion take the first loss only when it used its +1/-1?",
    refs=("9.2", "16.6"),
    readings=(
        Reading(
            "9.2",
            "If casualties occur for the Spanish player, the legionary unit will necessa-",
        ),
        Reading("9.2", "rily assume the first casualty."),
        Reading(
            "Combat example. The assault of Larache.",
            "But on the other hand, if the Spanish player has to take losses, the Legion unit "
            "will be the first to suffer a loss step, even if it did not use its special ability "
            "bonus.",
        ),
        Reading(
            "16.6",
            "The first step of the casualties is for a unit that has used its special abilities, "
            "(engineers or legionnaires).",
        ),
        Reading(
            "16.6",
            "If units with special abilities have not been used, the first step of casualties go "
            "over to the unit whose efficiency has been used by the player to determine the "
            "difference in efficiencies in combat.",
        ),
        Reading(
            "Combat example. The assault of Larache.",
            "the Spanish player, whose first loss must be that of the Legion, for having used his "
            "special ability",
        ),
        Reading(
            "Errata",
            "In the procedure for assigning cancellations, the text included in the rules is "
            "better expressed than that which appears under the table.",
        ),
    ),
    engine_reading="16.6 by default: a Legion unit takes the Spanish side's first step lost when "
    "its +1/-1 was used in the combat; otherwise the first step goes to a unit of the efficiency "
    "used. Why: 16.6 is the procedure for assigning losses, and the errata prefers the text of "
    'that procedure ("the text included in the rules is better expressed"); it names the unit '
    '"that has used its special abilities" and says what happens when they "have not been '
    'used"; the Larache example itself ends on the same reason ("for having used his special '
    'ability"). A club that reads 9.2 and the example\'s "even if it did not use its special '
    'ability bonus" literally sets the game option legion_first_loss to always: a Legion unit '
    "in the combat then takes the first Spanish step lost whether or not its modifier was used "
    "(the Spanish player chooses among several).",
    option="legion_first_loss",
    topics=("combat", "step losses", "Legion"),
)

ENGINEER_FIRST_LOSS = Conflict(
    key="engineer-first-loss",
    heading="Conflict: do the engineers take the first loss only when their +1 applied?",
    refs=("9.2", "16.6"),
    readings=(
        Reading(
            "9.2",
            "these units provide +1 MD when attacking city hexes or hexes containing "
            "fortifications.",
        ),
        Reading(
            "9.2",
            "If there are casualties, the engineers will compulsorily receive the first of them.",
        ),
        Reading(
            "16.6",
            "The first step of the casualties is for a unit that has used its special abilities, "
            "(engineers or legionnaires).",
        ),
        Reading(
            "16.6",
            "If units with special abilities have not been used, the first step of casualties go "
            "over to the unit whose efficiency has been used by the player to determine the "
            "difference in efficiencies in combat.",
        ),
    ),
    engine_reading="16.6 by default, as for the Legion: the engineers take their side's first "
    "step lost when their +1 applied -- attacking a city or a hex with fortifications; otherwise "
    "the first step goes to a unit of the efficiency used. Why: 16.6 is the procedure for "
    'assigning losses and names the unit "that has used its special abilities"; 9.2\'s sentence '
    "follows the one that gives the ability. A club that reads 9.2's \"If there are casualties, "
    'the engineers will compulsorily receive the first of them" on its own sets the game option '
    "engineer_first_loss to always: engineers in a combat, attacking or defending, anywhere, "
    "take the first step their side loses.",
    option="engineer_first_loss",
    topics=("combat", "step losses", "engineers"),
)

HIDDEN_ODDS = Conflict(
    key="hidden-odds",
    heading="Conflict: limited intelligence -- a declared combat whose whole stack puts the ratio "
    "below 1:2",
    refs=("19.2", "16.1", "CRT"),
    readings=(
        Reading(
            "19.2",
            "When a combat has been declared, (which must be carried out obligatorily), all the "
            "pieces of the stack can be observed to determine the ratio between attacker and "
            "defender.",
        ),
        Reading(
            "16.1",
            "It is not necessary to declare all of them at the beginning, they are resolved as "
            "the player announces them, but once announced, they must be done.",
        ),
        Reading(
            "16.1",
            "Combats with attacker / defender ratios higher than 6 to 1, are resolved in the 6 to "
            "1 column, and with final ratios lower than 1: 2 it is not possible to launch an "
            "attack.",
        ),
        Reading(
            "19.2",
            "As the Allied player is the one who is going to attack the greatest number of times, "
            "this rule mainly benefits the Spanish player.",
        ),
    ),
    engine_reading="the combat is fought on the 1:2 column. Under limited intelligence an attack "
    "is judged on what the attacker can see -- the top unit of the enemy stack -- and a ratio "
    'below 1:2 on what he sees is refused (16.1: "it is not possible to launch an attack"); '
    "the units under the top never make a refusal. Once declared, the whole stack is shown and "
    'determines the ratio, and the combat is carried out, as 19.2 and 16.1 ("once announced, '
    'they must be done") require: when the whole stack puts the final ratio below 1:2 it is '
    "fought on the 1:2 column, the table's first, with the die modifiers as usual -- as a ratio "
    "above 6:1 is fought on the 6:1 column, the table's last. Why: the declaration is what 16.1's "
    "prohibition governs, and it was lawful on what could be seen; the table's own answer to a "
    "ratio off its edge is its edge column; and the 1:2 column, the attacker's worst, keeps the "
    'risk of attacking blind that 19.2 gives the defender ("this rule mainly benefits the '
    'Spanish player"). The other reading -- the attack counts as made and is called off with no '
    "effect -- would let an attacker look under any stack at no cost but his units' attack for "
    "the turn, so it is offered as no option. The same holds for a landing (14) and an "
    "exploitation attack (16.7) declared under limited intelligence; a move that meets a zone of "
    "control it could not see stops there (7.1) instead of being refused.",
    topics=("combat", "limited intelligence", "fog of war"),
)

#: the options this module declares for every scenario: the other reading of each conflict above
#: that clubs differ on (``RulesSystem.declared_options``, the scenario file's option format)
OPTIONS = {
    "legion_first_loss": {
        "default": "ability_used",
        "choices": ["ability_used", "always"],
        "description": "9.2 and 16.6 The Legion's first loss: a Legion unit takes the first "
        "Spanish step lost when its +1/-1 was used (ability used, 16.6, the default), or whenever "
        "it fights (always, 9.2 and the Larache example) (rules search: the conflict “the "
        "Legion's first loss”)",
    },
    "engineer_first_loss": {
        "default": "ability_used",
        "choices": ["ability_used", "always"],
        "description": "9.2 and 16.6 The engineers' first loss: the engineers take the first step "
        "their side loses when their +1 applied, attacking a city or fortification (ability used, "
        "16.6, the default), or whenever they fight (always, 9.2) (rules search: the conflict "
        "“the engineers' first loss”)",
    },
}

#: what each event links to beside the sections its declaration names: charts, and the
#: sections a declaration gives by number are ordered here as an arbiter reads them
LINKS = (
    Link("16.6", ("CombatResolved",), "rule 16.6: the combat table and its results"),
    Link("chart-combat-results-table", ("CombatResolved", "CombatDeclared"), "the combat results table gives the result for the odds and die roll"),
    Link("16.3", ("CombatResolved", "CombatDeclared", "DefenceDeclared"), "rule 16.3: the combat modifiers"),
    Link("16.2", ("CombatDeclared", "CombatRolled"), "rule 16.2: the combat sequence"),
    Link("16.7", ("RetreatRequired", "UnitsRetreated", "AdvanceRequired", "UnitsAdvanced"), "rule 16.7: withdrawals, advance after combat and exploitation"),
    Link("conflict-retreat-stack", ("UnitsRetreated",), "a stack retreated: may it split?", when=("stack",)),
    Link("conflict-crt-errata", ("CombatResolved",), "the 6:1 column at rolls 7 and 8: the errata replaces the printed result", when=("6:1", "-/4")),
    Link("conflict-baraka-dice", ("BarakaUsed", "CombatRolled"), "Baraka re-rolled dice: the text names no limit", when=("baraka",)),
    Link("15.2", ("UnitMoved",), "rule 15.2: the cost of each terrain"),
    Link("15.1", ("UnitMoved",), "rule 15.1: how land units move"),
    Link("7.1", ("UnitMoved",), "rule 7.1: zones of control and movement"),
    Link("8.1", ("UnitsDeployed",), "rule 8.1: deployment"),
    Link("conflict-legion-first-loss", ("CombatResolved",), "the Legion fought: does it take the first loss without its modifier?", when=("legion",)),
    Link("conflict-hidden-odds", ("CombatResolved", "CombatDeclared"), "limited intelligence: the whole stack put the ratio below 1:2", when=("below 1:2",)),
    Link("16.5", ("LastStandRolled",), "rule 16.5: last stand defense"),
    Link("14", ("LandingSucceeded", "LandingFailed"), "rule 14: amphibious invasion"),
    Link("example-of-amphibious-landing", ("LandingSucceeded", "LandingFailed"), "the worked example of an amphibious landing"),
    Link("10.1", ("WeatherDetermined",), "rule 10.1: meteorology"),
    Link("19.1", ("WeatherDetermined",), "optional rule 19.1: a more severe winter", when=("severe winter",)),
    Link("17", ("GameEnded", "EndOfGameVoted"), "rule 17: end of turn and victory conditions"),
    Link("17-allied-strategic-victory-if", ("GameEnded", "EndOfGameVoted"), "the Allied strategic victory conditions"),
)  # fmt: skip


RULEBOOK = Rulebook(
    document="backbone",
    corpus_file="operation-backbone.txt",
    spec=SPEC,
    links=LINKS,
    conflicts=(
        CRT_ERRATA,
        BARAKA_DICE,
        RETREAT_STACK,
        LEGION_FIRST_LOSS,
        ENGINEER_FIRST_LOSS,
        HIDDEN_ODDS,
    ),
)
