"""The rules events of Back to Barcelona, each declared once on its ``apply`` (the pure application
of the recorded facts: no validation, no dice) with the sheet's headings that govern it, its words,
its facts, what the other side may see of it (written orders stay hidden) and whether it reveals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.rules.barcelona import words as w
from service.rules.base import State
from service.rules.declare import Events, Words

EVENTS = Events("barcelona")
SEQ = "SEQUENCE OF PLAY"
PER_TURN = {
    "moved": False,
    "activated": False,
    "advanced": False,
    "rolled": None,
    "casualties": 0,
    "cavalry_contact": False,
}


def handles(
    event_type: str,
    sections: Sequence[str],
    topics: Sequence[str],
    words: Words,
    facts: Any = None,
    **more: Any,
) -> Any:
    """Declare one event type (see :meth:`Events.event`)."""
    return EVENTS.event(
        event_type, sections=sections, topics=topics, words=words, facts=facts, **more
    )


def hide_orders(data: dict[str, Any], before: State, side: str | None) -> dict[str, Any]:
    """SEQUENCE OF PLAY: the other side (and the public) learn only how many orders were written."""
    if data["side"] == side:
        return data
    return {"side": data["side"], "units": len(data["orders"]), "hidden": True}


def _other(state: State, side: str) -> str:
    a, b = state["sides"]
    return b if side == a else a


def remove(state: State, uid: str) -> None:
    """A unit leaves the table; what it carried or towed is set down where it was."""
    u = state["units"][uid]
    u["status"] = "removed"
    for key in ("carrying", "towing"):
        if u.get(key):
            freed = state["units"][u[key]]
            freed.update(status="table", x=u["x"], y=u["y"], carried_by=None)
            u[key] = None
    if state.get("moving") == uid:
        state["moving"] = None


def casualties(state: State, uid: str, n: int, source: str | None) -> None:
    u = state["units"][uid]
    n = min(n, u["figures"])
    if n <= 0:
        return
    u["figures"] -= n
    u["casualties"] += n
    if source and source not in u["sources"]:
        u["sources"].append(source)
    if u["figures"] == 0:
        remove(state, uid)


def _losses(state: State, data: dict[str, Any]) -> None:
    for uid, n in data.get("casualties", {}).items():
        casualties(state, uid, n, data.get("source"))
    for uid in data.get("ko", []):
        if state["units"][uid]["status"] == "table":
            state["units"][uid]["figures"] = 0
            remove(state, uid)
    for uid in data.get("removed", []):
        if state["units"][uid]["status"] == "table":
            remove(state, uid)


@handles(
    "ColumnGenerated",
    ("GENERATING A COLUMN", "Troop Type", "AFVs"),
    ("force building", "column"),
    w.column,
    w.column_facts,
)
def _column(state: State, data: dict[str, Any]) -> None:
    for u in data["units"]:
        state["units"][u["id"]] = dict(u)
    state["next_id"][data["side"]] += len(data["units"])
    state["done"][data["side"]] = True


@handles(
    "UnitBought",
    ("Attribute Costs", "Troop Type", "AFVs"),
    ("force building", "points"),
    w.bought,
)
def _bought(state: State, data: dict[str, Any]) -> None:
    state["units"][data["unit"]["id"]] = dict(data["unit"])
    state["next_id"][data["side"]] += 1
    state["budget"][data["side"]] -= data["points"]


@handles(
    "MusterEnded",
    ("Attribute Costs",),
    ("force building",),
    lambda d, n: f"{w.side(d['side'])} ends the muster",
)
def _muster_ended(state: State, data: dict[str, Any]) -> None:
    state["done"][data["side"]] = True


@handles("PhaseBegan", (SEQ,), ("sequence of play",), w.phase)
def _phase(state: State, data: dict[str, Any]) -> None:
    state["phase"] = data["phase"]
    state["step"] = None
    state["done"] = dict(data.get("done", {s: False for s in state["sides"]}))
    if "mover" in data:
        state["mover"] = data["mover"]


@handles("UnitDeployed", (SEQ,), ("deployment",), w.deployed)
def _deployed(state: State, data: dict[str, Any]) -> None:
    u = state["units"][data["unit"]]
    u.update(status="table", x=data["x"], y=data["y"], facing=data["facing"], ranks=data["ranks"])


@handles(
    "UnitReserved",
    (SEQ,),
    ("late arrivals",),
    lambda d, n: f"{n.unit(d['unit'])} is held back to arrive late",
)
def _reserved(state: State, data: dict[str, Any]) -> None:
    state["units"][data["unit"]]["status"] = "reserve"


@handles(
    "DeploymentEnded",
    (SEQ,),
    ("deployment",),
    lambda d, n: f"{w.side(d['side'])} ends the deployment",
)
def _deployment_ended(state: State, data: dict[str, Any]) -> None:
    state["done"][data["side"]] = True
    state["mover"] = _other(state, data["side"])


@handles("TurnBegan", (SEQ,), ("sequence of play",), lambda d, n: f"Turn {d['turn']} begins")
def _turn(state: State, data: dict[str, Any]) -> None:
    state["turn"] = data["turn"]
    state["written"] = {s: {} for s in state["sides"]}
    for u in state["units"].values():
        u.update(PER_TURN)
        u.update(start_figures=u["figures"], fired=[], sources=[], contacted=[])


@handles(
    "OrdersWritten",
    (SEQ,),
    ("orders",),
    w.written,
    w.order_facts,
    visible=hide_orders,
)
def _written(state: State, data: dict[str, Any]) -> None:
    state["written"][data["side"]] = {k: dict(v) for k, v in data["orders"].items()}
    state["done"][data["side"]] = True


@handles(
    "TransmissionRolled",
    (SEQ, "Troop Type"),
    ("orders", "transmission"),
    w.transmitted,
    w.order_facts,
)
def _transmitted(state: State, data: dict[str, Any]) -> None:
    for r in data["results"]:
        if r["arrived"]:
            order = dict(state["written"][r["side"]][r["unit"]])
            order.update(turn=state["turn"], revealed=False)
            state["orders"][r["side"]][r["unit"]] = order


@handles("LateArrivalsRolled", (SEQ,), ("late arrivals",), w.late)
def _late(state: State, data: dict[str, Any]) -> None:
    for r in data["results"]:
        if r["arrived"]:
            u = state["units"][r["unit"]]
            u.update(status="table", x=r["x"], y=r["y"], facing=r["facing"])


@handles("MovementRolled", ("MOVEMENT", "AFVs"), ("movement",), w.rolled, w.move_facts)
def _rolled(state: State, data: dict[str, Any]) -> None:
    state["units"][data["unit"]]["rolled"] = {
        "distance": data["distance"],
        "going": data["going"],
        "actions": dict(data["actions"]),
    }
    state["moving"] = data["unit"]


def _next_mover(state: State, side: str) -> None:
    other = _other(state, side)
    state["mover"] = other if not state["done"].get(other) else side


@handles("UnitMoved", ("MOVEMENT", "MORALE"), ("movement", "contact"), w.moved, w.move_facts)
def _moved(state: State, data: dict[str, Any]) -> None:
    u = state["units"][data["unit"]]
    end = data["path"][-1] if data["path"] else [u["x"], u["y"]]
    moved = data["length"] > 0
    u.update(x=end[0], y=end[1], activated=True, rolled=None, advanced=data["advanced"])
    u["facing"] = data.get("facing", u["facing"])
    if moved:
        u.update(moved=True, set_up=False)
    u["contacted"] = sorted(set(u["contacted"]) | set(data["contacts"]))
    actions = data.get("actions", {})
    if actions.get("load"):
        p = state["units"][actions["load"]]
        p.update(status="carried", carried_by=u["id"], activated=True, moved=True)
        u["carrying"] = p["id"]
    if actions.get("limber"):
        g = state["units"][actions["limber"]]
        g.update(status="towed", carried_by=u["id"], activated=True, moved=True, set_up=False)
        u["towing"] = g["id"]
    for key in ("carrying", "towing"):
        if u.get(key):
            state["units"][u[key]].update(x=end[0], y=end[1], moved=True, activated=True)
    if actions.get("unload") and u.get("carrying"):
        state["units"][u["carrying"]].update(status="table", carried_by=None)
        u["carrying"] = None
    if actions.get("unlimber") and u.get("towing"):
        state["units"][u["towing"]].update(status="table", carried_by=None, set_up=False)
        u["towing"] = None
    for uid in data.get("cavalry_contacts", []):
        state["units"][uid]["cavalry_contact"] = True
    for uid in data.get("removed", []):
        remove(state, uid)
    state["moving"] = None
    _next_mover(state, u["side"])


@handles(
    "UnitHeld",
    (SEQ, "MOVEMENT"),
    ("movement",),
    lambda d, n: f"{n.unit(d['unit'])} holds its ground",
)
def _held(state: State, data: dict[str, Any]) -> None:
    u = state["units"][data["unit"]]
    u["activated"] = True
    _next_mover(state, u["side"])


@handles(
    "MovementEnded",
    (SEQ,),
    ("movement",),
    lambda d, n: f"{w.side(d['side'])} has no more moves",
)
def _movement_ended(state: State, data: dict[str, Any]) -> None:
    state["done"][data["side"]] = True
    if state["mover"] == data["side"]:
        state["mover"] = _other(state, data["side"])


@handles("StepBegan", (SEQ, "SHOOTING"), ("shooting",), w.step)
def _step(state: State, data: dict[str, Any]) -> None:
    state["step"] = data["step"]
    state["done"] = dict(data["done"])
    for u in state["units"].values():
        u["step_figures"] = u["figures"] if u["status"] == "table" else 0


@handles(
    "ShotResolved",
    ("SHOOTING", "WEAPONS LIST", "AFVs"),
    ("shooting", "artillery"),
    w.shot,
    w.shot_facts,
)
def _shot(state: State, data: dict[str, Any]) -> None:
    state["units"][data["unit"]]["fired"].append(data["weapon"])
    _losses(state, data)


@handles(
    "StepEnded",
    (SEQ, "SHOOTING"),
    ("shooting",),
    lambda d, n: f"{w.side(d['side'])} has finished shooting in this step",
)
def _step_ended(state: State, data: dict[str, Any]) -> None:
    state["done"][data["side"]] = True


@handles(
    "CloseCombatResolved",
    ("CLOSE COMBAT", "SHOOTING", "MORALE"),
    ("close combat", "melee"),
    w.close_combat,
    w.close_combat_facts,
)
def _close_combat(state: State, data: dict[str, Any]) -> None:
    for uid in data["removed"]:
        if state["units"][uid]["status"] == "table":
            remove(state, uid)
    if data.get("shooting"):
        _losses(state, data["shooting"])
    for uid, n in data.get("casualties", {}).items():
        casualties(state, uid, n, None)


@handles("MoraleTested", ("MORALE", "Troop Type"), ("morale",), w.morale, w.morale_facts)
def _morale(state: State, data: dict[str, Any]) -> None:
    u = state["units"][data["unit"]]
    u["failures"] = data["failures"]
    u["tested"] = sorted(set(u["tested"]) | set(data["first"]))
    if data["removed"]:
        remove(state, u["id"])


@handles("Rallied", (SEQ, "MORALE"), ("morale", "rally"), w.rallied)
def _rallied(state: State, data: dict[str, Any]) -> None:
    state["units"][data["unit"]]["failures"] = data["failures"]


@handles("TurnEnded", (SEQ,), ("sequence of play",), lambda d, n: f"Turn {d['turn']} ends")
def _turn_ended(state: State, data: dict[str, Any]) -> None:
    for u in state["units"].values():
        if u["status"] == "table" and not u["moved"]:
            u["set_up"] = True


@handles("OrdersRevealed", (SEQ,), ("orders",), w.revealed, w.order_facts, reveals=True)
def _revealed(state: State, data: dict[str, Any]) -> None:
    for side_orders in state["orders"].values():
        for order in side_orders.values():
            order["revealed"] = True
    state["revealed"].append({"turn": data["turn"], "orders": data["orders"]})


@handles("GameEnded", (SEQ,), ("victory",), w.ended)
def _ended(state: State, data: dict[str, Any]) -> None:
    state["phase"] = "over"
    state["result"] = dict(data)
