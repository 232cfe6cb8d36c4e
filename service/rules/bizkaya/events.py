"""The declared events of Bizkaya: each type's pure application, beside its words (printed names),
its facts for the knowledge base and the sections and topics that govern it.

``apply`` never judges: every consequence a rule draws from an event -- the echelons that move up
(4), euphoria lost and the lowest MP marker when stacks regroup (6, 13), trench markers abandoned or
taken (9), the fall of Bilbao (15), a leader following its stack (8) -- is decided in ``decide``
and recorded (``regroup`` records, ``EchelonsSettled``, ``LeaderRejoined``).  :func:`emit` records
an event and then those settlements, so every decision goes through it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from service.rules.base import State
from service.rules.bizkaya import board
from service.rules.declare import Emitter, Events, Names

EVENTS = Events("bizkaya")
Data = dict[str, Any]


def emitter(state: State) -> Emitter:
    return EVENTS.emitter(state)


def emit(em: Emitter, kind: str, data: Data) -> None:
    """Record an event, then what rules 8 and 4 settle after it: a leader whose unit left the map
    joins a stack-mate, and second echelons at least as numerous as the first move up."""
    where = _leader_hexes(em.state, kind, data)
    em.emit(kind, data)
    for rejoin in leaders_rejoining(em.state, where):
        em.emit("LeaderRejoined", rejoin)
    moving = echelons_to_settle(em.state)
    if moving:
        em.emit("EchelonsSettled", {"units": moving})


def _leader_hexes(state: State, kind: str, data: Data) -> dict[str, str | None]:
    """Where each leader's unit stands after ``data`` moved it (a unit that retreated and then
    died did so at the end of its path)."""
    ends = (
        {u: m["path"][-1] for m in data["moves"] for u in m["units"]}
        if kind == "UnitsRetreated"
        else {}
    )
    out: dict[str, str | None] = {}
    for lid, leader in state["leaders"].items():
        uid = leader["unit"]
        out[lid] = ends.get(uid, state["units"][uid]["hex"]) if uid else None
    return out


def leaders_rejoining(state: State, where: dict[str, str | None]) -> list[Data]:
    """8: a leader is never eliminated: when its unit leaves the map it stays with the stack (the
    first unit of it by id), or waits to be placed again when none is left."""
    out = []
    for lid, leader in sorted(state["leaders"].items()):
        uid = leader["unit"]
        if uid is None or state["units"][uid]["status"] == "map":
            continue
        side = state["units"][uid]["side"]
        hex_ = where[lid]
        mates = sorted(u["id"] for u in board.stack(state, hex_, side)) if hex_ else []
        out.append(
            {
                "leader": lid,
                "name": leader["name"],
                "from": uid,
                "unit": mates[0] if mates else None,
            }
        )
    return out


def echelons_to_settle(state: State) -> list[str]:
    """4: fewer combat units in the second echelon than in the first, or all move up."""
    counts: dict[str, list[int]] = {}
    for u in board.on_map(state):
        if board.is_combat(u):
            counts.setdefault(u["hex"], [0, 0])[u["echelon"] - 1] += 1
    crowded = {h for h, (first, second) in counts.items() if second and second >= first}
    return sorted(
        u["id"]
        for u in board.on_map(state)
        if u["hex"] in crowded and board.is_combat(u) and u["echelon"] == 2
    )


# -- regrouping: decided here, applied by the movement events -----------------------------------


def regroup(state: State, side: str, uids: list[str], path: list[str], cost: int = 0) -> Data:
    """What moving ``uids`` along ``path`` (into ``path[-1]``) settles: 6 euphoria lost when units
    leave a stack or non-euphoric units join one, 9 trench markers whose builder moved or that the
    enemy entered, 13 the lowest MP marker of a new stack (the movers having spent ``cost``), 15 the
    fall of Bilbao."""
    to = path[-1]
    moving = [state["units"][u] for u in uids]
    spent = {u["id"]: (u["mp"] - cost, u["spent"] + cost) for u in moving}
    lost = _euphoria_lost(state, moving, to)
    present = [u for u in board.stack(state, to) if u["id"] not in uids]
    marker = None
    if present:
        markers = [(u["mp"], u["spent"]) for u in present] + list(spent.values())
        marker = {
            "units": sorted(u["id"] for u in present + moving),
            "mp": min(m[0] for m in markers),
            "spent": max(m[1] for m in markers),
        }
    removed = sorted(
        h
        for h, t in state["trenches"].items()
        if (t["status"] == "building" and t["unit"] in uids)
        or (h in path[1:] and t["side"] != side)
    )
    special = state["special"]
    falls = side == "nationalist" and special["bilbao"] in path[1:] and state["bilbao_fell"] is None
    return {
        "euphoria_lost": lost,
        "marker": marker,
        "trenches_removed": removed,
        "bilbao_fell": state["turn"] if falls else None,
    }


def _euphoria_lost(state: State, moving: list[dict[str, Any]], to: str) -> list[str]:
    ids = {u["id"] for u in moving}
    lost: set[str] = set()
    for hex_ in {u["hex"] for u in moving}:
        left = [u for u in board.stack(state, hex_) if u["id"] not in ids]
        if left:
            lost |= {u["id"] for u in left} | {u["id"] for u in moving if u["hex"] == hex_}
    present = [u for u in board.stack(state, to) if u["id"] not in ids]
    if present and not all(u["euphoric"] and u["id"] not in lost for u in present + moving):
        lost |= {u["id"] for u in present + moving}
    return sorted(u for u in lost if state["units"][u]["euphoric"])


def _place(state: State, side: str, uids: list[str], path: list[str], facts: Data) -> None:
    """Units of ``side`` moved along ``path`` (the hexes they entered, the last where they stop),
    with what their regrouping settled (:func:`regroup`)."""
    for uid in facts["euphoria_lost"]:
        state["units"][uid]["euphoric"] = False
    for uid in uids:
        state["units"][uid]["hex"] = path[-1]
    marker = facts["marker"]
    if marker:
        for uid in marker["units"]:
            state["units"][uid].update(mp=marker["mp"], spent=marker["spent"])
    for hex_ in facts["trenches_removed"]:
        state["trenches"].pop(hex_, None)
    for hex_ in path[1:]:
        state["control"][hex_] = side
    if facts["bilbao_fell"] is not None:
        state["bilbao_fell"] = facts["bilbao_fell"]


def retreat_move(state: State, side: str, move: Data) -> None:
    """One recorded retreat move: the units go, regroup as recorded, are demoralized or lose the
    steps recorded for crossing enemy ZoC (5)."""
    _place(state, side, move["units"], move["path"], move["regroup"])
    for uid in move["demoralized"]:
        state["units"][uid]["demoralized"] = True
    _lose(state, move["losses"])


def _eliminate(state: State, uids: Iterable[str], status: str = "eliminated") -> None:
    for uid in uids:
        state["units"][uid].update(status=status, hex=None, reserve=False, euphoric=False)


def _lose(state: State, losses: Iterable[Data]) -> None:
    for loss in losses:
        unit = state["units"][loss["unit"]]
        unit["steps"] = max(0, unit["steps"] - loss["steps"])
        if unit["steps"] == 0:
            _eliminate(state, [unit["id"]])


# -- words and facts ------------------------------------------------------------------------------


def _terrain(state: State, hex_: str) -> list[str]:
    words = [board.terrain(state, hex_)]
    if board.is_city(state, hex_):
        words.append("city")
    words += [p.name for p in board.map_of(state).places_at(hex_)]
    trench = state["trenches"].get(hex_)
    if trench:
        words.append("trench" if trench["status"] == "complete" else "trench marker")
    return words


def _euphoria_facts(record: Data) -> list[str]:
    return ["euphoria lost"] if record["euphoria_lost"] else []


def _moved_facts(d: Data, state: State) -> list[str]:
    facts = [
        f"{d['cost']} movement points",
        f"weather {state['weather']}",
        f"echelon {d['echelon']}",
    ]
    for hex_ in d["path"][1:]:
        facts += _terrain(state, hex_)
    mapdata = board.map_of(state)
    for a, b in zip(d["path"], d["path"][1:], strict=False):
        facts += sorted(mapdata.hexside_features(a, b))
    if any(h in board.zoc_of(state, board.other(d["side"])) for h in d["path"][1:]):
        facts.append("entered enemy zone of control")
    return facts + _euphoria_facts(d["regroup"])


def _barrage_facts(d: Data, state: State) -> list[str]:
    facts = [f"column {d['column']}", f"result {d['result']}", *_terrain(state, d["hex"])]
    facts += [m["cause"] for m in d["modifiers"]]
    if d["air"]:
        facts.append("air modules")
    if any(not c["passed"] for c in d["morale_checks"]):
        facts.append("demoralized")
    return facts


def _combat_facts(d: Data, state: State) -> list[str]:
    facts = [f"odds {d['column']}", f"result {d['result']}", *_terrain(state, d["hex"])]
    facts += [m["cause"] for m in d["modifiers"]]
    if d["shaded"]:
        facts.append("euphoric")
    if d["eliminated"]:
        facts.append("support units eliminated")
    if d["retreat_ignored"]:
        facts.append("fortified")
    return facts


def _retreat_facts(d: Data, state: State) -> list[str]:
    facts = ["retreat"]
    if any(m["zoc"] for m in d["moves"]):
        facts.append("retreat through enemy zone of control")
    if d["eliminated"]:
        facts.append("no retreat possible")
    return facts


def _weather_facts(d: Data, state: State) -> list[str]:
    code = {"M": "improving", "E": "worsening", "NC": "no change"}[d["code"]]
    return [d["previous"], d["weather"], code]


def _fixed(*words: str) -> Any:
    return lambda d, state: list(words)


def _none(items: list[str], n: Names) -> str:
    return n.units(items) if items else "none"


def _phase_words(d: Data, n: Names) -> str:
    impulse = f" impulse {d['impulse']}" if d["impulse"] else ""
    return f"{d['side'].capitalize()} {d['phase']}{impulse}"


def _arrived_words(d: Data, n: Names) -> str:
    arrived = ", ".join(f"{n.unit(i['unit'])} at {n.hex(i['hex'])}" for i in d["units"])
    blocked = f"; {n.units(d['blocked'])} cannot arrive" if d["blocked"] else ""
    return f"{d['side'].capitalize()} reinforcements: {arrived or 'none'}{blocked}"


def _recovery_words(d: Data, n: Names) -> str:
    checks = ", ".join(
        f"{n.unit(c['unit'])} rolls {c['die']['value']} and "
        + ("recovers" if c["passed"] else "stays demoralized")
        for c in d["checks"]
    )
    return f"Recovery: {checks}"


def _barrage_words(d: Data, n: Names) -> str:
    return (
        f"Barrage on {n.hex(d['hex'])}: {d['factors']} factors, column {d['column']}, "
        f"roll {d['die']['value']} modified {d['modified']}: {d['result']}"
    )


def _combat_words(d: Data, n: Names) -> str:
    euphoria = " (euphoria)" if d["shaded"] else ""
    return (
        f"{n.units(d['attackers'])} attack {n.hex(d['hex'])}: {d['attack']} to {d['defence']} "
        f"at {d['column']}, dice {d['dice_total']} modified {d['modified']}: "
        f"{d['result']}{euphoria}; the attacker loses {d['attacker_losses']} steps, "
        f"the defender {d['defender_losses']}"
    )


def _retreat_words(d: Data, n: Names) -> str:
    moves = "; ".join(f"{n.units(m['units'])} retreat {n.path(m['path'])}" for m in d["moves"])
    gone = (
        f"; {n.units(d['eliminated'])} cannot retreat and are eliminated" if d["eliminated"] else ""
    )
    return (moves or "No retreat") + gone


def _victory_words(d: Data, n: Names) -> str:
    bilbao = "taken" if d["bilbao_taken"] else "held"
    limit = ", ".join(n.hex(h) for h in d["limit_reached"]) or "not reached"
    return f"Victory check, turn {d['turn']}: Bilbao {bilbao}, the Santander limit {limit}"


def _rejoined_words(d: Data, n: Names) -> str:
    leader = d["name"]
    if d["unit"] is None:
        return f"{leader} has no stack left and waits to be placed again"
    return f"{leader} stays with the stack: now with {n.unit(d['unit'])}"


# -- the events -----------------------------------------------------------------------------------


@EVENTS.event(
    "TurnBegan",
    sections=("2", "15"),
    topics=("sequence of play", "game length"),
    words=lambda d, n: f"Turn {d['turn']} begins",
)
def _turn(state: State, data: Data) -> None:
    state.update(turn=data["turn"], phase="weather", side="nationalist", impulse=0, air_used=0)
    for u in state["units"].values():
        u["moved"] = False


@EVENTS.event(
    "WeatherRolled",
    sections=("3",),
    topics=("weather",),
    words=lambda d, n: (
        f"Weather roll {d['die']['value']} from {d['previous']}: {d['code']}, {d['weather']}"
    ),
    facts=_weather_facts,
)
def _weather(state: State, data: Data) -> None:
    state["weather"] = data["weather"]


@EVENTS.event(
    "PhaseBegan", sections=("2", "13"), topics=("sequence of play", "impulses"), words=_phase_words
)
def _phase(state: State, data: Data) -> None:
    state.update(
        phase=data["phase"],
        side=data["side"],
        impulse=data["impulse"],
        stage="move",
        acted=False,
        attacked_hexes=[],
        barraged=[],
    )
    for u in state["units"].values():
        u.update(spent=0, fought=False, fired=False, activated=False)
        if data["phase"] == "admin" and u["side"] == data["side"]:
            u["reserve"] = False
    if data["phase"] == "admin" and data["side"] == "nationalist":
        for leader in state["leaders"].values():
            leader["unit"] = None


@EVENTS.event(
    "BrigadesWithdrawn",
    sections=("15",),
    topics=("Bilbao", "withdrawal"),
    words=lambda d, n: f"After the fall of Bilbao, withdrawn: {_none(d['units'], n)}",
    facts=_fixed("Bilbao"),
)
def _withdrawn(state: State, data: Data) -> None:
    _eliminate(state, data["units"], "withdrawn")
    state["withdrawal_done"] = True


@EVENTS.event(
    "ReinforcementsArrived",
    sections=("7", "17", "4"),
    topics=("reinforcements", "orders of battle"),
    words=_arrived_words,
)
def _arrived(state: State, data: Data) -> None:
    for item in data["units"]:
        unit = state["units"][item["unit"]]
        unit.update(hex=item["hex"], status="map", echelon=item["echelon"], mp=0, spent=0)
        state["control"][item["hex"]] = unit["side"]
    for item in data["reorganized"]:
        _eliminate(state, [item["from"]], "reorganized")
    for uid in data["blocked"]:
        state["units"][uid]["status"] = "blocked"


@EVENTS.event(
    "RecoveryRolled",
    sections=("6", "10"),
    topics=("morale", "demoralization", "recovery"),
    words=_recovery_words,
    facts=_fixed("morale check"),
)
def _recovery(state: State, data: Data) -> None:
    for check in data["checks"]:
        if check["passed"]:
            state["units"][check["unit"]]["demoralized"] = False


@EVENTS.event(
    "LeaderPlaced",
    sections=("8",),
    topics=("leaders",),
    words=lambda d, n: f"{d['name']} joins {n.unit(d['unit'])} in {n.hex(d['hex'])}",
)
def _leader(state: State, data: Data) -> None:
    state["leaders"][data["leader"]]["unit"] = data["unit"]


@EVENTS.event("LeaderRejoined", sections=("8",), topics=("leaders",), words=_rejoined_words)
def _rejoined(state: State, data: Data) -> None:
    state["leaders"][data["leader"]]["unit"] = data["unit"]


@EVENTS.event(
    "EchelonChanged",
    sections=("4",),
    topics=("stacking", "echelons"),
    words=lambda d, n: (
        f"{n.units(d['units'])} to the {'first' if d['echelon'] == 1 else 'second'} echelon"
    ),
)
def _echelon(state: State, data: Data) -> None:
    for uid in data["units"]:
        state["units"][uid]["echelon"] = data["echelon"]


@EVENTS.event(
    "EchelonsSettled",
    sections=("4",),
    topics=("stacking", "echelons"),
    words=lambda d, n: (
        f"{n.units(d['units'])} move up to the first echelon: a second echelon needs fewer "
        "combat units than the first"
    ),
)
def _settled(state: State, data: Data) -> None:
    for uid in data["units"]:
        state["units"][uid]["echelon"] = 1


@EVENTS.event(
    "ReserveSet",
    sections=("11",),
    topics=("reserves",),
    words=lambda d, n: f"{n.units(d['units'])} placed in reserve",
)
def _reserve(state: State, data: Data) -> None:
    for uid in data["units"]:
        state["units"][uid]["reserve"] = True


@EVENTS.event(
    "ReservesActivated",
    sections=("11", "13"),
    topics=("reserves", "reserve impulse"),
    words=lambda d, n: f"Reserves activated: {n.units(d['units'])}",
)
def _activated(state: State, data: Data) -> None:
    for uid in data["units"]:
        state["units"][uid].update(reserve=False, activated=True)


@EVENTS.event(
    "UnitsEliminated",
    sections=("4", "12"),
    topics=("stacking", "overstacking"),
    words=lambda d, n: f"{n.units(d['units'])} eliminated: {d['reason']}",
)
def _eliminated(state: State, data: Data) -> None:
    _eliminate(state, data["units"])


@EVENTS.event(
    "SupplyChecked",
    sections=("10", "9", "15"),
    topics=("supply", "trenches"),
    words=lambda d, n: (
        f"{d['side'].capitalize()} supply: out of supply {_none(d['out_of_supply'], n)}"
    ),
)
def _supply(state: State, data: Data) -> None:
    for u in board.on_map(state, data["side"]):
        u["oos"] = u["id"] in data["out_of_supply"]
        u["oos_turns"] = data["oos_turns"].get(u["id"], 0)
        u["mp"] = data["mp"][u["id"]]
        if u["id"] in data["demoralized"]:
            u["demoralized"] = True
    for hex_ in data["trenches_completed"]:
        state["trenches"][hex_].update(status="complete", unit=None)


@EVENTS.event(
    "TrenchBegun",
    sections=("9",),
    topics=("trenches",),
    words=lambda d, n: f"{n.unit(d['unit'])} begins a trench in {n.hex(d['hex'])}",
)
def _trench(state: State, data: Data) -> None:
    state["trenches"][data["hex"]] = {
        "side": data["side"],
        "status": "building",
        "unit": data["unit"],
    }
    state["acted"] = True


@EVENTS.event(
    "UnitsMoved",
    sections=("13", "3", "5", "4", "1", "6"),
    topics=("movement", "movement points", "zones of control", "terrain"),
    words=lambda d, n: f"{n.units(d['units'])} move {n.path(d['path'])} ({d['cost']} MP)",
    facts=_moved_facts,
)
def _moved(state: State, data: Data) -> None:
    state["acted"] = True
    for uid in data["units"]:
        unit = state["units"][uid]
        unit["mp"] -= data["cost"]
        unit["spent"] += data["cost"]
        unit["moved"] = True
        if board.is_combat(unit):
            unit["echelon"] = data["echelon"]
    _place(state, data["side"], data["units"], data["path"], data["regroup"])


@EVENTS.event(
    "BarrageResolved",
    sections=("12", "14", "6"),
    topics=("artillery", "barrage", "air power", "morale check"),
    words=_barrage_words,
    facts=_barrage_facts,
)
def _barrage(state: State, data: Data) -> None:
    state["acted"] = True
    state["stage"] = "barrage"
    state["barraged"].append(data["hex"])
    state["air_used"] += data["air"]
    for uid in data["artillery"]:
        state["units"][uid]["fired"] = True
    _lose(state, data["losses"])
    for check in data["morale_checks"]:
        if not check["passed"] and state["units"][check["unit"]]["status"] == "map":
            state["units"][check["unit"]]["demoralized"] = True
    _eliminate(state, data["eliminated"])


@EVENTS.event(
    "AttackDeclared",
    sections=("13", "4"),
    topics=("combat", "movement points"),
    words=lambda d, n: f"{n.units(d['units'])} attack {n.hex(d['hex'])} ({d['cost']} MP)",
)
def _attack(state: State, data: Data) -> None:
    state["acted"] = True
    state["stage"] = "attack"
    state["attacked_hexes"].append(data["hex"])
    for uid in data["units"]:
        unit = state["units"][uid]
        unit.update(fought=True, mp=unit["mp"] - data["cost"], spent=unit["spent"] + data["cost"])
    for uid in data["defenders"]:
        state["units"][uid]["reserve"] = False  # 11: a first-echelon reserve attacked loses it
    state["combat"] = {
        "side": data["side"],
        "hex": data["hex"],
        "units": list(data["units"]),
        "from": list(data["from"]),
        "defenders": list(data["defenders"]),
        "stage": "leaders",
        "leaders": {},
        "losses": {},
        "retreat": None,
        "advance": None,
    }


@EVENTS.event(
    "BilbaoRolled",
    sections=("15",),
    topics=("Bilbao",),
    words=lambda d, n: (
        f"Bilbao roll {d['die']['value']}: "
        + ("the defenders retreat without fighting" if d["retreat"] else "they fight")
    ),
    facts=_fixed("Bilbao"),
)
def _bilbao(state: State, data: Data) -> None:
    state["combat"]["bilbao"] = {"die": data["die"]["value"], "retreat": data["retreat"]}


@EVENTS.event(
    "LeaderChosen",
    sections=("13", "6"),
    topics=("combat", "leader unit", "morale"),
    words=lambda d, n: f"{n.unit(d['unit'])} leads the {d['side'].capitalize()} side",
)
def _leader_chosen(state: State, data: Data) -> None:
    state["combat"]["leaders"][data["side"]] = data["unit"]
    state["combat"]["losses"][data["side"]] = list(data["losses"])


@EVENTS.event(
    "CombatResolved",
    sections=("13", "6", "8", "TEC"),
    topics=("combat", "intensity", "step losses", "euphoria"),
    words=_combat_words,
    facts=_combat_facts,
)
def _resolved(state: State, data: Data) -> None:
    _lose(state, data["losses"])
    _eliminate(state, data["eliminated"])
    for uid in data["euphoria_lost"]:
        state["units"][uid]["euphoric"] = False
    for uid in data["euphoric"]:
        if state["units"][uid]["status"] == "map":
            state["units"][uid]["euphoric"] = True
    state["combat"]["stage"] = "resolved"


@EVENTS.event(
    "RetreatDue",
    sections=("13", "15"),
    topics=("retreat",),
    words=lambda d, n: f"{n.units(d['units'])} must retreat ({d['reason']})",
)
def _retreat_due(state: State, data: Data) -> None:
    state["combat"]["stage"] = "retreat"
    state["combat"]["retreat"] = {
        "side": data["side"],
        "units": list(data["units"]),
        "drm": data["drm"],
        "may_hold": data["may_hold"],
        "away_from": list(data["away_from"]),
    }


@EVENTS.event(
    "HoldChecked",
    sections=("13", "6", "9"),
    topics=("retreat", "morale check", "trenches"),
    words=lambda d, n: (
        f"Hold: {_none(d['stay'], n)} stay, {_none(d['retreat'], n)} retreat"
        + (" (all must pass the morale check, 13)" if d.get("all_must_pass") else "")
    ),
    facts=lambda d, state: ["morale check", *(["all must pass"] if d.get("all_must_pass") else [])],
)
def _hold(state: State, data: Data) -> None:
    for check in data["checks"]:
        if not check["passed"]:
            state["units"][check["unit"]]["demoralized"] = True
    retreat = state["combat"]["retreat"]
    retreat["units"] = list(data["retreat"])
    retreat["may_hold"] = False


@EVENTS.event(
    "UnitsRetreated",
    sections=("13", "5", "4", "6"),
    topics=("retreat", "zones of control", "overstacking"),
    words=_retreat_words,
    facts=_retreat_facts,
)
def _retreated(state: State, data: Data) -> None:
    for move in data["moves"]:
        retreat_move(state, data["side"], move)
    _eliminate(state, data["eliminated"])
    state["combat"].update(stage="retreated", retreat=None)


@EVENTS.event(
    "AdvanceOffered",
    sections=("13", "12"),
    topics=("advance after combat",),
    words=lambda d, n: f"{n.units(d['units'])} may advance into {n.hex(d['hex'])}",
)
def _offered(state: State, data: Data) -> None:
    state["combat"]["stage"] = "advance"
    state["combat"]["advance"] = {"units": list(data["units"]), "hex": data["hex"]}


@EVENTS.event(
    "UnitsAdvanced",
    sections=("13", "12", "6"),
    topics=("advance after combat",),
    words=lambda d, n: f"{n.units(d['units'])} advance into {n.hex(d['hex'])}",
)
def _advanced(state: State, data: Data) -> None:
    for uid in data["units"]:
        unit = state["units"][uid]
        if board.is_combat(unit):
            unit["echelon"] = 1
    _place(state, data["side"], data["units"], [data["hex"], data["hex"]], data["regroup"])


@EVENTS.event(
    "CombatEnded",
    sections=("13",),
    topics=("combat",),
    words=lambda d, n: f"The combat in {n.hex(d['hex'])} is over",
)
def _ended_combat(state: State, data: Data) -> None:
    state["combat"] = None


@EVENTS.event(
    "VictoryChecked", sections=("16",), topics=("victory conditions",), words=_victory_words
)
def _victory_checked(state: State, data: Data) -> None:
    state["last_victory_check"] = dict(data)


@EVENTS.event(
    "GameEnded",
    sections=("16", "15"),
    topics=("victory conditions",),
    words=lambda d, n: f"Game over: {d['level']}",
    facts=lambda d, state: [d["level"], "victory"],
)
def _game_ended(state: State, data: Data) -> None:
    state["phase"] = "over"
    state["result"] = dict(data)
