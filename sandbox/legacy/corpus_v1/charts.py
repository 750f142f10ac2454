"""Charts for generated papers: matplotlib renders a FigureGT to vector PDF or raster PNG bytes.

Values are chosen on a grid that the axis ticks make readable (see `value_grid`), so a reader of the
chart can read every plotted value off it; no value is written as a label on the chart.
"""
from __future__ import annotations

import io
import textwrap
import math
from functools import lru_cache
from typing import TYPE_CHECKING

from sandbox.corpus.model import FigureGT

if TYPE_CHECKING:
    import matplotlib.figure

RASTER_DPI = 200
_COLORS = ("#1f5fa8", "#d1495b", "#2a9d6f", "#e0a100", "#7b4fa0")
_MARKERS = ("o", "s", "^", "D", "v")
_HATCHES = ("", "//", "..", "xx", "\\\\")


def tick_step(lo: float, hi: float) -> float:
    """A tick spacing giving 4-8 ticks over [lo, hi]."""
    span = max(hi - lo, 1e-6)
    for step in (0.5, 1, 2, 5, 10, 20, 50):
        if span / step <= 8:
            return float(step)
    return 100.0


def value_grid(lo: float, hi: float) -> float:
    """The precision plotted values are rounded to: half the tick step when ticks are fine, else 1."""
    step = tick_step(lo, hi)
    return 0.5 if step <= 2 else 1.0


def axis_limits(values: list[float]) -> tuple[float, float, float]:
    """Axis limits aligned to ticks with some headroom, and the tick step."""
    lo, hi = min(values), max(values)
    step = tick_step(lo, hi)
    a = math.floor(lo / step) * step
    b = math.ceil(hi / step) * step
    if b - hi < step * 0.3:
        b += step
    if lo - a < step * 0.3:
        a -= step
    return a, b, step


def _style() -> dict[str, object]:
    return {
        "font.family": "DejaVu Serif",
        "font.size": 7.5,
        "axes.titlesize": 8,
        "axes.labelsize": 7.5,
        "legend.fontsize": 6.8,
        "xtick.labelsize": 7,
        "ytick.labelsize": 7,
        "axes.linewidth": 0.7,
        "pdf.fonttype": 42,
        "svg.hashsalt": "epi",
    }


def _legend_columns(fig: FigureGT, width_pt: float) -> int:
    """As many legend columns (up to 3) as fit above the axes without running off the figure."""
    entry = max(len(s.label) for s in fig.series) * 6.8 * 0.6 + 28
    return max(1, min(3, len(fig.series), int(width_pt * 0.92 // entry)))


@lru_cache(maxsize=1)
def _pyplot():  # -> the matplotlib.pyplot module
    """pyplot on the Agg backend, imported on the first chart: it costs ~0.6 s that `epi --help` need not pay."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401  (used as matplotlib.ticker in _draw)

    return plt


def _draw(fig: FigureGT, width_pt: float, height_pt: float) -> matplotlib.figure.Figure:
    import matplotlib

    plt = _pyplot()
    with plt.rc_context(_style()):
        f, ax = plt.subplots(figsize=(width_pt / 72, height_pt / 72))
        all_y = [y for s in fig.series for y in s.y]
        if fig.kind == "bar":
            cats = [str(c) for c in fig.series[0].x]
            n = len(fig.series)
            width = 0.8 / n
            for i, s in enumerate(fig.series):
                xs = [j + (i - (n - 1) / 2) * width for j in range(len(cats))]
                ax.bar(xs, s.y, width=width * 0.92, label=s.label, color=_COLORS[i % 5], edgecolor="black",
                       linewidth=0.5, hatch=_HATCHES[i % 5], zorder=3)
            ax.set_xticks(range(len(cats)), [textwrap.fill(c.replace(" (", "\n("), 10) for c in cats])
            lo, hi, step = axis_limits(all_y + [min(all_y) - 2 * tick_step(min(all_y), max(all_y))])
        else:
            for i, s in enumerate(fig.series):
                xs = [float(v) for v in s.x]
                if fig.kind == "line":
                    ax.plot(xs, s.y, label=s.label, color=_COLORS[i % 5], marker=_MARKERS[i % 5], markersize=3.5,
                            linewidth=1.2, zorder=3)
                else:
                    ax.scatter(xs, s.y, label=s.label, color=_COLORS[i % 5], marker=_MARKERS[i % 5], s=22,
                               edgecolor="black", linewidth=0.4, zorder=3)
            xs_all = sorted({float(v) for s in fig.series for v in s.x})
            if fig.kind == "line":
                ax.set_xticks(xs_all)
                if xs_all[-1] / max(xs_all[0], 1e-9) >= 16 and xs_all[0] > 0:
                    ax.set_xscale("log", base=2)
                    ax.set_xticks(xs_all, [f"{v:g}" for v in xs_all])
                    ax.minorticks_off()
            else:
                xa, xb, xstep = axis_limits(xs_all)
                ax.set_xlim(xa, xb)
                ax.set_xticks([xa + k * xstep for k in range(int(round((xb - xa) / xstep)) + 1)])
            lo, hi, step = axis_limits(all_y)
        ax.set_ylim(lo, hi)
        ax.set_yticks([lo + k * step for k in range(int(round((hi - lo) / step)) + 1)])
        if step >= 1:
            ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.grid(True, axis="y", linewidth=0.4, color="#b0b0b0", zorder=0)
        if fig.kind != "bar":
            ax.grid(True, axis="x", linewidth=0.3, color="#d0d0d0", zorder=0)
        ax.set_xlabel(fig.x_label)
        ax.set_ylabel(fig.y_label)
        ax.legend(frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=_legend_columns(fig, width_pt),
                  handlelength=1.6, columnspacing=1.0, borderaxespad=0.2)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        f.tight_layout(pad=0.3)
    return f


def render_vector(fig: FigureGT, width_pt: float, height_pt: float) -> bytes:
    """The chart as a one-page PDF (vector drawing) with no creation date, so bytes are reproducible."""
    f = _draw(fig, width_pt, height_pt)
    buf = io.BytesIO()
    f.savefig(buf, format="pdf", metadata={"CreationDate": None, "Creator": None, "Producer": None})
    _pyplot().close(f)
    return buf.getvalue()


def render_raster(fig: FigureGT, width_pt: float, height_pt: float, dpi: int = RASTER_DPI) -> bytes:
    """The chart as a PNG at `dpi` (>= 150 so crops stay legible)."""
    f = _draw(fig, width_pt, height_pt)
    buf = io.BytesIO()
    f.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    _pyplot().close(f)
    return buf.getvalue()
