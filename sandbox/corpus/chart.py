"""Charts of corpus v3, drawn with PyMuPDF: line sweeps (markers, error bars or shaded bands, log axes),
scatter plots, grouped, stacked and horizontal bars, heatmaps with a colour bar, multi-panel figures,
architecture diagrams and qualitative image grids drawn by code.

Every figure is drawn as a one-page PDF. `render_vector` embeds it as is when the figure's drawing is
exact (`vector_exact`); otherwise the marks (curves, bars, cells) are rasterised at the figure's dpi and
embedded as an image inside vector axes, ticks and text, as matplotlib does with `rasterized=True`.
`render_raster` renders the whole page to PNG at the figure's dpi.
"""
from __future__ import annotations

import math
import random
import zlib

import numpy as np
import pymupdf

from .model import FigureGT, PanelGT, SeriesGT

_PALETTES = (
    ((0.12, 0.47, 0.71), (1.0, 0.5, 0.05), (0.17, 0.63, 0.17), (0.84, 0.15, 0.16), (0.58, 0.4, 0.74), (0.55, 0.34, 0.29)),
    ((0.0, 0.45, 0.7), (0.9, 0.6, 0.0), (0.0, 0.62, 0.45), (0.8, 0.4, 0.0), (0.8, 0.47, 0.65), (0.34, 0.71, 0.91)),
    ((0.27, 0.0, 0.33), (0.23, 0.32, 0.55), (0.13, 0.57, 0.55), (0.37, 0.79, 0.38), (0.99, 0.91, 0.14), (0.6, 0.6, 0.6)),
)
_FONT, _BOLD = pymupdf.Font("helv"), pymupdf.Font("hebo")
_TICK, _LABEL, _LEGEND = 6.4, 7.0, 6.4
_GRID = (0.85, 0.85, 0.85)
_VIRIDIS = ((0.267, 0.005, 0.329), (0.229, 0.322, 0.545), (0.128, 0.567, 0.551), (0.369, 0.789, 0.383), (0.993, 0.906, 0.144))


def _seed(fig: FigureGT) -> random.Random:
    return random.Random(zlib.crc32(fig.caption.encode("utf-8")))


def _tw(s: str, size: float, font: pymupdf.Font = _FONT) -> float:
    return font.text_length(s, fontsize=size)


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    span = max(hi - lo, 1e-9)
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    a = math.floor(lo / step) * step
    out = []
    v = a
    while v <= hi + step * 0.999:
        out.append(round(v, 10))
        v += step
    return out


def _fmt(v: float, ticks: list[float]) -> str:
    step = abs(ticks[1] - ticks[0]) if len(ticks) > 1 else 1
    if step >= 1:
        return f"{v:.0f}"
    digits = max(0, -math.floor(math.log10(step) + 1e-9))
    return f"{v:.{digits}f}"


def _log_ticks(lo: float, hi: float) -> list[float]:
    out = []
    e = math.floor(math.log10(lo))
    while 10 ** e <= hi * 1.0001:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if lo * 0.999 <= v <= hi * 1.001:
                out.append(v)
        e += 1
    return out if len(out) >= 2 else [lo, hi]


def _fmt_log(v: float) -> str:
    return f"{v:g}"


class _Axes:
    """A plot rectangle with x and y mappings (linear, log or categorical)."""

    def __init__(self, rect: pymupdf.Rect, xs: list[float] | None, ys: list[float], log_x: bool, log_y: bool,
                 cats: list[str] | None = None, horizontal: bool = False, zero: bool = False):
        self.rect, self.log_x, self.log_y, self.cats, self.horizontal = rect, log_x, log_y, cats, horizontal
        lo, hi = min(ys), max(ys)
        pad = (hi - lo) * 0.08 or abs(hi) * 0.1 or 1
        if zero:
            lo = 0.0
        elif not log_y:
            lo -= pad
        hi += pad
        if log_y:
            lo, hi = max(min(ys) * 0.8, 1e-3), max(ys) * 1.25
            self.yticks = _log_ticks(lo, hi)
        else:
            self.yticks = [t for t in nice_ticks(lo, hi) if lo - 1e-9 <= t <= hi + 1e-9] or [lo, hi]
        self.ylo, self.yhi = lo, hi
        if xs is not None:
            a, b = min(xs), max(xs)
            if log_x:
                a, b = math.log(a), math.log(b)
            padx = (b - a) * 0.06 or 1
            self.xa, self.xb = a - padx, b + padx

    def py(self, v: float) -> float:
        r = self.rect
        if self.log_y:
            t = (math.log(max(v, 1e-6)) - math.log(self.ylo)) / (math.log(self.yhi) - math.log(self.ylo))
        else:
            t = (v - self.ylo) / (self.yhi - self.ylo)
        return (r.x0 + t * r.width) if self.horizontal else (r.y1 - t * r.height)

    def px(self, v: float) -> float:
        x = math.log(v) if self.log_x else v
        return self.rect.x0 + (x - self.xa) / (self.xb - self.xa) * self.rect.width


class _Canvas:
    """Collects text and shapes for one page; marks may go to a separate page (rasterised later)."""

    def __init__(self, width: float, height: float, split_marks: bool):
        self.doc = pymupdf.open()
        self.page = self.doc.new_page(width=width, height=height)
        self.tw = pymupdf.TextWriter(self.page.rect)
        self.tw_white = pymupdf.TextWriter(self.page.rect, color=(1, 1, 1))
        self.shape = self.page.new_shape()
        self.mark_doc = pymupdf.open() if split_marks else None
        self.mark_page = self.mark_doc.new_page(width=width, height=height) if self.mark_doc is not None else None
        self.marks = self.mark_page.new_shape() if self.mark_page is not None else self.shape
        self.rotated: list[tuple[pymupdf.Point, str]] = []

    def text(self, x: float, y: float, s: str, size: float = _TICK, font: pymupdf.Font = _FONT) -> None:
        self.tw.append((x, y), s, font=font, fontsize=size)

    def ctext(self, cx: float, y: float, s: str, size: float = _TICK, font: pymupdf.Font = _FONT) -> None:
        self.text(cx - _tw(s, size, font) / 2, y, s, size, font)

    def rtext(self, rx: float, y: float, s: str, size: float = _TICK) -> None:
        self.text(rx - _tw(s, size), y, s, size)

    def vtext(self, x: float, cy: float, s: str, size: float = _LABEL) -> None:
        self.rotated.append((pymupdf.Point(x, cy + _tw(s, size) / 2), s))

    def finish(self, dpi: int, raster: bool = False) -> bytes:
        """The page as PDF bytes, or (raster) as a PNG at `dpi`."""
        self.shape.commit()
        if self.mark_page is not None:
            self.marks.commit()
            pix = self.mark_page.get_pixmap(dpi=dpi, alpha=True)
            self.page.insert_image(self.page.rect, stream=pix.tobytes("png"))
        self.tw.write_text(self.page)
        self.tw_white.write_text(self.page)
        for start, s in self.rotated:
            w = pymupdf.TextWriter(self.page.rect)
            w.append(start, s, font=_FONT, fontsize=_LABEL)
            w.write_text(self.page, morph=(start, pymupdf.Matrix(90)))
        if raster:
            out = self.page.get_pixmap(dpi=dpi).tobytes("png")
        else:
            out = self.doc.tobytes(garbage=1, deflate=True, no_new_id=True)
        self.doc.close()
        if self.mark_doc is not None:
            self.mark_doc.close()
        return out


def _marker(shape: pymupdf.Shape, k: int, x: float, y: float, color, r: float = 2.0) -> None:
    kind = k % 5
    if kind == 0:
        shape.draw_circle((x, y), r)
    elif kind == 1:
        shape.draw_rect(pymupdf.Rect(x - r, y - r, x + r, y + r))
    elif kind == 2:
        shape.draw_polyline([(x, y - r * 1.2), (x + r * 1.1, y + r * 0.9), (x - r * 1.1, y + r * 0.9), (x, y - r * 1.2)])
    elif kind == 3:
        shape.draw_polyline([(x, y - r * 1.3), (x + r * 1.1, y), (x, y + r * 1.3), (x - r * 1.1, y), (x, y - r * 1.3)])
    else:
        shape.draw_polyline([(x, y + r * 1.2), (x + r * 1.1, y - r * 0.9), (x - r * 1.1, y - r * 0.9), (x, y + r * 1.2)])
    shape.finish(color=(0.1, 0.1, 0.1), fill=color, width=0.3)


def _legend(c: _Canvas, labels: list[str], colors, width: float, top: float, style: str, x0: float = 0) -> float:
    widths = [_tw(lbl, _LEGEND) + 22 for lbl in labels]
    rows: list[list[int]] = [[]]
    used = 0.0
    for k, w in enumerate(widths):
        if rows[-1] and used + w > width * 0.95:
            rows.append([])
            used = 0.0
        rows[-1].append(k)
        used += w
    y = top
    for row in rows:
        x = x0 + (width - sum(widths[k] for k in row)) / 2
        for k in row:
            col = colors[k % len(colors)]
            if style == "bar":
                c.shape.draw_rect(pymupdf.Rect(x + 3, y + 1.5, x + 12, y + 7.5))
                c.shape.finish(color=(0, 0, 0), fill=col, width=0.3)
            else:
                if style == "line":
                    c.shape.draw_line((x, y + 4.5), (x + 15, y + 4.5))
                    c.shape.finish(color=col, width=1.1, closePath=False)
                _marker(c.shape, k, x + 7.5, y + 4.5, col)
            c.text(x + 18, y + 6.8, labels[k], _LEGEND)
            x += widths[k]
        y += 9.5
    return y


def _frame(c: _Canvas, ax: _Axes, cats_y: bool = False) -> None:
    r = ax.rect
    for t in ax.yticks:
        p = ax.py(t)
        if ax.horizontal:
            c.shape.draw_line((p, r.y0), (p, r.y1))
        else:
            c.shape.draw_line((r.x0, p), (r.x1, p))
    c.shape.finish(color=_GRID, width=0.3, closePath=False)
    for t in ax.yticks:
        s = _fmt_log(t) if ax.log_y else _fmt(t, ax.yticks)
        if ax.horizontal:
            c.ctext(ax.py(t), r.y1 + 8, s)
        else:
            c.rtext(r.x0 - 2.5, ax.py(t) + 2.2, s)
    c.shape.draw_polyline([(r.x0, r.y0), (r.x0, r.y1), (r.x1, r.y1)])
    c.shape.finish(color=(0, 0, 0), width=0.6, closePath=False)


def _y_label_w(ticks: list[float], log: bool) -> float:
    return max(_tw(_fmt_log(t) if log else _fmt(t, ticks), _TICK) for t in ticks)


def _numeric_x_ticks(xs: list[float], log: bool) -> list[float]:
    xs = sorted(set(xs))
    if len(xs) <= 8:
        return xs
    return _log_ticks(xs[0], xs[-1]) if log else nice_ticks(xs[0], xs[-1])


def _xy_plot(c: _Canvas, rect: pymupdf.Rect, series: list[SeriesGT], kind: str, log_x: bool, log_y: bool,
             err_style: str | None, colors, x_label: str, y_label: str, rng: random.Random) -> None:
    ys = [y for s in series for y in s.y]
    if err_style:
        ys += [y + e for s in series for y, e in zip(s.y, s.err or [])] + [y - e for s in series for y, e in zip(s.y, s.err or [])]
    xs = [float(x) for s in series for x in s.x]
    probe = _Axes(rect, xs, ys, log_x, log_y)
    left = _y_label_w(probe.yticks, log_y) + 14
    plot = pymupdf.Rect(rect.x0 + left, rect.y0, rect.x1 - 4, rect.y1 - 19)
    ax = _Axes(plot, xs, ys, log_x, log_y)
    _frame(c, ax)
    for v in _numeric_x_ticks(xs, log_x):
        c.ctext(ax.px(v), plot.y1 + 8, f"{v:g}")
    c.ctext((plot.x0 + plot.x1) / 2, rect.y1 - 2.5, x_label, _LABEL)
    c.vtext(rect.x0 + 7.5, (plot.y0 + plot.y1) / 2, y_label)
    m = c.marks
    for i, s in enumerate(series):
        col = colors[i % len(colors)]
        pts = [(ax.px(float(x)), ax.py(y)) for x, y in zip(s.x, s.y)]
        if kind == "line":
            if err_style == "band" and s.err:
                up = [(ax.px(float(x)), ax.py(y + e)) for x, y, e in zip(s.x, s.y, s.err)]
                dn = [(ax.px(float(x)), ax.py(y - e)) for x, y, e in zip(s.x, s.y, s.err)]
                m.draw_polyline(up + dn[::-1] + up[:1])
                m.finish(color=None, fill=col, fill_opacity=0.2, width=0)
            m.draw_polyline(pts)
            m.finish(color=col, width=1.0, closePath=False, dashes="[2 1.2] 0" if i % 3 == 2 else None)
            if err_style == "bars" and s.err:
                for (x, _), y, e in zip(pts, s.y, s.err):
                    y0, y1 = ax.py(y - e), ax.py(y + e)
                    m.draw_line((x, y0), (x, y1))
                    m.draw_line((x - 1.6, y0), (x + 1.6, y0))
                    m.draw_line((x - 1.6, y1), (x + 1.6, y1))
                m.finish(color=col, width=0.5, closePath=False)
        for x, y in pts:
            _marker(m, i, x, y, col, 2.0 if kind == "line" else 2.6)


def _bar_plot(c: _Canvas, rect: pymupdf.Rect, fig: FigureGT | PanelGT, colors, stacked: bool) -> None:
    cats = [str(x) for x in fig.series[0].x]
    if stacked:
        tops = [sum(s.y[j] for s in fig.series) for j in range(len(cats))]
        ys = tops + [0.0]
    else:
        ys = [y for s in fig.series for y in s.y]
    lo = min(ys)
    zero = stacked or lo > 0 and lo < 0.35 * max(ys)
    probe = _Axes(rect, None, ys + ([min(ys) - (max(ys) - min(ys)) * 0.6] if not zero else []), False, False, zero=zero)
    left = _y_label_w(probe.yticks, False) + 14
    plot = pymupdf.Rect(rect.x0 + left, rect.y0, rect.x1 - 4, rect.y1 - 19)
    ax = _Axes(plot, None, ys + ([min(ys) - (max(ys) - min(ys)) * 0.6] if not zero else []), False, False, zero=zero)
    _frame(c, ax)
    slot = plot.width / len(cats)
    base = ax.py(ax.ylo)
    m = c.marks
    for j, cat in enumerate(cats):
        if stacked:
            acc = 0.0
            for i, s in enumerate(fig.series):
                x0 = plot.x0 + j * slot + slot * 0.2
                m.draw_rect(pymupdf.Rect(x0, ax.py(acc + s.y[j]), x0 + slot * 0.6, ax.py(acc)))
                m.finish(color=(0, 0, 0), fill=colors[i % len(colors)], width=0.3)
                acc += s.y[j]
        else:
            n = len(fig.series)
            bw = slot * 0.8 / n
            for i, s in enumerate(fig.series):
                x0 = plot.x0 + j * slot + slot * 0.1 + i * bw
                m.draw_rect(pymupdf.Rect(x0 + bw * 0.05, ax.py(s.y[j]), x0 + bw * 0.95, base))
                m.finish(color=(0, 0, 0), fill=colors[i % len(colors)], width=0.3)
        label = cat if _tw(cat, _TICK) < slot * 0.98 else cat[: max(3, int(len(cat) * slot * 0.95 / _tw(cat, _TICK)))] + "."
        c.ctext(plot.x0 + (j + 0.5) * slot, plot.y1 + 8, label)
    c.ctext((plot.x0 + plot.x1) / 2, rect.y1 - 2.5, fig.x_label, _LABEL)
    c.vtext(rect.x0 + 7.5, (plot.y0 + plot.y1) / 2, fig.y_label)


def _hbar_plot(c: _Canvas, rect: pymupdf.Rect, fig: FigureGT, colors) -> None:
    cats = [str(x) for x in fig.series[0].x]
    ys = [y for s in fig.series for y in s.y]
    spread = max(ys) - min(ys) or 1
    lo_pad = [min(ys) - spread * 0.5]
    label_w = max(_tw(cat, _TICK) for cat in cats) + 6
    plot = pymupdf.Rect(rect.x0 + label_w + 4, rect.y0, rect.x1 - 8, rect.y1 - 20)
    ax = _Axes(plot, None, ys + lo_pad, False, False, horizontal=True)
    _frame(c, ax)
    slot = plot.height / len(cats)
    n = len(fig.series)
    bh = slot * 0.75 / n
    m = c.marks
    base = ax.py(ax.ylo)
    for j, cat in enumerate(cats):
        for i, s in enumerate(fig.series):
            y0 = plot.y0 + j * slot + slot * 0.125 + i * bh
            m.draw_rect(pymupdf.Rect(base, y0 + bh * 0.05, ax.py(s.y[j]), y0 + bh * 0.95))
            m.finish(color=(0, 0, 0), fill=colors[i % len(colors)], width=0.3)
        c.rtext(plot.x0 - 3, plot.y0 + (j + 0.5) * slot + 2.2, cat)
    c.ctext((plot.x0 + plot.x1) / 2, rect.y1 - 2.5, fig.x_label, _LABEL)


def _cmap(t: float) -> tuple[float, float, float]:
    t = min(max(t, 0.0), 1.0) * (len(_VIRIDIS) - 1)
    i = min(int(t), len(_VIRIDIS) - 2)
    f = t - i
    a, b = _VIRIDIS[i], _VIRIDIS[i + 1]
    return tuple(a[k] + (b[k] - a[k]) * f for k in range(3))  # type: ignore[return-value]


def _heatmap(c: _Canvas, rect: pymupdf.Rect, fig: FigureGT) -> None:
    rows = [s.label for s in fig.series]
    cols = [str(x) for x in fig.series[0].x]
    vals = [v for s in fig.series for v in s.y]
    lo, hi = min(vals), max(vals)
    label_w = max(_tw(r, _TICK) for r in rows) + 14
    plot = pymupdf.Rect(rect.x0 + label_w, rect.y0 + 2, rect.x1 - 40, rect.y1 - 20)
    cw, ch = plot.width / len(cols), plot.height / len(rows)
    m = c.marks
    for i, s in enumerate(fig.series):
        for j, v in enumerate(s.y):
            t = (v - lo) / (hi - lo or 1)
            r = pymupdf.Rect(plot.x0 + j * cw, plot.y0 + i * ch, plot.x0 + (j + 1) * cw, plot.y0 + (i + 1) * ch)
            m.draw_rect(r)
            m.finish(color=(1, 1, 1), fill=_cmap(t), width=0.4)
            if fig.annotated:
                s_v = f"{v:.1f}"
                w = _tw(s_v, 5.8)
                (c.tw_white if t < 0.6 else c.tw).append((r.x0 + (cw - w) / 2, r.y0 + ch / 2 + 2), s_v, font=_FONT,
                                                         fontsize=5.8)
        c.rtext(plot.x0 - 3, plot.y0 + (i + 0.5) * ch + 2.2, s.label)
    for j, col in enumerate(cols):
        c.ctext(plot.x0 + (j + 0.5) * cw, plot.y1 + 8, col)
    c.ctext((plot.x0 + plot.x1) / 2, rect.y1 - 2.5, fig.x_label, _LABEL)
    c.vtext(rect.x0 + 7.5, (plot.y0 + plot.y1) / 2, fig.y_label)
    bar = pymupdf.Rect(plot.x1 + 6, plot.y0, plot.x1 + 13, plot.y1)
    steps = 24
    for k in range(steps):
        y0 = bar.y1 - (k + 1) * bar.height / steps
        m.draw_rect(pymupdf.Rect(bar.x0, y0, bar.x1, y0 + bar.height / steps + 0.3))
        m.finish(color=None, fill=_cmap((k + 0.5) / steps), width=0)
    ticks = [t for t in nice_ticks(lo, hi, 4) if lo <= t <= hi]
    for t in ticks:
        y = bar.y1 - (t - lo) / (hi - lo or 1) * bar.height
        c.shape.draw_line((bar.x1, y), (bar.x1 + 2, y))
        c.text(bar.x1 + 3, y + 2.2, _fmt(t, ticks) if len(ticks) > 1 else f"{t:g}", 5.8)
    c.shape.finish(color=(0, 0, 0), width=0.4, closePath=False)


def _diagram(c: _Canvas, fig: FigureGT, width: float, height: float, rng: random.Random) -> None:
    blocks = [s.label for s in fig.series]
    n = len(blocks)
    two_rows = n > 5 and width < 300
    per_row = (n + 1) // 2 if two_rows else n
    gap = 14
    bw = (width - 16 - gap * (per_row - 1)) / per_row
    bh = min(34.0, height / (3 if two_rows else 2))
    palette = [(0.85, 0.91, 0.98), (0.99, 0.9, 0.8), (0.88, 0.95, 0.86), (0.95, 0.88, 0.96)]
    centers = []
    for k, b in enumerate(blocks):
        row, col = divmod(k, per_row)
        if row % 2 == 1:
            col = per_row - 1 - col
        x0 = 8 + col * (bw + gap)
        y0 = (height / 2 - bh / 2) if not two_rows else (height * (0.3 if row == 0 else 0.72) - bh / 2)
        r = pymupdf.Rect(x0, y0, x0 + bw, y0 + bh)
        fill = (0.93, 0.93, 0.93) if k in (0, n - 1) else palette[k % len(palette)]
        c.shape.draw_rect(r, radius=0.15)
        c.shape.finish(color=(0.2, 0.2, 0.2), fill=fill, width=0.6)
        words = b.split()
        lines, cur = [], ""
        for w in words:
            if cur and _tw(cur + " " + w, 6.2) > bw - 4:
                lines.append(cur)
                cur = w
            else:
                cur = (cur + " " + w).strip()
        lines.append(cur)
        for li, line in enumerate(lines[:3]):
            c.ctext(r.x0 + bw / 2, r.y0 + bh / 2 + 2 + (li - (len(lines[:3]) - 1) / 2) * 7.2, line, 6.2)
        centers.append(r)
    for a, b in zip(centers, centers[1:]):
        if abs(a.y0 - b.y0) < 1:
            x0, x1 = (a.x1, b.x0) if b.x0 > a.x0 else (a.x0, b.x1)
            y = (a.y0 + a.y1) / 2
            c.shape.draw_line((x0, y), (x1, y))
            d = 3 if x1 > x0 else -3
            c.shape.draw_polyline([(x1 - d, y - 2), (x1, y), (x1 - d, y + 2)])
        else:
            x = (a.x0 + a.x1) / 2
            c.shape.draw_line((x, a.y1), (x, b.y0))
            c.shape.draw_polyline([(x - 2, b.y0 - 3), (x, b.y0), (x + 2, b.y0 - 3)])
    c.shape.finish(color=(0.15, 0.15, 0.15), width=0.7, closePath=False)
    if n > 3 and rng.random() < 0.6:  # a skip connection drawn as an arc over the middle blocks
        a, b = centers[1], centers[min(n - 2, 3)]
        if abs(a.y0 - b.y0) < 1:
            ya = a.y0 - 8
            c.shape.draw_polyline([((a.x0 + a.x1) / 2, a.y0), ((a.x0 + a.x1) / 2, ya), ((b.x0 + b.x1) / 2, ya),
                                   ((b.x0 + b.x1) / 2, b.y0)])
            c.shape.finish(color=(0.5, 0.5, 0.5), width=0.5, closePath=False, dashes="[2 1] 0")


def _procedural_image(rng: random.Random, size: int, palette: int) -> np.ndarray:
    yy, xx = np.mgrid[0:size, 0:size] / size
    img = np.zeros((size, size, 3))
    base = np.array([rng.random() * 0.5 + 0.3 for _ in range(3)])
    img += base * (0.6 + 0.4 * yy[..., None])
    for _ in range(rng.randint(3, 7)):
        cx, cy, s = rng.random(), rng.random(), rng.uniform(0.05, 0.25)
        col = np.array([rng.random() for _ in range(3)])
        g = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s))
        img = img * (1 - g[..., None]) + col * g[..., None]
    if palette == 1:  # a heat overlay, as attention maps are shown
        g = np.exp(-((xx - rng.random()) ** 2 + (yy - rng.random()) ** 2) / 0.02)
        img = img * 0.6 + np.stack([g, g * 0.3, 1 - g], -1) * 0.4
    noise = np.random.default_rng(rng.randrange(1 << 30)).normal(0, 0.03, img.shape)
    return (np.clip(img + noise, 0, 1) * 255).astype(np.uint8)


def _image_grid(c: _Canvas, fig: FigureGT, width: float, height: float, rng: random.Random) -> None:
    rows = [s.label for s in fig.series]
    ncol = len(fig.series[0].x)
    label_w = max(_tw(r, _TICK) for r in rows) + 8
    cell = min((width - label_w - 4) / ncol, (height - 4) / len(rows))
    overlay = 1 if rng.random() < 0.4 else 0
    px, gap = 64, 3  # one image of all cells, each 64 pixels with a white gutter
    grid = np.full((len(rows) * (px + gap), ncol * (px + gap), 3), 255, np.uint8)
    for i, r in enumerate(rows):
        c.rtext(label_w - 3, 2 + i * cell + cell / 2 + 2, r)
        for j in range(ncol):
            grid[i * (px + gap):i * (px + gap) + px, j * (px + gap):j * (px + gap) + px] = \
                _procedural_image(random.Random(rng.random()), px, overlay)
    pix = pymupdf.Pixmap(pymupdf.csRGB, grid.shape[1], grid.shape[0], grid.tobytes(), 0)
    c.page.insert_image(pymupdf.Rect(label_w, 2, label_w + ncol * cell, 2 + len(rows) * cell), pixmap=pix)


def _panels(c: _Canvas, fig: FigureGT, width: float, height: float, colors, rng: random.Random) -> None:
    assert fig.panels
    labels: list[str] = []
    for pn in fig.panels:
        for s in pn.series:
            if s.label not in labels:
                labels.append(s.label)
    top = _legend(c, labels, colors, width, 3, "line") + 2
    k = len(fig.panels)
    pw = width / k
    for i, pn in enumerate(fig.panels):
        rect = pymupdf.Rect(i * pw + 2, top, (i + 1) * pw - 2, height - 12)
        cols = [colors[labels.index(s.label) % len(colors)] for s in pn.series]
        _xy_plot(c, rect, pn.series, "line", pn.log_x, pn.log_y, pn.err_style, cols, pn.x_label, pn.y_label if i == 0 else "", rng)
        c.ctext(rect.x0 + rect.width / 2 + 8, height - 2.5, f"{pn.label} {pn.title}", _LABEL)


def draw(fig: FigureGT, width: float, height: float, split_marks: bool = False, raster: bool = False) -> bytes:
    """The figure as a one-page PDF of the given size; `split_marks` rasterises the marks at fig.dpi."""
    rng = _seed(fig)
    colors = _PALETTES[zlib.crc32(fig.caption[-12:].encode()) % len(_PALETTES)]
    c = _Canvas(width, height, split_marks and fig.kind not in ("diagram", "image_grid"))
    if fig.kind == "diagram":
        _diagram(c, fig, width, height, rng)
    elif fig.kind == "image_grid":
        _image_grid(c, fig, width, height, rng)
    elif fig.kind == "panels":
        _panels(c, fig, width, height, colors, rng)
    elif fig.kind == "heatmap":
        _heatmap(c, pymupdf.Rect(0, 2, width, height), fig)
    else:
        top = 3.0
        if fig.dataset and fig.kind in ("line", "scatter") and rng.random() < 0.6:
            c.ctext(width / 2, top + 7, fig.dataset, _LABEL, _BOLD)
            top += 10
        style = {"line": "line", "scatter": "marker"}.get(fig.kind, "bar")
        if fig.kind != "hbar" or len(fig.series) > 1:
            top = _legend(c, [s.label for s in fig.series], colors, width, top, style) + 2
        rect = pymupdf.Rect(0, top, width, height)
        if fig.kind in ("line", "scatter"):
            _xy_plot(c, rect, fig.series, fig.kind, fig.log_x, fig.log_y, fig.err_style, colors, fig.x_label, fig.y_label, rng)
        elif fig.kind in ("bar", "stacked_bar"):
            _bar_plot(c, rect, fig, colors, fig.kind == "stacked_bar")
        else:
            _hbar_plot(c, rect, fig, colors)
    return c.finish(fig.dpi or 200, raster)


def render_vector(fig: FigureGT, width: float, height: float) -> bytes:
    return draw(fig, width, height, split_marks=fig.vector_exact is False)


def render_raster(fig: FigureGT, width: float, height: float) -> bytes:
    return draw(fig, width, height, raster=True)
