"""The map image's pure parts (service/application/map_images.py): an upload's checks, the
calibration fit and its refusals, and the terrain proposal measured on a printed map drawn by
Pillow (tests/support/printed_map.py: 720 hexes, four terrain types, a river along hexsides,
turned 2.5 degrees, scaled unevenly, JPEG) -- issue 32's figures: at least 97 % of hexes and
90 % of river hexsides right after a calibration with three clicked hexes."""

from __future__ import annotations

import io
import random
import struct
import zlib
from collections import defaultdict

import pytest
from PIL import Image

from service.application.map_images import (
    MAX_BYTES,
    MAX_PIXELS,
    Calibration,
    calibrate,
    check_upload,
    propose,
    resized,
    served_width,
)
from service.domain.errors import Invalid, TooLarge, Unprocessable, UnsupportedMediaType
from tests.support.printed_map import PrintedMap, render


@pytest.fixture(scope="module")
def printed() -> PrintedMap:
    return render()


def clicks(printed: PrintedMap, labels: tuple[str, ...], jitter: float = 1.5) -> list[dict]:
    """Where a person clicks the hexes' centres: within ``jitter`` px of the truth."""
    rng = random.Random(3)
    out = []
    for label in labels:
        x, y = printed.pixel(label)
        out.append(
            {
                "hex": label,
                "x": round(x + rng.uniform(-jitter, jitter)),
                "y": round(y + rng.uniform(-jitter, jitter)),
            }
        )
    return out


CORNERS = ("0101", "3001", "1524")


def examples(printed: PrintedMap) -> dict[str, list[str]]:
    """One example hex per terrain type, as an admin would click them."""
    by: dict[str, list[str]] = defaultdict(list)
    for label in printed.grid.labels():
        by[printed.terrain[label]].append(label)
    return {terrain: [labels[len(labels) // 2]] for terrain, labels in sorted(by.items())}


@pytest.mark.parametrize(
    ("seed", "radius", "angle"), [(7, 22.0, 2.5), (2, 18.0, -3.0), (5, 30.0, 4.0)]
)
def test_the_proposal_reads_the_printed_map(seed: int, radius: float, angle: float) -> None:
    printed = render(seed=seed, radius=radius, angle=angle, quality=75)
    labels = list(printed.grid.labels())
    assert len(labels) >= 600 and len(set(printed.terrain.values())) >= 4
    assert len(printed.rivers) >= 40
    fit = calibrate(printed.grid, clicks(printed, CORNERS), printed.width, printed.height)
    river = [sorted(next(iter(sorted(printed.rivers, key=sorted))))]
    proposal = propose(printed.data, fit, printed.grid, examples(printed), {"river": river})
    right = sum(proposal.hexes[h]["terrain"] == printed.terrain[h] for h in labels)
    assert right / len(labels) >= 0.97, f"{right} of {len(labels)} hexes right"
    found = {frozenset(s["between"]) for s in proposal.hexsides if s["feature"] == "river"}
    hits = len(found & printed.rivers)
    assert hits / len(printed.rivers) >= 0.90, f"{hits} of {len(printed.rivers)} river hexsides"
    sides = sum(len(printed.grid.neighbours(h)) for h in labels) // 2
    wrong = len(found - printed.rivers)
    assert wrong / (sides - len(printed.rivers)) <= 0.01, f"{wrong} hexsides wrongly river"
    for item in proposal.hexes.values():
        assert 0.0 <= item["confidence"] <= 1.0
    assert all(0.5 <= s["confidence"] <= 1.0 for s in proposal.hexsides)
    assert proposal.outside == []


def test_a_wrong_example_lowers_the_confidence(printed: PrintedMap) -> None:
    """The hexes least sure of their terrain are the ones nearest another's colours: giving a
    forest hex as an example of clear makes forest hexes unsure."""
    fit = calibrate(printed.grid, clicks(printed, CORNERS), printed.width, printed.height)
    good = examples(printed)
    forest = good["forest"][0]
    mixed = {**good, "clear": [*good["clear"], forest]}
    before = propose(printed.data, fit, printed.grid, good, {})
    after = propose(printed.data, fit, printed.grid, mixed, {})
    forests = [h for h, t in printed.terrain.items() if t == "forest"]
    mean = lambda p: sum(p.hexes[h]["confidence"] for h in forests) / len(forests)  # noqa: E731
    assert mean(after) < mean(before)


def test_calibration_recovers_the_drawn_transform(printed: PrintedMap) -> None:
    fit = calibrate(
        printed.grid,
        clicks(printed, ("0101", "3001", "0124", "3024"), 0),
        printed.width,
        printed.height,
    )
    for row, truth in zip(fit.affine, printed.affine, strict=True):
        assert row == pytest.approx(list(truth), abs=0.6)
    assert fit.residual_px < 1.0
    assert [h for h, _ in fit.per_point] == ["0101", "3001", "0124", "3024"]


@pytest.mark.parametrize(
    ("points", "field", "reason"),
    [
        ([{"hex": "0101", "x": 10, "y": 10}] * 1, "points", "3 or more"),
        (
            [
                {"hex": "0101", "x": 60, "y": 60},
                {"hex": "0102", "x": 60, "y": 100},
                {"hex": "0103", "x": 60, "y": 140},
            ],
            "points",
            "one line",
        ),
        (
            [
                {"hex": "0101", "x": 60, "y": 60},
                {"hex": "9999", "x": 60, "y": 100},
                {"hex": "0103", "x": 90, "y": 140},
            ],
            "points[1].hex",
            "no hex",
        ),
        (
            [
                {"hex": "0101", "x": 60, "y": 60},
                {"hex": "0101", "x": 60, "y": 100},
                {"hex": "0203", "x": 90, "y": 140},
            ],
            "points[1].hex",
            "already",
        ),
        (
            [
                {"hex": "0101", "x": 60, "y": 60},
                {"hex": "0201", "x": 60, "y": -4},
                {"hex": "0103", "x": 90, "y": 140},
            ],
            "points[1].y",
            "within",
        ),
    ],
)
def test_calibration_refusals_name_the_points(
    printed: PrintedMap, points: list[dict], field: str, reason: str
) -> None:
    with pytest.raises(Unprocessable) as refused:
        calibrate(printed.grid, points, printed.width, printed.height)
    assert reason in " ".join(refused.value.details[field])


def test_points_that_disagree_are_refused_by_name(printed: PrintedMap) -> None:
    """Four clicks, one of them on the neighbouring hex: the least-squares fit misses it (and
    the others) by more than a quarter of a hex."""
    points = clicks(printed, ("0101", "3001", "0124", "3024"), 0)
    x, y = printed.pixel("3023")  # the click meant for 3024 lands on the hex above
    points[3] = {"hex": "3024", "x": round(x), "y": round(y)}
    with pytest.raises(Unprocessable) as refused:
        calibrate(printed.grid, points, printed.width, printed.height)
    assert "points[3]" in refused.value.details
    assert "3024 is" in refused.value.details["points[3]"][0]
    assert "disagree" in refused.value.message


@pytest.mark.parametrize(
    ("labels", "wrong", "at"),
    [
        (("0101", "3001", "0124", "3024", "1512"), 4, "1812"),  # five: the others agree alone
        (("0101", "3001", "0124", "1512"), 3, "2005"),  # four: the others fit the printed shape
        (("0101", "3001", "0124", "2018"), 0, "0503"),
    ],
)
def test_the_one_wrong_point_is_named_alone(
    printed: PrintedMap, labels: tuple[str, ...], wrong: int, at: str
) -> None:
    """A wrong point pulls the least-squares fit, so every point misses it; left out, the others
    agree (five points: their own fit misses none; four: the three left fit a grid of the printed
    shape, and no other three do) -- so it is the one named, with how far it lies from them."""
    points = clicks(printed, labels, 1.0)
    x, y = printed.pixel(at)
    points[wrong] = {"hex": labels[wrong], "x": round(x), "y": round(y)}
    with pytest.raises(Unprocessable) as refused:
        calibrate(printed.grid, points, printed.width, printed.height)
    assert list(refused.value.details) == [f"points[{wrong}]"]
    reason = refused.value.details[f"points[{wrong}]"][0]
    assert (
        reason.startswith(f"{labels[wrong]} is ")
        and "px from the fitted grid of the other" in reason
    )
    assert f"{labels[wrong]} is likely the wrong one" in refused.value.message


def test_three_points_that_fit_only_a_stretched_grid_are_refused(printed: PrintedMap) -> None:
    """Three points always fit exactly; a wrong one shows as a grid no printed map has (hexes
    far longer one way than the other): refused, asking for a fourth point to find it."""
    points = clicks(printed, ("0101", "3001", "0124"), 1.0)
    x, y = printed.pixel("0112")  # the click meant for 0124 lands half the map away
    points[2] = {"hex": "0124", "x": round(x), "y": round(y)}
    with pytest.raises(Unprocessable) as refused:
        calibrate(printed.grid, points, printed.width, printed.height)
    assert "stretched" in refused.value.details["points"][0]
    assert "a fourth point" in refused.value.details["points"][0]
    right = clicks(printed, ("0101", "3001", "0124"), 1.0)
    assert calibrate(printed.grid, right, printed.width, printed.height).residual_px < 1.0


# -- uploads -----------------------------------------------------------------------------------
def png(width: int = 40, height: int = 30, **info: str) -> bytes:
    from PIL import PngImagePlugin

    meta = PngImagePlugin.PngInfo()
    for key, value in info.items():
        meta.add_text(key, value)
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 100, 50)).save(out, format="PNG", pnginfo=meta)
    return out.getvalue()


def jpeg_with_exif() -> bytes:
    image = Image.new("RGB", (64, 32), (20, 120, 200))
    exif = Image.Exif()
    exif[0x010F] = "SecretCam"  # Make
    exif[0x0112] = 6  # Orientation: turned 90 degrees
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif.tobytes())
    return out.getvalue()


def test_an_upload_is_decoded_and_stripped() -> None:
    checked = check_upload(png(Author="Someone", Comment="club secret"), "image/png")
    assert (checked.width, checked.height, checked.media_type) == (40, 30, "image/png")
    with Image.open(io.BytesIO(checked.data)) as image:
        assert "Author" not in image.info and "Comment" not in image.info
    photo = check_upload(jpeg_with_exif(), "image/jpeg")
    assert b"SecretCam" not in photo.data
    assert (photo.width, photo.height) == (32, 64)  # turned upright by its orientation
    with Image.open(io.BytesIO(photo.data)) as image:
        assert not image.getexif()


@pytest.mark.parametrize(
    ("data", "media_type", "error", "reason"),
    [
        (b"%PDF-1.4 not an image", "image/png", Invalid, "could not be read as PNG"),
        (png(), "image/jpeg", Invalid, "could not be read as JPEG"),
        (png(), "image/gif", UnsupportedMediaType, "image/png or image/jpeg"),
        (png(), "", UnsupportedMediaType, "image/png or image/jpeg"),
        (b"", "image/png", Invalid, "empty"),
        (b"\x89PNG" + b"\0" * MAX_BYTES, "image/png", TooLarge, "at most 20 MB"),
        (png(12_001, 2), "image/png", TooLarge, "12,000 px a side"),
    ],
)
def test_bad_uploads_are_refused_naming_image(
    data: bytes, media_type: str, error: type, reason: str
) -> None:
    with pytest.raises(error) as refused:
        check_upload(data, media_type)
    assert reason in " ".join(refused.value.details["image"])


def test_served_sizes() -> None:
    assert served_width(None, 3000) == 3000
    assert served_width(390, 3000) == 512
    assert served_width(5000, 3000) == 3000
    assert served_width(2500, 2600) == 2600
    small = resized(png(1000, 500), "image/png", 256)
    with Image.open(io.BytesIO(small)) as image:
        assert image.size == (256, 128)


def test_roads_are_read_across_the_hexsides_they_cross() -> None:
    """A road drawn centre to centre (red, 0.12 of a hex's radius wide) is read in the strip
    across the hexside, not along it; the river beside it still along."""
    printed = render(seed=3, radius=30.0, road_length=40, quality=78)
    fit = calibrate(printed.grid, clicks(printed, CORNERS), printed.width, printed.height)
    roads = sorted(sorted(side) for side in printed.roads - printed.rivers)
    rivers = sorted(sorted(side) for side in printed.rivers - printed.roads)
    proposal = propose(
        printed.data,
        fit,
        printed.grid,
        {},
        {"road": [roads[len(roads) // 2]], "river": [rivers[len(rivers) // 2]]},
    )
    for feature, truth in (("road", printed.roads), ("river", printed.rivers)):
        found = {frozenset(s["between"]) for s in proposal.hexsides if s["feature"] == feature}
        assert len(found & truth) / len(truth) >= 0.9, (feature, len(found & truth), len(truth))
        assert len(found - truth) <= 2, (feature, len(found - truth))
    assert proposal.unread == []


def test_an_example_that_shows_no_feature_proposes_none_and_says_so(printed: PrintedMap) -> None:
    fit = calibrate(printed.grid, clicks(printed, CORNERS), printed.width, printed.height)
    plain = next(
        sorted((a, b))
        for a in printed.grid.labels()
        for b in printed.grid.neighbours(a)
        if printed.terrain[a] == printed.terrain[b] == "clear"
        and frozenset((a, b)) not in printed.rivers
    )
    proposal = propose(printed.data, fit, printed.grid, {}, {"river": [plain]})
    assert proposal.hexsides == []
    assert [u["feature"] for u in proposal.unread] == ["river"]
    assert "do not stand out" in proposal.unread[0]["reason"]


# -- what an upload costs (issue 44) -------------------------------------------------------------
def flat_png(width: int, height: int) -> bytes:
    """A valid RGBA PNG of ``width`` x ``height`` one colour, made row by row (a few hundred KB
    however many pixels: what it costs is only seen decoded)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    row = b"\0" + b"\xf0\xe6\xc8\xff" * width
    packer = zlib.compressobj(9)
    idat = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    )


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_a_small_png_of_too_many_pixels_is_refused_from_its_header(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 44, finding 3: 0.4 MB of PNG, 11,999 x 8,333 RGBA, cost a worker 1.1 GB when it was
    decoded; its header says what it would cost, and it is refused before a pixel is decoded."""
    from PIL import ImageFile

    data = flat_png(11_999, 8_333)
    assert len(data) < 1024 * 1024

    def no_decoding(self: object) -> None:
        raise AssertionError("decoded an image past the budget")

    monkeypatch.setattr(ImageFile.ImageFile, "load", no_decoding)
    with pytest.raises(TooLarge) as refused:
        check_upload(data, "image/png")
    said = refused.value.details["image"][0]
    assert f"{MAX_PIXELS:,} px in all" in said and "11,999×8,333" in said


def test_pillow_refuses_what_the_budget_refuses_anywhere_in_the_process() -> None:
    """Pillow's own guard is held to the budget: an image past twice it is never opened, even
    where no upload check runs (a stored image resized)."""
    assert Image.MAX_IMAGE_PIXELS == MAX_PIXELS
    with pytest.raises(Image.DecompressionBombError):
        Image.open(io.BytesIO(flat_png(12_000, 8_400)))


def test_a_large_scan_within_the_budget_is_accepted() -> None:
    """The 6,184 x 6,103 scan (37.7 million pixels) the last session supported still is."""
    out = io.BytesIO()
    Image.new("RGB", (6184, 6103), (232, 222, 186)).save(out, format="JPEG", quality=85)
    checked = check_upload(out.getvalue(), "image/jpeg")
    assert (checked.width, checked.height) == (6184, 6103)


def test_the_decoding_runs_inside_the_place_it_is_given() -> None:
    """The decode (not the header's check) is what a worker bounds: it runs in ``decoding``."""
    entered: list[str] = []

    class Place:
        def __enter__(self) -> None:
            entered.append("in")

        def __exit__(self, *exc: object) -> None:
            entered.append("out")

    check_upload(png(), "image/png", Place())  # type: ignore[arg-type]
    assert entered == ["in", "out"]
    with pytest.raises(TooLarge):
        check_upload(png(12_001, 2), "image/png", Place())  # type: ignore[arg-type]
    assert entered == ["in", "out"]  # refused from the header: no place taken


HTML = b"<html><body><script>alert(document.cookie)</script></body></html>"


def jpeg_with_html() -> bytes:
    """A JPEG whose comment (COM segment) and XMP hold HTML."""
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (20, 120, 200)).save(
        out, format="JPEG", comment=HTML, xmp=b"<x:xmpmeta>" + HTML + b"</x:xmpmeta>"
    )
    return out.getvalue()


def test_a_jpeg_comment_and_xmp_are_stripped() -> None:
    """Issue 44, finding 4: Pillow kept a JPEG's comment when it re-encoded it."""
    data = jpeg_with_html()
    assert data.count(b"<script>") == 2
    checked = check_upload(data, "image/jpeg")
    assert b"<script" not in checked.data and b"html" not in checked.data.lower()
    with Image.open(io.BytesIO(checked.data)) as image:
        assert "comment" not in image.info and "xmp" not in image.info
        assert image.size == (64, 48)


def test_a_png_keeps_its_transparency_but_no_icc_profile() -> None:
    out = io.BytesIO()
    image = Image.new("P", (20, 10), 1)
    image.putpalette([0, 0, 0, 255, 255, 255])
    image.save(out, format="PNG", transparency=1, icc_profile=b"not really a profile " + HTML)
    checked = check_upload(out.getvalue(), "image/png")
    assert b"script" not in checked.data
    with Image.open(io.BytesIO(checked.data)) as seen:
        assert seen.info.get("transparency") == 1 and "icc_profile" not in seen.info


@pytest.mark.parametrize(
    "affine",
    [[[1, 0, 0]], [[1, 0], [0, 1]], [[1, 0, 0, 0], [0, 1, 0]], [[1, 0, "nan"], [0, 1, 0]]],
)
def test_a_calibration_of_the_wrong_shape_is_not_read(affine: list) -> None:
    with pytest.raises((ValueError, IndexError)):
        Calibration.from_json({"affine": affine})
