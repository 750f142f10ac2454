"""Is a claim true of a unit? Deterministic checks of value, compare and rank claims against `UnitFacts`.

A claim resolves in a unit when its subject (and object) are rows or series of it and its coordinates pick
one value: a table column by the claim's dataset or quantity (or the table's only numeric column); a line
chart by its setting `x` (and dataset, if given); a bar chart by the dataset of the bar. A quantity the claim
names must be the unit's. A value holds within the unit's reading tolerance plus half a unit of the last
digit the report printed ("66" holds for 66.04); a comparison holds on the resolved values (with the stated
difference, if any, within both tolerances); a rank holds when the subject has the highest (lowest) value of
every row or series at those coordinates.
"""
from __future__ import annotations

import math
from typing import Literal

from harness.episode import Claim, PaperFacts, UnitFacts

from ._lexicon import norm_name, quantity_family

Verdict = Literal["supported", "contradicted", "unresolved"]


def _num(cell: str) -> float | None:
    try:
        v = float(cell.replace(",", ""))
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _names(entry: str, method: str | None, own: str | None) -> set[str]:
    out = {norm_name(entry)}
    if method:
        out.add(norm_name(method))
    if own and norm_name(entry) in ("ours", norm_name(own)):
        out.add(norm_name(own))
    return out


def _same_quantity(claimed: str | None, have: str | None) -> bool:
    if claimed is None or have is None:
        return True
    return norm_name(claimed) == norm_name(have) or (quantity_family(claimed) is not None
                                                     and quantity_family(claimed) == quantity_family(have))


def unit_values(claim: Claim, u: UnitFacts, own: str | None = None) -> dict[str, float] | None:
    """Every entry's value at the claim's coordinates in unit `u` (entry = normalised row or series name),
    or None when the coordinates do not pick one value per entry."""
    if u.kind == "table":
        if claim.x is not None or len(u.columns) < 2:
            return None
        numeric = [i for i in range(1, len(u.columns)) if any(_num(r[i]) is not None for r in u.rows if len(r) > i)]
        col = None
        if claim.dataset is not None:
            col = next((i for i in numeric if norm_name(u.columns[i]) == norm_name(claim.dataset)), None)
            if col is None:
                return None
            if not _same_quantity(claim.quantity, u.metric):
                return None
        elif claim.quantity is not None:
            col = next((i for i in numeric if _same_quantity(claim.quantity, u.columns[i])
                        and quantity_family(u.columns[i]) is not None), None)
            if col is None and len(numeric) == 1 and _same_quantity(claim.quantity, u.metric):
                col = numeric[0]
        elif len(numeric) == 1:
            col = numeric[0]
        if col is None:
            return None
        out: dict[str, float] = {}
        for r in u.rows:
            v = _num(r[col]) if len(r) > col else None
            if v is not None:
                for n in _names(r[0], None, own):
                    out[n] = v
        return out
    if not _same_quantity(claim.quantity, u.metric):
        return None
    out = {}
    for s in u.series:
        if u.kind == "line":
            if claim.x is None or (claim.dataset is not None and u.dataset is not None
                                   and norm_name(claim.dataset) != norm_name(u.dataset)):
                return None
            hit = [y for x, y in zip(s.x, s.y) if isinstance(x, (int, float)) and math.isclose(float(x), claim.x)]
        else:
            if claim.dataset is None or claim.x is not None:
                return None
            hit = [y for x, y in zip(s.x, s.y) if isinstance(x, str) and norm_name(x) == norm_name(claim.dataset)]
        if hit:
            for n in _names(s.label, s.method, own):
                out[n] = hit[0]
    return out or None


def check_in_unit(claim: Claim, u: UnitFacts, own: str | None = None) -> Verdict:
    """Whether unit `u` supports, contradicts or cannot speak to the claim (`own`: the unit's paper's method)."""
    vals = unit_values(claim, u, own)
    if vals is None:
        return "unresolved"
    subj = vals.get(norm_name(claim.subject))
    if subj is None:
        return "unresolved"
    tol = u.tolerance + (claim.tolerance or 0.0)
    if claim.kind == "value":
        return "supported" if claim.value is not None and abs(claim.value - subj) <= tol + 1e-9 else "contradicted"
    if claim.kind == "compare":
        other = vals.get(norm_name(claim.object or ""))
        if other is None:
            return "unresolved"
        holds = subj > other if claim.relation == ">" else subj < other
        if holds and claim.value is not None:
            holds = abs(abs(subj - other) - claim.value) <= 2 * u.tolerance + (claim.tolerance or 0.0) + 1e-9
        return "supported" if holds else "contradicted"
    values = set(vals.values())
    best = max(values) if claim.relation == "max" else min(values)
    return "supported" if subj == best else "contradicted"


class FactBook:
    """An episode's unit facts by (paper, unit), with each paper's own method (what "Ours" stands for)."""

    def __init__(self, facts: list[UnitFacts], papers: list[PaperFacts]):
        self.units = {(f.paper, f.unit): f for f in facts}
        self.papers = {p.paper: p for p in papers}

    def known_paper(self, paper: str) -> bool:
        return paper in self.papers or any(p == paper for p, _ in self.units)

    def known_unit(self, paper: str, unit: str) -> bool:
        return (paper, unit) in self.units or (unit == "text" and self.known_paper(paper))

    def check(self, claim: Claim, paper: str, unit: str) -> Verdict:
        u = self.units.get((paper, unit))
        if u is None:
            return "unresolved"
        own = self.papers[paper].method if paper in self.papers else None
        return check_in_unit(claim, u, own)

    def check_paper(self, claim: Claim, paper: str) -> Verdict:
        """Supported if some unit of the paper supports it; contradicted if some resolves it and none supports."""
        verdicts = [self.check(claim, p, u) for p, u in self.units if p == paper]
        return _combine(verdicts)

    def check_any(self, claim: Claim) -> Verdict:
        return _combine([self.check(claim, p, u) for p, u in self.units])


def _combine(verdicts: list[Verdict]) -> Verdict:
    if "supported" in verdicts:
        return "supported"
    return "contradicted" if "contradicted" in verdicts else "unresolved"
