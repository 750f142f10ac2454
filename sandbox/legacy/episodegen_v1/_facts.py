"""Readable facts of the corpus: every table cell and plotted point a question may ask, with tolerances.

A figure is usable only if none of its values is printed in the text (`values_in_text` False), so a
figure question can only be answered from the figure itself.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Literal

from sandbox.corpus.model import FigureGT, GroundTruth, PaperGT, TableGT
from sandbox.legacy.corpus_v1.vocab import AREAS

# A table or bar chart over several datasets may mix metrics (top-1 % next to mAP): name each by its dataset.
DATASET_METRIC: dict[str, str] = {d.name: d.metric for a in AREAS for d in a.datasets}

_NUMBER = re.compile(r"[-+]?\d+(?:\.(\d+))?")
_UNIT_IN_HEADER = re.compile(r"\((%|M|B|K|G|ms|s|GB|MB)\)\s*$")
TABLE_TOLERANCE = 0.005


@dataclass(frozen=True)
class ValueFact:
    """One value a reader can take off a table cell or a plotted point."""

    paper: str
    kind: Literal["table", "figure"]
    n: int
    label: str = field(metadata={"doc": "row label (table) or series label (figure)"})
    at: str = field(metadata={"doc": "column name (table) or x value (figure)"})
    value: float
    tolerance: float
    unit_label: str | None
    measure: str = field(metadata={"doc": "what the value measures: table metric or figure y label"})
    x_label: str | None = None
    bar: bool = False
    row_kind: str = "method"

    @property
    def unit(self) -> str:
        return f"{self.kind}:{self.n}"

    @property
    def key(self) -> tuple[str, str]:
        return (self.paper, self.unit)


@dataclass(frozen=True)
class Group:
    """Values of one table column, or of all series of one figure at one x: candidates to compare."""

    paper: str
    kind: Literal["table", "figure"]
    n: int
    at: str
    members: tuple[ValueFact, ...]

    @property
    def unit(self) -> str:
        return f"{self.kind}:{self.n}"


def parse_cell(cell: str) -> tuple[float, int] | None:
    """The leading number of a table cell and its number of decimals ('76.1 ± 0.2' -> (76.1, 1)), or None."""
    text = cell.replace("**", "").replace("\u2212", "-").strip()
    m = _NUMBER.match(text)
    if m is None or m.end() < len(text) and text[m.end()] not in " %±(†*":
        return None
    return float(m.group(0)), len(m.group(1) or "")


def _percent(*texts: str | None) -> str | None:
    return "%" if any(t and "%" in t for t in texts) else None


def x_text(at: str) -> str:
    """An x position as written in a question: numbers bare, category names in quotes."""
    try:
        float(at)
        return at
    except ValueError:
        return f'"{at}"'


def _fmt_x(x: float | str) -> str:
    if isinstance(x, str):
        return x
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def figure_tolerance(fig: FigureGT) -> float:
    """Half the grid plotted values sit on, or 2% of the value range, whichever is larger."""
    ys = [y for s in fig.series for y in s.y]
    lo, hi = min(ys), max(ys)
    grid = 1.0 if all(float(y).is_integer() for y in ys) else 0.5
    if not all(math.isclose(y * 2, round(y * 2)) for y in ys):
        grid = 0.1
    tol = max(grid / 2, 0.02 * (hi - lo) * 1.1)
    return round(tol, 2)


def table_facts(paper: PaperGT, table: TableGT) -> list[ValueFact]:
    """Numeric cells of a table whose row label and column name are unique within it."""
    labels = [r[0] for r in table.rows if r]
    cols = table.columns
    if len(set(labels)) != len(labels) or len(set(cols)) != len(cols):
        return []
    row_kind = cols[0].strip().lower() or "row"
    facts: list[ValueFact] = []
    for ci in range(1, len(cols)):
        measure, unit = column_measure(paper, table, cols[ci])
        for row in table.rows:
            parsed = parse_cell(row[ci]) if ci < len(row) else None
            if parsed is None:
                continue
            value, decimals = parsed
            tol = min(TABLE_TOLERANCE, 0.5 * 10 ** (-decimals))
            facts.append(ValueFact(paper.id, "table", table.n, row[0], cols[ci], value, tol, unit, measure,
                                   row_kind=row_kind))
    return facts


def column_measure(paper: PaperGT, table: TableGT, column: str) -> tuple[str, str | None]:
    """What a column measures and its unit: a dataset column reports the table's metric, others say it
    in their header ('Params (M)' -> unit 'M')."""
    if column in paper.datasets or column in DATASET_METRIC:
        metric = DATASET_METRIC.get(column) or table.metric or column
        return metric, _percent(metric)
    m = _UNIT_IN_HEADER.search(column)
    return column, (m.group(1) if m else None)


def figure_facts(paper: PaperGT, fig: FigureGT) -> list[ValueFact]:
    """Plotted points of a figure that shows its values only in the plot; x must be unique per series."""
    if fig.values_in_text:
        return []
    labels = [s.label for s in fig.series]
    if len(set(labels)) != len(labels):
        return []
    tol = figure_tolerance(fig)
    facts: list[ValueFact] = []
    for s in fig.series:
        xs = [_fmt_x(x) for x in s.x]
        for x, y in zip(xs, s.y):
            if xs.count(x) == 1:
                measure = DATASET_METRIC.get(x, fig.y_label) if fig.kind == "bar" else fig.y_label
                facts.append(ValueFact(paper.id, "figure", fig.n, s.label, x, float(y), tol,
                                       _percent(measure), measure, fig.x_label, fig.kind == "bar"))
    return facts


def groups_of(facts: list[ValueFact]) -> list[Group]:
    """Facts of one unit grouped by column (tables) or by x (figures), keeping groups of 2 or more."""
    by: dict[tuple[str, str, int, str], list[ValueFact]] = {}
    for f in facts:
        by.setdefault((f.paper, f.kind, f.n, f.at), []).append(f)
    return [Group(p, k, n, at, tuple(ms)) for (p, k, n, at), ms in by.items() if len(ms) >= 2]


class CorpusFacts:
    """Index of the ground truth the generator draws from: papers, citation links, facts and groups."""

    def __init__(self, gt: GroundTruth):
        self.gt = gt
        self.papers: dict[str, PaperGT] = {p.id: p for p in gt.papers}
        self.ids: list[str] = sorted(self.papers)
        self.cites: dict[str, list[str]] = {
            p.id: sorted(r for r in p.references if r in self.papers and r != p.id) for p in gt.papers
        }
        self.cited_by: dict[str, list[str]] = {pid: [] for pid in self.ids}
        for pid in self.ids:
            for r in self.cites[pid]:
                self.cited_by[r].append(pid)
        self.facts: dict[str, list[ValueFact]] = {}
        self.groups: dict[str, list[Group]] = {}
        for p in gt.papers:
            facts = [f for t in p.tables for f in table_facts(p, t)]
            facts += [f for fig in p.figures for f in figure_facts(p, fig)]
            self.facts[p.id] = facts
            self.groups[p.id] = groups_of(facts)

    def neighbours(self, pid: str) -> list[str]:
        """Papers linked to `pid` by a citation in either direction."""
        return sorted(set(self.cites[pid]) | set(self.cited_by[pid]))

    def surname(self, pid: str) -> str:
        authors = self.papers[pid].authors
        return authors[0].split()[-1] if authors else ""

    def figure(self, pid: str, n: int) -> FigureGT | None:
        return next((f for f in self.papers[pid].figures if f.n == n), None)

    def table(self, pid: str, n: int) -> TableGT | None:
        return next((t for t in self.papers[pid].tables if t.n == n), None)
