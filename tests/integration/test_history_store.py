"""The history benchmark's stores (``bench/history.py``): a copied game reads back through the app as
the game it copies, bound to its own players, and its notices are theirs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

from bench import history
from service.app import create_app
from service.config import Config

TINY = history.Recipe(
    users=12,
    club_members=6,
    ladder_players=4,
    ladder_results=3,
    seeks=2,
    goldens=("barcelona-seed1", "backbone-seed1"),
    unfinished=(("barcelona", 5),),
)
SAME = ("system", "scenario", "version", "status", "result", "state", "labels")


def signed_in(client: FlaskClient, name: str) -> dict[str, str]:
    answer = client.post("/api/tokens", json={"username": name, "password": history.PASSWORD})
    assert answer.status_code == 201, answer.get_json()
    return {"Authorization": f"Bearer {answer.get_json()['token']}"}


def test_copied_games_read_back_as_the_games_they_copy(tmp_path: Path) -> None:
    store = history.build(20, recipe=TINY, cache=tmp_path / "cache", progress=lambda _: None)
    assert history.build(20, recipe=TINY, cache=tmp_path / "cache") == store  # cached
    meta = history.meta_of(store)
    assert (meta["games"], meta["copied"]) == (20, 17)
    names = {uid: name for name, uid in meta["users"].items()}
    played = {g["id"]: g for g in meta["played"]}
    root = history.copy_to(store, tmp_path / "served")
    app = create_app(Config.from_env(history.env_for(root)))
    try:
        client = app.test_client()
        seen = set()
        for copy, (original, *players) in meta["copies"].items():
            if original in seen:
                continue
            seen.add(original)
            mine = signed_in(client, names[played[original]["players"][0]])
            theirs = signed_in(client, names[players[0]])
            before = client.get(f"/api/games/{original}", headers=mine)
            after = client.get(f"/api/games/{copy}", headers=theirs)
            assert (before.status_code, after.status_code) == (200, 200)
            a, b = before.get_json(), after.get_json()
            assert {k: b[k] for k in SAME} == {k: a[k] for k in SAME}
            assert b["id"] == copy
            assert sorted(b["sides"].values()) == sorted(names[p] for p in players)
            listed = client.get("/api/games?mine=true", headers=theirs).get_json()
            assert copy in [row["id"] for row in listed]
            notices: Any = client.get("/api/me/notifications?limit=500", headers=theirs)
            assert copy in {n["game"] for n in notices.get_json()["notifications"]}
        assert seen == set(played)
    finally:
        app.extensions["arbiter"].close()
