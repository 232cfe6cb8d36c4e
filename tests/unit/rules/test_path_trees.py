"""Issue 29: the actions a phone parses at once.  A path choice whose paths form a tree is sent as
the tree (``GET …/actions?paths=tree``): every path once, instead of every path from its start.
Read back (as web/static/js/actions.js reads it) it is the same options and labels; a choice
that is not such a tree stays a list.  Merida's movement phase fits in under 100 KB."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bench.bench_actions import SEED, _walk, states
from service.fuzz.player import SeededDice
from service.rules.actions import one_of, path_tree
from service.rules.merida import SYSTEM

#: the size a side's action list must stay under, before compression (issue 29)
LIMIT = 100_000


def read_tree(paths: dict[str, Any]) -> tuple[list[list[str]], list[str]]:
    """The tree form read back, as the page's actions.js reads it (written again here)."""
    options: list[list[str]] = []
    parent: list[str] = []
    last: list[str] = []
    token = ""
    for ch in paths["tree"] + " ":
        if ch in "() ":
            if token:
                through = token.startswith("~")
                last = [*parent, token.removeprefix("~")]
                if len(last) > 1 and not through:
                    options.append(last)
                token = ""
            if ch == "(":
                parent = last
            elif ch == ")":
                parent = parent[:-1]
        else:
            token += ch
    named = paths.get("named", {})
    return options, [named.get(p[-1], p[-1]) for p in options]


def test_a_tree_of_paths_reads_back_as_its_options_and_labels() -> None:
    options = [["A1", "B1"], ["A1", "B1", "C1"], ["A1", "B1", "C2"], ["A1", "B2"]]
    labels = ["B1", "Town (C1)", "C2", "B2"]
    tree = path_tree(options, labels)
    assert tree == {"tree": "A1(B1(C1 C2) B2)", "named": {"C1": "Town (C1)"}}
    assert read_tree(tree) == (options, labels)


def test_a_hex_crossed_where_no_path_ends_is_in_the_tree_but_no_option() -> None:
    options = [["A1", "B1", "C1"], ["A1", "B2"]]  # B1 is crossed (a stack there is full)
    tree = path_tree(options, ["C1", "B2"])
    assert tree == {"tree": "A1(~B1(C1) B2)", "named": {}}  # children in hex order
    assert read_tree(tree) == ([["A1", "B1", "C1"], ["A1", "B2"]], ["C1", "B2"])


@pytest.mark.parametrize(
    "options",
    [
        [["A1", "B1"], ["A2", "B2"]],  # two starts
        [["A1", "B1"], ["A1", "C1", "B1"], ["A1", "C1"]],  # B1 reached two ways
        [["A 1", "B1"]],  # a hex that would break the writing
        [["A1", "~B1"]],
        [["A1"]],  # a path of one hex
    ],
)
def test_paths_that_are_no_such_tree_stay_a_list(options: list[list[str]]) -> None:
    assert path_tree(options, ["x"] * len(options)) is None
    choice = one_of(options)
    assert "one_of" in choice.as_dict("path", compact=True)


def _walked(steps: int) -> Any:
    """The largest action list of a seeded walk of Merida (``bench actions``'s per system)."""

    rng = random.Random(SEED)
    dice = SeededDice(rng)
    scenario = SYSTEM.scenarios()[0].id
    state = SYSTEM.initial_state(scenario, SYSTEM.default_options(scenario))
    largest: tuple[int, Any] = (0, state)
    for _ in range(steps):
        side = SYSTEM.active_sides(state)[0]
        actions = SYSTEM.actions(state, side)
        size = len(json.dumps(actions.as_dict(compact=True)))
        largest = max(largest, (size, state), key=lambda x: x[0])
        state = _walk(SYSTEM, state, side, actions, rng, dice)
    return largest[1]


@pytest.mark.parametrize("moment", ["turn 1", "turn 3", "walk"])
def test_merida_movement_lists_under_100_kb_as_trees_and_read_back_the_same(moment: str) -> None:
    state = _walked(40) if moment == "walk" else states()[moment]
    side = SYSTEM.active_sides(state)[0]
    actions = SYSTEM.actions(state, side)
    listed, compact = actions.as_dict(), actions.as_dict(compact=True)
    size = len(json.dumps(compact))
    assert size < LIMIT, f"{moment}: {size} bytes"
    assert len(json.dumps(listed)) > 4 * size  # the list form it replaces
    trees = 0
    for plain, small in zip(listed["actions"], compact["actions"], strict=True):
        for name, choice in plain["choose"].items():
            sent = small["choose"][name]
            if "paths" in sent:
                trees += 1
                options, labels = read_tree(sent["paths"])
                order = sorted(range(len(options)), key=lambda i: options[i])
                back = sorted(zip(choice["one_of"], choice["labels"], strict=True))
                assert [(options[i], labels[i]) for i in order] == back
            else:
                assert sent == choice
    assert trees > 20
