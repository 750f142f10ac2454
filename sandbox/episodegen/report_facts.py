"""The report generator's one view of the corpus: ground-truth facts as plain records (issue 31).

Everything `report.py` knows about papers comes through `ReportCorpus`, which reads a corpus-v3 ground truth
through the living episode facts (`facts.V3Facts`): a plotted value is askable for a report's gold under the
same rules as for a turn (a raster figure or a vector one whose marks are an embedded image, a linear y axis,
cleared from every number the paper prints, from the calibrated text guess and from the other curves), with
v3's reading tolerance of a chart. The frozen v2 report benchmark has its own copy in
`sandbox/legacy/reportgen_v2`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from sandbox.corpus.model import GroundTruth, PaperGT, TableGT

from .facts import TABLE_TOLERANCE, Point, V3Facts, askable_figure, figure_tolerance

PARAMS = "Params (M)"
GFLOPS = "GFLOPs"
_THROUGHPUT = re.compile(r"^Throughput \((?P<unit>[^()]+)/s\)$")
# The cost columns a report claim can state and the scorer can check (harness/reports/_lexicon.py reads the
# families params, gflops and throughput); v3's other cost columns (latency, sampling time, GPU-hours, ...)
# stay in the facts but are never gold.
LOWER_IS_BETTER_COST = re.compile(r"^(Params \(M\)|GFLOPs|.*latency|.*time.*|.*GPU-hours|real-time factor)$", re.I)

__all__ = ["TABLE_TOLERANCE", "PARAMS", "GFLOPS", "Table", "LineFigure", "ReportCorpus", "is_cost", "is_throughput",
           "throughput_unit", "checkable_cost"]


def throughput_unit(column: str) -> str | None:
    """'img' for 'Throughput (img/s)', None for any other column."""
    m = _THROUGHPUT.match(column)
    return m.group("unit") if m else None


def is_throughput(column: str) -> bool:
    return throughput_unit(column) is not None


def is_cost(column: str) -> bool:
    """An efficiency column (what a method costs), not a dataset."""
    return is_throughput(column) or bool(LOWER_IS_BETTER_COST.match(column))


def checkable_cost(column: str) -> bool:
    """A cost column whose claims the report scorer resolves: parameters, GFLOPs, throughput."""
    return column in (PARAMS, GFLOPS) or is_throughput(column)


@dataclass(frozen=True)
class Table:
    paper: str
    n: int
    columns: list[str]
    rows: list[list[str]]
    names: list[str]  # the method each row stands for ("Ours" -> the paper's method)
    metric: str | None
    higher_is_better: bool
    role: str | None

    def value(self, method: str, column: str) -> float | None:
        if column not in self.columns or method not in self.names:
            return None
        try:
            return float(self.rows[self.names.index(method)][self.columns.index(column)])
        except (ValueError, IndexError):
            return None

    @property
    def methods(self) -> list[str]:
        return list(self.names)

    @property
    def datasets(self) -> list[str]:
        return [c for c in self.columns[1:] if not is_cost(c)]


@dataclass(frozen=True)
class LineFigure:
    paper: str
    n: int
    dataset: str
    x_label: str
    metric: str
    tolerance: float
    series: list[tuple[str, str, list[float], list[float]]]  # (label, method, xs, ys)


class ReportCorpus:
    """Papers, their main and efficiency tables, askable line charts and what their text prints."""

    def __init__(self, gt: GroundTruth):
        self.gt = gt
        self.v3 = V3Facts(gt)
        self.papers: dict[str, PaperGT] = self.v3.papers
        self.ids = self.v3.ids
        self.by_method: dict[str, str] = self.v3.by_method

    @property
    def source(self) -> str:
        return f"{self.gt.generator_version}/seed={self.gt.seed}"

    def _table(self, pid: str, t: TableGT) -> Table:
        return Table(pid, t.n, list(t.columns), [list(r) for r in t.rows], [self.v3.row_method(pid, r[0]) for r in t.rows],
                     t.metric, t.higher_is_better, t.role)

    def main_table(self, pid: str) -> Table | None:
        t = self.v3.main_table(pid)
        return self._table(pid, t) if t else None

    def efficiency_table(self, pid: str) -> Table | None:
        t = next((t for t in self.papers[pid].tables if t.role == "efficiency"), None)
        return self._table(pid, t) if t else None

    def line_figures(self, pid: str) -> list[LineFigure]:
        """The paper's line charts whose points the episode generator may ask about (`facts.askable_figure`)."""
        out = []
        for f in self.papers[pid].figures:
            if not askable_figure(f):
                continue
            series = [(s.label, s.method or s.label, [float(x) for x in s.x], [float(y) for y in s.y]) for s in f.series]
            out.append(LineFigure(pid, f.n, f.dataset or "", f.x_label, f.y_label, figure_tolerance(f), series))
        return out

    def direction(self, pid: str, metric: str) -> bool:
        """Higher is better for `metric` in this paper (its result tables say; FID- and error-like metrics are lower)."""
        t = next((t for t in self.papers[pid].tables if t.metric == metric), None)
        return t.higher_is_better if t is not None else not re.search(r"\bfid\b|\bwer\b|error|loss", metric, re.I)

    def askable(self, pid: str, fig: LineFigure, label: str, method: str, x: float, y: float) -> bool:
        """The v3 rule for a plotted value (`V3Facts.askable`): no printed number, text guess or other curve gives it."""
        pt = Point(pid, fig.n, label, method, fig.dataset, fig.metric, x, fig.x_label, y, fig.tolerance, "line")
        return self.v3.askable(pt)

    def unit_facts(self, pid: str) -> list[dict]:
        """The paper's tables, line charts and bar charts as `harness.episode.UnitFacts` fields (the other kinds of
        v3 figure, scatter plots, heat maps, stacked bars, panels, diagrams and image grids, state nothing a claim
        of this benchmark cites)."""
        p = self.papers[pid]
        out: list[dict] = []
        for t in p.tables:
            out.append({"paper": pid, "unit": f"table:{t.n}", "kind": "table", "metric": t.metric,
                        "higher_is_better": t.higher_is_better, "tolerance": TABLE_TOLERANCE,
                        "columns": list(t.columns), "rows": [list(r) for r in t.rows],
                        "lower_is_better": [c for c in t.columns[1:] if is_cost(c) and not is_throughput(c)]})
        for f in p.figures:
            if f.kind not in ("line", "bar") or f.panels or not f.series:
                continue
            if f.kind == "line" and not all(isinstance(x, (int, float)) for s in f.series for x in s.x):
                continue
            out.append({"paper": pid, "unit": f"figure:{f.n}", "kind": f.kind, "metric": f.y_label,
                        "higher_is_better": self.direction(pid, f.y_label), "dataset": f.dataset,
                        "x_label": f.x_label if f.kind == "line" else None, "tolerance": figure_tolerance(f),
                        "series": [{"label": s.label, "method": s.method, "x": list(s.x), "y": list(s.y)} for s in f.series]})
        return out

    def paper_facts(self, pid: str) -> dict:
        p = self.papers[pid]
        return {"paper": pid, "method": p.method, "venue": p.venue, "year": p.year, "title": p.title}
