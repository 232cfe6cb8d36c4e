"""Issue 15: an event's links -- governing sections and charts, conflicts only when the event's
facts trigger them, related rulings above a relevance floor -- each with why it is there."""

from __future__ import annotations

from faq.search import KnowledgeBase
from service.rules.registry import build_registry

from .conftest import ids

SYSTEMS = {s.name: s for s in build_registry()}


def links(kb: KnowledgeBase, game: str, event_type: str, facts: list[str]) -> dict:
    declared = SYSTEMS[game].governing(event_type)
    return kb.for_event(
        game, declared.sections, declared.topics, facts, limit=5, event_type=event_type
    )


def test_a_combat_links_the_crt_and_the_tec_with_why(kb: KnowledgeBase) -> None:
    out = links(kb, "merida", "CombatResolved", ["result DR", "clear", "odds 1-1", "retreat"])
    governing = ids(out["governing"])
    assert governing[:3] == [
        "merida:8",
        "merida:chart-combat-results",
        "merida:chart-terrain-effects",
    ]
    assert "merida:8-retreats" in governing
    why = {g["id"]: g["why"] for g in out["governing"]}
    assert "combat results table" in why["merida:chart-combat-results"]
    assert "retreat" in why["merida:8-retreats"]  # the fact that matched


def test_conflicts_and_sub_sections_only_when_the_facts_trigger_them(kb: KnowledgeBase) -> None:
    plain = ids(links(kb, "merida", "CombatResolved", ["result AE", "odds 1-1"])["governing"])
    assert "merida:8-automatic-victory" not in plain  # a 1-1 combat is no automatic victory
    assert "merida:conflict-strategic-movement-modifier" not in plain
    strategic = links(kb, "merida", "CombatResolved", ["defender moved by strategic movement"])
    assert "merida:conflict-strategic-movement-modifier" in ids(strategic["governing"])
    tactical = ids(links(kb, "merida", "UnitsMoved", ["tactical movement", "clear"])["governing"])
    assert "merida:conflict-strategic-movement-modifier" not in tactical
    assert "merida:conflict-zoc-to-zoc" not in tactical
    into_zoc = links(kb, "merida", "UnitsMoved", ["entered enemy zone of control"])
    assert "merida:conflict-zoc-to-zoc" in ids(into_zoc["governing"])


def test_a_move_links_the_terrain_chart_and_a_deployment_the_set_up_chart(
    kb: KnowledgeBase,
) -> None:
    assert "merida:chart-terrain-effects" in ids(
        links(kb, "merida", "UnitsMoved", ["tactical movement"])["governing"]
    )
    assert "merida:chart-set-up-table" in ids(links(kb, "merida", "UnitDeployed", [])["governing"])
    assert ids(links(kb, "backbone", "UnitsRetreated", [])["governing"])[0] == "backbone:16-7"


def test_no_fwtbt_ruling_is_close_rather_than_noise(kb: KnowledgeBase) -> None:
    out = links(kb, "merida", "CombatResolved", ["result DR", "clear", "attacker infantry"])
    assert out["related"] == [] and out["note"] == "no FWtBT ruling is close"
    moved = links(kb, "merida", "UnitsMoved", ["tactical movement", "mountain"])
    assert ids(moved["related"])[0] == "fwtbt-faq:terrain-effects-chart-mountain-hexsides:q1"
    assert "mountain" in moved["related"][0]["why"] and moved["note"] is None
    # a naval gunfire ruling is not about a land combat
    land = links(kb, "merida", "CombatResolved", ["retreat", "advance after combat"])
    assert not any("naval" in r["heading"].lower() for r in land["related"])


def test_a_result_code_is_not_searched_as_a_word(kb: KnowledgeBase) -> None:
    out = links(kb, "merida", "CombatResolved", ["A1", "DR"])
    assert out["related"] == []


def test_the_issue_33_readings_govern_the_events_their_facts_call_for(kb: KnowledgeBase) -> None:
    """Each new conflict entry is linked to the events where its reading applies, and only then."""
    cases = [
        ("backbone", "CombatResolved", ["-/1", "2:1", "the Legion fought"], "legion-first-loss"),
        (
            "backbone",
            "CombatResolved",
            ["1:2", "below 1:2 on the whole stack (19.2)"],
            "hidden-odds",
        ),
        ("bizkaya", "CombatResolved", ["DR", "attacking stacks euphoric"], "euphoria-doubling"),
        ("bizkaya", "HoldChecked", ["morale check"], "hold-check"),
        ("merida", "CombatResolved", ["result DR", "once per game turn"], "combat-once-per-turn"),
        ("merida", "UnitsMoved", ["rail movement", "armored train"], "armored-train"),
    ]
    for document, event, facts, key in cases:
        entry = f"{document}:conflict-{key}"
        linked = kb.for_event(document, facts=facts, event_type=event)["governing"]
        assert entry in ids(linked), (event, facts)
        assert all(g["binding"] for g in linked)
        plain = kb.for_event(document, facts=facts[:1], event_type=event)["governing"]
        if key != "hold-check":  # every hold is read both ways: always linked
            assert entry not in ids(plain), (event, facts[:1])
