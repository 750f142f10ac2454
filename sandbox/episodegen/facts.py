"""What the v3 generator may ask about corpus v3: plotted points, table cells, links between papers, and the
names a prior could use. Everything is read from the ground truth (never from the corpus generator's
vocabulary), so a corpus whose prose, titles or references change keeps its episodes sound.

A plotted point is *askable* only if
- its figure shows it as pixels: a raster figure, or a vector figure whose marks are embedded as an image
  (`vector_exact` False); a vector drawing whose coordinates give every value exactly is never asked;
- its figure has a linear y axis (a log axis makes the tolerance uneven) and is a single-panel line chart;
- no number printed in its paper lies within `CLEARANCE` tolerances of it, nor stands for it at the precision
  it is printed with ("32 GPUs" for 32.42: a reader of the text could take a rounded value for it), nor a number
  on a table row of the same method within `ROW_CLEARANCE` tolerances;
- the calibrated text guess (the same method's table value on the same dataset plus the median gap between
  plotted and tabled values at that dataset and x, measured over the whole corpus) misses it by more than
  `GUESS_CLEARANCE` tolerances, and so does the same guess keyed by x alone;
- no other series of its figure passes within `SERIES_CLEARANCE` tolerances at that x (curves cross in v3);
- no other paper's figure plots the same series at the same setting within `ROW_CLEARANCE` tolerances.
Tolerance is `TOLERANCE_SHARE` of the y axis the chart draws.
"""
from __future__ import annotations

import bisect
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property

from sandbox.corpus.model import FigureGT, GroundTruth, PaperGT, TableGT

TOLERANCE_SHARE = 0.025
CLEARANCE = 1.25
ROW_CLEARANCE = 2.0
GUESS_CLEARANCE = 3.5
SERIES_CLEARANCE = 1.05
TABLE_TOLERANCE = 0.005
_NUM = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
_TITLE_METHOD = re.compile(r"^([A-Z][\w\-]*[A-Z0-9][\w\-]*)\s*:")
_OWN_SUFFIX = re.compile(r"\s*\((?:ours|full)\)\s*$", re.I)


def printed_text(p: PaperGT) -> str:
    """All the text the paper prints (abstract, sections, captions, table cells, title, year, arXiv id)."""
    parts = [p.title, p.abstract, *[s.title for s in p.sections], *[x for s in p.sections for x in s.paragraphs],
             *[f.caption for f in p.figures], *[t.caption for t in p.tables],
             *[c for t in p.tables for row in [t.columns, *t.rows] for c in row], str(p.year), p.arxiv_id or ""]
    return " ".join(parts)


def printed_numbers(p: PaperGT) -> list[tuple[float, float]]:
    """Every number the paper prints as text, with half a unit of its last printed digit."""
    return sorted((float(m), 0.5 * 10.0 ** -(len(m.split(".")[1]) if "." in m else 0)) for m in _NUM.findall(printed_text(p)))


def bare(label: str) -> str:
    """A row or legend label without its "(ours)" / "(full)" suffix."""
    return _OWN_SUFFIX.sub("", label)


@dataclass(frozen=True)
class Point:
    """One plotted point (line charts) or bar (bar charts) of a figure."""

    paper: str
    n: int
    label: str
    method: str
    dataset: str
    metric: str
    x: float | None  # None for bars
    x_label: str | None
    value: float
    tolerance: float
    kind: str  # "line" | "bar"

    @property
    def unit(self) -> str:
        return f"figure:{self.n}"


@dataclass(frozen=True)
class Cell:
    paper: str
    n: int
    row: str
    column: str
    value: float
    metric: str | None

    @property
    def unit(self) -> str:
        return f"table:{self.n}"


def figure_tolerance(fig: FigureGT) -> float:
    """TOLERANCE_SHARE of the y range corpus v3 draws for a line chart (values and error extents, padded 8%)."""
    ys = [y for s in fig.series for y in s.y]
    if fig.err_style:
        ys += [y + e for s in fig.series for y, e in zip(s.y, s.err or [])]
        ys += [y - e for s in fig.series for y, e in zip(s.y, s.err or [])]
    lo, hi = min(ys), max(ys)
    pad = (hi - lo) * 0.08 or abs(hi) * 0.1 or 1
    return round(TOLERANCE_SHARE * (hi - lo + 2 * pad), 2)


def pixels_only(fig: FigureGT) -> bool:
    """Does the PDF show this figure's values only as pixels (raster, or vector axes around an embedded image)?"""
    return fig.visual == "raster" or (fig.visual == "vector" and fig.vector_exact is False)


def askable_figure(fig: FigureGT) -> bool:
    return fig.kind == "line" and not fig.procedural and not fig.panels and not fig.log_y and pixels_only(fig) \
        and bool(fig.dataset) and all(isinstance(x, (int, float)) for s in fig.series for x in s.x)


def generic_name(name: str) -> bool:
    """The audit's "generic-sounding name": a lower-case word in it (e.g. "MLP baseline")."""
    words = re.findall(r"[A-Za-z][\w\-]*", name)
    return any(w.islower() or ("-" in w and w.split("-")[-1].islower()) for w in words)


class V3Facts:
    """Index of a corpus-v3 ground truth for the episode generator."""

    def __init__(self, gt: GroundTruth):
        self.gt = gt
        self.papers: dict[str, PaperGT] = {p.id: p for p in gt.papers}
        self.ids = sorted(self.papers)
        self.cites = {p.id: [r for r in p.references if r in self.papers] for p in gt.papers}
        self.cited_by: dict[str, list[str]] = {pid: [] for pid in self.ids}
        for pid in self.ids:
            for r in self.cites[pid]:
                self.cited_by[r].append(pid)
        self.by_method = {p.method: p.id for p in gt.papers if p.method}
        # the year a prior could give a method: that of the paper whose title starts "Method:" (as the audit reads it)
        self.method_year: dict[str, int] = {}
        for p in gt.papers:
            if m := _TITLE_METHOD.match(p.title):
                self.method_year[m.group(1)] = p.year
        self.points: dict[str, list[Point]] = {pid: [] for pid in self.ids}
        for p in gt.papers:
            for f in p.figures:
                if not askable_figure(f):
                    continue
                tol = figure_tolerance(f)
                for s in f.series:
                    for x, y in zip(s.x, s.y):
                        self.points[p.id].append(Point(p.id, f.n, s.label, s.method or s.label, f.dataset or "",
                                                       f.y_label, float(x), f.x_label, float(y), tol, "line"))
        self._printed = {p.id: printed_numbers(p) for p in gt.papers}
        self._askable: dict[Point, bool] = {}
        self._at: dict[tuple[str, int, float | None], list[Point]] = defaultdict(list)
        for pts in self.points.values():
            for q in pts:
                self._at[(q.paper, q.n, q.x)].append(q)
        self._combos = {p.id: [(f.n, f.dataset or "", f.x_label) for f in p.figures if askable_figure(f)] for p in gt.papers}
        self._with = {(pid, d, xl): n for pid, cs in self._combos.items() for n, d, xl in reversed(cs)}
        self._rows: dict[tuple[str, str], list[float]] = {}
        for p in gt.papers:
            for t in p.tables:
                for row in t.rows:
                    nums = [float(m) for c in row[1:] for m in _NUM.findall(c)]
                    self._rows.setdefault((p.id, self.row_method(p.id, row[0])), []).extend(nums)

    # ---- names ------------------------------------------------------------------------------
    def row_method(self, pid: str, label: str) -> str:
        """The method a table row or legend entry stands for ("Ours", "X (ours)", "X (full)" -> the paper's own)."""
        if label == "Ours":
            return self.papers[pid].method or label
        return bare(label)

    def is_own(self, pid: str, label: str) -> bool:
        own = self.papers[pid].method
        return label == "Ours" or label.lower().endswith("(ours)") or bool(own) and bare(label) == own

    def surname(self, pid: str) -> str:
        a = self.papers[pid].authors
        return a[0].split()[-1] if a else ""

    def figure(self, pid: str, n: int) -> FigureGT:
        return next(f for f in self.papers[pid].figures if f.n == n)

    def table(self, pid: str, n: int) -> TableGT:
        return next(t for t in self.papers[pid].tables if t.n == n)

    def main_table(self, pid: str) -> TableGT | None:
        return next((t for t in self.papers[pid].tables if t.role == "main"), None)

    def reference_number(self, citing: str, cited: str) -> int:
        return self.papers[citing].references.index(cited) + 1

    # ---- text guesses -------------------------------------------------------------------------
    def table_value(self, pid: str, method: str, dataset: str) -> float | None:
        """The method's score on `dataset` as the paper's main table prints it."""
        t = self.main_table(pid)
        if t is None or dataset not in t.columns:
            return None
        row = next((r for r in t.rows if self.row_method(pid, r[0]) == method), None)
        try:
            return float(row[t.columns.index(dataset)]) if row else None
        except ValueError:
            return None

    @cached_property
    def _offsets(self) -> dict[tuple, float]:
        """Median gap between a plotted value and its method's table value, per (dataset, x) and per x."""
        gaps: dict[tuple, list[float]] = defaultdict(list)
        for pts in self.points.values():
            for q in pts:
                t = self.table_value(q.paper, q.method, q.dataset)
                if t is not None:
                    gaps[("d", q.dataset, q.metric, q.x)].append(q.value - t)
                    gaps[("x", q.x)].append(q.value - t)
        return {k: statistics.median(v) for k, v in gaps.items()}

    def text_guesses(self, q: Point) -> list[float]:
        """What text alone suggests for a plotted value: the table value, and it shifted by the learned gaps."""
        t = self.table_value(q.paper, q.method, q.dataset)
        if t is None:
            return []
        out = [t]
        for key in (("d", q.dataset, q.metric, q.x), ("x", q.x)):
            if key in self._offsets:
                out.append(t + self._offsets[key])
        return out

    @cached_property
    def _same_setting(self) -> dict[tuple, list[Point]]:
        out: dict[tuple, list[Point]] = {}
        for pts in self.points.values():
            for q in pts:
                out.setdefault((q.n, q.label, q.dataset, q.x_label, q.x), []).append(q)
        return out

    def askable(self, pt: Point) -> bool:
        """Neither the paper's text, the calibrated text guess nor a wrong paper's same figure gives this value."""
        if pt not in self._askable:
            self._askable[pt] = self._check_askable(pt)
        return self._askable[pt]

    def _near_text_number(self, pid: str, v: float, within: float) -> bool:
        """A number of the paper's text within `within` of v, or one whose printed precision covers v."""
        printed = self._printed[pid]
        reach = max(within, 0.5)  # no half unit is wider than an integer's
        lo = bisect.bisect_left(printed, v - reach, key=lambda t: t[0])
        hi = bisect.bisect_right(printed, v + reach, key=lambda t: t[0])
        return any(abs(n - v) <= within or abs(n - v) <= half + 1e-9 for n, half in printed[lo:hi])

    def _check_askable(self, pt: Point) -> bool:
        if self._near_text_number(pt.paper, pt.value, CLEARANCE * pt.tolerance):
            return False
        row_clear = ROW_CLEARANCE * pt.tolerance
        if any(abs(pt.value - n) <= row_clear for n in self._rows.get((pt.paper, pt.method), [])):
            return False
        if any(abs(pt.value - g) <= GUESS_CLEARANCE * pt.tolerance for g in self.text_guesses(pt)):
            return False
        if any(q.label != pt.label and abs(q.value - pt.value) <= SERIES_CLEARANCE * pt.tolerance
               for q in self._at.get((pt.paper, pt.n, pt.x), [])):
            return False  # another curve passes within reading precision: which is which cannot be told
        others = self._same_setting[(pt.n, pt.label, pt.dataset, pt.x_label, pt.x)]
        return not any(q.paper != pt.paper and abs(q.value - pt.value) <= row_clear for q in others)

    # ---- settings -----------------------------------------------------------------------------
    def line_points(self, pid: str, n: int, x: float) -> list[Point]:
        return list(self._at.get((pid, n, x), []))

    def combos(self, pid: str) -> list[tuple[int, str, str]]:
        """(figure number, dataset, x label) of the paper's askable line charts."""
        return self._combos[pid]

    def figure_with(self, pid: str, dataset: str, x_label: str) -> int | None:
        return self._with.get((pid, dataset, x_label))

    def cells(self, pid: str) -> list[Cell]:
        """Numeric cells of the paper's result tables (main, ablation, per-class), with their metric."""
        p = self.papers[pid]
        out = []
        for t in p.tables:
            if t.role not in ("main", "ablation", "per_class"):
                continue
            for row in t.rows:
                for c, col in enumerate(t.columns[1:], start=1):
                    if col == "Params (M)":
                        continue
                    try:
                        v = float(row[c])
                    except (ValueError, IndexError):
                        continue
                    out.append(Cell(pid, t.n, row[0], col, v, t.metric if col in p.datasets else None))
        return out

    @cached_property
    def _cell_index(self) -> dict[tuple[str, str], list[Cell]]:
        out: dict[tuple[str, str], list[Cell]] = {}
        for pid in self.ids:
            for c in self.cells(pid):
                out.setdefault((bare(c.row), c.column), []).append(c)
        return out

    def cell_recurs(self, c: Cell) -> bool:
        """Does another paper print (about) the same value for the same row and column?"""
        return any(o.paper != c.paper and abs(o.value - c.value) <= 0.05 for o in self._cell_index[(bare(c.row), c.column)])

    def in_title(self, pid: str, text: str) -> bool:
        return bool(text) and text.lower() in self.papers[pid].title.lower()

    def number_in_title(self, pid: str, v: float) -> bool:
        return any(abs(float(m) - v) < 1e-9 for m in _NUM.findall(self.papers[pid].title))


