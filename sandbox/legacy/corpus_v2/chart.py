"""Charts of corpus v2, drawn directly with PyMuPDF (about 100x faster than matplotlib per chart).

A chart is a one-page PDF: title (the dataset), legend above the axes, ticks, grid lines, curves with
markers or grouped bars, axis labels. Vector figures embed that page; raster figures embed it
rendered to PNG at 200 dpi. No value is written on the chart: values are read against the ticks.
"""
from __future__ import annotations

import math

import pymupdf

from sandbox.corpus.model import FigureGT

from ..corpus_v1.charts import axis_limits, tick_step

RASTER_DPI = 200
_COLORS = ((0.12, 0.37, 0.66), (0.82, 0.29, 0.36), (0.16, 0.62, 0.44), (0.88, 0.63, 0.0), (0.48, 0.31, 0.63))
_FONT, _BOLD = pymupdf.Font("helv"), pymupdf.Font("hebo")
_TICK, _LABEL, _LEGEND = 6.6, 7.0, 6.6
_GRID = (0.78, 0.78, 0.78)


def _text_w(s: str, size: float, font: pymupdf.Font = _FONT) -> float:
    return font.text_length(s, fontsize=size)


def _fmt_tick(v: float, step: float) -> str:
    return f"{v:g}" if step >= 1 else f"{v:.1f}"


def _marker(shape: pymupdf.Shape, k: int, x: float, y: float, color: tuple[float, float, float]) -> None:
    r = 2.1
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
    shape.finish(color=(0, 0, 0), fill=color, width=0.35)


def _legend(shape: pymupdf.Shape, tw: pymupdf.TextWriter, fig: FigureGT, width: float, top: float) -> float:
    """Draw the legend in rows centred above the axes; return its bottom."""
    entries = [(i, s.label) for i, s in enumerate(fig.series)]
    widths = [_text_w(lbl, _LEGEND) + 22 for _, lbl in entries]
    rows: list[list[int]] = [[]]
    used = 0.0
    for k, w in enumerate(widths):
        if rows[-1] and used + w > width * 0.94:
            rows.append([])
            used = 0.0
        rows[-1].append(k)
        used += w
    y = top
    for row in rows:
        total = sum(widths[k] for k in row)
        x = (width - total) / 2
        for k in row:
            i, label = entries[k]
            color = _COLORS[i % 5]
            if fig.kind == "bar":
                shape.draw_rect(pymupdf.Rect(x + 3, y + 1.5, x + 12, y + 7.5))
                shape.finish(color=(0, 0, 0), fill=color, width=0.35)
            else:
                shape.draw_line((x, y + 4.5), (x + 15, y + 4.5))
                shape.finish(color=color, width=1.1, closePath=False)
                _marker(shape, i, x + 7.5, y + 4.5, color)
            tw.append((x + 18, y + 6.8), label, font=_FONT, fontsize=_LEGEND)
            x += widths[k]
        y += 9.5
    return y


def draw_chart(fig: FigureGT, width: float, height: float) -> bytes:
    """The chart as a one-page PDF of the given size (points)."""
    doc = pymupdf.open()
    page = doc.new_page(width=width, height=height)
    tw = pymupdf.TextWriter(page.rect)
    shape = page.new_shape()
    top = 3.0
    if fig.dataset:
        tw.append(((width - _text_w(fig.dataset, _LABEL, _BOLD)) / 2, top + 7), fig.dataset, font=_BOLD, fontsize=_LABEL)
        top += 10
    top = _legend(shape, tw, fig, width, top) + 3
    ys = [y for s in fig.series for y in s.y]
    lo, hi, step = axis_limits(ys + ([min(ys) - 2 * tick_step(min(ys), max(ys))] if fig.kind == "bar" else []))
    ticks = [lo + k * step for k in range(int(round((hi - lo) / step)) + 1)]
    label_w = max(_text_w(_fmt_tick(t, step), _TICK) for t in ticks)
    left, right, bottom = label_w + 16, width - 8, height - 22
    plot = pymupdf.Rect(left, top, right, bottom)

    def py(v: float) -> float:
        return plot.y1 - (v - lo) / (hi - lo) * plot.height

    for t in ticks:
        shape.draw_line((plot.x0, py(t)), (plot.x1, py(t)))
    shape.finish(color=_GRID, width=0.35, closePath=False)
    for t in ticks:
        s = _fmt_tick(t, step)
        tw.append((plot.x0 - 3 - _text_w(s, _TICK), py(t) + 2.3), s, font=_FONT, fontsize=_TICK)
    if fig.kind == "bar":
        cats = [str(c) for c in fig.series[0].x]
        n = len(fig.series)
        slot = plot.width / len(cats)
        bar = slot * 0.8 / n
        for i, s in enumerate(fig.series):
            for j, y in enumerate(s.y):
                x0 = plot.x0 + j * slot + slot * 0.1 + i * bar
                shape.draw_rect(pymupdf.Rect(x0 + bar * 0.04, py(y), x0 + bar * 0.96, plot.y1))
                shape.finish(color=(0, 0, 0), fill=_COLORS[i % 5], width=0.35)
        for j, c in enumerate(cats):
            cx = plot.x0 + (j + 0.5) * slot
            tw.append((cx - _text_w(c, _TICK) / 2, plot.y1 + 8.5), c, font=_FONT, fontsize=_TICK)
    else:
        xs_all = sorted({float(v) for s in fig.series for v in s.x})
        log = xs_all[0] > 0 and xs_all[-1] / xs_all[0] >= 8
        fx = (lambda v: math.log(v)) if log else (lambda v: v)
        a, b = fx(xs_all[0]), fx(xs_all[-1])
        pad = (b - a) * 0.05

        def px(v: float) -> float:
            return plot.x0 + (fx(v) - a + pad) / (b - a + 2 * pad) * plot.width

        for v in xs_all:
            shape.draw_line((px(v), plot.y0), (px(v), plot.y1))
        shape.finish(color=(0.86, 0.86, 0.86), width=0.3, closePath=False)
        for i, s in enumerate(fig.series):
            pts = [(px(float(x)), py(y)) for x, y in zip(s.x, s.y)]
            shape.draw_polyline(pts)
            shape.finish(color=_COLORS[i % 5], width=1.1, closePath=False)
            for x, y in pts:
                _marker(shape, i, x, y, _COLORS[i % 5])
        for v in xs_all:
            s = f"{v:g}"
            tw.append((px(v) - _text_w(s, _TICK) / 2, plot.y1 + 8.5), s, font=_FONT, fontsize=_TICK)
    shape.draw_polyline([(plot.x0, plot.y0), (plot.x0, plot.y1), (plot.x1, plot.y1)])
    shape.finish(color=(0, 0, 0), width=0.6, closePath=False)
    shape.commit()
    xl = fig.x_label
    tw.append(((plot.x0 + plot.x1 - _text_w(xl, _LABEL)) / 2, height - 3.5), xl, font=_FONT, fontsize=_LABEL)
    tw.write_text(page)
    yl = fig.y_label  # a rotated label: its own writer, turned about its start point
    ytw = pymupdf.TextWriter(page.rect)
    start = pymupdf.Point(8.5, (plot.y0 + plot.y1 + _text_w(yl, _LABEL)) / 2)
    ytw.append(start, yl, font=_FONT, fontsize=_LABEL)
    ytw.write_text(page, morph=(start, pymupdf.Matrix(90)))
    out = doc.tobytes(garbage=1, deflate=True, no_new_id=True)
    doc.close()
    return out


def render_vector(fig: FigureGT, width: float, height: float) -> bytes:
    return draw_chart(fig, width, height)


def render_raster(fig: FigureGT, width: float, height: float, dpi: int = RASTER_DPI) -> bytes:
    with pymupdf.open("pdf", draw_chart(fig, width, height)) as doc:
        return doc[0].get_pixmap(dpi=dpi).tobytes("png")
