"""What a game's state is made of, shared by the aggregate (``service.domain.game``) and the pure
modules it delegates to: the statuses of a game, a fast copy of its JSON data, and the shape of
the events a command decides.

A command of :class:`~service.domain.game.Game` asks one of those modules for its events: a
generator that checks the command (raising a domain error), then yields each event to record, as
its class and its fields; the game records and applies each before the generator goes on, so each
is decided on the game as the ones before it left it (as the game's own methods did)."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from service.domain.chain import GENESIS
from service.domain.dice import commitment

if TYPE_CHECKING:
    from service.domain.game import Game

    #: one event a command decides: its class (one of the game's) and its fields
    Step = tuple[type[Game.Event], dict[str, Any]]

T = TypeVar("T")
#: the events a command decides, in order, and what the command returns
Steps = Generator["Step", None, T]

ACTIVE = "active"
ENDED = "ended"
INVITED = "invited"  # waiting for every named player to accept (service/application/lifecycle.py)
DECLINED = "declined"  # a named player said no: never started, no result

_SCALARS = frozenset({str, int, float, bool, type(None)})


def copy_json(value: Any) -> Any:
    """A fast deep copy of JSON-compatible data (every dict and list copied, never shared; any
    other value kept as it is).  Plain dicts and lists are told by their exact type and scalars are
    taken without a call: twice as fast as the plain recursion, on every command's copies."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _SCALARS else copy_json(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _SCALARS else copy_json(v) for v in value]
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


def created_payload(
    system: str,
    scenario: str,
    options: Mapping[str, Any],
    sides: Mapping[str, str],
    created_by: str,
    seed: str,
    initial_state: dict[str, Any],
    labels: Mapping[str, Any] | None,
    names: Mapping[str, str] | None,
) -> dict[str, Any]:
    """The fields of a new game's ``Game.Created`` (but its seal's): the seed only by its
    commitment, every value copied."""
    return {
        "system": system,
        "scenario": scenario,
        "options": copy_json(dict(options)),
        "sides": dict(sides),
        "created_by": created_by,
        "seed_commitment": commitment(seed),
        "initial_state": copy_json(initial_state),
        "labels": copy_json(dict(labels or {})),
        "names": dict(names or {}),
        "prev_hash": GENESIS,
    }


def created_attributes(created: Game.Created) -> dict[str, Any]:
    """A game's attributes as its ``Game.Created`` sets them, in this order.  Their names are
    stored (a snapshot holds the attributes by name: see ``Game.upcast_v1_v2``)."""
    return {
        "system": created.system,
        "scenario": created.scenario,
        "options": copy_json(created.options),
        "sides": dict(created.sides),
        "created_by": created.created_by,
        "seed_commitment": created.seed_commitment,
        "labels": copy_json(created.labels),
        "state": copy_json(created.initial_state),
        "status": ACTIVE,
        "result": None,
        "seed": None,
        "entropy": [],
        "rolled_sides": [],
        "next_roll": 0,
        "last_hash": GENESIS,
        "moves": 0,
        "retracted": [],
        "tail": {"side": None, "commands": [], "cut": None},
        "takeback": None,
        "disputes": {},
        "bookkeeping": [],
        "invitation": None,
        "draw_offer": None,
        "clock": None,
        "claim_pending": None,
    }
