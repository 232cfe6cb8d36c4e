"""A printed hex map drawn by Pillow, with its truth: terrain per hex and river hexsides.

The map is drawn as a scan would show it: flat colours with print texture (forest dots, mountain
hatching, paper grain), dark grid lines, a hex number near the top of each hex, a blue river
band along a winding chain of hexsides, the whole turned a little and scaled, then saved as JPEG.
Used by the map image tests and ``python -m bench map_image``."""

from __future__ import annotations

import io
import math
import random
from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from service.rules.kernel.grid import Bounds, HexGrid
from service.rules.kernel.layout import centre

TERRAIN_COLOURS = {
    "clear": (232, 222, 186),
    "forest": (96, 150, 84),
    "rough": (196, 170, 110),
    "mountain": (150, 112, 80),
}
RIVER = (58, 110, 196)
ROAD = (178, 40, 36)
GRID_LINE = (70, 60, 50)


@dataclass
class PrintedMap:
    grid: HexGrid
    data: bytes
    width: int
    height: int
    #: grid units -> pixels, as drawn
    affine: np.ndarray
    terrain: dict[str, str]
    rivers: set[frozenset[str]] = field(default_factory=set)
    roads: set[frozenset[str]] = field(default_factory=set)

    def pixel(self, label: str) -> tuple[float, float]:
        gx, gy = centre(self.grid, label)
        x, y = self.affine @ np.array([gx, gy, 1.0])
        return float(x), float(y)


def corners(gx: float, gy: float, orientation: str) -> list[tuple[float, float]]:
    start = 0.0 if orientation == "flat" else 30.0
    return [
        (
            gx + math.cos(math.radians(start + 60 * k)),
            gy + math.sin(math.radians(start + 60 * k)),
        )
        for k in range(6)
    ]


def _terrain(grid: HexGrid, rng: random.Random) -> dict[str, str]:
    """Patches of terrain: each hex takes the terrain of its nearest of a few seeds."""
    labels = list(grid.labels())
    names = list(TERRAIN_COLOURS)
    seeds = [(centre(grid, rng.choice(labels)), names[i % len(names)]) for i in range(28)]
    out = {}
    for label in labels:
        x, y = centre(grid, label)
        x += rng.uniform(-1.2, 1.2)
        y += rng.uniform(-1.2, 1.2)
        out[label] = min(seeds, key=lambda s: (s[0][0] - x) ** 2 + (s[0][1] - y) ** 2)[1]
    return out


def _edges(grid: HexGrid) -> dict[frozenset[str], tuple[tuple[int, int], tuple[int, int]]]:
    """Each hexside's two end points (rounded grid units, so shared corners are equal keys)."""
    out = {}
    for label in grid.labels():
        gx, gy = centre(grid, label)
        mine = {(round(x * 1000), round(y * 1000)) for x, y in corners(gx, gy, grid.orientation)}
        for other in grid.neighbours(label):
            ox, oy = centre(grid, other)
            theirs = {
                (round(x * 1000), round(y * 1000)) for x, y in corners(ox, oy, grid.orientation)
            }
            shared = sorted(mine & theirs)
            if len(shared) == 2:
                out[frozenset((label, other))] = (shared[0], shared[1])
    return out


def _river(grid: HexGrid, rng: random.Random, length: int) -> set[frozenset[str]]:
    """A chain of hexsides: a walk along the corners of the hexes, never back on itself."""
    edges = _edges(grid)
    by_corner: dict[tuple[int, int], list[frozenset[str]]] = {}
    for side, (p, q) in edges.items():
        by_corner.setdefault(p, []).append(side)
        by_corner.setdefault(q, []).append(side)
    inner = [c for c, sides in by_corner.items() if len(sides) == 3]
    best: set[frozenset[str]] = set()
    for _ in range(40):
        at = rng.choice(inner)
        seen_corners = {at}
        chain: set[frozenset[str]] = set()
        heading = (rng.uniform(-1, 1), rng.uniform(-1, 1))
        while len(chain) < length:
            options = []
            for side in by_corner[at]:
                p, q = edges[side]
                nxt = q if p == at else p
                if nxt in seen_corners or side in chain:
                    continue
                dx, dy = nxt[0] - at[0], nxt[1] - at[1]
                options.append((dx * heading[0] + dy * heading[1] + rng.uniform(0, 600), side, nxt))
            if not options:
                break
            _, side, nxt = max(options)
            chain.add(side)
            seen_corners.add(nxt)
            at = nxt
        if len(chain) > len(best):
            best = chain
        if len(best) >= length:
            break
    return best


def _road(grid: HexGrid, rng: random.Random, length: int) -> set[frozenset[str]]:
    """A chain of hexes walked from one to a neighbour, never back: the hexsides it crosses."""
    labels = list(grid.labels())
    at = labels[len(labels) // 3]
    seen = {at}
    crossed: set[frozenset[str]] = set()
    while len(crossed) < length:
        options = [n for n in grid.neighbours(at) if n not in seen]
        if not options:
            break
        nxt = rng.choice(options)
        crossed.add(frozenset((at, nxt)))
        seen.add(nxt)
        at = nxt
    return crossed


def render(
    cols: int = 30,
    rows: int = 24,
    *,
    radius: float = 22.0,
    angle: float = 2.5,
    scale_y: float = 1.03,
    quality: int = 82,
    seed: int = 7,
    river_length: int = 60,
    grid: HexGrid | None = None,
    terrain: dict[str, str] | None = None,
    rivers: set[frozenset[str]] | None = None,
    road_length: int = 0,
) -> PrintedMap:
    """A printed map of ``cols`` x ``rows`` hexes (four-digit labels, flat-topped), or of
    ``grid`` (flat-topped) with ``terrain`` (each a key of :data:`TERRAIN_COLOURS`) and
    ``rivers`` given; what is not given is made up from ``seed``."""
    rng = random.Random(seed)
    grid = grid or HexGrid("four-digit", Bounds(1, cols, 1, rows), "flat", "odd")
    cols = grid.bounds.max_col - grid.bounds.min_col + 1
    rows = grid.bounds.max_row - grid.bounds.min_row + 1
    terrain = terrain or _terrain(grid, rng)
    rivers = _river(grid, rng, river_length) if rivers is None else rivers
    roads = _road(grid, rng, road_length) if road_length else set()
    theta = math.radians(angle)
    rot = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    linear = rot @ np.diag([radius, radius * scale_y])
    span_x = (1.5 * (cols - 1) + 2) * radius
    span_y = (math.sqrt(3) * (rows + 0.5) + 1) * radius * scale_y
    width = int(span_x + 0.12 * span_y) + 80
    height = int(span_y + 0.12 * span_x) + 80
    offset = np.array([40 + 0.06 * span_y, 40.0])
    affine = np.hstack([linear, offset[:, None]])

    def px(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return [tuple(affine @ np.array([x, y, 1.0])) for x, y in points]  # type: ignore[misc]

    image = Image.new("RGB", (width, height), (245, 240, 225))
    draw = ImageDraw.Draw(image)
    for label in grid.labels():
        gx, gy = centre(grid, label)
        draw.polygon(px(corners(gx, gy, "flat")), fill=TERRAIN_COLOURS[terrain[label]])
    # print texture: forest dots, mountain hatching, rough speckles
    for label in grid.labels():
        gx, gy = centre(grid, label)
        kind = terrain[label]
        if kind == "forest":
            for _ in range(9):
                x, y = px([(gx + rng.uniform(-0.6, 0.6), gy + rng.uniform(-0.6, 0.6))])[0]
                r = radius * 0.09
                draw.ellipse((x - r, y - r, x + r, y + r), fill=(62, 112, 58))
        elif kind == "mountain":
            for k in range(4):
                y0 = gy - 0.45 + 0.3 * k
                p, q = px([(gx - 0.45, y0), (gx + 0.45, y0 - 0.2)])
                draw.line([p, q], fill=(118, 84, 58), width=max(1, int(radius * 0.06)))
        elif kind == "rough":
            for _ in range(14):
                x, y = px([(gx + rng.uniform(-0.7, 0.7), gy + rng.uniform(-0.7, 0.7))])[0]
                draw.point((x, y), fill=(150, 128, 86))
    for label in grid.labels():
        gx, gy = centre(grid, label)
        outline = px(corners(gx, gy, "flat"))
        draw.line([*outline, outline[0]], fill=GRID_LINE, width=max(1, int(radius * 0.05)))
        x, y = px([(gx - 0.3, gy - 0.78)])[0]
        draw.text((x, y), label, fill=(40, 40, 40))
    edges = _edges(grid)
    for side in rivers:
        p, q = edges[side]
        ends = px([(p[0] / 1000, p[1] / 1000), (q[0] / 1000, q[1] / 1000)])
        draw.line(ends, fill=RIVER, width=max(2, int(radius * 0.2)))
    for side in roads:  # a road crosses the hexside, centre to centre
        a, b = sorted(side)
        ends = px([centre(grid, a), centre(grid, b)])
        draw.line(ends, fill=ROAD, width=max(2, int(radius * 0.12)))
    image = image.filter(ImageFilter.GaussianBlur(0.6))
    noise = np.random.default_rng(seed).normal(0, 7, (height, width, 3))
    pixels = np.clip(np.asarray(image, dtype=np.float64) + noise, 0, 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="JPEG", quality=quality)
    return PrintedMap(grid, out.getvalue(), width, height, affine, terrain, rivers, roads)
