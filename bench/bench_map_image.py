"""A club scenario's map image (issue 32): the terrain proposal's time and accuracy on printed
maps drawn by Pillow (tests/support/printed_map.py: 30x24 hexes, four terrain types, a river
along hexsides, turned 2.5 degrees, JPEG), calibrated from three clicked hexes (1.5 px off),
one example hex per terrain and one river hexside -- at three print scales; the time to serve a
phone-sized copy of a big scan; and the peak memory an upload's check costs a fresh process
(``VmHWM``, which counts Pillow's own buffers) for a big scan and for a small PNG of many pixels
(issue 44).  ``python -m bench map_image``."""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from PIL import Image

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


def _peak_kb() -> int:
    """This process's peak resident memory so far, in KB (Linux ``VmHWM``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def measure(path: str, media_type: str) -> None:
    """Run in a fresh process: the check of the upload at ``path``; prints the peak before and
    after it (KB) and the answer."""
    data = Path(path).read_bytes()
    before = _peak_kb()
    started = time.perf_counter()
    try:
        checked = check_upload(data, media_type)
        answer = f"accepted {checked.width}x{checked.height}, {len(checked.data) // 1024} KB"
    except Exception as exc:  # noqa: BLE001 -- a refusal is an answer here
        answer = f"refused: {type(exc).__name__}: {exc}"
    print(before, _peak_kb(), round((time.perf_counter() - started) * 1000), answer, sep="\t")


def _uploads(folder: Path) -> list[tuple[str, Path, str]]:
    """A 6,184x6,103 scan (37.7 Mpx, JPEG), a 0.4 MB PNG of 11,999x8,333 RGBA (100 Mpx) and a
    PNG of 8,000x6,250 RGBA (50 Mpx: the most an upload may decode)."""
    rng = np.random.default_rng(7)
    coarse = rng.integers(0, 255, (763, 773, 3), dtype=np.uint8)
    scan = Image.fromarray(coarse, "RGB").resize((6184, 6103), Image.Resampling.BICUBIC)
    scan.save(folder / "scan.jpg", format="JPEG", quality=85)
    del scan
    for name, size in (("bomb", (11999, 8333)), ("most", (8000, 6250))):
        flat = Image.new("RGBA", size, (240, 230, 200, 255))
        flat.paste((20, 20, 20, 255), (0, 0, size[0], 40))
        flat.save(folder / f"{name}.png", format="PNG", optimize=True)
        del flat
    return [
        ("6184x6103 scan, JPEG", folder / "scan.jpg", "image/jpeg"),
        ("11999x8333 RGBA PNG", folder / "bomb.png", "image/png"),
        ("8000x6250 RGBA PNG", folder / "most.png", "image/png"),
    ]


def peak_memory() -> None:
    print(f"{'upload':<22} {'KB':>7} {'peak MB':>8} {'+MB':>6} {'ms':>6}  answer")
    with tempfile.TemporaryDirectory() as tmp:
        for name, path, media_type in _uploads(Path(tmp)):
            out = subprocess.run(
                [sys.executable, "-m", "bench.bench_map_image", str(path), media_type],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            before, after, ms, answer = out.split("\t", 3)
            print(
                f"{name:<22} {path.stat().st_size // 1024:>7} {int(after) // 1024:>8} "
                f"{(int(after) - int(before)) // 1024:>6} {ms:>6}  {answer[:90]}"
            )


def main() -> None:
    peak_memory()
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


if __name__ == "__main__":  # one measurement in a fresh process (see :func:`peak_memory`)
    measure(sys.argv[1], sys.argv[2])
