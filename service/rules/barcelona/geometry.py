"""Measuring on the table: distances in inches, paths, areas (rectangles and polygons) and where
each figure of a unit stands."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Point = tuple[float, float]


def dist(a: Sequence[float], b: Sequence[float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def path_length(start: Sequence[float], points: Sequence[Sequence[float]]) -> float:
    total, here = 0.0, start
    for point in points:
        total += dist(here, point)
        here = point
    return total


def polygon(area: dict[str, Any]) -> list[Point]:
    if "rect" in area:
        x, y, w, h = area["rect"]
        return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
    return [(float(p[0]), float(p[1])) for p in area["polygon"]]


def inside(point: Sequence[float], poly: Sequence[Point]) -> bool:
    """Whether a point is inside or on the edge of a polygon."""
    x, y = point
    n = len(poly)
    for i in range(n):
        if _on_segment((x, y), poly[i], poly[(i + 1) % n]):
            return True
    hit = False
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            hit = not hit
    return hit


def _cross(o: Sequence[float], a: Sequence[float], b: Sequence[float]) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _on_segment(p: Sequence[float], a: Sequence[float], b: Sequence[float]) -> bool:
    return abs(_cross(a, b, p)) < 1e-9 and (
        min(a[0], b[0]) - 1e-9 <= p[0] <= max(a[0], b[0]) + 1e-9
        and min(a[1], b[1]) - 1e-9 <= p[1] <= max(a[1], b[1]) + 1e-9
    )


def _crosses(p1: Sequence[float], p2: Sequence[float], q1: Point, q2: Point) -> bool:
    """Proper intersection of two segments (not merely touching)."""
    d1, d2 = _cross(q1, q2, p1), _cross(q1, q2, p2)
    d3, d4 = _cross(p1, p2, q1), _cross(p1, p2, q2)
    return ((d1 > 1e-9 and d2 < -1e-9) or (d1 < -1e-9 and d2 > 1e-9)) and (
        (d3 > 1e-9 and d4 < -1e-9) or (d3 < -1e-9 and d4 > 1e-9)
    )


def segment_enters(a: Sequence[float], b: Sequence[float], poly: Sequence[Point]) -> bool:
    """Whether a straight move from a to b passes through any part of a polygon."""
    if inside(a, poly) or inside(b, poly):
        return True
    n = len(poly)
    return any(_crosses(a, b, poly[i], poly[(i + 1) % n]) for i in range(n))


def segment_within(a: Sequence[float], b: Sequence[float], poly: Sequence[Point]) -> bool:
    """Whether a straight move from a to b stays inside a polygon (exact for convex ones; the
    midpoint is checked too for concave ones)."""
    mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    if not (inside(a, poly) and inside(b, poly) and inside(mid, poly)):
        return False
    n = len(poly)
    return not any(_crosses(a, b, poly[i], poly[(i + 1) % n]) for i in range(n))


def figure_positions(
    unit: dict[str, Any], spacing: float, figures: int | None = None
) -> list[Point]:
    """Where each figure stands: ranks of ``ceil(n / ranks)`` figures, ``spacing`` apart, the front
    rank centred on the unit's position and square to its facing (degrees, 0 = +x, 90 = +y)."""
    count = unit["figures"] if figures is None else figures
    if count <= 0 or unit.get("x") is None:
        return []
    ranks = max(1, min(unit.get("ranks", 1), count))
    per_rank = math.ceil(count / ranks)
    angle = math.radians(unit.get("facing", 90))
    fx, fy = math.cos(angle), math.sin(angle)
    rx, ry = fy, -fx
    out = []
    for k in range(count):
        row, col = divmod(k, per_rank)
        across = (col - (per_rank - 1) / 2) * spacing
        back = row * spacing
        out.append((unit["x"] + across * rx - back * fx, unit["y"] + across * ry - back * fy))
    return out


def front_rank(figures: int, ranks: int) -> int:
    """Figures in the front rank ("one rank only" shoot)."""
    if figures <= 0:
        return 0
    return math.ceil(figures / max(1, min(ranks, figures)))


def nearest(a: Sequence[Point], b: Sequence[Point]) -> float:
    if not a or not b:
        return math.inf
    return min(dist(p, q) for p in a for q in b)


def off_angle(facing: float, origin: Sequence[float], target: Sequence[float]) -> float:
    """Degrees between a facing and the direction from origin to target (0 to 180)."""
    bearing = math.degrees(math.atan2(target[1] - origin[1], target[0] - origin[0]))
    diff = (bearing - facing) % 360
    return min(diff, 360 - diff)


def on_table(point: Sequence[float], width: float, height: float) -> bool:
    return 0 <= point[0] <= width and 0 <= point[1] <= height
