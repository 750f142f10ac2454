"""Named features of a figure value, from what the text tools return about its paper: the table cells of the
same method and dataset, the method's rank and row in the table, the x range and tick values the caption or
nearby text names, the asked x, the area, metric and dataset. Nothing here looks at an image or a PDF drawing.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import cached_property

from ._items import AskedValue
from ._views import PaperView, log_position

NUMERIC = ("table", "rank", "row_pos", "rows", "col_mean", "col_best", "col_worst", "col_span", "gap_best",
           "gap_mean", "own", "lower_better", "x", "log_x", "x_pos", "x_lo", "x_hi", "is_bar", "ticks_lo", "ticks_hi",
           "year")
CATEGORICAL = ("area", "metric", "dataset")


@dataclass
class FigureCase:
    """One figure value to guess: where it is asked, the paper's text view, and (to learn from) its true value."""

    item: AskedValue
    view: PaperView
    area: str | None
    dataset: str | None
    metric: str | None
    value: float
    tolerance: float

    @property
    def figure(self) -> int:
        return int(self.item.unit.split(":")[1])

    @cached_property
    def table(self) -> float | None:
        return _table_value(self)

    @cached_property
    def features(self) -> dict[str, float | str | None]:
        return _features(self)


def make_case(item: AskedValue, view: PaperView, area: str | None, tolerance: float | None = None) -> FigureCase:
    dataset = item.dataset or item.category or view.dataset_named(int(item.unit.split(":")[1]))
    metric = None
    cell = view.cell(item.series or "", dataset) if item.series else None
    if cell is not None:
        metric = _metric_of(cell[0].caption)
    return FigureCase(item, view, area, dataset, metric, item.value, item.tolerance if tolerance is None else tolerance)


def _metric_of(caption: str) -> str | None:
    """The table's metric: the caption's words before ' of ' ("Table 1: FID of X and ..." -> "FID")."""
    head = caption.split(":", 1)[-1].strip()
    return head.split(" of ", 1)[0].strip()[:40] if " of " in head else None


def _table_value(case: FigureCase) -> float | None:
    """The same method's value on the same dataset in the paper's tables (the raw text guess)."""
    if not case.item.series:
        return None
    cell = case.view.cell(case.item.series, case.dataset)
    if cell is None:
        return None
    t, row, col = cell
    return t.values(col)[row]


def _features(case: FigureCase) -> dict[str, float | str | None]:
    """The named features of one case (NaN where the text does not give one)."""
    nan = math.nan
    f: dict[str, float | str | None] = {k: nan for k in NUMERIC}
    f.update(area=case.area, metric=case.metric, dataset=case.dataset)
    item, view = case.item, case.view
    n = case.figure
    own = view.own_method()
    f["own"] = float(bool(item.series) and (item.series.lower() == "ours" or item.series == own))
    f["is_bar"] = float(item.x is None)
    f["year"] = float(view.year) if view.year else nan
    if item.x is not None:
        f["x"] = item.x
        f["log_x"] = math.log(item.x) if item.x > 0 else nan
    rng = view.x_range(n)
    if rng:
        f["x_lo"], f["x_hi"] = rng
        f["x_pos"] = log_position(item.x, rng)
    ticks = view.tick_numbers(n)
    if ticks:
        f["ticks_lo"], f["ticks_hi"] = min(ticks), max(ticks)
    cell = view.cell(item.series, case.dataset) if item.series else None
    if cell is None:
        return f
    t, row, col = cell
    vals = [v for v in t.values(col) if v is not None]
    mine = case.table
    if mine is None or not vals:
        return f
    lower = t.lower_is_better
    best, worst = (min(vals), max(vals)) if lower else (max(vals), min(vals))
    better = sum((v < mine) if lower else (v > mine) for v in vals)
    f.update(table=mine, lower_better=float(lower), rows=float(len(vals)), col_mean=statistics.fmean(vals),
             col_best=best, col_worst=worst, col_span=max(vals) - min(vals), gap_best=mine - best,
             gap_mean=mine - statistics.fmean(vals), rank=better / max(1, len(vals) - 1),
             row_pos=row / max(1, len(t.rows) - 2))
    return f


def x_key(case: FigureCase) -> str:
    return "bar" if case.item.x is None else f"{case.item.x:g}"


def table_value(case: FigureCase) -> float | None:
    """The same method's value on the same dataset in the paper's tables (the raw text guess)."""
    return case.table


def features(case: FigureCase) -> dict[str, float | str | None]:
    return case.features
