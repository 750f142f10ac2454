"""Constraint finals for the text-only adversary: "Consider every method listed in Table N (or series in
Figure N) of the paper from turn T. Which of them have a ... value higher than ..., and also ...?"

Every condition is read (not only the first, as the heuristic does); a figure series' value at a setting
is the adversary's text-derived guess, so text alone decides which candidates pass.
"""
from __future__ import annotations

import re
from typing import Callable

from harness.agent import TurnView

from ._reading import FactRef, column_values, fact_refs, latest_table, letter_for, norm
from ._text_guess import FigureAsk, Line, guess_figure_value, names, paper_lines

_GROUP = re.compile(r"Consider every (?:\w+ listed in|series in) (Table|Figure) (\d+) of the paper from turn (\d+)")
_BODY = re.compile(r"(?:Which of them have|Exactly one of them has) (.+?)(?:\? |\. Which one\?|\?$)", re.S)
_TABLE_COND = re.compile(r'^a "(?P<col>[^"]+)" value (?P<dir>higher|lower|greater|less) than (?P<rest>.+)$')
_FIG_COND = re.compile(r'^a value at (?P<xl>[^=]+?) = (?P<x>"[^"]+"|-?\d+(?:\.\d+)?) (?P<dir>higher|lower|greater|less) than (?P<rest>.+)$')
_LITERAL = re.compile(r"^-?\d+(?:\.\d+)?$")


def _threshold(rest: str, value_of: Callable[[FactRef], float | None]) -> float | None:
    rest = rest.strip().rstrip("?.")
    if _LITERAL.match(rest):
        return float(rest)
    refs = fact_refs(rest)
    return value_of(refs[0]) if refs else None


def _figure_candidates(lines: list[Line], figure: int) -> list[str]:
    """Series of the figure a text reader can name: table rows of the paper named by the figure's text."""
    text = " ".join(ln.text for ln in lines if ln.where == f"figure:{figure}")
    labels: list[str] = []
    for ln in lines:
        if ln.cells:
            label = " ".join(c for c in ln.cells[:1] if c)
            if label and names(text, label) and label not in labels:
                labels.append(label)
    return labels


def solve_constraint(view: TurnView, paper_by_turn: dict[int, str],
                     value_of: Callable[[FactRef], float | None]) -> str | None:
    """The candidates passing every condition, as a set answer or the letter of the only one."""
    q = view.question
    group, body = _GROUP.search(q), _BODY.search(q)
    if group is None or body is None:
        return None
    kind, n, paper = group.group(1), int(group.group(2)), paper_by_turn.get(int(group.group(3)))
    if paper is None:
        return None
    lines = paper_lines(view.memory, paper)
    rows = latest_table(view.memory, paper, n) if kind == "Table" else None
    candidates = list(column_values(rows, rows[0][1] if rows and len(rows[0]) > 1 else "")) if rows else []
    if kind == "Figure":
        candidates = _figure_candidates(lines, n)
    if not candidates:
        return None
    passing = set(candidates)
    for cond in body.group(1).split(", and also "):
        cond = cond.strip()
        if (m := _TABLE_COND.match(cond)) and rows:
            values = {norm(k): v for k, v in column_values(rows, m.group("col")).items()}
            get = lambda c, vals=values: vals.get(norm(c))  # noqa: E731
        elif (m := _FIG_COND.match(cond)) and kind == "Figure":
            x = m.group("x")
            ask = (lambda c, x=x: FigureAsk(figure=n, series=c, category=x.strip('"'))) if x.startswith('"') else \
                (lambda c, x=x: FigureAsk(figure=n, series=c, x=float(x), x_text=x))
            get = lambda c, ask=ask: guess_figure_value(ask(c), lines)  # noqa: E731
        else:
            return None
        limit = _threshold(m.group("rest"), value_of)
        if limit is None:
            return None
        above = m.group("dir") in ("higher", "greater")
        passing = {c for c in passing if (v := get(c)) is not None and ((v > limit) if above else (v < limit))}
    chosen = [c for c in candidates if c in passing]
    if view.answer_spec.format == "choice":
        for c in chosen:
            if (letter := letter_for(view.answer_spec.choices, c)) is not None:
                return letter
        return sorted(view.answer_spec.choices or {"A": ""})[0]
    return "; ".join(chosen) if chosen else None
