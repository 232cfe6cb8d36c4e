"""The pure application of each Backbone event to the state: no validation, no dice."""

from __future__ import annotations

from typing import Any

from service.rules.backbone.units import State, eliminate, place
from service.rules.handlers import EventHandlers

HANDLERS = EventHandlers("backbone")
handles = HANDLERS.handles


def _lose_step(state: State, uid: str) -> None:
    u = state["units"][uid]
    u["steps"] -= 1
    if u["steps"] <= 0:
        eliminate(state, u)


@handles("UnitMoved")
def _moved(state: State, d: dict[str, Any]) -> None:
    u = state["units"][d["unit"]]
    place(state, u, d["path"][-1])
    state["control"][d["path"][-1]] = u["side"]
    state["moved"].append(u["id"])


@handles("UnitsDeployed")
def _deployed(state: State, d: dict[str, Any]) -> None:
    for uid, hex_ in d["positions"].items():
        state["units"][uid]["hex"] = hex_


@handles("StepChanged")
def _step(state: State, d: dict[str, Any]) -> None:
    state["step"] = d["step"]
    state["moved"] = []
    state["exploiters"] = []
    state["exploit_target"] = None


@handles("TurnBegan")
def _turn(state: State, d: dict[str, Any]) -> None:
    state["turn"] = d["turn"]
    state["attacked_units"] = []
    state["attacked_hexes"] = []
    state["corps_attacked"] = []
    state["hq_used"] = {}
    state["naval"]["used_coasts"] = []
    state["played_this_turn"] = []
    state["initiative"] = "allied"
    state["replacements"] = {}
    state["end_votes"] = {}


@handles("CombatDeclared")
def _declared(state: State, d: dict[str, Any]) -> None:
    c = dict(d["combat"])
    side = c["attacker_side"]
    sup = c["supports"]
    state["air"][side] -= sup["air"]
    if not c["amphibious"]:
        state["naval"]["points"] -= sup["naval"]
    if sup["naval"] and d.get("coast"):
        state["naval"]["used_coasts"].append(d["coast"])
    if c["amphibious"]:
        state["naval"]["used_coasts"].append("mediterranean")
    if sup.get("hq"):
        state["hq_used"].setdefault(sup["hq"], []).append("attack")
    if not c["exploitation"]:
        state["attacked_units"].extend(c["attackers"])
        state["attacked_hexes"].append(c["target"])
        if side == "spanish":
            for uid in c["attackers"]:
                corps = state["units"][uid]["formation"]
                if corps not in state["corps_attacked"]:
                    state["corps_attacked"].append(corps)
    state["exploiters"] = []
    state["exploit_target"] = None
    c["stage"] = "defence"
    state["combat"] = c


@handles("DefenceDeclared")
def _defence(state: State, d: dict[str, Any]) -> None:
    sup = d["supports"]
    side = d["side"]
    state["air"][side] -= sup["air"]
    state["naval"]["points"] -= sup["naval"]
    if sup.get("hq"):
        state["hq_used"].setdefault(sup["hq"], []).append("defence")
    state["combat"]["defence"] = sup
    state["combat"]["picks"] = d["picks"]


@handles("CombatRolled")
def _rolled(state: State, d: dict[str, Any]) -> None:
    state["combat"]["stage"] = "baraka"
    state["combat"]["first_die"] = d["die"]


@handles("BarakaUsed")
def _baraka(state: State, d: dict[str, Any]) -> None:
    state["baraka_turn"] = state["turn"]


@handles("CombatResolved")
def _resolved(state: State, d: dict[str, Any]) -> None:
    for loss in d["losses"]["attacker"] + d["losses"]["defender"]:
        _lose_step(state, loss["unit"])
    state["combat"]["result"] = d["result"]["text"]


@handles("RetreatRequired")
def _retreat_required(state: State, d: dict[str, Any]) -> None:
    state["combat"]["stage"] = "retreat"
    state["combat"]["retreating"] = d["units"]


@handles("LastStandRolled")
def _last_stand(state: State, d: dict[str, Any]) -> None:
    if d["success"]:
        _lose_step(state, d["loss"])
    else:
        state["combat"]["last_stand_failed"] = True


@handles("UnitsRetreated")
def _retreated(state: State, d: dict[str, Any]) -> None:
    for uid in d["extra_losses"]:
        if state["units"][uid]["status"] == "map":
            _lose_step(state, uid)
    for uid in d["units"]:
        u = state["units"][uid]
        if uid in d["eliminated"] or d["to"] is None:
            if u["status"] == "map":
                eliminate(state, u)
            continue
        place(state, u, d["to"])
        u["retreated_turn"] = state["turn"]
        u["retreated_into"] = d["to"]
    state["combat"]["retreated_to"] = d["to"]


@handles("AdvanceRequired")
def _advance_required(state: State, d: dict[str, Any]) -> None:
    state["combat"]["stage"] = "advance"


@handles("UnitsAdvanced")
def _advanced(state: State, d: dict[str, Any]) -> None:
    for uid in d["units"]:
        place(state, state["units"][uid], d["to"])
    state["control"][d["to"]] = state["units"][d["units"][0]]["side"]
    retreated_to = state["combat"].get("retreated_to")
    state["pending_exploit"] = {"units": d["exploiters"], "target": retreated_to}


@handles("CombatEnded")
def _ended(state: State, d: dict[str, Any]) -> None:
    pending = state.pop("pending_exploit", None)
    state["combat"] = None
    if pending and pending["units"] and pending["target"]:
        state["exploiters"] = pending["units"]
        state["exploit_target"] = pending["target"]


@handles("LandingSucceeded")
def _landed(state: State, d: dict[str, Any]) -> None:
    for uid in d["units"]:
        u = state["units"][uid]
        if u["status"] == "afloat" and u["steps"] > 0:
            place(state, u, d["hex"])
            u["landed_turn"] = state["turn"]
    state["control"][d["hex"]] = "allied"
    state["beachhead"] = d["hex"]
    state["landing"]["done"] = True


@handles("LandingFailed")
def _landing_failed(state: State, d: dict[str, Any]) -> None:
    for u in state["units"].values():
        if u["status"] == "afloat":
            u["status"] = "returning"
    state["landing"]["done"] = True
    state["landing"]["failed"] = True


@handles("WeatherDetermined")
def _weather(state: State, d: dict[str, Any]) -> None:
    state["weather"] = d["weather"]


@handles("SupportPointsSet")
def _supports_set(state: State, d: dict[str, Any]) -> None:
    state["air"] = dict(d["air"])
    state["naval"]["points"] = d["naval"]


@handles("StraitRolled")
def _strait(state: State, d: dict[str, Any]) -> None:
    if d.get("air_point"):
        state["air"]["allied"] -= 1
    if d["success"]:
        state["strait"] = {"open": True, "turn": state["turn"]}


@handles("SupplyDetermined")
def _supply(state: State, d: dict[str, Any]) -> None:
    out = set(d["out_of_supply"])
    for u in state["units"].values():
        if u["side"] == d["side"]:
            u["supplied"] = u["id"] not in out
    if d["side"] == "allied":
        state["supply_links"] = list(d["linked_to_port_lyautey"])


@handles("ReinforcementsArrived")
def _arrived(state: State, d: dict[str, Any]) -> None:
    for item in d["units"]:
        u = state["units"][item["unit"]]
        if item["hex"] is None:
            u["status"] = "afloat"
            continue
        place(state, u, item["hex"])
        u["supplied"] = True


@handles("EventChitDrawn")
def _chit_drawn(state: State, d: dict[str, Any]) -> None:
    ev = state["events"]
    ev["cups"][d["side"]].remove(d["chit"])
    ev["hands"][d["side"]].append(d["chit"])
    if d.get("permanent"):
        ev["in_force"].append(d["chit"])


@handles("EventChitPlayed")
def _chit_played(state: State, d: dict[str, Any]) -> None:
    ev = state["events"]
    side = d["side"]
    if d["chit"] in ev["hands"][side]:
        ev["hands"][side].remove(d["chit"])
    ev["played"].append(d["chit"])
    state["played_this_turn"].append(d["chit"])
    for key, value in d.get("effects", {}).items():
        if key == "air":
            state["air"]["allied"] = value
        elif key == "naval":
            state["naval"]["points"] = value
        elif key == "initiative":
            state["initiative"] = value
        elif key == "stolen" and value:
            other = "allied" if side == "spanish" else "spanish"
            where = "hands" if value in ev["hands"][other] else "cups"
            ev[where][other].remove(value)
            ev["hands"][side].append(value)
        elif key == "step_losses":
            for uid in value:
                _lose_step(state, uid)
        elif key == "withdrawn":
            for uid in value:
                state["units"][uid].update(status="withdrawn", hex=None)
        elif key == "placed":
            for item in value:
                spec = next(r for r in state["data"]["rif_units"] if r["id"] == item["unit"])
                rif = {
                    **spec,
                    "side": "allied",
                    "type": "rif",
                    "nation": "rif",
                    "formation": "Rif",
                    "support": 0,
                    "max_steps": spec["steps"],
                    "supplied": True,
                    "seq": 0,
                }
                state["units"][spec["id"]] = rif
                place(state, rif, item["hex"])


@handles("FortificationsBuilt")
def _fortified(state: State, d: dict[str, Any]) -> None:
    for hex_ in d["hexes"]:
        state["fortifications"][hex_] = state["fortifications"].get(hex_, 0) + 1


@handles("ReplacementsChosen")
def _replacements_chosen(state: State, d: dict[str, Any]) -> None:
    state["replacements"][d["side"]] = d["steps"]


@handles("ReplacementsPlaced")
def _replacements_placed(state: State, d: dict[str, Any]) -> None:
    for item in d["steps"]:
        u = state["units"][item["unit"]]
        if u["status"] == "eliminated":
            u["steps"] = 1
            place(state, u, item["hex"])
            u["supplied"] = True
        else:
            u["steps"] += 1


@handles("EndOfGameVoted")
def _vote(state: State, d: dict[str, Any]) -> None:
    state["end_votes"][d["side"]] = d["end"]


@handles("ParatroopersDropped")
def _dropped(state: State, d: dict[str, Any]) -> None:
    for item in d["drops"]:
        u = state["units"][item["unit"]]
        state["air"]["allied"] -= 1
        u["dropped_turn"] = state["turn"]
        if item["lost"]:
            u.update(status="lost", hex=None, steps=0)
            continue
        place(state, u, item["hex"])
        u["supplied"] = True


@handles("GameEnded")
def _game_ended(state: State, d: dict[str, Any]) -> None:
    state["result"] = d["result"]
    state["step"] = "over"
