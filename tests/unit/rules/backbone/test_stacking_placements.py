"""Stacking (5) of what is put on the map outside movement: reinforcements (13.1), the British
reserve (14), recovered HQs (9.1), rebuilt units and recovered steps (13.2).

Found by the fuzzer (seed 1126): the landed British brigades and the reserve filled the beachhead
to its 16 steps, a replacement step for the 12th Inf Bde put it at 17, every hex around it held
Spanish units, and the Allies were stuck with "End the movement phase" blocked and no move left."""

from __future__ import annotations

import copy

import pytest

from service.rules.backbone import SYSTEM, admin
from service.rules.backbone import geography as geo
from service.rules.backbone.movement import stacking_violations
from service.rules.backbone.units import at
from service.rules.base import RuleViolation
from tests.unit.rules.backbone.fixtures import REQUIRED_CITIES, board, counter, play, state
from tests.unit.rules.backbone.test_landing_example import ASSAULT, at_landing


def _replacement_options(st: dict) -> list[dict]:
    [template] = [t for t in SYSTEM.actions(st, "allied").of_type("replace") if t.choose]
    return list(template.choose["steps"].options)


def test_5_13_2_a_recovered_step_may_not_put_its_stack_over_the_limit() -> None:
    """5: 8 steps in a mountain hex; 13.2: a step recovers a reduced unit where it stands.  A step
    for the 3-step unit in a full mountain hex would make 9, and no move may be left to put it
    right (seed 1126: the stack was hemmed in by enemy units): refused, citing 5, and not listed.
    Two steps that fit one at a time but not together are refused together."""
    units = [
        counter("a", "allied", "5,6", steps=4),
        counter("b", "allied", "5,6", steps=3, max_steps=4),
        counter("c", "allied", "5,6", steps=1),
        counter("d", "allied", "5,9", steps=3, max_steps=4),
        counter("e", "allied", "5,9", steps=3, max_steps=4),
        counter("f", "allied", "5,9", steps=1),
    ]
    terrain = {"5,6": "mountain", "5,9": "mountain"}
    st = state(units, board(terrain=terrain, places=REQUIRED_CITIES), step="replacements")
    assert geo.stacking_limit(st, "5,6") == 8
    with pytest.raises(RuleViolation) as err:
        play(copy.deepcopy(st), "allied", {"type": "replace", "steps": [{"unit": "b"}]})
    assert err.value.rule == "5"
    listed = [s["unit"] for s in _replacement_options(st)]
    assert "b" not in listed and {"d", "e"} <= set(listed)
    with pytest.raises(RuleViolation) as err:
        play(
            copy.deepcopy(st),
            "allied",
            {"type": "replace", "steps": [{"unit": "d"}, {"unit": "e"}]},
        )
    assert err.value.rule == "5"
    play(st, "allied", {"type": "replace", "steps": [{"unit": "d"}]})
    assert st["replacements"]["allied"] == [{"unit": "d", "hex": None}]


def test_5_13_2_a_rebuilt_unit_returns_only_where_it_fits() -> None:
    """13.2: a rebuilt unit returns to its HQ's hex or next to it; 5: not into a full stack."""
    units = [
        counter("hq", "allied", "5,6", type_="hq", steps=1, formation="TF"),
        counter("a", "allied", "5,6", steps=4, formation="TF"),
        counter("b", "allied", "5,6", steps=3, formation="TF"),
        counter("gone", "allied", None, status="eliminated", steps=0, max_steps=3, formation="TF"),
    ]
    st = state(units, board(terrain={"5,6": "mountain"}, places=REQUIRED_CITIES))
    from service.rules.backbone import playing

    options = playing.rebuild_hexes(st, st["units"]["gone"])
    assert "5,6" not in options  # 8 steps already
    assert set(geo.board(st).grid.neighbours("5,6")) <= options


def _full_tetouan(st: dict) -> str:
    """Fill Tetouan (4,7, 10 steps) up to 7 so that the German paratroopers (3) just fit."""
    tetouan = "4,7"
    present = sum(u["steps"] for u in at(st, tetouan))
    filler = counter("es-filler", "spanish", tetouan, steps=7 - present)
    st["units"][filler["id"]] = {**filler, "seq": 999}
    return tetouan


def test_5_13_1_9_1_arrivals_in_one_segment_count_each_other() -> None:
    """13.1: the German paratroopers arrive in Tetouan (or next to it); 9.1: an HQ lost two turns
    earlier comes back in a city of its formation.  Both in the same segment: the HQ may not join
    the paratroopers in a Tetouan they have just filled (5), so it goes to the next city; and it
    comes back with its step (an HQ of 0 steps is no unit)."""
    st = at_landing()
    st["options"]["decisions"] = "automatic"  # the players' choice of 18.1: test_decisions.py
    st["turn"] = 2
    tetouan = _full_tetouan(st)
    st["units"]["es-hq-ix"].update(status="eliminated", hex=None, steps=0, eliminated_turn=0)
    events = admin.reinforcements(st)
    arrived = {a["unit"]: a["hex"] for a in events[0].data["units"]}
    assert arrived["de-5fjr"] == tetouan
    assert arrived["es-hq-ix"] != tetouan
    for event in events:
        SYSTEM.apply(st, event)
    assert sum(u["steps"] for u in at(st, tetouan)) == 10
    assert st["units"]["es-hq-ix"]["steps"] == 1
    assert stacking_violations(st, "spanish") == []


def test_5_13_1_an_arrival_with_no_room_waits_for_a_later_segment() -> None:
    """13.1: arrivals in X or next to it; 5: with every such hex full or held by the enemy the
    unit waits (the rules are silent; placing it over the limit could leave a stack no move puts
    right), and arrives in the next segment with room."""
    units = [
        counter("g", "spanish", None, steps=3),
        counter("s", "spanish", "5,6", steps=8),
        *[
            counter(f"x{i}", "allied", h, steps=1)
            for i, h in enumerate(("4,5", "4,6", "4,7", "5,5", "5,7", "6,6"))
        ],
    ]
    st = state(units, board(terrain={"5,6": "mountain"}, places=REQUIRED_CITIES), step="strait")
    assert set(geo.board(st).grid.neighbours("5,6")) == {"4,5", "4,6", "4,7", "5,5", "5,7", "6,6"}
    st["reinforcements"] = [{"turn": 2, "unit": "g", "hexes": ["5,6"], "entry": "tetouan"}]
    st["options"]["decisions"] = "automatic"
    assert admin.reinforcements(st) == []
    st["units"]["s"]["steps"] = 5
    st["turn"] = 3
    [event] = admin.reinforcements(st)
    assert event.data["units"] == [{"unit": "g", "hex": "5,6"}]


def test_5_14_the_reserve_lands_over_the_limit_only_when_moves_can_put_it_right() -> None:
    """14: the reserve (10th Inf Bde, 1st Para Bde, HQ I CE) lands at the beachhead the turn
    after the landing and moves on; 5: stacking is counted at the end of the movement phase, so the
    beachhead (half mountain, 10 steps) may be over the limit then, as long as moving out of it can
    put it right -- and the moves listed never spoil that.  Hemmed in by enemy units, the reserve
    lands only as far as it fits; the rest stays afloat for a later turn."""
    st = at_landing()
    play(st, "allied", {"type": "land", "hex": "4,8", "units": ASSAULT})
    st["turn"] = 2
    free = copy.deepcopy(st)
    arrived = admin.reinforcements(free)[0].data["units"]
    assert {a["unit"] for a in arrived} >= {"uk-10inf", "uk-1parabde", "uk-hq-1ce"}
    hemmed = copy.deepcopy(st)
    land = [h for h in geo.board(st).grid.neighbours("4,8") if not geo.impassable(st, h)]
    for i, h in enumerate(land):
        if not at(hemmed, h):
            foe = counter(f"es-wall-{i}", "spanish", h, steps=1)
            hemmed["units"][foe["id"]] = {**foe, "seq": 900 + i}
    arrived = admin.reinforcements(hemmed)[0].data["units"]
    placed = [a["unit"] for a in arrived if a["hex"] == "4,8"]
    steps = sum(hemmed["units"][u]["steps"] for u in [*ASSAULT, *placed])
    assert steps <= geo.stacking_limit(hemmed, "4,8") == 10
    assert "uk-10inf" not in placed  # 9 + 4 > 10: it waits afloat


def test_5_14_listed_moves_keep_the_beachhead_stack_able_to_be_put_right() -> None:
    """5: with the reserve landed over the limit, every sequence of listed moves lets the phase
    end: random play from the templates alone always reaches an open "End the movement phase"."""
    import random

    st = at_landing()
    st["options"]["decisions"] = "automatic"  # the German arrivals' place is not this test's
    play(st, "allied", {"type": "land", "hex": "4,8", "units": ASSAULT})
    st["turn"] = 2
    for event in admin.reinforcements(st):
        SYSTEM.apply(st, event)
    st["step"], st["moved"] = "allied_movement", []
    assert stacking_violations(st, "allied")  # over the limit before anything moves
    for seed in range(5):
        rng = random.Random(seed)
        game = copy.deepcopy(st)
        while True:
            actions = SYSTEM.actions(game, "allied")
            if any(t.type == "end_phase" for t in actions.templates) and rng.random() < 0.2:
                break
            moves = actions.of_type("move")
            assert moves or any(t.type == "end_phase" for t in actions.templates)
            if not moves:
                break
            template = rng.choice(moves)
            play(game, "allied", rng.choice(template.commands()))
        assert stacking_violations(game, "allied") == []
