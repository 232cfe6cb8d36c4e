"""``GET /api/games/<id>/actions?paths=tree`` (issue 29): a unit's paths come as one tree that
reads back into the very options and labels of the default list; a bad ``paths`` is a 400."""

from __future__ import annotations

from flask import Flask

from tests.support.api import ApiHelper
from tests.support.boards import start_on_board
from tests.unit.rules.merida.conftest import board_state, unit
from tests.unit.rules.test_path_trees import read_tree

SIDES = {"nationalist": "franco", "republican": "rojo"}


def test_the_moves_as_trees_read_back_as_the_lists(app: Flask, api: ApiHelper) -> None:
    for name in SIDES.values():
        api.user(name)
    state = board_state(
        [
            unit("a", "nationalist", "infantry", 3, "E4"),
            unit("l", "nationalist", "leader", 0, "E3"),
            unit("d", "republican", "infantry", 3, "H9"),
        ]
    )
    gid = start_on_board(app.extensions["arbiter"], state, SIDES, title="Trees")
    url = f"/api/games/{gid}/actions"
    listed = api.client.get(url, headers=api.user("franco")).get_json()
    trees = api.client.get(url, query_string={"paths": "tree"}, headers=api.user("franco"))
    assert trees.status_code == 200, trees.get_json()
    compact = trees.get_json()
    moves = 0
    for plain, small in zip(listed["actions"], compact["actions"], strict=True):
        for name, choice in plain["choose"].items():
            sent = small["choose"][name]
            if "paths" not in sent:
                assert sent == choice
                continue
            moves += 1
            options, labels = read_tree(sent["paths"])
            back = sorted(zip(choice["one_of"], choice["labels"], strict=True))
            assert sorted(zip(options, labels, strict=True)) == back
    assert moves >= 2  # each unit's moves came as a tree
    bad = api.client.get(url, query_string={"paths": "graph"}, headers=api.user("franco"))
    assert bad.status_code == 400 and "paths" in bad.get_json()["details"]
