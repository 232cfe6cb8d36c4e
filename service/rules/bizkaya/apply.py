"""``apply``: the pure application of each event this module records.  No validation, no dice."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from service.rules.base import RulesEvent, State
from service.rules.handlers import EventHandlers

HANDLERS = EventHandlers("bizkaya")
handles = HANDLERS.handles


def apply_event(state: State, event: RulesEvent) -> State:
    HANDLERS.apply(state, event)
    _echelons(state)
    return state


def _echelons(state: State) -> None:
    """4: fewer combat units in the second echelon than in the first, or all move up."""
    counts: dict[str, list[int]] = {}
    for u in state["units"].values():
        if u["status"] == "map" and u["kind"] == "combat":
            counts.setdefault(u["hex"], [0, 0])[u["echelon"] - 1] += 1
    for hex_, (first, second) in counts.items():
        if second and second >= first:
            for u in state["units"].values():
                if u["status"] == "map" and u["hex"] == hex_ and u["kind"] == "combat":
                    u["echelon"] = 1


def _eliminate(state: State, uids: Iterable[str], status: str = "eliminated") -> None:
    for uid in uids:
        unit = state["units"][uid]
        hex_ = unit["hex"]
        unit.update(status=status, hex=None, reserve=False, euphoric=False)
        for leader in state["leaders"].values():
            if leader["unit"] == uid:  # 8: a leader is never eliminated: it stays with the stack
                mates = sorted(
                    u["id"]
                    for u in state["units"].values()
                    if u["status"] == "map" and u["hex"] == hex_ and u["side"] == unit["side"]
                )
                leader["unit"] = mates[0] if mates else None


def _lose(state: State, losses: Iterable[dict[str, Any]]) -> None:
    for loss in losses:
        unit = state["units"][loss["unit"]]
        unit["steps"] = max(0, unit["steps"] - loss["steps"])
        if unit["steps"] == 0:
            _eliminate(state, [unit["id"]])


def _regroup(state: State, uids: list[str], to: str) -> None:
    """6: a stack loses euphoria when some of its units leave it or non-euphoric units join it."""
    moving = [state["units"][u] for u in uids]
    origins = {u["hex"] for u in moving}
    for hex_ in origins:
        left = [
            u
            for u in state["units"].values()
            if u["status"] == "map" and u["hex"] == hex_ and u["id"] not in uids
        ]
        if left:
            for u in left + [m for m in moving if m["hex"] == hex_]:
                u["euphoric"] = False
    present = [
        u
        for u in state["units"].values()
        if u["status"] == "map" and u["hex"] == to and u["id"] not in uids
    ]
    if present and not all(u["euphoric"] for u in present + moving):
        for u in present + moving:
            u["euphoric"] = False
    for u in moving:
        u["hex"] = to
        for hex_, trench in list(state["trenches"].items()):
            if trench["status"] == "building" and trench["unit"] == u["id"]:
                del state["trenches"][hex_]  # 9: the builder moved or retreated
    if present:  # 13: the new stack uses the lowest MP marker
        group = present + moving
        low = min(u["mp"] for u in group)
        high = max(u["spent"] for u in group)
        for u in group:
            u["mp"], u["spent"] = low, high


def _enter(state: State, side: str, hexes: Iterable[str]) -> None:
    bilbao = state["special"]["bilbao"]
    for hex_ in hexes:
        state["control"][hex_] = side
        trench = state["trenches"].get(hex_)
        if trench and trench["side"] != side:
            del state["trenches"][hex_]
        if hex_ == bilbao and side == "nationalist" and state["bilbao_fell"] is None:
            state["bilbao_fell"] = state["turn"]


@handles("TurnBegan")
def _turn(state: State, data: dict[str, Any]) -> None:
    state.update(turn=data["turn"], phase="weather", side="nationalist", impulse=0, air_used=0)
    for u in state["units"].values():
        u["moved"] = False


@handles("WeatherRolled")
def _weather(state: State, data: dict[str, Any]) -> None:
    state["weather"] = data["weather"]


@handles("PhaseBegan")
def _phase(state: State, data: dict[str, Any]) -> None:
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


@handles("BrigadesWithdrawn")
def _withdrawn(state: State, data: dict[str, Any]) -> None:
    _eliminate(state, data["units"], "withdrawn")
    state["withdrawal_done"] = True


@handles("ReinforcementsArrived")
def _arrived(state: State, data: dict[str, Any]) -> None:
    for item in data["units"]:
        unit = state["units"][item["unit"]]
        unit.update(hex=item["hex"], status="map", echelon=item["echelon"], mp=0, spent=0)
        state["control"][item["hex"]] = unit["side"]
    for item in data.get("reorganized", []):
        _eliminate(state, [item["from"]], "reorganized")
    for uid in data.get("blocked", []):
        state["units"][uid]["status"] = "blocked"


@handles("RecoveryRolled")
def _recovery(state: State, data: dict[str, Any]) -> None:
    for check in data["checks"]:
        if check["passed"]:
            state["units"][check["unit"]]["demoralized"] = False


@handles("LeaderPlaced")
def _leader(state: State, data: dict[str, Any]) -> None:
    state["leaders"][data["leader"]]["unit"] = data["unit"]


@handles("EchelonChanged")
def _echelon(state: State, data: dict[str, Any]) -> None:
    for uid in data["units"]:
        state["units"][uid]["echelon"] = data["echelon"]


@handles("ReserveSet")
def _reserve(state: State, data: dict[str, Any]) -> None:
    for uid in data["units"]:
        state["units"][uid]["reserve"] = True


@handles("UnitsEliminated")
def _eliminated(state: State, data: dict[str, Any]) -> None:
    _eliminate(state, data["units"])


@handles("SupplyChecked")
def _supply(state: State, data: dict[str, Any]) -> None:
    for u in state["units"].values():
        if u["side"] == data["side"] and u["status"] == "map":
            u["oos"] = u["id"] in data["out_of_supply"]
            u["oos_turns"] = data["oos_turns"].get(u["id"], 0)
            u["mp"] = data["mp"][u["id"]]
            if u["id"] in data["demoralized"]:
                u["demoralized"] = True
    for hex_ in data["trenches_completed"]:
        state["trenches"][hex_].update(status="complete", unit=None)


@handles("TrenchBegun")
def _trench(state: State, data: dict[str, Any]) -> None:
    state["trenches"][data["hex"]] = {
        "side": data["side"],
        "status": "building",
        "unit": data["unit"],
    }
    state["acted"] = True


@handles("ReservesActivated")
def _activated(state: State, data: dict[str, Any]) -> None:
    for uid in data["units"]:
        state["units"][uid].update(reserve=False, activated=True)


@handles("UnitsMoved")
def _moved(state: State, data: dict[str, Any]) -> None:
    state["acted"] = True
    for uid in data["units"]:
        unit = state["units"][uid]
        unit["mp"] -= data["cost"]
        unit["spent"] += data["cost"]
        unit["moved"] = True
        if unit["kind"] == "combat":
            unit["echelon"] = data["echelon"]
    _regroup(state, data["units"], data["path"][-1])
    _enter(state, data["side"], data["path"][1:])


@handles("BarrageResolved")
def _barrage(state: State, data: dict[str, Any]) -> None:
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


@handles("AttackDeclared")
def _attack(state: State, data: dict[str, Any]) -> None:
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


@handles("LeaderChosen")
def _leader_chosen(state: State, data: dict[str, Any]) -> None:
    state["combat"]["leaders"][data["side"]] = data["unit"]
    state["combat"]["losses"][data["side"]] = list(data["losses"])


@handles("CombatResolved")
def _resolved(state: State, data: dict[str, Any]) -> None:
    _lose(state, data["losses"])
    _eliminate(state, data["eliminated"])
    for uid in data["euphoria_lost"]:
        state["units"][uid]["euphoric"] = False
    for uid in data["euphoric"]:
        if state["units"][uid]["status"] == "map":
            state["units"][uid]["euphoric"] = True
    state["combat"]["stage"] = "resolved"


@handles("RetreatDue")
def _retreat_due(state: State, data: dict[str, Any]) -> None:
    state["combat"]["stage"] = "retreat"
    state["combat"]["retreat"] = {
        "side": data["side"],
        "units": list(data["units"]),
        "drm": data["drm"],
        "may_hold": data["may_hold"],
        "away_from": list(data["away_from"]),
    }


@handles("HoldChecked")
def _hold(state: State, data: dict[str, Any]) -> None:
    for check in data["checks"]:
        if not check["passed"]:
            state["units"][check["unit"]]["demoralized"] = True
    retreat = state["combat"]["retreat"]
    retreat["units"] = list(data["retreat"])
    retreat["may_hold"] = False


@handles("UnitsRetreated")
def _retreated(state: State, data: dict[str, Any]) -> None:
    for move in data["moves"]:
        _regroup(state, move["units"], move["path"][-1])
        _enter(state, data["side"], move["path"][1:])
        for uid in move["demoralized"]:
            state["units"][uid]["demoralized"] = True
        _lose(state, move["losses"])
    _eliminate(state, data["eliminated"])
    state["combat"]["retreat"] = None


@handles("AdvanceOffered")
def _offered(state: State, data: dict[str, Any]) -> None:
    state["combat"]["stage"] = "advance"
    state["combat"]["advance"] = {"units": list(data["units"]), "hex": data["hex"]}


@handles("UnitsAdvanced")
def _advanced(state: State, data: dict[str, Any]) -> None:
    for uid in data["units"]:
        unit = state["units"][uid]
        if unit["kind"] == "combat":
            unit["echelon"] = 1
    _regroup(state, data["units"], data["hex"])
    _enter(state, data["side"], [data["hex"]])


@handles("CombatEnded")
def _ended_combat(state: State, data: dict[str, Any]) -> None:
    state["combat"] = None


@handles("VictoryChecked")
def _victory_checked(state: State, data: dict[str, Any]) -> None:
    state["last_victory_check"] = dict(data)


@handles("GameEnded")
def _game_ended(state: State, data: dict[str, Any]) -> None:
    state["phase"] = "over"
    state["result"] = dict(data)


@handles("BilbaoRolled")
def _bilbao(state: State, data: dict[str, Any]) -> None:
    state["combat"]["bilbao"] = {"die": data["die"]["value"], "retreat": data["retreat"]}
