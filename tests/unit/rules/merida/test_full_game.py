"""A scripted full game on the shipped scenario, from the set-up to the end of the last turn, through
decide/apply only, with every kind of command, ending in the victory level (rules 4-12).

The text gives no map: the shipped rail line and highway are placeholders, so this test lays its
own rail along row J (J1-J7, Nationalist) and row AC (AC20-AC26, Republican) in their place before
the first command."""

from __future__ import annotations

from collections import Counter

from service.rules.merida import SYSTEM, sequence
from service.rules.merida.victory import final_result
from tests.unit.rules.merida.conftest import play, regain_lines

RAIL = [(f"J{c}", f"J{c + 1}") for c in range(1, 7)] + [
    (f"AC{c}", f"AC{c + 1}") for c in range(20, 26)
]


class Game:
    def __init__(self) -> None:
        # the fixed preference (issue 19's "automatic" option): this script predates the players'
        # decisions, which tests/unit/rules/merida/test_decisions.py covers
        self.state = SYSTEM.initial_state("merida-1938", {"decisions": "automatic"})
        self.state["map"] = {
            **self.state["map"],
            "hexsides": [{"hexes": list(pair), "features": ["rail"]} for pair in RAIL],
        }
        self.kinds: Counter[str] = Counter()
        self.events: list = []
        self.regained = 0

    def do(self, side: str, command: dict, dice=()):
        assert side in SYSTEM.active_sides(self.state), (side, SYSTEM.phase(self.state))
        events = play(self.state, side, command, dice)
        self.kinds[command["type"]] += 1
        self.events.extend(events)
        return events

    def end(self):
        side = sequence.acting_side(self.state)
        if self.state["phase"] == "movement":
            moved = regain_lines(self.state, side)  # rule 10
            self.regained += moved
            self.kinds["move"] += moved
        return self.do(side, {"type": "end_phase"})

    def run_to(self, turn: int, side: str, phase: str) -> None:
        """End phases until (turn, side, phase) is reached."""
        while (self.state["turn"], self.state["side"], self.state["phase"]) != (turn, side, phase):
            assert (self.state["turn"], self.state["side"]) <= (turn, side) or self.state[
                "turn"
            ] < turn
            self.end()

    @property
    def units(self):
        return self.state["units"]


def test_full_game_from_set_up_to_victory_level():
    g = Game()
    # Set up (rule 12): the 37 and 68 Div correct their overstacking within one hex.
    g.do("republican", {"type": "deploy", "unit": "r-68-div-4", "hex": "AC10"})
    g.do("republican", {"type": "deploy", "unit": "r-37-div-4", "hex": "Y7"})
    g.end()

    # Turn 1, Nationalist movement (rule 5): a tactical move, a strategic move, an overrun (rule 8).
    assert SYSTEM.phase(g.state) == {
        "turn": 1,
        "phase": "movement",
        "side": "nationalist",
        "acting": "nationalist",
    }
    g.do(
        "nationalist",
        {"type": "move", "units": ["n-1-21-div", "n-2-21-div"], "path": ["AA3", "Z3", "Y3"]},
    )
    g.do(
        "nationalist",
        {
            "type": "move",
            "units": ["n-112-div"],
            "path": ["AO10", "AN9", "AN8", "AM7", "AN6", "AN5", "AO4"],
            "mode": "strategic",
        },
    )
    # Rule 10: the 21 Div units at Campillo are out of command and must move to regain the line.
    units_21 = ["n-3-21-div", "n-art-21-div"]
    g.do("nationalist", {"type": "move", "units": units_21, "path": ["AJ7", "AK8"]})
    g.do(
        "nationalist",
        {"type": "declare_overrun", "hex": "X3", "attackers": ["n-1-21-div", "n-2-21-div"]},
    )
    g.end()  # command phase (automatic), then attacking air
    assert g.state["phase"] == "air_attack"
    g.do("nationalist", {"type": "allocate_air", "hex": "X3", "air": ["Fiat"]})
    g.end()
    assert sequence.acting_side(g.state) == "republican"
    g.do("republican", {"type": "allocate_air", "hex": "X3", "air": ["Tup"]})
    g.end()
    # Air rolls: Nationalist 2 (no loss); Republican turn-1 roll 5: the Tup aborts.  9 vs 1: 6-1;
    # Medellin is a (placeholder) town: 6 - 1 = 5: D3.
    [combat] = g.do(
        "nationalist",
        {"type": "attack", "attackers": ["n-1-21-div", "n-2-21-div"], "hex": "X3"},
        [2, 5, 6],
    )
    assert (combat.data["column"], combat.data["result"], combat.data["unfilled"]) == (
        "6-1",
        "D3",
        2,
    )
    assert combat.data["air_losses"] == [
        {"side": "republican", "type": "Tup", "outcome": "aborted"}
    ]
    g.do(
        "nationalist",
        {"type": "advance", "units": ["n-1-21-div"], "path": ["X3", "W3", "V3", "U3", "T3"]},
    )
    g.end()

    # Turn 1, Republican: three units of the 29 Div command attack and are lost; Burillo moves up to
    # keep them in command (rule 10: within 7 hexes of a leader).
    assert (g.state["side"], g.state["phase"]) == ("republican", "movement")
    # Rule 10: the 37 Div (no leader within 7 hexes) moves, at half speed, to regain command.
    units_37 = ["r-37-div-1", "r-37-div-2", "r-37-div-3"]
    g.do("republican", {"type": "move", "units": units_37, "path": ["Y6", "Y7", "Z7"]})
    g.do("republican", {"type": "move", "units": ["r-37-div-4"], "path": ["Y7", "Z8"]})
    g.do(
        "republican",
        {
            "type": "move",
            "units": ["r-burillo"],
            "path": ["V18", "U18", "T18", "S17", "S16", "R15"],
        },
    )
    g.do(
        "republican",
        {"type": "move", "units": ["r-1-25"], "path": ["S16", "R15", "R14", "R13", "S12"]},
    )
    g.do("republican", {"type": "move", "units": ["r-2-25"], "path": ["S16", "R16", "Q15", "Q14"]})
    g.do(
        "republican",
        {"type": "move", "units": ["r-1-46"], "path": ["S16", "R16", "Q16", "P16", "O15", "O14"]},
    )
    g.end()
    assert sequence.available_air(g.state, "republican") == {"Pol": 1}  # the Tup aborted this turn
    g.do("republican", {"type": "allocate_air", "hex": "S11", "air": ["Pol"]})
    g.end()
    g.do("nationalist", {"type": "allocate_air", "hex": "S11", "air": ["Fiat"]})
    g.end()
    [a] = g.do("republican", {"type": "attack", "attackers": ["r-1-25"], "hex": "S11"}, [2, 3, 1])
    assert (a.data["column"], a.data["modified_roll"], a.data["result"]) == ("1-1", 0, "A2")
    [b] = g.do("republican", {"type": "attack", "attackers": ["r-2-25"], "hex": "P13"}, [1])
    [c] = g.do("republican", {"type": "attack", "attackers": ["r-1-46"], "hex": "N14"}, [1])
    assert (b.data["result"], c.data["result"]) == ("A1", "A2")
    g.end()

    # Turn 2: the Republican reorganizes (rule 9).
    g.run_to(2, "republican", "reinforcements")
    g.do(
        "republican",
        {
            "type": "reorganize",
            "units": ["r-1-25", "r-1-46", "r-2-25"],
            "return": "r-1-25",
            "leader": "r-burillo",
        },
    )
    assert g.units["r-1-25"]["hex"] == "R15" and g.units["r-2-25"]["status"] == "gone"
    g.end()
    g.do(
        "republican",
        {
            "type": "move",
            "units": ["r-1-12a-1"],
            "path": ["AF10", "AG10", "AH10"],
            "mode": "strategic",
        },
    )

    # Turn 3: removals (Nationalist) and the first Republican reinforcements.
    g.run_to(3, "nationalist", "reinforcements")
    g.do("nationalist", {"type": "remove", "unit": "n-74-div"})
    g.do("nationalist", {"type": "remove", "unit": "n-102-div"})
    g.run_to(3, "republican", "reinforcements")
    g.do("republican", {"type": "place_reinforcement", "unit": "r-66-brg", "hex": "M26"})
    g.do("republican", {"type": "place_reinforcement", "unit": "r-81-brg", "hex": "N26"})

    # Turn 4: eight brigades and the leader change (Pradas at Zarzacapilla).
    g.run_to(4, "republican", "reinforcements")
    assert g.units["r-burillo"]["status"] == "removed"
    brigades = [
        "r-4-brg",
        "r-21-brg",
        "r-47-brg",
        "r-61-brg",
        "r-113-brg",
        "r-144-brg",
        "r-193-brg",
        "r-210-brg",
    ]
    for index, unit_id in enumerate(brigades):
        g.do(
            "republican",
            {
                "type": "place_reinforcement",
                "unit": unit_id,
                "hex": f"{['O', 'P', 'Q', 'R', 'S', 'T', 'U', 'V'][index]}26",
            },
        )
    g.do("republican", {"type": "place_reinforcement", "unit": "r-pradas", "hex": "AC20"})

    # Turn 5: the 14 Div enters at J1 and moves by rail to Trujillo.
    g.run_to(5, "nationalist", "reinforcements")
    g.do("nationalist", {"type": "place_reinforcement", "unit": "n-14-div", "hex": "J1"})
    g.end()
    g.do(
        "nationalist",
        {
            "type": "move",
            "units": ["n-14-div"],
            "path": [f"J{c}" for c in range(1, 8)],
            "mode": "rail",
        },
    )

    # Turn 7: the armored train, the tank and six artillery units; the train runs along the rail.
    g.run_to(7, "republican", "reinforcements")
    g.do("republican", {"type": "place_reinforcement", "unit": "r-armored-train", "hex": "AC26"})
    g.do("republican", {"type": "place_reinforcement", "unit": "r-tank-unit", "hex": "AD26"})
    for letter, hex_ in zip(
        "abcdef", ["AE26", "AE26", "AF26", "AF26", "AG26", "AG26"], strict=True
    ):
        g.do("republican", {"type": "place_reinforcement", "unit": f"r-art-{letter}", "hex": hex_})
    g.end()
    g.do(
        "republican",
        {
            "type": "move",
            "units": ["r-armored-train"],
            "path": [f"AC{c}" for c in range(26, 20, -1)],
            "mode": "rail",
        },
    )

    # Turns 8 and 9: more divisions.
    g.run_to(8, "republican", "reinforcements")
    for unit_id, hex_ in [("r-19-div", "AH26"), ("r-28-div", "AI26"), ("r-19-28-art", "AH26")]:
        g.do("republican", {"type": "place_reinforcement", "unit": unit_id, "hex": hex_})
    g.run_to(9, "republican", "reinforcements")
    for unit_id, hex_ in [
        ("r-6-div", "AJ26"),
        ("r-52-div", "AK26"),
        ("r-71-div", "AL26"),
        ("r-z-6-art", "AJ26"),
        ("r-52-71-art", "AK26"),
    ]:
        g.do("republican", {"type": "place_reinforcement", "unit": unit_id, "hex": hex_})

    # Turn 11: the 71 Div stays on the map for 10 victory points.
    g.run_to(11, "republican", "reinforcements")
    g.do("republican", {"type": "keep", "unit": "r-71-div"})

    # Turn 14: the 102 Div returns at AQ1 (automatic) and the 85 Regt enters there.
    g.run_to(14, "nationalist", "reinforcements")
    assert g.units["n-102-div"]["hex"] == "AQ1"
    g.do("nationalist", {"type": "place_reinforcement", "unit": "n-85-regt", "hex": "AQ1"})

    # To the end of turn 15 (the scenario's placeholder length).
    while SYSTEM.result(g.state) is None:
        g.end()
    result = SYSTEM.result(g.state)
    assert g.events[-1].type == "GameEnded" and SYSTEM.active_sides(g.state) == []
    assert result == final_result(g.state)
    held = {p["name"]: p["held_by"] for p in result["places"] if p["held_by"]}
    # Campillo (AJ7) and Don Benito (Y6) are occupied by units with no leader within 7 hexes: out
    # of command, they do not control their places (rule 11).
    assert held == {
        "Trujilo": "nationalist",
        "Zorita": "nationalist",
        "Penarroya": "nationalist",
        "Zalamea": "republican",
    }
    assert {p["name"] for p in result["places"] if p["held_by"] is None} >= {
        "Campillo",
        "Don Benito",
    }
    assert result["points"] == {
        "nationalist": 10,
        "republican": 0,
    }  # Zalamea 10, less 10 for the 71 Div
    # Rule 11: the side with more points reads its own total: 10 is an absolute defeat.
    assert (result["level"], result["level_of"], result["winner"]) == (
        "Absolute defeat",
        "nationalist",
        "republican",
    )
    assert g.regained > 0  # rule 10: units out of command moved to regain their line
    expected_kinds = {
        "deploy",
        "place_reinforcement",
        "remove",
        "keep",
        "reorganize",
        "move",
        "declare_overrun",
        "allocate_air",
        "attack",
        "advance",
        "end_phase",
    }
    assert set(g.kinds) == expected_kinds
    modes = {e.data["mode"] for e in g.events if e.type == "UnitsMoved"}
    assert modes == {"tactical", "strategic", "rail"}
