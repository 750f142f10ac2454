"""Reading turns of benchmark v3: read a plotted value, rank the series of a figure at one setting, read a table
cell, or rank a table column. Choice turns are arranged by the prior balancer (priors.py); no turn asks for the
paper's method name (the title prints it) and no table cell whose value the title prints is asked."""
from __future__ import annotations

from .._model import DraftAnswer, DraftDerivation, DraftRead, DraftStep, DraftTurn
from ..v2.cues import Cue
from ..v2.facts import Cell, Point
from ..v2.turns import FIND, FIND_IMAGE, _turn, figure_step, figure_value_turn, point_read, stay, x_text
from .facts import TABLE_TOLERANCE, V3Facts
from .priors import Context, PriorBalancer

DISTRACTOR_DRAWS = 4

__all__ = ["FIND", "FIND_IMAGE", "stay", "figure_value_turn", "point_read", "figure_choice_turn", "table_value_turn",
           "table_choice_turn", "TextShare"]


class TextShare:
    """Choice turns that text alone (the tables' ranking) would answer are kept below chance, per kind."""

    def __init__(self) -> None:
        self.right: dict[str, int] = {}
        self.chance: dict[str, float] = {}

    def copy(self) -> "TextShare":
        c = TextShare()
        c.right, c.chance = dict(self.right), dict(self.chance)
        return c

    def allow(self, kind: str) -> bool:
        return self.right.get(kind, 0) + 0.5 < self.chance.get(kind, 0.0)

    def record(self, kind: str, right: bool, n: int) -> None:
        self.right[kind] = self.right.get(kind, 0) + right
        self.chance[kind] = self.chance.get(kind, 0.0) + 1 / n


def _text_rank(f: V3Facts, pts: list[Point], hi: bool) -> Point | None:
    vals = [f.table_value(q.paper, q.method, q.dataset) for q in pts]
    if any(v is None for v in vals):
        return None
    pick = max if hi else min
    return pts[vals.index(pick(vals))]  # type: ignore[arg-type]


def figure_choice_turn(f: V3Facts, pts: list[Point], lead: str, cue: Cue | None, bal: PriorBalancer,
                       text: TextShare) -> DraftTurn | None:
    """Which series is highest / lowest at one setting (winner clear of the runner-up by the tolerances)."""
    if len(pts) < 3:
        return None
    words = [True, False]
    bal.rng.shuffle(words)
    for hi in words:
        ranked = sorted(pts, key=lambda q: -q.value if hi else q.value)
        if abs(ranked[0].value - ranked[1].value) <= ranked[0].tolerance + ranked[1].tolerance:
            continue
        guess = _text_rank(f, pts, hi)
        text_right = guess is not None and guess.label == ranked[0].label
        if text_right and not text.allow("figure"):
            continue
        best = ranked[0]
        others = [q.label for q in pts if q is not best]
        ctx = Context(best.paper, hi)  # the metric of every corpus-v3 line chart: higher is better or the y label says
        if not bal.choice_ok("choice / argmax" if hi else "choice / argmin", best.label, others, f, ctx):
            continue
        group = "choice / argmax" if hi else "choice / argmin"
        choices, letter = bal.arrange_choice(group, best.label, others, f, ctx)
        text.record("figure", text_right, len(choices))
        p0 = pts[0]
        word = "highest" if hi else "lowest"
        q = (f"In Figure {p0.n}, which series has the {word} {p0.metric} at {p0.x_label} = {x_text(p0.x or 0)}? "
             f"Read it from the figure. Answer with the letter of the option.")
        answer = DraftAnswer(format="choice", value=letter, choices=choices)
        deriv = DraftDerivation(op="argmax" if hi else "argmin", candidates=list(choices.values()))
        return _turn(lead, q, cue, answer, (p0.paper, p0.unit), figure_step(p0), None, deriv)
    return None


def table_value_turn(c: Cell, lead: str, cue: Cue | None, f: V3Facts) -> DraftTurn:
    t = f.table(c.paper, c.n)
    kind = t.columns[0].strip().lower() or "row"
    metric = f" ({c.metric})" if c.metric else ""
    q = f'In Table {c.n}, what value{metric} is reported for the {kind} "{c.row}" in the column "{c.column}"?'
    unit = "%" if c.metric and "%" in c.metric else None
    answer = DraftAnswer(format="number", value=c.value, tolerance=TABLE_TOLERANCE, unit=unit)
    read = DraftRead(paper=c.paper, unit=c.unit, series=c.row, column=c.column,
                     dataset=c.column if c.metric else None, metric=c.metric or c.column, value=c.value)
    step = DraftStep(tool="table_extract", args={"paper": c.paper, "table": c.n})
    return _turn(lead, q, cue, answer, (c.paper, c.unit), step, [read])


def table_choice_turn(f: V3Facts, pid: str, lead: str, cue: Cue | None, bal: PriorBalancer,
                      asked: set[tuple]) -> DraftTurn | None:
    """Which method of the main table has the highest / lowest value in one dataset column; the variant (column,
    word) and the arrangement are chosen so that no prior gains on chance."""
    t = f.main_table(pid)
    if t is None or len(t.rows) < 3:
        return None
    variants = []
    for c, col in enumerate(t.columns[1:], start=1):
        if col not in f.papers[pid].datasets or (pid, t.n, col) in asked:
            continue
        for hi in (True, False):
            ranked = sorted(t.rows, key=lambda r: -float(r[c]) if hi else float(r[c]))
            if abs(float(ranked[0][c]) - float(ranked[1][c])) > 0.05:
                variants.append((col, hi, ranked[0][0]))
    bal.rng.shuffle(variants)
    for col, hi, best in variants:
        rest = [r[0] for r in t.rows if r[0] != best]
        best_word = hi == t.higher_is_better
        ctx = Context(pid, best_word)
        group = "choice / argmax" if hi else "choice / argmin"
        # a few draws of the distractors: which option is the shortest or the newest depends on them
        others = next((o for o in (bal.rng.sample(rest, min(3, len(rest))) for _ in range(DISTRACTOR_DRAWS))
                       if bal.choice_ok(group, best, o, f, ctx)), None)
        if others is None:
            continue
        choices, letter = bal.arrange_choice(group, best, others, f, ctx)
        asked.add((pid, t.n, col))
        word = "highest" if hi else "lowest"
        q = f'In Table {t.n}, which method has the {word} value in the column "{col}"? Answer with the letter of the option.'
        answer = DraftAnswer(format="choice", value=letter, choices=choices)
        deriv = DraftDerivation(op="argmax" if hi else "argmin", candidates=list(choices.values()))
        step = DraftStep(tool="table_extract", args={"paper": pid, "table": t.n})
        return _turn(lead, q, cue, answer, (pid, f"table:{t.n}"), step, None, deriv)
    return None
