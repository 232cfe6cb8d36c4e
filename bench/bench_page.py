"""The game page's weight and speed (issue 16), against a real `arbiter serve` on SQLite: the bytes
of a first load of a Merida game page (HTML, CSS, scripts and the API answers it reads, as sent), the
action list of Merida's turn 1 movement phase and of Backbone's first decision (JSON, and on the
wire: gzipped), and the time to the first board paint in headless Chromium (Debian's
/usr/bin/chromium; skipped without it)."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import requests

from bench.serve import arbiter_serve

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
PASSWORD = "benchmark-password"
LOADS = 5


class Site:
    def __init__(self, base: str) -> None:
        self.base = base
        self.tokens: dict[str, str] = {}

    def user(self, name: str) -> dict[str, str]:
        if name not in self.tokens:
            requests.post(self.base + "/api/users", json={"username": name, "password": PASSWORD})
            r = requests.post(
                self.base + "/api/tokens", json={"username": name, "password": PASSWORD}
            )
            self.tokens[name] = r.json()["token"]
        return {"Authorization": f"Bearer {self.tokens[name]}"}

    def game(self, system: str, sides: dict[str, str]) -> str:
        for name in sides.values():
            self.user(name)
        scenario = next(
            s for s in requests.get(self.base + "/api/scenarios").json() if s["system"] == system
        )
        r = requests.post(
            self.base + "/api/games",
            json={"system": system, "scenario": scenario["id"], "sides": sides},
            headers=self.user(next(iter(sides.values()))),
        )
        assert r.status_code == 201, r.text
        game = str(r.json()["id"])
        for name in list(dict.fromkeys(sides.values()))[1:]:  # the invited players accept
            accepted = requests.post(
                f"{self.base}/api/games/{game}/accept", headers=self.user(name)
            )
            assert accepted.status_code == 200, accepted.text
        return game

    def actions(self, game: str, user: str) -> tuple[int, int, dict[str, Any]]:
        """The action list's bytes as JSON and as sent (gzip accepted), and the list."""
        url = f"{self.base}/api/games/{game}/actions"
        r = requests.get(url, headers={**self.user(user), "Accept-Encoding": "gzip"}, stream=True)
        wire = len(r.raw.read(decode_content=False))
        plain = requests.get(url, headers={**self.user(user), "Accept-Encoding": "identity"})
        return len(plain.content), wire, plain.json()

    def command(self, game: str, user: str, template: dict[str, Any], **picks: Any) -> None:
        command = {"type": template["type"], **template["fixed"]}
        for name, choice in template["choose"].items():
            command[name] = picks.get(name, choice.get("one_of", [None])[0])
        url = f"{self.base}/api/games/{game}"  # a player reads the (private) game
        version = requests.get(url, headers=self.user(user)).json()["version"]
        r = requests.post(
            f"{self.base}/api/games/{game}/commands",
            json={"expected_version": version, "command": command},
            headers=self.user(user),
        )
        assert r.status_code == 201, r.text


def merida_turn_1(site: Site) -> str:
    """A Merida game at the Nationalist movement phase of turn 1 (the Republican set-up done)."""
    game = site.game("merida", {"nationalist": "franco", "republican": "rojo"})
    for unit, hex_ in (("r-37-div-4", "Y7"), ("r-68-div-4", "AC10")):
        _, _, acts = site.actions(game, "rojo")
        t = next(t for t in acts["actions"] if t["fixed"].get("unit") == unit)
        site.command(game, "rojo", t, **{next(iter(t["choose"])): hex_})
    _, _, acts = site.actions(game, "rojo")
    site.command(game, "rojo", next(t for t in acts["actions"] if t["type"] == "end_phase"))
    return game


def kb(n: int) -> str:
    return f"{n / 1024:.1f} KB"


def page_loads(base: str, game: str) -> list[tuple[int, float, float]]:
    """Per first load of the game page: the bytes sent, the ms from navigation to the first paint
    of the board with its units, and to the load event (the page's own floor)."""
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        for _ in range(LOADS):
            context = browser.new_context(viewport={"width": 1366, "height": 900}, base_url=base)
            context.request.post(
                base + "/api/session", data={"username": "franco", "password": PASSWORD}
            )
            page = context.new_page()
            page.goto(f"/games/{game}")
            page.wait_for_selector(".game-page[data-ready=true]", timeout=60_000)
            page.wait_for_function("performance.getEntriesByName('board-painted').length > 0")
            sent = page.evaluate(
                """() => performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
                     .reduce((n, e) => n + (e.encodedBodySize || 0), 0)"""
            )
            painted = page.evaluate("performance.getEntriesByName('board-painted')[0].startTime")
            loaded = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
            out.append((int(sent), float(painted), float(loaded)))
            context.close()
        browser.close()
    return out


def main() -> None:
    with arbiter_serve() as (base, _server):
        site = Site(base)
        merida = merida_turn_1(site)
        plain, wire, acts = site.actions(merida, "franco")
        print(
            f"Merida turn 1 movement action list ({len(acts['actions'])} templates): "
            f"{kb(plain)} JSON, {kb(wire)} on the wire (gzip); target under 100 KB"
        )
        backbone = site.game("backbone", {"allied": "monty", "spanish": "varela"})
        side = requests.get(f"{base}/api/games/{backbone}", headers=site.user("monty")).json()[
            "active_sides"
        ][0]
        user = "monty" if side == "allied" else "varela"
        plain, wire, acts = site.actions(backbone, user)
        print(
            f"Backbone turn 1 first action list ({len(acts['actions'])} templates): "
            f"{kb(plain)} JSON, {kb(wire)} on the wire"
        )
        if not Path(CHROMIUM).exists():
            print(f"first load and paint: skipped ({CHROMIUM} is missing)")
            return
        loads = page_loads(base, merida)
        sent = statistics.median(n for n, _, _ in loads)
        painted = [ms for _, ms, _ in loads]
        loaded = statistics.median(ms for _, _, ms in loads)
        print(
            f"Merida game page, first load at 1366x900 ({LOADS} loads, a new browser context each): "
            f"{kb(int(sent))} sent (HTML, CSS, scripts, API answers)"
        )
        first = statistics.median(painted)
        print(
            f"first unit on the board (the board and its counters painted): median {first:.0f} ms "
            f"from navigation, best {min(painted):.0f} ms, worst {max(painted):.0f} ms; "
            f"the load event {loaded:.0f} ms ({first / loaded:.1f}x); target at most 600 ms"
        )


if __name__ == "__main__":
    main()
