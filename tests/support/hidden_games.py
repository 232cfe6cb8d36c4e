"""A game that hides something from one side, played through the HTTP API: Operation Backbone with
limited intelligence (19.2), after both deployments and the start of turn 1."""

from __future__ import annotations

from tests.support.api import ApiHelper

BACKBONE = {"allied": "ike", "spanish": "paco"}


def backbone_hiding_a_unit(api: ApiHelper) -> tuple[str, str]:
    """The game's id and a Spanish unit hidden from the Allied player (under the top of its stack
    at Larache, 8,2), in a public game."""
    game = api.create_game(  # public: what a spectator and a visitor read is checked too
        "backbone", "scenario-1", BACKBONE, {"limited_intelligence": True}, public=True
    )
    gid = game["id"]
    for user, command in (
        ("paco", {"type": "deploy", "fortifications": []}),
        ("ike", {"type": "deploy"}),
        ("ike", {"type": "begin_turn"}),
    ):
        assert api.command(gid, user, command).status_code == 201
    units = api.game(gid, "paco")["state"]["units"]
    stack = sorted((u for u in units.values() if u["hex"] == "8,2"), key=lambda u: u["seq"])
    return gid, stack[0]["id"]
