"""A club scenario's map image: the scan of the printed map, checked and stripped (Pillow), fitted
to the hex grid (an affine transform by least squares, NumPy), and read for terrain (colour
statistics of each hex's interior and each hexside's strip, against the admin's examples).

Pure computation on bytes and a :class:`HexGrid`: no store, no HTTP.  The service that keeps the
bytes and records the edits is :class:`service.application.map_image_service.MapImages`.
See docs/scenario-library.md ("Map image")."""

from __future__ import annotations

import contextlib
import hashlib
import io
import math
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image, ImageOps

from service.domain.errors import Invalid, TooLarge, Unprocessable, UnsupportedMediaType
from service.rules.kernel.coords import CoordinateError
from service.rules.kernel.grid import HexGrid
from service.rules.kernel.layout import ROOT3, centre

#: an upload's limits (docs/scenario-library.md): bytes on the wire, and pixels decoded -- what an
#: upload costs a worker is its pixels (4 bytes each, as Pillow holds RGB and RGBA), never its
#: compressed size: 0.4 MB of PNG can be 100 million pixels.  50 million (200 MB decoded) takes
#: a 600 dpi scan of an A3 sheet (7,016 x 4,961) or a 22 x 34 inch map at 250 dpi (5,500 x 8,500);
#: a 6,184 x 6,103 scan (37.7 million) is accepted in the tests
MAX_BYTES = 20 * 1024 * 1024
MAX_SIDE = 12_000
MAX_PIXELS = 50_000_000
MEDIA_TYPES = {"image/png": "PNG", "image/jpeg": "JPEG"}
# Pillow's own guard against decompression bombs, held to the same budget: it warns past
# MAX_PIXELS and refuses to open twice that anywhere in the process (a stored image, a resize)
Image.MAX_IMAGE_PIXELS = MAX_PIXELS
#: the EXIF tag of a photo's orientation
ORIENTATION = 0x0112
#: the widths an image is served at (a request is served the next one up, or the original)
WIDTHS = (256, 512, 768, 1024, 1536, 2048, 3072, 4096)
#: the hexside features the scenario format knows (docs/scenario-format.md)
HEXSIDE_FEATURES = ("river", "road", "rail", "strait", "impassable")
#: a calibration point may miss the fitted grid by at most this share of a hex's radius
MAX_RESIDUAL = 0.25
#: a fit that scales hexes this many times more one way than the other is refused: no scan or photo
#: from above draws a printed map so; three points always fit exactly, and this is what tells
#: that one of them is wrong
MAX_STRETCH = 1.3
#: four points disagreeing: the three left when the wrong one is left out fit a grid stretched at
#: most this much (a scan's unevenness), and clearly less than any other three
SUSPECT_STRETCH = 1.2
#: the sampled disc of a hex: this share of its inner radius (clear of the grid lines)
DISC = 0.6
#: a hexside's strip: along the edge up to this share of half its length, this far across
STRIP_ALONG = 0.6
STRIP_ACROSS = 0.16
#: where between the map's usual share of a feature's colour in a strip and the examples' share
#: a hexside starts to show the feature
CUT = 0.15
#: a feature read on more than this share of the hexsides is not a feature the examples mark out
MOST_SIDES = 0.1
#: the sampled image's hex radius at most (a finer scan is read reduced)
READ_RADIUS_PX = 18


# -- upload ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Checked:
    """An upload that is an image within the limits, re-encoded without its metadata."""

    data: bytes
    media_type: str
    width: int
    height: int

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def check_upload(
    data: bytes, media_type: str, decoding: AbstractContextManager[Any] | None = None
) -> Checked:
    """The upload decoded (so it really is a PNG or JPEG), within :data:`MAX_BYTES`,
    :data:`MAX_SIDE` a side and :data:`MAX_PIXELS` -- both read from its header, before a pixel
    is decoded -- turned upright by its EXIF orientation and re-encoded without metadata (EXIF,
    XMP, ICC, JPEG comments, PNG text chunks).  The decoding itself runs inside ``decoding``
    (a worker's bound on decodes at once).  Refusals name ``image``."""
    media_type = (media_type or "").split(";", 1)[0].strip().lower()
    if media_type not in MEDIA_TYPES:
        raise UnsupportedMediaType(
            f"a map image is PNG or JPEG, not {media_type or 'untyped'}",
            {"image": ["send image/png or image/jpeg as the body's Content-Type"]},
        )
    if len(data) > MAX_BYTES:
        raise TooLarge(
            "the map image is too large",
            {"image": [f"at most {MAX_BYTES // (1024 * 1024)} MB, this is {len(data):,} bytes"]},
        )
    if not data:
        raise Invalid("no image", {"image": ["the body is empty"]})
    kind = MEDIA_TYPES[media_type]
    try:
        with Image.open(io.BytesIO(data), formats=[kind]) as probe:  # the header only
            _within(*probe.size)
            probe.verify()  # a PNG's chunks and their checksums, still without decoding
        with (
            decoding or contextlib.nullcontext(),
            Image.open(io.BytesIO(data), formats=[kind]) as image,
        ):
            image.load()
            out, width, height = _stripped(image, media_type)
    except (TooLarge, Invalid):
        raise
    except Image.DecompressionBombError:  # past twice the budget: never decoded
        raise TooLarge(
            "the map image is too large",
            {"image": [f"at most {MAX_SIDE:,} px a side and {MAX_PIXELS:,} px in all"]},
        ) from None
    except (OSError, SyntaxError, ValueError):
        name = "PNG" if media_type == "image/png" else "JPEG"
        raise Invalid(
            f"not a {name} image", {"image": [f"could not be read as {name}: not one, or damaged"]}
        ) from None
    return Checked(out, media_type, width, height)


def _within(width: int, height: int) -> None:
    if max(width, height) > MAX_SIDE or width * height > MAX_PIXELS:
        raise TooLarge(
            "the map image is too large",
            {
                "image": [
                    f"at most {MAX_SIDE:,} px a side and {MAX_PIXELS:,} px in all; "
                    f"this is {width:,}×{height:,} ({width * height:,} px)"
                ]
            },
        )


def _stripped(image: Image.Image, media_type: str) -> tuple[bytes, int, int]:
    """The decoded ``image`` turned upright in place (no copy of its pixels unless it is turned)
    and encoded with no metadata: its ``info`` (where Pillow keeps a JPEG's comment, EXIF, XMP,
    ICC profile and a PNG's text chunks, and writes some of them back) is emptied first."""
    turned = image.getexif().get(ORIENTATION, 1) not in (1, None)
    ImageOps.exif_transpose(image, in_place=True)
    kept: dict[str | tuple[int, int], Any] = {}
    if "transparency" in image.info:
        kept["transparency"] = image.info["transparency"]
    image.info = kept
    # a JPEG not turned keeps its own quantization and subsampling: no loss added, no growth
    out = _encoded(image, media_type, keep=not turned and media_type == "image/jpeg")
    return out, image.width, image.height


def _encoded(image: Image.Image, media_type: str, *, keep: bool = False) -> bytes:
    """``image`` saved with no metadata (Pillow writes none unless given, or kept in ``info``);
    converted only when its mode cannot be saved as it is."""
    out = io.BytesIO()
    if media_type == "image/png":
        if image.mode not in ("1", "L", "LA", "P", "RGB", "RGBA"):
            image = image.convert("RGBA")
        image.save(out, format="PNG", optimize=False)
    else:
        rgb = image if image.mode in ("L", "RGB") else image.convert("RGB")
        if keep and rgb is image:
            rgb.save(out, format="JPEG", quality="keep")
        else:
            rgb.save(out, format="JPEG", quality=92)
    return out.getvalue()


def served_width(asked: int | None, width: int) -> int:
    """The width an image ``width`` px wide is served at for a request of ``asked`` px: the
    next of :data:`WIDTHS` up from it, never wider than the image (a fixed few sizes, so each
    is made once and kept)."""
    if asked is None or asked >= width:
        return width
    for step in WIDTHS:
        if step >= asked:
            return min(step, width)
    return width


def resized(data: bytes, media_type: str, width: int) -> bytes:
    """The image ``width`` px wide (its own aspect), in its own format."""
    with Image.open(io.BytesIO(data)) as image:
        if width >= image.width:
            return data
        height = max(1, round(image.height * width / image.width))
        if media_type == "image/jpeg":
            image.draft("RGB", (width, height))  # JPEG decodes reduced: cheap for a big scan
        small = image.resize((width, height), Image.Resampling.LANCZOS)
        return _encoded(small, media_type)


# -- calibration -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Calibration:
    """The affine transform from grid units (layout.centre: a hex's outer radius is 1) to image
    pixels: ``[x, y] = affine @ [gx, gy, 1]``."""

    affine: tuple[tuple[float, float, float], tuple[float, float, float]]
    residual_px: float
    per_point: tuple[tuple[str, float], ...]

    @property
    def matrix(self) -> np.ndarray:
        return np.array(self.affine, dtype=float)

    @property
    def radius_px(self) -> float:
        """A hex's outer radius in pixels (the transform's mean scale)."""
        return _radius(self.matrix)

    def to_json(self) -> dict[str, Any]:
        return {
            "affine": [list(row) for row in self.affine],
            "residual_px": self.residual_px,
            "per_point": [{"hex": h, "residual_px": r} for h, r in self.per_point],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Calibration:
        a = data["affine"]
        if len(a) != 2 or any(len(row) != 3 for row in a):
            raise ValueError("an affine transform is 2 rows of 3")
        if not all(math.isfinite(float(v)) for row in a for v in row):
            raise ValueError("an affine transform of finite numbers")
        return cls(
            (tuple(map(float, a[0])), tuple(map(float, a[1]))),  # type: ignore[arg-type]
            float(data.get("residual_px", 0.0)),
            tuple((p["hex"], float(p["residual_px"])) for p in data.get("per_point", [])),
        )


def grid_of(map_: Mapping[str, Any]) -> HexGrid:
    """The hex grid of a (plain) scenario map; 422 naming ``map`` when it has none."""
    try:
        return HexGrid.from_dict(dict(map_))
    except (KeyError, TypeError, ValueError) as exc:
        raise Unprocessable("the scenario has no hex grid", {"map": [str(exc)]}) from None


def _hex(grid: HexGrid, label: Any, field: str) -> str:
    if not isinstance(label, str) or not grid.in_bounds(label):
        try:
            if isinstance(label, str) and grid.in_bounds(grid.normalise(label)):
                return grid.normalise(label)
        except CoordinateError:
            pass
        raise Unprocessable(f"unknown hex {label!r}", {field: [f"no hex {label!r} on this map"]})
    return label


def calibrate(
    grid: HexGrid, points: Sequence[Mapping[str, Any]], width: int, height: int
) -> Calibration:
    """Fit ``[x, y] = A @ [gx, gy, 1]`` over every point by least squares.  Refused (422, naming
    the points): fewer than 3, an unknown or repeated hex, a point off the image, points on one
    line, or a fit that misses a point by more than :data:`MAX_RESIDUAL` of a hex's radius."""
    if len(points) < 3:
        raise Unprocessable("three points at least", {"points": ["give 3 or more hexes"]})
    labels: list[str] = []
    for i, point in enumerate(points):
        label = _hex(grid, point.get("hex"), f"points[{i}].hex")
        if label in labels:
            raise Unprocessable(
                f"hex {label} given twice", {f"points[{i}].hex": [f"{label} is already a point"]}
            )
        labels.append(label)
        for axis, limit in (("x", width), ("y", height)):
            value = point.get(axis)
            if not isinstance(value, int | float) or not 0 <= value <= limit:
                raise Unprocessable(
                    f"point {label} is off the image",
                    {f"points[{i}].{axis}": [f"a pixel within 0..{limit}"]},
                )
    source = np.array([[*centre(grid, label), 1.0] for label in labels])
    target = np.array([[float(p["x"]), float(p["y"])] for p in points])
    singular = np.linalg.svd(source[:, :2] - source[:, :2].mean(axis=0), compute_uv=False)
    if singular[-1] < 1e-6 * max(1.0, singular[0]) or singular[-1] < 0.5:
        raise Unprocessable(
            "the points lie on one line: the fit would have no second direction",
            {"points": [f"{', '.join(labels)} are in one line; add a hex off that line"]},
        )
    solution, *_ = np.linalg.lstsq(source, target, rcond=None)
    affine = solution.T  # 2x3
    misses = np.linalg.norm(source @ solution - target, axis=1)
    radius = _radius(affine)
    if radius < 2.0:
        raise Unprocessable(
            "the points make hexes smaller than 2 px",
            {"points": ["points this close agree on no grid"]},
        )
    tolerance = MAX_RESIDUAL * radius
    wrong = [(labels[i], float(m)) for i, m in enumerate(misses) if m > tolerance]
    suspect = _suspect(source, target) if wrong else None
    if suspect is not None:
        index, miss = suspect
        others = len(labels) - 1
        raise Unprocessable(
            f"the points disagree: {labels[index]} is likely the wrong one (the other {others} "
            "agree without it)",
            {
                f"points[{index}]": [
                    f"{labels[index]} is {miss:.1f} px from the fitted grid of the other "
                    f"{others} points: check its hex, x and y"
                ]
            },
        )
    if wrong:
        raise Unprocessable(
            f"the points disagree: the best fit misses {len(wrong)} of them by more than "
            f"{tolerance:.1f} px (a quarter of a hex's {radius:.1f} px radius)",
            {
                f"points[{labels.index(label)}]": [f"{label} is {miss:.1f} px from the fitted grid"]
                for label, miss in wrong
            },
        )
    stretch = _stretch(affine)
    if stretch > MAX_STRETCH:
        raise Unprocessable(
            f"the points make hexes {stretch:.1f} times longer one way than the other: a printed "
            "map is not drawn so, so a point is likely wrong",
            {
                "points": [
                    f"{', '.join(labels)} fit only a grid stretched {stretch:.1f} times: check "
                    "each hex, x and y, or add a fourth point far from these to find the wrong one"
                ]
            },
        )
    rms = float(np.sqrt(np.mean(misses**2)))
    return Calibration(
        (tuple(map(float, affine[0])), tuple(map(float, affine[1]))),  # type: ignore[arg-type]
        round(rms, 3),
        tuple((label, round(float(m), 3)) for label, m in zip(labels, misses, strict=True)),
    )


def _radius(affine: np.ndarray) -> float:
    """A hex's outer radius in pixels under ``affine`` (its mean scale)."""
    return math.sqrt(abs(float(np.linalg.det(affine[:, :2]))))


def _stretch(affine: np.ndarray) -> float:
    """How much more the fit scales one way than the other (1: a similarity, as a scan or a photo
    taken from above draws a printed grid; shear and uneven scale raise it)."""
    singular = np.linalg.svd(affine[:, :2], compute_uv=False)
    return float(singular[0] / max(float(singular[1]), 1e-9))


def _suspect(source: np.ndarray, target: np.ndarray) -> tuple[int, float] | None:
    """The one point whose leaving out makes the others agree, and how far it lies from their
    fit; None when no single point does.  Five points or more: the others' own fit misses none
    of them.  Four: any three fit exactly, so the three that fit a grid closest to the printed
    one's shape (:func:`_stretch`), when clearly closer than any other three."""
    n = len(source)
    if n < 4:
        return None
    found: list[tuple[float, int, float]] = []  # (how well the others agree, index, its miss)
    for i in range(n):
        keep = [j for j in range(n) if j != i]
        solution, *_ = np.linalg.lstsq(source[keep], target[keep], rcond=None)
        affine = solution.T
        radius = _radius(affine)
        if radius < 2.0:
            continue
        miss = float(np.linalg.norm(source[i] @ solution - target[i]))
        if miss <= MAX_RESIDUAL * radius:
            continue  # the others put it where it was given: not the wrong one
        if n >= 5:
            rest = np.linalg.norm(source[keep] @ solution - target[keep], axis=1)
            if float(rest.max()) <= MAX_RESIDUAL * radius:
                found.append((0.0, i, miss))
        else:
            found.append((_stretch(affine), i, miss))
    if n >= 5:
        return (found[0][1], found[0][2]) if len(found) == 1 else None
    found.sort()
    if not found or found[0][0] > SUSPECT_STRETCH:
        return None
    if len(found) > 1 and found[1][0] <= max(SUSPECT_STRETCH, 1 + 3 * (found[0][0] - 1)):
        return None  # not clearly the best three
    return found[0][1], found[0][2]


# -- reading the image -------------------------------------------------------------------------
def srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """CIE L*a*b* (D65) of sRGB values 0..255 (any shape ending in 3)."""
    c = rgb.astype(np.float64) / 255.0
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    m = np.array(
        [
            [0.4124564, 0.3575761, 0.1804375],
            [0.2126729, 0.7151522, 0.0721750],
            [0.0193339, 0.1191920, 0.9503041],
        ]
    )
    xyz = c @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16.0 / 116.0)
    lab = np.empty_like(f)
    lab[..., 0] = 116.0 * f[..., 1] - 16.0
    lab[..., 1] = 500.0 * (f[..., 0] - f[..., 1])
    lab[..., 2] = 200.0 * (f[..., 1] - f[..., 2])
    return lab


def _lattice(radius: float, step: float, shape: str, half: float = 0.0) -> np.ndarray:
    """Sample offsets in grid units: a disc of ``radius``, or a band ``half`` long each way and
    ``radius`` across (``shape`` "band"), every ``step``."""
    if shape == "disc":
        ticks = np.arange(-radius, radius + 1e-9, step)
        xs, ys = np.meshgrid(ticks, ticks)
        keep = xs**2 + ys**2 <= radius**2
        return np.stack([xs[keep], ys[keep]], axis=1)
    along = np.arange(-half, half + 1e-9, step)
    across = np.arange(-radius, radius + 1e-9, step)
    a, b = np.meshgrid(along, across)
    return np.stack([a.ravel(), b.ravel()], axis=1)


class Reader:
    """The image as RGB pixels (reduced so a hex is about :data:`READ_RADIUS_PX` px), and the
    calibration's transform to it."""

    def __init__(self, data: bytes, calibration: Calibration) -> None:
        factor = max(1, int(calibration.radius_px // READ_RADIUS_PX))
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size  # before a JPEG's draft decodes it reduced
            wanted = (max(1, width // factor), max(1, height // factor))
            if factor > 1 and image.format == "JPEG":
                image.draft("RGB", wanted)
            rgb = image.convert("RGB")
            if rgb.size != wanted:
                rgb = rgb.resize(wanted, Image.Resampling.BOX)
        scale = rgb.width / width
        self.pixels = np.asarray(rgb, dtype=np.uint8)
        self.affine = calibration.matrix * scale
        self.radius_px = calibration.radius_px * scale

    def sample(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The Lab colours at grid-unit ``points`` (..., 2) and which fell on the image."""
        x = (
            points[..., 0] * self.affine[0, 0]
            + points[..., 1] * self.affine[0, 1]
            + self.affine[0, 2]
        )
        y = (
            points[..., 0] * self.affine[1, 0]
            + points[..., 1] * self.affine[1, 1]
            + self.affine[1, 2]
        )
        h, w = self.pixels.shape[:2]
        xi, yi = np.rint(x).astype(np.int64), np.rint(y).astype(np.int64)
        inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        rgb = self.pixels[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
        return srgb_to_lab(rgb), inside

    def step(self, span: float, most: int) -> float:
        """A sampling step in grid units: about a pixel, at most ``most`` samples over ``span``."""
        return max(1.0 / max(self.radius_px, 1e-6), span / most)


def _stats(lab: np.ndarray) -> np.ndarray:
    """Per row of samples (N, K, 3): the 25th, 50th and 75th percentiles of L*, a*, b* (N, 9):
    robust to the grid's lines, a hex number or a town's dot inside the disc."""
    q = np.percentile(lab, [25, 50, 75], axis=1)  # (3, N, 3)
    return np.concatenate([q[1], q[0], q[2]], axis=1)


@dataclass(frozen=True)
class Proposal:
    hexes: dict[str, dict[str, Any]]
    hexsides: list[dict[str, Any]]
    outside: list[str]
    #: the features the examples could not read: ``{"feature", "reason"}``
    unread: list[dict[str, str]]

    def to_json(self) -> dict[str, Any]:
        return {
            "hexes": self.hexes,
            "hexsides": self.hexsides,
            "outside": self.outside,
            "unread": self.unread,
        }


def _label_pairs(grid: HexGrid) -> list[tuple[str, str]]:
    pairs = []
    for label in grid.labels():
        for other in grid.neighbours(label):
            if label < other:
                pairs.append((label, other))
    return pairs


def propose(
    data: bytes,
    calibration: Calibration,
    grid: HexGrid,
    hex_examples: Mapping[str, Sequence[str]],
    side_examples: Mapping[str, Sequence[Sequence[str]]],
) -> Proposal:
    """Terrain for every hex and features for the hexsides that show one, each with a confidence
    in 0..1, from the examples (``hex_examples``: terrain -> hexes; ``side_examples``: feature ->
    ``[a, b]`` pairs; both already checked against the map).

    A hex is classified by the nearest centroid of the examples' colour statistics (the median
    and quartiles of L*a*b* over a disc of :data:`DISC` of its inner radius); its confidence is
    ``1 - d1/d2`` (the distances to the nearest and second-nearest terrain).  A hexside shows a
    feature when enough of its strip is the feature's colour: nearer the colour the examples
    show there than to either hex's own, the share that decides being halfway between the
    examples' share and the map's usual share."""
    reader = Reader(data, calibration)
    labels = list(grid.labels())
    index = {label: i for i, label in enumerate(labels)}
    centres = np.array([centre(grid, label) for label in labels])
    disc_r = DISC * ROOT3 / 2
    disc = _lattice(disc_r, reader.step(2 * disc_r, 24), "disc")
    lab, inside = reader.sample(centres[:, None, :] + disc[None, :, :])
    on_image = inside.mean(axis=1) >= 0.5
    stats = _stats(lab)
    hexes: dict[str, dict[str, Any]] = {}
    if hex_examples:
        names = list(hex_examples)
        centroids = np.array(
            [stats[[index[h] for h in hex_examples[name]]].mean(axis=0) for name in names]
        )
        distances = np.linalg.norm(stats[:, None, :] - centroids[None, :, :], axis=2)
        order = np.argsort(distances, axis=1)
        for i, label in enumerate(labels):
            if not on_image[i]:
                continue
            first = distances[i, order[i, 0]]
            second = distances[i, order[i, 1]] if len(names) > 1 else first
            confidence = 1.0 - first / second if second > 0 else 1.0
            hexes[label] = {
                "terrain": names[order[i, 0]],
                "confidence": round(float(confidence), 3),
            }
    sides, unread = _propose_sides(
        reader, grid, labels, index, centres, stats, on_image, side_examples
    )
    outside = [label for i, label in enumerate(labels) if not on_image[i]]
    return Proposal(hexes, sides, outside, unread)


def _propose_sides(
    reader: Reader,
    grid: HexGrid,
    labels: list[str],
    index: Mapping[str, int],
    centres: np.ndarray,
    stats: np.ndarray,
    on_image: np.ndarray,
    side_examples: Mapping[str, Sequence[Sequence[str]]],
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    if not side_examples:
        return [], []
    pairs = _label_pairs(grid)
    a = np.array([index[p[0]] for p in pairs])
    b = np.array([index[p[1]] for p in pairs])
    mid = (centres[a] + centres[b]) / 2
    normal = centres[b] - centres[a]
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    edge = np.stack([-normal[:, 1], normal[:, 0]], axis=1)
    half = STRIP_ALONG * 0.5  # an edge is 1 long (the outer radius)
    band = _lattice(STRIP_ACROSS, reader.step(2 * half, 16), "band", half)
    regions = {
        # along the edge (a river): offsets (along, across) -> edge * along + normal * across
        "along": mid[:, None, :]
        + band[None, :, 0:1] * edge[:, None, :]
        + band[None, :, 1:2] * normal[:, None, :],
        # across it, centre to centre (a road): the same band turned
        "across": mid[:, None, :]
        + band[None, :, 0:1] * normal[:, None, :]
        + band[None, :, 1:2] * edge[:, None, :],
    }
    own_a, own_b = stats[a, :3], stats[b, :3]  # each hex's median colour
    found: list[dict[str, Any]] = []
    unread: list[dict[str, str]] = []
    where = {frozenset(p): i for i, p in enumerate(pairs)}
    usable = on_image[a] & on_image[b]
    sampled = {name: reader.sample(points)[0] for name, points in regions.items()}
    for feature, examples in side_examples.items():
        rows = [where[frozenset((str(x), str(y)))] for x, y in examples]
        # the strip (along the edge: a river; across it: a road) where the examples stand out
        # most from the map's common run of hexsides (its 90th percentile: a feature is rare)
        best: tuple[float, np.ndarray] | None = None
        for lab in sampled.values():
            share = _feature_share(lab, own_a, own_b, rows)
            score = float(share[rows].mean() - np.percentile(share[usable], 90))
            if best is None or score > best[0]:
                best = (score, share)
        assert best is not None
        share = best[1]
        shown = float(share[rows].mean())
        usual = float(np.median(share[usable]))
        cut = _split(share[usable], usual, shown)
        chosen = np.flatnonzero(usable & (share > cut))
        if shown - usual < 0.05 or len(chosen) > MOST_SIDES * usable.sum():
            # the examples show nothing the rest of the map does not, or what they show is all
            # over it (a forest's dots, not a road): nothing is proposed, and the answer says so
            unread.append(
                {
                    "feature": feature,
                    "reason": "its examples do not stand out from the rest of the map: "
                    "give more, or clearer, example hexsides",
                }
            )
            continue
        for i in chosen:
            confidence = min(1.0, 0.5 + 0.5 * (share[i] - cut) / (shown - cut))
            found.append(
                {
                    "between": [pairs[i][0], pairs[i][1]],
                    "feature": feature,
                    "confidence": round(float(confidence), 3),
                }
            )
    found.sort(key=lambda item: (item["feature"], item["between"]))
    return found, unread


def _split(shares: np.ndarray, low: float, high: float) -> float:
    """The share that best splits the hexsides in two (Otsu's threshold: the most variance
    between the two groups), looked for between the map's usual share and the examples' share
    (at least :data:`CUT` of the way up)."""
    floor = low + CUT * (high - low)
    candidates = np.linspace(floor, high, 40)
    best, cut = -1.0, floor
    for t in candidates:
        above = shares > t
        n1 = int(above.sum())
        n0 = len(shares) - n1
        if n0 == 0 or n1 == 0:
            continue
        gap = float(shares[above].mean() - shares[~above].mean())
        score = n0 * n1 * gap * gap
        if score > best:
            best, cut = score, float(t)
    return cut


def _feature_share(
    lab: np.ndarray, own_a: np.ndarray, own_b: np.ndarray, rows: Sequence[int]
) -> np.ndarray:
    """Per hexside, the share of its strip's samples of the feature's colour.  A strip holds
    its two hexes' colours and the grid's line (the colour most strips show apart from their
    hexes'); the feature's colour is the median of the examples' samples unlike all three, and
    a sample is of it when nearer it than to any of them."""
    to_a = np.linalg.norm(lab - own_a[:, None, :], axis=2)
    to_b = np.linalg.norm(lab - own_b[:, None, :], axis=2)
    unlike = np.minimum(to_a, to_b) > 20.0
    others = lab[unlike]
    if len(others) == 0:
        return np.zeros(lab.shape[0])
    line = np.median(others[:: max(1, len(others) // 20000)], axis=0)
    to_line = np.linalg.norm(lab - line[None, None, :], axis=2)
    picked = lab[rows][unlike[rows] & (to_line[rows] > 20.0)]
    if len(picked) == 0:
        return np.zeros(lab.shape[0])
    colour = np.median(picked, axis=0)
    to_f = np.linalg.norm(lab - colour[None, None, :], axis=2)
    spread = max(10.0, float(np.percentile(np.linalg.norm(picked - colour, axis=1), 75)))
    match = (to_f < to_a) & (to_f < to_b) & (to_f < to_line) & (to_f < 2 * spread)
    return match.mean(axis=1)  # type: ignore[no-any-return]
