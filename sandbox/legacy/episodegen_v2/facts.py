"""What the v2 generator may ask about corpus v2: plotted points, table cells, links between papers.

A plotted point is *askable* only if no number printed anywhere in its paper (prose, captions,
tables) lies within `CLEARANCE` tolerances of it, no number on a table row of the same method within
`ROW_CLEARANCE` tolerances, and no other paper's figure with the same number plots the same series at
the same setting within `ROW_CLEARANCE` tolerances: text alone and a wrong paper cannot give its value. Tolerance is `TOLERANCE_SHARE` of the y axis the chart draws (the reading precision a
careful reader has with its grid lines).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from sandbox.corpus.model import FigureGT, GroundTruth, PaperGT, TableGT
from sandbox.legacy.corpus_v1.charts import axis_limits, tick_step
from sandbox.legacy.corpus_v2.vocab import AREA_BY_NAME, Area

TOLERANCE_SHARE = 0.025
CLEARANCE = 1.25
ROW_CLEARANCE = 2.0
TABLE_TOLERANCE = 0.005
_NUM = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")


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
    ys = [y for s in fig.series for y in s.y]
    extra = [min(ys) - 2 * tick_step(min(ys), max(ys))] if fig.kind == "bar" else []
    lo, hi, _ = axis_limits(ys + extra)
    return round(TOLERANCE_SHARE * (hi - lo), 2)


def text_numbers(p: PaperGT) -> list[float]:
    """Every number the paper prints as text (abstract, sections, captions, table cells, title, references)."""
    parts = [p.title, p.abstract, *[s.title for s in p.sections], *[x for s in p.sections for x in s.paragraphs],
             *[f.caption for f in p.figures], *[t.caption for t in p.tables],
             *[c for t in p.tables for row in [t.columns, *t.rows] for c in row], str(p.year), p.arxiv_id or ""]
    return [float(m) for m in _NUM.findall(" ".join(parts))]


class V2Facts:
    """Index of a corpus-v2 ground truth for the episode generator."""

    def __init__(self, gt: GroundTruth):
        self.gt = gt
        self.papers: dict[str, PaperGT] = {p.id: p for p in gt.papers}
        self.ids = sorted(self.papers)
        self.cites = {p.id: [r for r in p.references if r in self.papers] for p in gt.papers}
        self.cited_by: dict[str, list[str]] = {pid: [] for pid in self.ids}
        for pid in self.ids:
            for r in self.cites[pid]:
                self.cited_by[r].append(pid)
        self.by_method = {p.method: p.id for p in gt.papers}
        self.points: dict[str, list[Point]] = {pid: [] for pid in self.ids}
        for p in gt.papers:
            for f in p.figures:
                tol = figure_tolerance(f)
                for s in f.series:
                    for x, y in zip(s.x, s.y):
                        line = f.kind == "line"
                        self.points[p.id].append(Point(
                            p.id, f.n, s.label, s.method or s.label, (f.dataset if line else str(x)) or "", f.y_label,
                            float(x) if line else None, f.x_label if line else None, float(y), tol, f.kind))
        self._numbers = {p.id: text_numbers(p) for p in gt.papers}
        self._rows: dict[tuple[str, str], list[float]] = {}
        for p in gt.papers:
            for t in p.tables:
                for row in t.rows:
                    nums = [float(m) for c in row[1:] for m in _NUM.findall(c)]
                    label = row[0].removesuffix(" (ours)")
                    label = p.method if label in (p.method, f"{p.method} (full)") else label
                    self._rows.setdefault((p.id, label), []).extend(nums)

    def area(self, pid: str) -> Area:
        return AREA_BY_NAME[self.papers[pid].area]

    def surname(self, pid: str) -> str:
        a = self.papers[pid].authors
        return a[0].split()[-1] if a else ""

    def figure(self, pid: str, n: int) -> FigureGT:
        return next(f for f in self.papers[pid].figures if f.n == n)

    def table(self, pid: str, n: int) -> TableGT:
        return next(t for t in self.papers[pid].tables if t.n == n)

    def reference_number(self, citing: str, cited: str) -> int:
        return self.papers[citing].references.index(cited) + 1

    @cached_property
    def _same_setting(self) -> dict[tuple[int, str, str, str | None, float | None], list[Point]]:
        out: dict[tuple[int, str, str, str | None, float | None], list[Point]] = {}
        for pts in self.points.values():
            for q in pts:
                out.setdefault((q.n, q.label, q.dataset, q.x_label, q.x), []).append(q)
        return out

    def askable(self, pt: Point) -> bool:
        """Neither the paper's text nor a wrong paper's same figure, series and setting gives this value."""
        if any(abs(pt.value - n) <= CLEARANCE * pt.tolerance for n in self._numbers[pt.paper]):
            return False
        row_clear = ROW_CLEARANCE * pt.tolerance
        if any(abs(pt.value - n) <= row_clear for n in self._rows.get((pt.paper, pt.method), [])):
            return False
        others = self._same_setting[(pt.n, pt.label, pt.dataset, pt.x_label, pt.x)]
        return not any(q.paper != pt.paper and abs(q.value - pt.value) <= row_clear for q in others)

    def table_value(self, pid: str, method: str, dataset: str) -> float | None:
        """The method's standard-setting score on `dataset` as paper `pid`'s Table 1 prints it."""
        t = self.table(pid, 1)
        if dataset not in t.columns:
            return None
        row = next((r for r in t.rows if r[0].removesuffix(" (ours)") == method), None)
        return float(row[t.columns.index(dataset)]) if row else None

    def text_guess(self, pts: list[Point], highest: bool) -> Point | None:
        """What text alone suggests is the highest (lowest) of these points: the one whose method the
        papers' Table 1 ranks so on the same dataset (None when a table lacks one of them)."""
        vals = [self.table_value(q.paper, q.method, q.dataset) for q in pts]
        if any(v is None for v in vals):
            return None
        pick = max if highest else min
        return pts[vals.index(pick(vals))]  # type: ignore[arg-type]

    def line_points(self, pid: str, n: int, x: float) -> list[Point]:
        return [q for q in self.points[pid] if q.n == n and q.x == x]

    def combos(self, pid: str) -> list[tuple[int, str, str]]:
        """(figure number, dataset, x label) of the paper's line charts."""
        return [(f.n, f.dataset or "", f.x_label) for f in self.papers[pid].figures if f.kind == "line"]

    def figure_with(self, pid: str, dataset: str, x_label: str) -> int | None:
        return next((n for n, d, xl in self.combos(pid) if d == dataset and xl == x_label), None)

    def cells(self, pid: str) -> list[Cell]:
        p = self.papers[pid]
        out = []
        for t in p.tables:
            for row in t.rows:
                for c, col in enumerate(t.columns[1:], start=1):
                    try:
                        v = float(row[c])
                    except ValueError:
                        continue
                    out.append(Cell(pid, t.n, row[0], col, v, t.metric if col in p.datasets else None))
        return out

    @cached_property
    def _cell_index(self) -> dict[tuple[str, str], list[Cell]]:
        out: dict[tuple[str, str], list[Cell]] = {}
        for pid in self.ids:
            for c in self.cells(pid):
                out.setdefault((c.row.removesuffix(" (ours)"), c.column), []).append(c)
        return out

    def cell_recurs(self, c: Cell) -> bool:
        """Does another paper print (about) the same value for the same row and column?"""
        return any(o.paper != c.paper and abs(o.value - c.value) <= 0.05
                   for o in self._cell_index[(c.row.removesuffix(" (ours)"), c.column)])
