"""The frozen v2 report generator's one view of corpus v2: ground-truth facts as plain records (issue 31).

Everything `report.py` knows about papers comes through `ReportCorpus`. It reads
`sandbox.corpus.model.GroundTruth` and borrows v2's reading tolerance of a chart and its text-clearance rule
(a plotted value is askable only when no printed number of the paper gives it).
"""
from __future__ import annotations

from dataclasses import dataclass

from sandbox.corpus.model import FigureGT, GroundTruth, PaperGT, TableGT

from sandbox.legacy.episodegen_v2.facts import Point, V2Facts, figure_tolerance

TABLE_TOLERANCE = 0.005  # a printed cell: exact to its last digit
EFFICIENCY = ("Params (M)", "GFLOPs", "Throughput (img/s)")
LOWER_IS_BETTER = ("Params (M)", "GFLOPs")


@dataclass(frozen=True)
class Table:
    paper: str
    n: int
    columns: list[str]
    rows: list[list[str]]
    metric: str | None
    higher_is_better: bool
    role: str | None

    def value(self, row: str, column: str) -> float | None:
        if column not in self.columns:
            return None
        i = self.columns.index(column)
        for r in self.rows:
            if strip_ours(r[0]) == row:
                try:
                    return float(r[i])
                except ValueError:
                    return None
        return None

    @property
    def methods(self) -> list[str]:
        return [strip_ours(r[0]) for r in self.rows]


@dataclass(frozen=True)
class LineFigure:
    paper: str
    n: int
    dataset: str
    x_label: str
    metric: str
    tolerance: float
    series: list[tuple[str, str, list[float], list[float]]]  # (label, method, xs, ys)


def strip_ours(label: str) -> str:
    return label.removesuffix(" (ours)").removesuffix(" (full)")


class ReportCorpus:
    """Papers, their main and efficiency tables, line charts and what their text prints, from a ground truth."""

    def __init__(self, gt: GroundTruth):
        self.gt = gt
        self._v2 = V2Facts(gt)
        self.papers: dict[str, PaperGT] = {p.id: p for p in gt.papers}
        self.ids = sorted(self.papers)
        self.by_method: dict[str, str] = {p.method: p.id for p in gt.papers}

    @property
    def source(self) -> str:
        return f"{self.gt.generator_version}/seed={self.gt.seed}"

    def _table(self, pid: str, t: TableGT) -> Table:
        return Table(pid, t.n, list(t.columns), [list(r) for r in t.rows], t.metric, t.higher_is_better, t.role)

    def main_table(self, pid: str) -> Table | None:
        t = next((t for t in self.papers[pid].tables if t.role == "main" or t.n == 1), None)
        return self._table(pid, t) if t else None

    def efficiency_table(self, pid: str) -> Table | None:
        t = next((t for t in self.papers[pid].tables if t.role == "efficiency"), None)
        return self._table(pid, t) if t else None

    def line_figures(self, pid: str) -> list[LineFigure]:
        out = []
        for f in self.papers[pid].figures:
            if f.kind != "line" or not f.dataset:
                continue
            own = self.papers[pid].method
            series = [(s.label, s.method or (own if s.label == "Ours" else s.label), [float(x) for x in s.x], list(s.y))
                      for s in f.series]
            out.append(LineFigure(pid, f.n, f.dataset, f.x_label, f.y_label, figure_tolerance(f), series))
        return out

    def direction(self, pid: str, metric: str) -> bool:
        """Higher is better for `metric` in this paper (its result tables say; FID-like metrics are lower)."""
        t = next((t for t in self.papers[pid].tables if t.metric == metric), None)
        return t.higher_is_better if t is not None else "fid" not in metric.lower()

    def askable(self, pid: str, fig: LineFigure, label: str, method: str, x: float, y: float) -> bool:
        """No number the paper prints (text, captions, tables, the method's table rows) gives this plotted value."""
        pt = Point(pid, fig.n, label, method, fig.dataset, fig.metric, x, fig.x_label, y, fig.tolerance, "line")
        return self._v2.askable(pt)

    def figure_whole(self, fig: FigureGT) -> bool:
        return fig.bbox is not None

    def unit_facts(self, pid: str) -> list[dict]:
        """Every table and figure of the paper as `harness.episode.UnitFacts` fields."""
        p = self.papers[pid]
        out: list[dict] = []
        for t in p.tables:
            out.append({"paper": pid, "unit": f"table:{t.n}", "kind": "table", "metric": t.metric,
                        "higher_is_better": t.higher_is_better, "tolerance": TABLE_TOLERANCE,
                        "columns": list(t.columns), "rows": [list(r) for r in t.rows],
                        "lower_is_better": [c for c in t.columns if c in LOWER_IS_BETTER]})
        for f in p.figures:
            out.append({"paper": pid, "unit": f"figure:{f.n}", "kind": f.kind, "metric": f.y_label,
                        "higher_is_better": self.direction(pid, f.y_label), "dataset": f.dataset,
                        "x_label": f.x_label if f.kind == "line" else None, "tolerance": figure_tolerance(f),
                        "series": [{"label": s.label, "method": s.method, "x": list(s.x), "y": list(s.y)} for s in f.series]})
        return out

    def paper_facts(self, pid: str) -> dict:
        p = self.papers[pid]
        return {"paper": pid, "method": p.method, "venue": p.venue, "year": p.year, "title": p.title}
