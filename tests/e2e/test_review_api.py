"""The review API (issue 31): ``GET /api/games/<id>/review``, ``report.html`` and ``report.md`` and
the profile's luck -- played Merida and Backbone games, the figures checked against the rules'
own tables, who sees whose luck, bad input, and a game the caller may not read."""

from __future__ import annotations

import random
import re
from fractions import Fraction
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.fuzz.player import pick
from service.rules.backbone import luck as backbone_luck
from service.rules.merida import luck as merida_luck
from tests.support.api import ApiHelper, every

pytestmark = pytest.mark.slow(
    "played Merida and Backbone games reviewed and checked against the rules' own tables"
)


def svc(api: ApiHelper) -> Any:
    return api.client.application.extensions["arbiter"]  # type: ignore[attr-defined]


def play_until_combat(
    api: ApiHelper, gid: str, players: dict[str, str], combats: int, limit: int = 400
) -> None:
    """Random legal play through the services (the API's own path), an attack whenever one is
    offered, until ``combats`` combat dice were measured or the game ends."""
    services = svc(api)
    rng = random.Random(31)
    users = {side: services.users.by_name(name) for side, name in players.items()}
    resolved, read = 0, 0  # combats measured in the events read so far (each read once)
    for _ in range(limit):
        game = services.games.get(gid)
        if game.status == "ended":
            return
        for e in services.store.events.get(game.id, gt=read):
            read = e.originator_version
            resolved += (
                type(e).__name__ == "Recorded"
                and e.kind == "CombatResolved"
                and isinstance(e.data.get("die") or e.data.get("dice") or e.data.get("roll"), dict)
            )
        if resolved >= combats:
            return
        side = rng.choice(game.active_sides())
        _, actions = services.games.actions(game, users[side], side)
        # never a vote to end the game (Backbone 17): the tests read a game still in progress
        kinds = [k for k in dict.fromkeys(actions.types()) if k != "vote_end"]
        kind = next(
            (k for k in ("attack", "defend", "declare_attack", "combat") if k in kinds), None
        )
        kind = kind or rng.choice(kinds)
        template = rng.choice(actions.of_type(kind))
        picks = {name: pick(choice, rng) for name, choice in template.choose.items()}
        try:
            services.games.execute(
                gid,
                users[side],
                template.command(**picks),
                expected_version=game.version,
                side=side,
            )
        except Exception:  # noqa: BLE001 - a refused pick: try another
            continue


def new_game(api: ApiHelper, system: str, scenario: str, sides: dict[str, str]) -> str:
    return str(api.create_game(system, scenario, sides)["id"])


def game_in_play(
    api: ApiHelper, system: str, scenario: str, sides: dict[str, str], combats: int, limit: int
) -> str:
    """A game played at random until ``combats`` combats were measured, still in progress: its
    dice differ from game to game (a random id), and now and then random play ends a game
    first (CI's full run met a Backbone game that did) -- then another game is played."""
    for _ in range(5):
        gid = new_game(api, system, scenario, sides)
        play_until_combat(api, gid, sides, combats=combats, limit=limit)
        if svc(api).games.get(gid).status == "active":
            return gid
    raise AssertionError(f"five {system} games ended before {combats} combats")


def review(api: ApiHelper, gid: str, user: str | None, **params: Any) -> Any:
    headers = api.user(user) if user else {}
    return api.client.get(f"/api/games/{gid}/review", query_string=params, headers=headers)


def test_one_merida_game_reviewed_in_play_by_each_reader_then_after_its_end(
    api: ApiHelper,
) -> None:
    """One game played at random to its second combat, then read by each reader in turn (a
    random game is the costly part: each reading below once took a game of its own)."""
    sides = {"republican": "alice", "nationalist": "bob"}
    merida = game_in_play(api, "merida", "merida-1938", sides, combats=2, limit=400)
    api.work()  # the worker brings the reviews view on
    a_players_review_during_the_game_shows_their_own_luck_from_the_crt(api, merida)
    a_reader_who_plays_no_side_sees_no_luck_during_the_game(api, merida)
    after_the_end_every_reader_sees_every_side_and_the_report(api, merida)


def a_players_review_during_the_game_shows_their_own_luck_from_the_crt(
    api: ApiHelper, merida: str
) -> None:
    r = review(api, merida, "alice")
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert list(body["luck"]) == ["republican"]  # only alice's side while the game goes on
    assert body["status"] == "active"
    mine = body["luck"]["republican"]
    combats = [
        e
        for e in svc(api).store.events.get(svc(api).games.get(merida).id)
        if type(e).__name__ == "Recorded"
        and e.kind == "CombatResolved"
        and isinstance(e.data.get("die"), dict)
    ]
    assert combats, "the game fought no combat"
    total = Fraction(0)
    measured = {r["index"]: r for r in mine["rolls"] if r["outcome"] is not None}
    for event in combats:
        data = event.data
        modifier = sum(m["value"] for m in data["modifiers"])
        faces = [merida_luck.crt_value(data["column"], f, modifier) for f in range(1, 7)]
        sign = 1 if data["side"] == "republican" else -1
        produced = sign * faces[data["die"]["value"] - 1]
        expected = sign * Fraction(sum(faces), 6)
        row = measured[data["die"]["index"]]
        assert row["outcome"] == produced
        assert row["expected"] == pytest.approx(float(expected))
        assert row["purpose"] == "combat" and row["die"] == data["die"]["value"]
        total += produced - expected
    assert mine["figure"] == pytest.approx(float(total))
    assert mine["unit"] == "units of losses"
    assert 0 < mine["p_at_least"] <= 1
    assert "Republican dice were" in mine["words"]
    # the story in words, turn by turn, and the moments
    assert body["timeline"] and all(i["text"] and i["turn"] >= 1 for i in body["timeline"])
    assert all(m["kind"] in ("losses", "vp", "luck") for m in body["moments"])
    # each side's rolls come a page at a time, by the die's index; the figure counts them all
    paged, after = [], -1
    while after is not None:
        page = review(api, merida, "alice", rolls_limit=1, rolls_after=after).get_json()
        assert len(page["luck"]["republican"]["rolls"]) <= 1
        assert page["luck"]["republican"]["figure"] == mine["figure"]
        paged += page["luck"]["republican"]["rolls"]
        after = page["luck"]["republican"]["rolls_next_after"]
    assert paged == mine["rolls"] and len(paged) >= 2
    bob = review(api, merida, "bob").get_json()
    assert list(bob["luck"]) == ["nationalist"]
    assert bob["luck"]["nationalist"]["figure"] == pytest.approx(-mine["figure"])


def after_the_end_every_reader_sees_every_side_and_the_report(api: ApiHelper, merida: str) -> None:
    r = api.client.post(f"/api/games/{merida}/resign", json={}, headers=api.user("bob"))
    assert r.status_code == 200, r.get_json()
    api.work()
    body = review(api, merida, "alice").get_json()
    assert set(body["luck"]) == {"republican", "nationalist"}
    assert body["status"] == "ended" and body["result"]["winner"] == "republican"
    referee = api.client.get(f"/api/games/{merida}/review", headers=api.reader(None)).get_json()
    assert set(referee["luck"]) == {"republican", "nationalist"}
    page = api.client.get(f"/api/games/{merida}/report.html", headers=api.user("alice"))
    assert page.status_code == 200 and page.mimetype == "text/html"
    text = page.get_data(as_text=True)
    assert "<script" not in text.lower()
    assert "<svg" in text, text[:3000]
    assert "Republican (alice) won" in text, text[:1500]
    assert "re-derived from the revealed seed and matched" in text
    md = api.client.get(f"/api/games/{merida}/report.md", headers=api.user("bob"))
    assert md.status_code == 200 and md.mimetype == "text/markdown"
    assert md.get_data(as_text=True).startswith("# After-action report")
    # the profile shows luck across the player's ended games
    prof = api.client.get("/api/users/alice/profile", headers=api.user("alice")).get_json()
    luck = prof["luck"]
    assert [g["game"] for g in luck["games"]] == [merida]
    assert luck["games"][0]["figure"] == pytest.approx(body["luck"]["republican"]["figure"])
    assert luck["totals"][0]["unit"] == "units of losses"


def a_reader_who_plays_no_side_sees_no_luck_during_the_game(api: ApiHelper, merida: str) -> None:
    body = api.client.get(f"/api/games/{merida}/review", headers=api.reader(None)).get_json()
    assert body["luck"] == {}
    assert body["timeline"]  # the story is the log's, as the game page shows it


def test_a_game_the_caller_may_not_read_is_404_and_bad_input_is_400(
    api: ApiHelper, client: FlaskClient
) -> None:
    gid = new_game(api, "merida", "merida-1938", {"republican": "alice", "nationalist": "bob"})
    for path in ("review", "report.html", "report.md"):
        assert client.get(f"/api/games/{gid}/{path}").status_code == 404
        assert client.get(f"/api/games/{gid}/{path}", headers=api.user("eve")).status_code == 404
    assert client.get("/api/games/not-a-game/review", headers=api.user("alice")).status_code == 404
    for params, field in (
        ({"limit": 0}, "limit"),
        ({"limit": 9999}, "limit"),
        ({"after": -1}, "after"),
        ({"rolls_limit": 0}, "rolls_limit"),
        ({"rolls_limit": 501}, "rolls_limit"),
    ):
        r = review(api, gid, "alice", **params)
        assert r.status_code in (400, 422), r.get_json()
        assert field in str(r.get_json()), r.get_json()
    r = review(api, gid, "alice", side="nationalist")  # not alice's side during the game
    assert r.status_code == 403 and "side" in str(r.get_json())


def test_backbone_review_measures_steps_of_losses(api: ApiHelper) -> None:
    sides = {"allied": "carol", "spanish": "dave"}
    gid = game_in_play(api, "backbone", "scenario-1", sides, combats=1, limit=300)
    api.work()
    body = review(api, gid, "carol").get_json()
    assert body["status"] == "active", body["status"]  # the fog below is the game in progress's
    # Backbone hides information (limited intelligence, 19): during the game the story is the log
    # exactly as the game page words it for this player, and the chart shows their side only
    shown = api.events(gid, "carol", limit=200)  # the review's first page of the log
    assert [i["text"] for i in body["timeline"]] == [
        e["text"] for e in shown if e.get("text") and not e.get("retracted")
    ]
    assert body["chart"]["sides"] == ["allied"]
    assert all(set(p["sides"]) <= {"allied"} for p in body["chart"]["turns"])
    allied = body["luck"]["allied"]
    measured = [r for r in allied["rolls"] if r["outcome"] is not None]
    events = svc(api).store.events.get(svc(api).games.get(gid).id)
    combats = [e for e in events if type(e).__name__ == "Recorded" and e.kind == "CombatResolved"]
    if not combats:
        pytest.skip("no combat was fought in the random game")
    assert measured and allied["unit"] == "steps of losses"
    for event in combats:
        row = next(r for r in measured if r["index"] == event.data["die"]["index"])
        column, net = event.data["odds"]["column"], event.data["net_drm"]
        printed = [backbone_luck.crt_value(column, f, net) for f in range(1, 7)]
        # the printed value, or less where a side had too few steps (16.6)
        assert abs(row["outcome"]) <= max(abs(v) for v in printed) + 4


def test_bizkaya_rolls_name_units_by_their_printed_names(api: ApiHelper) -> None:
    """A roll's purpose is recorded with unit ids ("morale check of n-2-i-navarra (13)"): the
    review shows the unit's printed name, never its id; each combat die is measured."""
    sides = {"nationalist": "nina", "republican": "ramon"}
    gid = new_game(api, "bizkaya", "bizkaya-1937", sides)
    ids = set(svc(api).games.get(gid).state["units"])

    def named_a_unit() -> bool:
        raw = [r["purpose"] for r in svc(api).reviews.view.rolls(gid)]
        return any(t in ids for p in raw for t in re.findall(r"[\w.:-]+", p))

    # the dice differ from game to game: play on until a roll's purpose names a unit (a morale
    # check of a unit in combat, 13), at most thirty combats (CI once met ten without one)
    for combats in range(2, 31, 2):
        play_until_combat(api, gid, sides, combats=combats, limit=300)
        api.work()
        if named_a_unit():
            break
    r = api.client.post(f"/api/games/{gid}/resign", json={}, headers=api.user("ramon"))
    assert r.status_code == 200, r.get_json()
    api.work()
    body = review(api, gid, "nina").get_json()
    rolls = [r for side in body["luck"].values() for r in side["rolls"]]
    raw = [r["purpose"] for r in svc(api).reviews.view.rolls(gid)]
    assert any(t in ids for p in raw for t in re.findall(r"[\w.:-]+", p)), raw  # ids recorded
    for roll in rolls:
        assert not any(token in ids for token in re.findall(r"[\w.:-]+", roll["purpose"])), roll
    combat = [r for r in rolls if r["purpose"].startswith("combat (13)")]
    if combat:
        assert all(r["outcome"] is not None for r in combat)
        assert body["luck"]["nationalist"]["unit"] == "steps of losses"


def test_a_system_without_the_review_capability_reports_its_dice_as_rolled(
    api: ApiHelper,
) -> None:
    """The skirmish fixture declares no ``review``: its combat dice are listed with their
    distribution only, and the figure says so."""
    sides = {"red": "alice", "blue": "bob"}
    gid = new_game(api, "skirmish", "meeting", sides)
    # Red moves 2nd Foot up the road next to the Blue Line, ends movement and attacks
    move = {"type": "move", "unit": "r2", "path": ["D3", "D4", "D5", "D6"]}
    assert api.command(gid, "alice", move).status_code == 201
    assert api.command(gid, "alice", {"type": "end_phase"}).status_code == 201
    attack = every(api.template(gid, "alice", "attack"))
    assert api.command(gid, "alice", attack).status_code == 201
    api.work()
    body = review(api, gid, "alice").get_json()
    rolls = body["luck"]["red"]["rolls"]
    assert rolls, "the skirmish rolled no die"
    assert all(r["outcome"] is None and r["expected"] is None for r in rolls)
    assert body["luck"]["red"]["measured"] == 0 and body["luck"]["red"]["figure"] == 0
    assert body["luck"]["red"]["words"].startswith("No Red roll had a value")


def test_a_combat_retracted_by_a_verdict_is_unmeasured_and_its_redecision_measured_again(
    app: Flask, api: ApiHelper
) -> None:
    """A 2-1 attack on a defender that moved strategically (rule 8: +2), disputed under rule 5's
    reading (-2).  Overturned by a rebase under the claim, the combat is re-decided with the same
    die (``DiceReused``): the review measures it again on the new modifier.  Overturned by a
    rewind, the attack no longer stands: its die is reported with its distribution only."""
    from tests.e2e.test_dispute_what_if import (
        RULE_5,
        duel_state,
        fought,
        open_dispute,
        resolve,
    )
    from tests.e2e.test_dispute_what_if import start as start_duel

    def combat_roll(gid: str) -> dict[str, Any]:
        api.work()
        body = review(api, gid, "franco").get_json()
        [roll] = [r for r in body["luck"]["nationalist"]["rolls"] if r["purpose"] == "combat"]
        return dict(roll)

    gid = start_duel(app, api, duel_state())
    combat = fought(api, gid)
    die = combat["payload"]["data"]["die"]["value"]
    first = combat_roll(gid)
    faces = [merida_luck.crt_value("2-1", f, 2) for f in range(1, 7)]
    assert first["outcome"] == faces[die - 1]  # rule 8's +2
    d = open_dispute(api, gid, combat["seq"], reading={"strategic_modifier": -2})
    d = d.get_json()["dispute"]
    rebased = resolve(
        api,
        gid,
        d,
        verdict="overturned",
        remedy="rebase",
        citations=[RULE_5],
        reading={"strategic_modifier": -2},
    )
    assert rebased.status_code == 201, rebased.get_json()
    again = combat_roll(gid)
    faces = [merida_luck.crt_value("2-1", f, -2) for f in range(1, 7)]
    assert again["die"] == die and again["outcome"] == faces[die - 1]  # rule 5's -2
    assert again["expected"] == pytest.approx(sum(faces) / 6)

    gid = start_duel(app, api, duel_state())
    combat = fought(api, gid)
    assert combat_roll(gid)["outcome"] is not None
    d = open_dispute(api, gid, combat["seq"]).get_json()["dispute"]
    rewound = resolve(api, gid, d, verdict="overturned", remedy="rewind", citations=[RULE_5])
    assert rewound.status_code == 201, rewound.get_json()
    gone = combat_roll(gid)
    assert gone["outcome"] is None and gone["expected"] is None


def test_a_game_resigned_right_after_a_roll_counts_every_roll_of_the_dice_log(
    api: ApiHelper,
) -> None:
    """Issue 47: "Every roll the dice log proves belongs in the luck, resolved or not" -- a game
    played on right after a combat roll (rule 8: "roll one die") and resigned there, read before
    the worker brings the reviews view on: each side's luck counts every combat roll of the dice
    log, that last one too, lists every roll either side made, and is what the view gives once
    it has caught up."""
    sides = {"republican": "alice", "nationalist": "bob"}
    merida = game_in_play(api, "merida", "merida-1938", sides, combats=1, limit=400)
    api.work()  # the view holds the game up to its first combat
    play_until_combat(api, merida, sides, combats=2)
    r = api.client.post(f"/api/games/{merida}/resign", json={}, headers=api.user("bob"))
    assert r.status_code == 200, r.get_json()
    game = svc(api).games.get(merida)
    stored = list(svc(api).store.events.get(game.id))
    rolled = sorted(r["index"] for e in stored if type(e).__name__ == "DiceRolled" for r in e.rolls)
    combat = [
        e.data["die"]["index"]
        for e in stored
        if type(e).__name__ == "Recorded"
        and e.kind == "CombatResolved"
        and isinstance(e.data.get("die"), dict)
    ]
    assert len(combat) == 2 and combat[-1] == max(rolled)  # the last roll: the last combat's
    lagging = review(api, merida, "alice").get_json()
    for body in (lagging, (api.work(), review(api, merida, "alice").get_json())[1]):
        listed: set[int] = set()
        for side in ("republican", "nationalist"):
            rows = body["luck"][side]["rolls"]
            listed |= {r["index"] for r in rows}
            measured = {r["index"] for r in rows if r["outcome"] is not None}
            assert measured == set(combat), side
            assert body["luck"][side]["measured"] == len(combat), side
        assert sorted(listed) == rolled
    assert lagging["luck"] == body["luck"]
