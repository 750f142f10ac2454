"""Checks corpus v2 must pass before it is written; the build fails with the first broken one.

- every claim sentence holds in the paper's tables and figures (claims.py);
- every paper has at least `MIN_DISTRACTORS` look-alikes sharing two of: area, a dataset, venue and
  year, first author's surname;
- no series hides another: at each x (or bar group) values are `MIN_SEPARATION` of the figure's range apart;
- a curve never ends at its table value and a bar never equals its table cell (figures report other
  settings than tables), and no plotted value sits on the 0.1 grid;
- after rendering: 3 to 6 pages, every figure and table placed on a page.
"""
from __future__ import annotations

from collections import defaultdict

from sandbox.corpus.model import FigureGT, GroundTruth, PaperGT
from .claims import check_claims
from .results import MIN_SEPARATION

MIN_DISTRACTORS = 3


class CorpusCheckError(ValueError):
    """The planned or rendered corpus breaks a rule; the message names the paper and the rule."""


def _surname(p: PaperGT) -> str:
    return p.authors[0].split()[-1] if p.authors else ""


def distractor_counts(gt: GroundTruth) -> dict[str, int]:
    """For each paper, how many others share at least two of: area, a dataset, venue+year, first-author surname."""
    out = {}
    for p in gt.papers:
        n = 0
        for q in gt.papers:
            if q.id == p.id:
                continue
            shared = (q.area == p.area) + bool(set(q.datasets) & set(p.datasets)) \
                + ((q.venue, q.year) == (p.venue, p.year)) + (_surname(q) == _surname(p))
            n += shared >= 2
        out[p.id] = n
    return out


def _table_cell(p: PaperGT, method: str, dataset: str) -> float | None:
    t = p.tables[0]
    if dataset not in t.columns:
        return None
    row = next((r for r in t.rows if r[0].removesuffix(" (ours)") == method), None)
    return float(row[t.columns.index(dataset)]) if row else None


def figure_problem(p: PaperGT, f: FigureGT) -> str | None:
    """What is wrong with one figure of a paper (hidden series, on-grid values, values equal to the table), or None."""
    ys = [y for s in f.series for y in s.y]
    rng = max(ys) - min(ys)
    for j in range(len(f.series[0].y)):
        col = sorted(s.y[j] for s in f.series)
        if any(b - a < MIN_SEPARATION * rng * 0.95 for a, b in zip(col, col[1:])):
            return f"{p.id} Figure {f.n}: two series are closer than the minimum separation at point {j}"
    for s in f.series:
        if any(abs(y * 10 - round(y * 10)) < 0.005 for y in s.y):
            return f"{p.id} Figure {f.n}: series {s.label!r} has a value on the 0.1 grid"
        if f.kind == "line":
            ref = _table_cell(p, s.method or s.label, f.dataset or "")
            if ref is not None and abs(s.y[-1] - ref) < 0.02 * rng:
                return f"{p.id} Figure {f.n}: the curve of {s.label!r} ends at its table value"
        else:
            for x, y in zip(s.x, s.y):
                ref = _table_cell(p, s.method or s.label, str(x))
                if ref is not None and abs(y - ref) < 0.02 * rng:
                    return f"{p.id} Figure {f.n}: the {s.label!r} bar at {x} equals its table cell"
    return None


def check_plan(gt: GroundTruth) -> None:
    """Claims, distractors and figure rules of a planned corpus (before rendering)."""
    for p in gt.papers:
        check_claims(p)
        for f in p.figures:
            if (problem := figure_problem(p, f)) is not None:
                raise CorpusCheckError(problem)
    if len(gt.papers) >= 4 * MIN_DISTRACTORS:
        for pid, n in distractor_counts(gt).items():
            if n < MIN_DISTRACTORS:
                raise CorpusCheckError(f"{pid}: only {n} distractors (papers sharing two of area, dataset, venue+year, "
                                       f"first-author surname); at least {MIN_DISTRACTORS} are required")


def check_rendered(gt: GroundTruth) -> None:
    """Every paper rendered to 3-6 pages with every float placed."""
    problems: dict[str, list[str]] = defaultdict(list)
    for p in gt.papers:
        if not 3 <= (p.pages or 0) <= 6:
            problems[p.id].append(f"{p.pages} pages")
        for f in [*p.figures, *p.tables]:
            if f.page is None or f.bbox is None:
                problems[p.id].append(f"{f.caption.split(':')[0]} not placed")
    if problems:
        first = next(iter(problems))
        raise CorpusCheckError(f"{len(problems)} rendered papers break the layout rules, e.g. {first}: {problems[first]}")
