"""A paper as the text tools show it, in one shape whether it was read through the tools (the audited file's
corpus) or taken from a generator's plan without rendering a PDF (the second benchmark the adversaries learn
from): title, year, every table's caption and cells, every figure's caption and nearby text. The learned
adversaries compute their features from this view only, so what they learn on a plan transfers to tool output.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from ._texts import PaperText, norm

if TYPE_CHECKING:
    from sandbox.corpus.model import PaperGT

_TITLE_METHOD = re.compile(r"^([A-Z][\w\-]*[A-Z0-9][\w\-]*)\s*:")
_RANGE = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:to|-|\u2013)\s*(-?\d+(?:\.\d+)?)")
_NUM = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]\d)")
_OURS = re.compile(r"\s*\((?:ours|full)\)\s*$", re.I)
_LOWER_BETTER = re.compile(r"lower is better|\(\u2193\)|lower values are better", re.I)


def _float(s: str) -> float | None:
    try:
        return float(s.replace("\u2212", "-").strip().strip("*"))
    except ValueError:
        return None


@dataclass
class TableView:
    n: int
    caption: str
    rows: list[list[str]]  # header first

    @property
    def header(self) -> list[str]:
        return self.rows[0] if self.rows else []

    @property
    def lower_is_better(self) -> bool:
        return bool(_LOWER_BETTER.search(self.caption))

    def column(self, name: str | None) -> int | None:
        if not name:
            return None
        want = norm(name)
        return next((i for i, h in enumerate(self.header) if i > 0 and norm(h) == want), None)

    def values(self, col: int) -> list[float | None]:
        return [_float(r[col]) if col < len(r) else None for r in self.rows[1:]]


@dataclass
class PaperView:
    """What the text tools show of one paper (no image, no PDF drawing)."""

    paper: str
    title: str = ""
    year: int | None = None
    tables: dict[int, TableView] = field(default_factory=dict)
    figures: dict[int, str] = field(default_factory=dict)  # caption and nearby text

    def own_method(self) -> str | None:
        """The method the paper introduces: a table row marked '(ours)', else the name before ':' in the title."""
        return self._own

    @cached_property
    def _own(self) -> str | None:
        for t in sorted(self.tables.values(), key=lambda t: t.n):
            for r in t.rows[1:]:
                if r and re.search(r"\(ours\)\s*$", r[0], re.I):
                    return _OURS.sub("", r[0])
        m = _TITLE_METHOD.match(self.title.strip())
        return m.group(1) if m else None

    def row_index(self, t: TableView, series: str) -> int | None:
        """The body row (0-based) of `series` in `t`: its label, or the paper's own row for 'Ours'."""
        own = self.own_method()
        want = norm(own if norm(series) == "ours" and own else _OURS.sub("", series))
        for i, r in enumerate(t.rows[1:]):
            if r and norm(_OURS.sub("", r[0])) == want:
                return i
        return None

    def cell(self, series: str, dataset: str | None) -> tuple[TableView, int, int] | None:
        """(table, body row, column) where the paper prints `series` on `dataset`; the largest such table."""
        best = None
        for t in self.tables.values():
            col = t.column(dataset)
            row = self.row_index(t, series) if col is not None else None
            if col is None or row is None or _float(t.rows[row + 1][col]) is None:
                continue
            if best is None or len(t.rows) > len(best[0].rows):
                best = (t, row, col)
        return best

    def dataset_named(self, figure: int) -> str | None:
        """The table column (dataset) a figure's caption names, for items whose dataset is not annotated."""
        text = norm(self.figures.get(figure, "").split("\n")[0])
        heads = {h for t in self.tables.values() for h in t.header[1:] if h}
        hits = [h for h in heads if len(h) > 2 and re.search(rf"(?<![\w-]){re.escape(norm(h))}(?![\w-])", text)]
        return max(hits, key=len) if hits else None

    def x_range(self, figure: int) -> tuple[float, float] | None:
        """The x range a figure's caption names ("... 5 to 100")."""
        m = _RANGE.search(self.figures.get(figure, "").split("\n")[0].split(":", 1)[-1])
        if not m:
            return None
        lo, hi = float(m.group(1)), float(m.group(2))
        return (lo, hi) if hi > lo else None

    def tick_numbers(self, figure: int) -> list[float]:
        """Numbers a figure's caption and nearby text print, besides its number and x range (tick values a
        text might name)."""
        text = self.figures.get(figure, "")
        text = re.sub(r"\b(?:Figure|Fig\.|Table)\s*\d+", " ", text)
        rng = self.x_range(figure)
        out = [float(m) for m in _NUM.findall(text.replace(",", ""))]
        return [v for v in out if not (rng and v in rng) and not (1900 < v < 2100)]


def view_from_text(pt: PaperText, year: int | None) -> PaperView:
    """A view of a paper read through the tools (the audit's PaperReader)."""
    tables = {n: TableView(n, pt.table_captions.get(n, ""), rows) for n, rows in pt.tables_rows.items()}
    return PaperView(pt.paper, pt.title, year, tables, dict(pt.figure_text))


def _mentions(p: PaperGT, label: str, n: int, limit: int = 3) -> list[str]:
    pat = re.compile(rf"\b{label}\s*{n}(?![\d.]\d)")
    return [para for s in p.sections for para in s.paragraphs if pat.search(para)][:limit]


def view_from_plan(p: PaperGT) -> PaperView:
    """A view of a planned (never rendered) paper: what table_extract and figure_extract would show."""
    tables = {t.n: TableView(t.n, t.caption, [list(t.columns), *[list(r) for r in t.rows]]) for t in p.tables}
    figures = {f.n: "\n".join([f.caption, *_mentions(p, "Figure", f.n)]) for f in p.figures}
    return PaperView(p.id, p.title, p.year, tables, figures)


def log_position(x: float | None, rng: tuple[float, float] | None) -> float:
    """Where x lies in the named range, on a log scale when the range is positive (0 = low end, 1 = high)."""
    if x is None or rng is None:
        return math.nan
    lo, hi = rng
    if lo > 0 and x > 0:
        return (math.log(x) - math.log(lo)) / (math.log(hi) - math.log(lo))
    return (x - lo) / (hi - lo)
