"""The values an episode file asks for, as the checks need them: from the `reads` annotations when a turn
has them, else (older, hand-written files) from the turn's answer, evidence and the quoted names of its
question. Which source was used is kept, so a check can say what it could not judge.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from harness.episode import Episode, Turn

_QUOTED = re.compile(r"\"([^\"]+)\"|\u201c([^\u201d]+)\u201d")
_AT_X = re.compile(r"\bat\s+([^=?]{1,60}?)\s*=\s*(-?\d+(?:\.\d+)?)")


def quoted(text: str) -> list[str]:
    """The names a question quotes, in order."""
    return [a or b for a, b in _QUOTED.findall(text)]


@dataclass(frozen=True)
class AskedValue:
    """A number an episode asks the agent to read off a figure or a table in one turn."""

    episode: str
    turn: int  # 1-based
    paper: str
    unit: str
    value: float
    tolerance: float | None
    series: str | None  # annotated series / row label; or the question's first quoted name
    column: str | None = None
    x: float | None = None
    annotated: bool = False
    question: str = ""
    category: str | None = None  # bar charts: the category (dataset) the bar stands at
    dataset: str | None = None  # the dataset the value is measured on (annotation; a bar's category otherwise)

    @property
    def kind(self) -> str:
        return self.unit.split(":")[0]


def is_final(ep: Episode, index: int) -> bool:
    return index == len(ep.turns) - 1


def _as_float(v: object) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    try:
        return float(str(v))
    except ValueError:
        return None


def asked_values(ep: Episode) -> list[AskedValue]:
    """Every figure or table value read in a tool turn (turns whose answer is such a number, or that carry reads)."""
    out: list[AskedValue] = []
    for ti, turn in enumerate(ep.turns):
        if turn.memory_only:
            continue
        own = [r for r in turn.reads if r.turn is None and r.unit != "text"]
        if own:
            for r in own:
                v = _as_float(r.value)
                if v is None:
                    continue
                tol = turn.answer.tolerance if turn.answer.format == "number" else None
                out.append(AskedValue(ep.id, ti + 1, r.paper, r.unit, v, tol, r.series, r.column, r.x, True, turn.question,
                                      r.dataset if r.x is None else None, r.dataset))
            continue
        if turn.reads or turn.answer.format != "number":
            continue
        floats = [e for e in turn.evidence if e.unit != "text"]
        if len(floats) != 1:
            continue
        q = quoted(turn.question)
        series = q[0] if q else None
        column = q[-1] if len(q) >= 2 and floats[0].unit.startswith("table") else None
        m = _AT_X.search(turn.question)
        is_fig = floats[0].unit.startswith("figure")
        x = float(m.group(2)) if m and is_fig else None
        category = q[1] if is_fig and x is None and len(q) >= 2 else None
        out.append(AskedValue(ep.id, ti + 1, floats[0].paper, floats[0].unit, float(turn.answer.value),  # type: ignore[arg-type]
                              turn.answer.tolerance, series, column, x, False, turn.question, category, category))
    return out


def final_units(turn: Turn) -> set[tuple[str, str]]:
    """(paper, unit) a final needs: its reads, else its evidence."""
    if turn.reads:
        return {(r.paper, r.unit) for r in turn.reads}
    return {e.key for e in turn.evidence}
