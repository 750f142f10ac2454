"""A geometry reader for charts drawn as vectors: it reads the PDF's drawing commands and the tick labels inside
a figure's box (PyMuPDF `page.get_drawings()` and text spans), maps drawing coordinates to values with the
ticks, tells series apart by the colours their legend shows, and reads each asked point or bar. The one
adversary that reads PDF bytes: a real pipeline with the file can. A raster chart gives it nothing.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ._texts import norm

MAX_DRAWINGS = 20_000  # a page drawing more than this is not read (bounded cost per page)
_NUMERIC = re.compile(r"^[-\u2212]?\d+(?:\.\d+)?%?$")
Color = tuple[float, float, float]


@dataclass
class AxisMap:
    """value = a * coordinate + b, on a log scale when `log`."""

    a: float
    b: float
    log: bool = False

    def value(self, c: float) -> float:
        v = self.a * c + self.b
        return math.exp(v) if self.log else v


@dataclass
class Chart:
    y: AxisMap
    x: AxisMap | None
    lines: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  # label -> points (page coords)
    bars: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  # label -> (centre x, top y)
    categories: dict[str, float] = field(default_factory=dict)  # bar category label -> centre x


def _fit(pairs: list[tuple[float, float]], log: bool = False) -> tuple[AxisMap, float] | None:
    """Least squares of value on coordinate; the map and its worst residual relative to the value range."""
    pts = [(c, math.log(v) if log else v) for c, v in pairs if not log or v > 0]
    if len(pts) < 2 or len({c for c, _ in pts}) < 2:
        return None
    n = len(pts)
    mc, mv = sum(c for c, _ in pts) / n, sum(v for _, v in pts) / n
    sxx = sum((c - mc) ** 2 for c, _ in pts)
    a = sum((c - mc) * (v - mv) for c, v in pts) / sxx
    b = mv - a * mc
    span = (max(v for _, v in pts) - min(v for _, v in pts)) or 1.0
    return AxisMap(a, b, log), max(abs(a * c + b - v) for c, v in pts) / span


def _color(d: dict) -> Color | None:
    c = d.get("fill") if d.get("fill") is not None else d.get("color")
    if c is None or len(c) != 3:
        return None
    if max(c) - min(c) < 0.05:  # black, grey and white are axes, grids and outlines, never a series
        return None
    return (round(c[0], 2), round(c[1], 2), round(c[2], 2))


def _spans(page: object, clip: object) -> list[tuple[str, tuple[float, float, float, float]]]:
    out = []
    for block in page.get_text("dict", clip=clip)["blocks"]:  # type: ignore[attr-defined]
        for line in block.get("lines", []):
            if abs(line["dir"][1]) > 0.01:  # rotated text is an axis title
                continue
            for s in line["spans"]:
                if s["text"].strip():
                    out.append((s["text"].strip(), tuple(s["bbox"])))
    return out


def _ticks(spans: list, axis: str) -> list[tuple[float, float]]:
    """(coordinate, value) of the tick labels of one axis: numbers sharing a right edge (y) or a baseline (x)."""
    nums = [(float(t.replace("\u2212", "-").rstrip("%")), b) for t, b in spans if _NUMERIC.match(t)]
    groups: dict[int, list[tuple[float, float]]] = {}
    for v, b in nums:
        key = round(b[2] / 1.5) if axis == "y" else round(((b[1] + b[3]) / 2) / 1.5)
        coord = (b[1] + b[3]) / 2 if axis == "y" else (b[0] + b[2]) / 2
        groups.setdefault(key, []).append((coord, v))
    best = max(groups.values(), key=len, default=[])
    return best if len({c for c, _ in best}) >= (3 if axis == "y" else 2) else []


def _snap(ticks: list[tuple[float, float]], lines: list[float], reach: float = 4.0) -> list[tuple[float, float]]:
    """Move each tick label's centre to the grid line or tick mark it labels (the nearest within `reach`)."""
    out = []
    for c, v in ticks:
        near = min(lines, key=lambda y: abs(y - c), default=None)
        out.append((near if near is not None and abs(near - c) <= reach else c, v))
    return out


def _within(r: object, clip: object, slack: float = 1.0) -> bool:
    return (r.x0 >= clip.x0 - slack and r.x1 <= clip.x1 + slack  # type: ignore[attr-defined]
            and r.y0 >= clip.y0 - slack and r.y1 <= clip.y1 + slack)  # type: ignore[attr-defined]


def read_chart(page: object, bbox: tuple[float, float, float, float]) -> Chart | None:
    """The chart drawn inside `bbox` on `page`, or None when it is not drawn as vectors with readable ticks."""
    import pymupdf

    clip = pymupdf.Rect(bbox)
    drawings = page.get_drawings()  # type: ignore[attr-defined]
    if len(drawings) > MAX_DRAWINGS:
        return None
    inside = [d for d in drawings if _within(d["rect"], clip)]
    spans = _spans(page, clip)
    hlines = [float(i[1].y) for d in inside for i in d["items"] if i[0] == "l" and abs(i[1].y - i[2].y) < 0.01]
    vlines = [float(i[1].x) for d in inside for i in d["items"] if i[0] == "l" and abs(i[1].x - i[2].x) < 0.01]
    yt = _snap(_ticks(spans, "y"), hlines)
    fy = _fit(yt) if yt else None
    if fy is None or fy[1] > 0.01:
        return None
    xt = _snap(_ticks(spans, "x"), vlines)
    fits = [f for f in (_fit(xt), _fit(xt, log=True)) if f is not None] if xt else []
    fx = min(fits, key=lambda f: f[1]) if fits else None
    chart = Chart(y=fy[0], x=fx[0] if fx and fx[1] < 0.02 else None)
    legend: dict[Color, str] = {}
    words = [(t, b) for t, b in spans if not _NUMERIC.match(t)]
    for t, b in words:
        for d in inside:
            r, col = d["rect"], _color(d)
            if col is not None and b[0] - 24 <= r.x1 <= b[0] + 1 and r.y0 <= (b[1] + b[3]) / 2 + 2 and r.y1 >= (b[1] + b[3]) / 2 - 2:
                legend.setdefault(col, t)
    legend_bottom = max((b[3] for t, b in words if t in legend.values()), default=clip.y0)
    for d in inside:
        col = _color(d)
        label = legend.get(col) if col else None
        r = d["rect"]
        if label is None or r.y1 <= legend_bottom + 0.5:
            continue
        items = d["items"]
        if d.get("fill") is None and sum(i[0] == "l" for i in items) >= 1:  # a curve
            pts = [(float(p.x), float(p.y)) for i in items if i[0] == "l" for p in (i[1], i[2])]
            chart.lines.setdefault(label, []).extend(pts)
        elif d.get("fill") is not None and any(i[0] == "re" for i in items) and r.height > 0.5 and r.width > 1:
            chart.bars.setdefault(label, []).append(((r.x0 + r.x1) / 2, float(r.y0)))
    if chart.bars:
        bottom = max(y for pts in chart.bars.values() for _, y in pts)
        for t, b in words:
            if b[1] >= bottom - 1 and t not in legend.values():
                chart.categories[t] = (b[0] + b[2]) / 2
    return chart


def value_at(chart: Chart, series: str, x: float | None, category: str | None) -> float | None:
    """The value the chart draws for `series` at `x` (a line's vertex there) or at bar `category`."""
    want = norm(series)
    if x is not None and chart.x is not None:
        pts = next((p for lbl, p in chart.lines.items() if norm(lbl) == want), None)
        if not pts:
            return None
        near = min(pts, key=lambda p: abs(chart.x.value(p[0]) - x))  # type: ignore[union-attr]
        span = abs(x) * 0.02 + 1e-6
        if abs(chart.x.value(near[0]) - x) > span:
            return None
        return chart.y.value(near[1])
    if category is not None:
        bars = next((p for lbl, p in chart.bars.items() if norm(lbl) == want), None)
        cx = next((c for lbl, c in chart.categories.items() if norm(lbl) == norm(category)), None)
        if not bars or cx is None:
            return None
        bx, top = min(bars, key=lambda p: abs(p[0] - cx))
        return chart.y.value(top)
    return None
