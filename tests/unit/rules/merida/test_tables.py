"""The printed charts and tables, encoded as data, checked against the rulebook text itself."""

from __future__ import annotations

import re
from pathlib import Path

from service.rules.merida import SYSTEM, data

CORPUS = Path(__file__).parents[4] / "faq" / "corpus" / "closing-the-merida-pocket.txt"


def _text_between(start: str, end: str) -> list[str]:
    text = CORPUS.read_text(encoding="utf-8")
    part = text[text.index(start) : text.index(end, text.index(start))]
    return [line.strip() for line in part.splitlines() if line.strip()]


def test_crt_is_the_printed_combat_results_table():
    """Charts: Combat Results -- every cell as the rulebook prints it (rows 0-7, columns 1-4..6-1)."""
    lines = _text_between("Combat Results:", "Find the ration")
    cells = lines[lines.index("Roll:") + 1 :]
    columns, body = cells[:9], cells[9:]
    printed = [
        {"roll": int(body[i]), "results": body[i + 1 : i + 10]} for i in range(0, len(body), 10)
    ]
    assert SYSTEM.drawing.tables()["crt"] == {"columns": columns, "rows": printed}


def test_crt_shape_for_the_api():
    """Issue interface: columns 1-4 ... 6-1, rows 0-7, results spelled A2, A1, AR, EX, DR, D1-D4."""
    crt = SYSTEM.drawing.tables()["crt"]
    assert crt["columns"] == ["1-4", "1-3", "1-2", "1-1", "2-1", "3-1", "4-1", "5-1", "6-1"]
    assert [row["roll"] for row in crt["rows"]] == list(range(8))
    spelled = {r for row in crt["rows"] for r in row["results"]}
    assert spelled == {"A2", "A1", "AR", "EX", "DR", "D1", "D2", "D3", "D4"}
    assert crt["rows"][0]["results"][0] == "A2" and crt["rows"][7]["results"][8] == "D4"


def test_crt_result_meanings_as_printed():
    """Charts: AR retreat only; A1/A2 lose 1/2 and retreat; EX both lose 1, defender retreats."""
    assert (
        data.crt_effect("AR")["attacker_retreat"] == 1
        and data.crt_effect("AR")["attacker_losses"] == 0
    )
    assert data.crt_effect("A2")["attacker_losses"] == 2
    ex = data.crt_effect("EX")
    assert (
        ex["attacker_losses"],
        ex["defender_losses"],
        ex["defender_retreat"],
        ex["advance"],
    ) == (1, 1, 1, True)
    assert [data.crt_effect(f"D{n}")["defender_losses"] for n in range(1, 5)] == [1, 2, 3, 4]


def test_movement_points_chart_as_printed():
    """Charts: Artillery 4, Infantry 6, Cavalry 8, Leaders and armor 10 (tactical movement)."""
    lines = _text_between("Movement points available:", "(These are the rates")
    printed = {lines[i]: int(lines[i + 1].split()[0]) for i in range(1, len(lines), 2)}
    assert printed == {"Artillery": 4, "Infantry": 6, "Cavalry": 8, "Leaders and armor": 10}
    assert [data.allowance(k) for k in ("artillery", "infantry", "cavalry", "leader", "armor")] == [
        4,
        6,
        8,
        10,
        10,
    ]


def test_victory_point_table_as_printed():
    """Charts: Victory Points -- every place with its hex and both sides' points ('-' is 0)."""
    lines = _text_between("Victory Points:", "Points are given")[4:]
    printed = {}
    for i in range(0, len(lines), 3):
        rep, nat = (0 if v == "-" else int(v) for v in lines[i + 1 : i + 3])
        for name, hex_ in re.findall(r"([^,(]+?) \((\w+)\)", lines[i]):
            printed[name.strip()] = (hex_.upper(), rep, nat)
    encoded = {
        p["name"]: (p["hex"], p["republican"], p["nationalist"])
        for p in data.load("victory")["points"]
    }
    assert encoded == printed
    assert len(encoded) == 19


def test_11_victory_level_chart_boundaries():
    """Rule 11: 90+ absolute victory ... 0-19 absolute defeat."""
    expected = {
        95: "Absolute victory",
        90: "Absolute victory",
        89: "Substantial victory",
        75: "Substantial victory",
        74: "Marginal victory",
        60: "Marginal victory",
        59: "Draw",
        40: "Draw",
        39: "Marginal defeat",
        30: "Marginal defeat",
        29: "Substantial defeat",
        20: "Substantial defeat",
        19: "Absolute defeat",
        0: "Absolute defeat",
    }
    assert {p: data.victory_level(p)["level"] for p in expected} == expected


def test_air_point_availability_by_turn():
    """Charts: Air Point availability -- Nationalists 2 Fiat on turns 1-3, none 4-12, four types
    from 13; Republicans 1 Pol and 1 Tup every turn."""
    assert data.air_points("nationalist", 1) == {"Fiat": 2}
    assert data.air_points("nationalist", 3) == {"Fiat": 2}
    assert data.air_points("nationalist", 4) == {}
    assert data.air_points("nationalist", 12) == {}
    assert data.air_points("nationalist", 13) == {"Fiat": 1, "HE70": 1, "HE51": 1, "JU-52": 1}
    assert data.air_points("republican", 2) == {"Pol": 1, "Tup": 1}
    assert data.air_points("republican", 20) == {"Pol": 1, "Tup": 1}


def test_terrain_effects_chart_encoded():
    """TEC: clear 1, road 1/2 along it, mountain 1/2/3, river 2 or prohibited, combat effects."""
    tec = data.load("tec")["terrain"]
    assert tec["clear"]["movement"] == {"all": 1}
    assert tec["road"]["movement"] == {"all": 0.5}
    assert tec["mountain"]["movement"] == {
        "leader": 1,
        "infantry": 2,
        "cavalry": 2,
        "artillery": 3,
        "armor": 3,
    }
    assert tec["town"]["die_modifier"] == -1 and tec["town"]["defenders_ignore_retreats"]
    assert tec["city"]["defender_multiplier"] == 2 and tec["river"]["exclusively_across"]


def test_4_sequence_of_play_is_the_rulebook_s_with_the_phases_the_game_reports():
    """Rule 4: steps A-H in the rulebook's words, each turn phase under the id ``phase`` reports
    (sequence.PHASES, in order); the supply and command checks (B, D) are run by the server."""
    from service.rules.merida import sequence

    table = SYSTEM.drawing.tables()["sequence"]
    rule_4 = " ".join(_text_between("4. Sequence of play", "5. Movement"))
    assert table["rule"] == "4" and table["note"] in rule_4
    steps = table["steps"]
    assert [s["step"] for s in steps] == list("ABCDEFGH")
    for step in steps:
        assert f"{step['step']}. " in rule_4 and step["text"] in rule_4, step["step"]
    assert [p for s in steps for p in s["phases"]] == list(sequence.PHASES)
    assert [s["phases"] for s in steps if s["automatic"]] == [["supply"], ["command"]]
    assert next(s for s in steps if s["phases"] == ["air_defense"])["who"] == "nonphasing player"
