"""Events in words: the sentences people read (printed unit names, inches, the sheet's terms) and
the facts the knowledge base searches for.  Used by the declarations in ``events.py``."""

from __future__ import annotations

from typing import Any

from service.rules.barcelona import table as tb
from service.rules.base import State
from service.rules.declare import Names

Data = dict[str, Any]


def side(name: str) -> str:
    return name.replace("_", " ").title()


def inches(value: float) -> str:
    return f'{value:g}"'


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# -- sentences ---------------------------------------------------------------------------------------
def column(d: Data, n: Names) -> str:
    units = ", ".join(u["name"] for u in d["units"])
    return f"{side(d['side'])} generates a column of {d['troop_type']}: {units}"


def bought(d: Data, n: Names) -> str:
    return f"{side(d['side'])} buys {d['unit']['name']} for {d['points']} points"


def deployed(d: Data, n: Names) -> str:
    return (
        f"{n.unit(d['unit'])} deploys {inches(d['x'])} across and {inches(d['y'])} deep, "
        f"in {plural(d['ranks'], 'rank')}"
    )


def order_words(orders: dict[str, dict[str, Any]], n: Names) -> str:
    """Written orders in words: ``1st Company “hold the ridge” (no move)``."""
    words = [
        f"{n.unit(uid)} “{o['text']}”" + ("" if o.get("move", True) else " (no move)")
        for uid, o in orders.items()
    ]
    return "; ".join(words) or "none"


def written(d: Data, n: Names) -> str:
    if d.get("hidden"):
        return (
            f"{side(d['side'])} wrote orders for {plural(d['units'], 'unit')} "
            "(hidden until they are revealed)"
        )
    return f"{side(d['side'])} wrote orders: {order_words(d['orders'], n)}"


def revealed(d: Data, n: Names) -> str:
    sides = (f"{side(s)}: {order_words(orders, n)}" for s, orders in d["orders"].items())
    return "Orders revealed: " + " · ".join(sides)


def transmitted(d: Data, n: Names) -> str:
    got = [n.unit(r["unit"]) for r in d["results"] if r["arrived"]]
    lost = [n.unit(r["unit"]) for r in d["results"] if not r["arrived"]]
    words = [f"orders reach {', '.join(got)}" if got else "no order arrives"]
    if lost:
        words.append(f"not {', '.join(lost)}")
    return "Transmission: " + "; ".join(words)


def late(d: Data, n: Names) -> str:
    got = [n.unit(r["unit"]) for r in d["results"] if r["arrived"]]
    return "Late arrivals: " + (", ".join(got) + " arrive" if got else "nobody arrives")


def rolled(d: Data, n: Names) -> str:
    going = "on the road" if d["going"] == "road" else f"in {d['going']} going"
    return f"{n.unit(d['unit'])} rolls {d['dice_expr']} {going}: {inches(d['distance'])}"


def moved(d: Data, n: Names) -> str:
    text = f"{n.unit(d['unit'])} moves {inches(d['length'])} of {inches(d['distance'])}"
    if d["contacts"]:
        text += f", into contact with {n.units(d['contacts'])}"
    return text


def _losses(d: Data, n: Names) -> str:
    hurt = [f"{n.unit(u)} loses {plural(k, 'figure')}" for u, k in d["casualties"].items()]
    hurt += [f"{n.unit(u)} is knocked out" for u in d["ko"]]
    return ", ".join(hurt) or "no effect"


def shot(d: Data, n: Names) -> str:
    targets = n.units([t["target"] for t in d["targets"]])
    return f"{n.unit(d['unit'])} fires its {d['weapon']} at {targets}: {_losses(d, n)}"


def close_combat(d: Data, n: Names) -> str:
    fight = f"Close combat: {n.unit(d['attacker'])} against {n.unit(d['defender'])}"
    if d["removed"]:
        return f"{fight}: {n.units(d['removed'])} removed (two morale failures)"
    lost = [f"{n.unit(u)} loses {plural(k, 'figure')}" for u, k in d.get("casualties", {}).items()]
    return f"{fight}: {', '.join(lost) or 'no figure lost'}"


def morale(d: Data, n: Names) -> str:
    text = f"{n.unit(d['unit'])} tests morale: {plural(d['failures'], 'failure')}"
    if d["removed"]:
        return text + ", removed"
    return text + (f" ({d['effect']})" if d.get("effect") else "")


def rallied(d: Data, n: Names) -> str:
    verb = "rallies" if d["rallied"] else "fails to rally"
    return f"{n.unit(d['unit'])} {verb} ({plural(d['failures'], 'failure')} left)"


def phase(d: Data, n: Names) -> str:
    return f"The {d['phase'].replace('_', ' ')} phase begins"


def step(d: Data, n: Names) -> str:
    return f"Shooting: the {d['step'].replace('_', ' ')} step"


def ended(d: Data, n: Names) -> str:
    score = ", ".join(f"{side(s)} {p} points" for s, p in d["points"].items())
    winner = f"{side(d['winner'])} wins" if d["winner"] else "a draw"
    return f"The game ends: {winner}, {d['level']} ({score})"


# -- facts -------------------------------------------------------------------------------------------
def unit_words(state: State, uid: str) -> list[str]:
    u = state["units"].get(uid)
    if u is None:
        return []
    words = [u["kind"], *(u["attributes"])]
    if u.get("troop_type"):
        words.append(u["troop_type"])
    if u.get("vehicle"):
        words += [u["vehicle"], f"class {u['class']}" if u.get("class") else "soft vehicle"]
    if u.get("x") is not None and u["status"] == "table":
        words += sorted(tb.effects_at(state, tb.where(u))) or ["open"]
    return words


def shot_facts(d: Data, state: State) -> list[str]:
    facts = [d["weapon"], *unit_words(state, d["unit"])]
    for t in d["targets"]:
        facts += unit_words(state, t["target"])
        facts += [m["modifier"] for m in t.get("modifiers", [])]
        if t.get("mode", "").startswith("afv"):
            facts.append("firing at AFV")
    if d.get("collateral"):
        facts.append("artillery template")
    return facts


def move_facts(d: Data, state: State) -> list[str]:
    facts = [f"{d['going']} going", *unit_words(state, d["unit"])]
    facts += [f"{k} vehicle" for k in d.get("actions", {})]
    if d.get("contacts"):
        facts.append("moved into contact")
    return facts


def close_combat_facts(d: Data, state: State) -> list[str]:
    facts = ["close combat", *unit_words(state, d["attacker"]), *unit_words(state, d["defender"])]
    for mods in d.get("modifiers", {}).values():
        facts += [m["modifier"] for m in mods]
    return facts


def morale_facts(d: Data, state: State) -> list[str]:
    facts = ["morale test", *(t["cause"] for t in d["tests"]), *unit_words(state, d["unit"])]
    return facts + ([d["effect"]] if d.get("effect") else [])


def column_facts(d: Data, state: State) -> list[str]:
    return [d["troop_type"], d["companies"], d.get("special") or "no specials"]


def order_facts(d: Data, state: State) -> list[str]:
    return ["written orders"]
