"""A club scenario's map image (issue 32): the terrain proposal's time and accuracy on printed
maps drawn by Pillow (tests/support/printed_map.py: 30x24 hexes, four terrain types, a river
along hexsides, turned 2.5 degrees, JPEG), calibrated from three clicked hexes (1.5 px off),
one example hex per terrain and one river hexside -- at three print scales; and the time to
serve a phone-sized copy of a big scan.  ``python -m bench map_image``."""

from __future__ import annotations

import random
import statistics
import time
from collections import defaultdict

from service.application.map_images import calibrate, check_upload, propose, resized
from tests.support.printed_map import PrintedMap, render

SCALES = ((14.0, 70), (18.0, 75), (22.0, 82), (40.0, 85))
REPEATS = 3


def _clicks(printed: PrintedMap) -> list[dict[str, float]]:
    rng = random.Random(3)
    out = []
    for label in ("0101", "3001", "1524"):
        x, y = printed.pixel(label)
        out.append(
            {
                "hex": label,
                "x": round(x + rng.uniform(-1.5, 1.5)),
                "y": round(y + rng.uniform(-1.5, 1.5)),
            }
        )
    return out


def main() -> None:
    print(
        f"{'hex px':>7} {'image':>11} {'KB':>6} {'propose ms':>11} {'hexes right':>12} "
        f"{'river found':>12} {'wrongly river':>14}"
    )
    for radius, quality in SCALES:
        printed = render(radius=radius, quality=quality)
        fit = calibrate(printed.grid, _clicks(printed), printed.width, printed.height)
        by: dict[str, list[str]] = defaultdict(list)
        for label in printed.grid.labels():
            by[printed.terrain[label]].append(label)
        hexes = {t: [labels[len(labels) // 2]] for t, labels in by.items()}
        river = {"river": [sorted(sorted(s) for s in printed.rivers)[0]]}
        times = []
        for _ in range(REPEATS):
            started = time.perf_counter()
            proposal = propose(printed.data, fit, printed.grid, hexes, river)
            times.append((time.perf_counter() - started) * 1000)
        labels = list(printed.grid.labels())
        right = sum(proposal.hexes[h]["terrain"] == printed.terrain[h] for h in labels)
        found = {frozenset(s["between"]) for s in proposal.hexsides if s["feature"] == "river"}
        print(
            f"{radius:>7.0f} {printed.width:>5}x{printed.height:<5} {len(printed.data) // 1024:>6} "
            f"{statistics.median(times):>11.0f} "
            f"{right:>5}/{len(labels)} {100 * right / len(labels):4.1f}% "
            f"{len(found & printed.rivers):>4}/{len(printed.rivers)} "
            f"{100 * len(found & printed.rivers) / len(printed.rivers):4.1f}% "
            f"{len(found - printed.rivers):>14}"
        )
    big = render(radius=120.0, quality=85)
    started = time.perf_counter()
    checked = check_upload(big.data, "image/jpeg")
    upload_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    small = resized(checked.data, "image/jpeg", 512)
    print(
        f"a {big.width}x{big.height} scan ({len(big.data) // 1024} KB): upload check "
        f"{upload_ms:.0f} ms; 512 px copy ({len(small) // 1024} KB) "
        f"{(time.perf_counter() - started) * 1000:.0f} ms"
    )
