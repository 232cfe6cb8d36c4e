"""The after-action report (issue 31): a game's review as a page a club can post -- a
self-contained HTML page (inline CSS, inline SVG, no script, nothing fetched) or Markdown: the
result, the luck in words with the probability of doing as well, the story turn by turn, a chart
of victory points and losses per turn, the board at the key moments, and the dice's
verification."""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import jinja2
from markupsafe import Markup

#: the colours of up to four sides on the chart and the boards (a side's own colour first)
PALETTE = ("#1f5fa8", "#2e7d32", "#b23c17", "#6a3d9a")
TERRAIN = {
    "clear": "#f4f1e6",
    "mountain": "#c9b79c",
    "half_mountain": "#ddd0b8",
    "forest": "#b9d3a8",
    "woods": "#b9d3a8",
    "rough": "#d9cdb0",
    "sea": "#b7d3ea",
    "water": "#b7d3ea",
    "city": "#d7c4c4",
    "town": "#e6d8d8",
    "marsh": "#c4dccf",
}


def colours(sides: Sequence[str], own: Mapping[str, str] | None = None) -> dict[str, str]:
    own = own or {}
    return {s: own.get(s) or PALETTE[i % len(PALETTE)] for i, s in enumerate(sides)}


def _side(side: str) -> str:
    return side.replace("_", " ").capitalize()


def _players(review: Mapping[str, Any]) -> str:
    """``Nationalist: bob, Republican: alice (<the game's title>)``."""
    sides = ", ".join(f"{_side(s)}: {p}" for s, p in (review.get("sides") or {}).items())
    return f"{sides} ({review.get('system_title') or review.get('system')})"


def result_words(review: Mapping[str, Any]) -> str:
    result = review.get("result")
    if review.get("status") != "ended" or not result:
        return "The game is not over."
    winner = result.get("winner")
    level = result.get("level")
    reason = result.get("reason")
    if not winner:
        head = "The game ended in a draw"
    else:
        player = review["sides"].get(winner)
        head = f"{_side(winner)} ({player}) won" if player else f"{_side(winner)} won"
    extra = list(dict.fromkeys(str(x) for x in (level, reason) if x))
    return head + (f" ({', '.join(extra)})." if extra else ".")


def dice_words(dice: Mapping[str, Any] | None) -> str:
    if not dice:
        return "The dice have not been verified."
    if not dice.get("seed_revealed"):
        return (
            f"{dice['rolls']} rolls recorded under commitment {dice['commitment']}; the seed is "
            "revealed when the game ends."
        )
    if dice.get("ok"):
        n = dice["rolls"]
        every = f"All {n} rolls" if n != 1 else "The one roll"
        return (
            f"{every} re-derived from the revealed seed and matched (commitment "
            f"{dice['commitment']})."
        )
    bad = len(dice.get("mismatches") or []) + len(dice.get("reused_indexes") or [])
    return f"Dice verification FAILED: {bad} of {dice['rolls']} rolls do not match."


# -- the chart ----------------------------------------------------------------------------------------


def chart_svg(chart: Mapping[str, Any], palette: Mapping[str, str], width: int = 640) -> str:
    """Victory points (solid) and losses (dashed) per turn, per side, as inline SVG."""
    points = chart.get("turns") or []
    sides = list(chart.get("sides") or [])
    height, pad = 240, 40
    if not points:
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} 60" role="img" '
            'aria-label="No turn is over yet"><text x="10" y="35">No turn is over yet.</text></svg>'
        )
    values = [
        float(v)
        for p in points
        for s in p["sides"].values()
        for k, v in s.items()
        if k in ("vp", "losses")
    ]
    top = max([1.0, *values])
    turns = [int(p["turn"]) for p in points]
    first, last = min(turns), max(turns)
    span = max(1, last - first)

    def x(turn: int) -> float:
        return pad + (turn - first) * (width - 2 * pad) / span

    def y(value: float) -> float:
        return height - pad + 10 - value * (height - 2 * pad) / top

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
        'aria-label="Victory points and losses per turn" class="chart">',
        f'<line x1="{pad}" y1="{y(0):.1f}" x2="{width - pad}" y2="{y(0):.1f}" stroke="#555"/>',
        f'<line x1="{pad}" y1="{y(0):.1f}" x2="{pad}" y2="{y(top):.1f}" stroke="#555"/>',
        f'<text x="{pad - 6}" y="{y(top) + 4:.1f}" text-anchor="end" font-size="11">{top:g}</text>',
        f'<text x="{pad - 6}" y="{y(0) + 4:.1f}" text-anchor="end" font-size="11">0</text>',
    ]
    step = max(1, math.ceil(len(turns) / 12))
    for turn in turns[::step]:
        parts.append(
            f'<text x="{x(turn):.1f}" y="{height - 8}" text-anchor="middle" font-size="11">'
            f"{turn}</text>"
        )
    for side in sides:
        colour = palette.get(side, "#333")
        for key, dash in (("vp", ""), ("losses", ' stroke-dasharray="6 4"')):
            line = [
                (x(int(p["turn"])), y(float(p["sides"][side][key])))
                for p in points
                if key in p["sides"].get(side, {})
            ]
            if not line:
                continue
            coords = " ".join(f"{a:.1f},{b:.1f}" for a, b in line)
            parts += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{colour}"/>' for a, b in line]
            label = f"{_side(side)} {'victory points' if key == 'vp' else 'losses'}"
            parts.append(
                f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} '
                f'points="{coords}"><title>{html.escape(label)}</title></polyline>'
            )
    parts.append("</svg>")
    return "".join(parts)


def chart_legend(chart: Mapping[str, Any], palette: Mapping[str, str]) -> list[tuple[str, str]]:
    out = []
    for side in chart.get("sides") or []:
        out.append(
            (palette.get(side, "#333"), f"{_side(side)}: victory points (solid), losses (dashed)")
        )
    return out


# -- boards -------------------------------------------------------------------------------------------


def board_svg(
    board: Mapping[str, Any],
    counters: Sequence[Mapping[str, Any]],
    palette: Mapping[str, str],
    label: str,
    width: int = 420,
) -> str | None:
    """The map's hexes, places and the counters on it, as SVG (None: not a hex map)."""
    hexes = board.get("hexes") or []
    size = board.get("size") or {}
    if not hexes or not size:
        return None
    flat = board.get("orientation", "flat") == "flat"
    corners = [
        (math.cos(math.radians(a)), math.sin(math.radians(a)))
        for a in (range(0, 360, 60) if flat else range(30, 390, 60))
    ]
    w, h = float(size["width"]), float(size["height"])
    height = int(width * h / w)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.2f} {h:.2f}" width="{width}" '
        f'height="{height}" role="img" aria-label="{html.escape(label)}" class="board">'
    ]
    for cell in hexes:
        cx, cy = float(cell["x"]), float(cell["y"])
        pts = " ".join(f"{cx + dx:.3f},{cy + dy:.3f}" for dx, dy in corners)
        fill = TERRAIN.get(str(cell.get("terrain")), "#eeeeee")
        parts.append(f'<polygon points="{pts}" fill="{fill}" stroke="#999" stroke-width="0.04"/>')
    where = {str(c["hex"]): (float(c["x"]), float(c["y"])) for c in hexes}
    for place in board.get("places") or []:
        at = where.get(str(place.get("hex")))
        if at:
            parts.append(
                f'<circle cx="{at[0]:.3f}" cy="{at[1]:.3f}" r="0.35" fill="none" stroke="#222" '
                'stroke-width="0.08"/>'
            )
    stacks: dict[str, int] = {}
    for counter in counters:
        at = where.get(str(counter.get("hex")))
        if at is None:
            continue
        n = stacks.get(str(counter["hex"]), 0)
        stacks[str(counter["hex"])] = n + 1
        if n >= 3:
            continue
        off = 0.18 * n
        colour = palette.get(str(counter.get("side")), "#333")
        name = html.escape(f"{counter.get('name')} ({_side(str(counter.get('side')))})")
        parts.append(
            f'<rect x="{at[0] - 0.45 + off:.3f}" y="{at[1] - 0.45 - off:.3f}" width="0.9" '
            f'height="0.9" fill="{colour}" stroke="#fff" stroke-width="0.06"><title>{name}'
            "</title></rect>"
        )
    parts.append("</svg>")
    return "".join(parts)


# -- the report ---------------------------------------------------------------------------------------


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1b1b;
background:#fff;line-height:1.45}
main{max-width:60rem;margin:0 auto;padding:1rem;overflow-wrap:anywhere}
h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.25rem;margin-top:1.6rem;border-bottom:1px solid
#ccc}h3{font-size:1.05rem}
.result{font-size:1.15rem;font-weight:600}
table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{border:1px solid #ccc;padding:.2rem
.4rem;text-align:left}
svg{max-width:100%;height:auto}
.moment{margin:.3rem 0}.legend{padding-left:1.2rem}.legend svg{margin-right:.3rem}
.scroll{overflow-x:auto;max-width:100%}
.boards{display:flex;flex-wrap:wrap;gap:1rem}.boards figure{margin:0;max-width:100%}
ol.turn{margin:.2rem 0 .8rem}
footer{margin-top:2rem;font-size:.85rem;color:#444}
"""


#: the report's own Content-Security-Policy: its one stylesheet allowed by its hash, nothing else
#: loaded or run -- the site's policy (``style-src 'self'``) refused the inline stylesheet and the
#: page showed unstyled; the page stays one self-contained file (it is also downloaded)
CSP = "; ".join(
    (
        "default-src 'none'",
        "style-src 'sha256-"
        + base64.b64encode(hashlib.sha256(CSS.encode()).digest()).decode()
        + "'",
        "img-src data:",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)


@functools.cache
def _templates() -> jinja2.Environment:
    """The report's template (``templates/report.html``), every value escaped unless marked safe
    (the SVG pictures this module builds, their labels escaped here)."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("service.application", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def report_html(
    review: Mapping[str, Any],
    dice: Mapping[str, Any] | None,
    boards: Sequence[tuple[str, str]],
    palette: Mapping[str, str],
) -> str:
    """The whole page: every style inline, every picture inline SVG, no script."""
    luck = [
        {
            "name": _side(side),
            "words": figure["words"],
            "valued": [r for r in figure["rolls"] if r["outcome"] is not None],
            "distribution_only": figure.get("distribution_only"),
        }
        for side, figure in (review.get("luck") or {}).items()
    ]
    return (
        _templates()
        .get_template("report.html")
        .render(
            title=str(review.get("title") or review.get("game")),
            css=Markup(CSS),
            players=_players(review),
            result=result_words(review),
            luck=luck,
            moments=review.get("moments") or [],
            chart=Markup(chart_svg(review.get("chart") or {}, palette)),
            legend=chart_legend(review.get("chart") or {}, palette),
            boards=[(caption, Markup(svg)) for caption, svg in boards],
            story=_by_turn(review.get("timeline") or []),
            more=review.get("next_after") is not None,
            dice=dice_words(dice),
        )
    )


def report_markdown(review: Mapping[str, Any], dice: Mapping[str, Any] | None) -> str:
    title = str(review.get("title") or review.get("game"))
    lines = [f"# After-action report: {title}", ""]
    lines += [_players(review), "", f"**{result_words(review)}**", ""]
    lines += ["## Was it the dice?", ""]
    lines += _luck_markdown(review.get("luck") or {})
    lines += ["## Key moments", ""]
    lines += [f"- Turn {m['turn']}: {m['text']}." for m in review.get("moments") or []] or [
        "No swing to mark yet."
    ]
    lines += ["", "## Victory points and losses per turn", ""]
    lines += _chart_markdown(review.get("chart") or {})
    lines += ["", "## The story", ""]
    for turn, items in _by_turn(review.get("timeline") or []):
        lines += [f"### Turn {turn}", ""]
        lines += [f"1. {i['text']}" for i in items]
        lines.append("")
    lines += ["## The dice", "", dice_words(dice), ""]
    return "\n".join(lines)


def _luck_markdown(luck: Mapping[str, Any]) -> list[str]:
    """Each side's luck in words, then a table of its valued rolls."""
    if not luck:
        return ["No side's luck is shown to this reader yet.", ""]
    lines: list[str] = []
    for side, figure in luck.items():
        lines += [figure["words"], ""]
        valued = [r for r in figure["rolls"] if r["outcome"] is not None]
        if valued:
            lines += [
                f"| Turn | {_side(side)} roll | Die | Produced | Expected | What |",
                "|---|---|---|---|---|---|",
            ]
            lines += [
                f"| {r['turn']} | {_md(r['purpose'])} | {r['die']} | {r['outcome']:g} | "
                f"{r['expected']:.2f} | {_md(r['what'])} |"
                for r in valued
            ]
            lines.append("")
    return lines


def _chart_markdown(chart: Mapping[str, Any]) -> list[str]:
    """The chart's victory points and losses as a table, a row a turn."""
    if not chart.get("turns"):
        return ["No turn is over yet."]
    sides_shown = list(chart.get("sides") or [])
    head = " | ".join(f"{_side(s)} VP | {_side(s)} losses" for s in sides_shown)
    lines = [f"| Turn | {head} |", "|---" * (1 + 2 * len(sides_shown)) + "|"]
    for p in chart["turns"]:
        cells = " | ".join(
            f"{_cell(p['sides'].get(s, {}).get('vp'))} | "
            f"{_cell(p['sides'].get(s, {}).get('losses'))}"
            for s in sides_shown
        )
        lines.append(f"| {p['turn']} | {cells} |")
    return lines


def _by_turn(timeline: Sequence[Mapping[str, Any]]) -> list[tuple[int, list[Mapping[str, Any]]]]:
    out: list[tuple[int, list[Mapping[str, Any]]]] = []
    for item in timeline:
        if not out or out[-1][0] != item["turn"]:
            out.append((int(item["turn"]), []))
        out[-1][1].append(item)
    return out


def _md(text: Any) -> str:
    return str(text).replace("|", "\\|")


def _cell(value: Any) -> str:
    return "" if value is None else f"{float(value):g}"
