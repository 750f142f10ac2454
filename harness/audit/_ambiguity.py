"""Ambiguous series: a figure question whose series cannot be told apart where it is asked (another series
lies within the answer's tolerance at that point, or one hides under the other), or that asks at an x the
series has no point at. Judged from the plotted data when a ground-truth file is given (the sandbox
writes one), else from the annotated reads of the same figure across the file; otherwise "not checked".
"""
from __future__ import annotations

from collections import defaultdict

from pydantic import BaseModel

from harness.episode import Episode

from ._items import AskedValue, asked_values
from ._model import CheckResult, Finding
from ._texts import norm


class PlottedSeries(BaseModel):
    label: str
    x: list[float | str]
    y: list[float]


class PlottedFigure(BaseModel):
    """What a figure plots; read from a ground-truth file's `papers[].figures[]`."""

    n: int
    kind: str = "line"
    series: list[PlottedSeries]


class PlottedPaper(BaseModel):
    id: str
    figures: list[PlottedFigure] = []


class PlottedData(BaseModel):
    """The part of a ground-truth file this check reads (sandbox `ground_truth.json` has this shape)."""

    papers: list[PlottedPaper]

    def figure(self, paper: str, unit: str) -> PlottedFigure | None:
        n = int(unit.split(":")[1])
        for p in self.papers:
            if p.id == paper:
                return next((f for f in p.figures if f.n == n), None)
        return None


def _at(s: PlottedSeries, item: AskedValue) -> float | None:
    """The series' value where the question asks (its x, or its bar category)."""
    for xv, yv in zip(s.x, s.y):
        if item.x is not None and not isinstance(xv, str) and abs(float(xv) - item.x) < 1e-9:
            return yv
        if item.x is None and item.category is not None and isinstance(xv, str) and norm(xv) == norm(item.category):
            return yv
    return None


def _from_plot(item: AskedValue, fig: PlottedFigure) -> str | None:
    own = next((s for s in fig.series if norm(s.label) == norm(item.series or "")), None)
    if own is None:
        return f"{item.unit} of {item.paper} has no series {item.series!r}"
    if item.x is None and item.category is None:
        return None
    y = _at(own, item)
    if y is None:
        where = f"x = {item.x:g}" if item.x is not None else repr(item.category)
        return f"series {item.series!r} has no point at {where}"
    tol = item.tolerance or 0.0
    for other in fig.series:
        if other is own:
            continue
        yo = _at(other, item)
        if yo is not None and abs(yo - y) <= tol:
            return f"series {other.label!r} lies within the tolerance ({yo:g} vs {y:g}) at the asked point"
    return None


def _from_reads(items: list[AskedValue]) -> dict[int, str]:
    """Index in `items` -> why it is ambiguous, from other annotated reads of the same figure and point."""
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, it in enumerate(items):
        groups[(it.paper, it.unit, it.x, norm(it.category or ""))].append(i)
    out: dict[int, str] = {}
    for idx in groups.values():
        for i in idx:
            for j in idx:
                a, b = items[i], items[j]
                if a.series and b.series and norm(a.series) != norm(b.series) and \
                        abs(a.value - b.value) <= max(a.tolerance or 0.0, b.tolerance or 0.0):
                    out[i] = f"series {b.series!r} (read in {b.episode} turn {b.turn}) lies within the tolerance at the same point"
    return out


def ambiguous_series(episodes: list[Episode], plotted: PlottedData | None) -> CheckResult:
    items = [a for ep in episodes for a in asked_values(ep) if a.kind == "figure" and a.series]
    findings: list[Finding] = []
    checked = unchecked = 0
    annotated = [a for a in items if a.annotated]
    from_reads = _from_reads(annotated)
    for i, item in enumerate(items):
        why = None
        fig = plotted.figure(item.paper, item.unit) if plotted is not None else None
        if fig is not None:
            checked += 1
            why = _from_plot(item, fig)
        elif item.annotated:
            checked += 1
            why = from_reads.get(annotated.index(item))
        else:
            unchecked += 1
        if why:
            findings.append(Finding(episode=item.episode, turn=item.turn, message=f"{item.paper} {item.unit}: {why}"))
    status = "not checked" if checked == 0 else ("fail" if findings else "pass")
    return CheckResult(id="ambiguous_series", title="ambiguous series", count=len(findings), total=checked,
                       value=float(len(findings)), shown=f"{len(findings)} of {checked} figure values", threshold="= 0",
                       status=status, not_checked=unchecked,
                       not_checked_why=("figure values with no annotation and no plotted data (pass --ground-truth FILE)"
                                        if unchecked else None), findings=findings)
