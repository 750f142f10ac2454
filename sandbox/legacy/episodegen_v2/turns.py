"""Reading turns of benchmark v2: read a plotted value, rank the series of a figure at one setting,
read a table cell, rank a table column, or name the paper's method; and the balancer that keeps
choice answers free of priors (the paper's own method right no more often than chance, no favoured
option position)."""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from ..episodegen_v1._model import DraftAnswer, DraftDerivation, DraftRead, DraftRef, DraftStep, DraftTurn
from .cues import Cue
from .facts import TABLE_TOLERANCE, Cell, Point, V2Facts

LETTERS = "ABCDEF"
FIND = "Find the paper described by the cue. "
FIND_IMAGE = "The cue image is a figure (its caption cut off) from the paper to find. Find that paper. "


def stay(turn: int) -> str:
    return f"Stay with the paper from turn {turn}. "


def x_text(x: float) -> str:
    return f"{x:g}"


@dataclass
class Balancer:
    """Keeps choice answers free of answer-only priors across the whole file: per kind of choice turn
    (figure series, table rows, final candidates), the paper's own method is the answer no more often
    than chance, and the right option takes every position equally often."""

    rng: random.Random
    own_right: Counter = field(default_factory=Counter)  # kind -> turns where the own method is the answer
    chance: dict[str, float] = field(default_factory=dict)  # kind -> sum of 1/options over turns offering it
    positions: Counter = field(default_factory=Counter)
    text_right: Counter = field(default_factory=Counter)  # kind -> turns the tables' ranking answers right
    text_chance: dict[str, float] = field(default_factory=dict)

    def copy(self) -> "Balancer":
        return Balancer(self.rng, Counter(self.own_right), dict(self.chance), Counter(self.positions),
                        Counter(self.text_right), dict(self.text_chance))

    def allow_text_right(self, kind: str) -> bool:
        """May the next `kind` turn be one that text alone answers (ranking, or computing from, the methods'
        Table 1 values instead of the plotted ones)? Only while that keeps such turns below their share."""
        return self.text_right[kind] + 0.5 < self.text_chance.get(kind, 0.0)

    def record_text(self, kind: str, right: bool, n_options: int) -> None:
        self.text_right[kind] += right
        self.text_chance[kind] = self.text_chance.get(kind, 0.0) + 1 / n_options

    def prefer_own(self, kind: str) -> bool:
        """Should the next `kind` choice turn make the own method the answer? Only while that keeps it
        below chance (half a turn of margin: where no other answer is possible, it is the answer anyway)."""
        return self.own_right[kind] + 0.5 < self.chance.get(kind, 0.0)

    def record_own(self, kind: str, offered: bool, right: bool, n_options: int) -> None:
        if offered:
            self.own_right[kind] += right
            self.chance[kind] = self.chance.get(kind, 0.0) + 1 / n_options

    def options(self, correct: str, others: list[str]) -> tuple[dict[str, str], str]:
        """Options with `correct` at the least used position for this option count; the rest shuffled."""
        n = len(others) + 1
        used = [self.positions[(n, i)] for i in range(n)]
        pos = self.rng.choice([i for i in range(n) if used[i] == min(used)])
        self.positions[(n, pos)] += 1
        rest = list(others)
        self.rng.shuffle(rest)
        order = rest[:pos] + [correct] + rest[pos:]
        return {LETTERS[i]: t for i, t in enumerate(order)}, LETTERS[pos]


def figure_step(p: Point | str, n: int | None = None) -> DraftStep:
    if isinstance(p, Point):
        return DraftStep(tool="figure_extract", args={"paper": p.paper, "figure": p.n})
    return DraftStep(tool="figure_extract", args={"paper": p, "figure": n})


def point_read(pt: Point, turn: int | None = None) -> DraftRead:
    return DraftRead(paper=pt.paper, unit=pt.unit, turn=turn, series=pt.label, dataset=pt.dataset, metric=pt.metric,
                     x=pt.x, x_label=pt.x_label, value=pt.value)


def _refs(first: tuple[str, str], cue: Cue | None) -> list[DraftRef]:
    keys = [first] + [k for k in (cue.resolve if cue else []) if k != first]
    return [DraftRef(paper=p, unit=u) for p, u in keys]


def _turn(lead: str, q: str, cue: Cue | None, answer: DraftAnswer, unit: tuple[str, str], read_step: DraftStep,
          reads: list[DraftRead] | None = None, derivation: DraftDerivation | None = None) -> DraftTurn:
    from ..episodegen_v1._model import DraftCue

    return DraftTurn(question=lead + q, cue=DraftCue(text=cue.text, image=cue.image) if cue else None, answer=answer,
                     evidence=_refs(unit, cue), checklist=(cue.steps if cue else []) + [read_step],
                     reads=reads, derivation=derivation)


def value_question(pt: Point, setting: str | None) -> str:
    if pt.kind == "bar":
        return (f'Figure {pt.n} is a bar chart of {pt.metric} {setting}. What is the height of the "{pt.label}" bar '
                f'at "{pt.dataset}"? Read it from the figure.')
    return (f'Figure {pt.n} plots {pt.metric} against {pt.x_label} on {pt.dataset}. What is the {pt.metric} of the '
            f'series "{pt.label}" at {pt.x_label} = {x_text(pt.x or 0)}? Read it from the figure.')


def figure_value_turn(f: V2Facts, pt: Point, lead: str, cue: Cue | None) -> DraftTurn:
    setting = f.figure(pt.paper, pt.n).setting
    answer = DraftAnswer(format="number", value=pt.value, tolerance=pt.tolerance, unit="%" if "%" in pt.metric else None)
    return _turn(lead, value_question(pt, setting), cue, answer, (pt.paper, pt.unit), figure_step(pt), [point_read(pt)])


def figure_choice_turn(f: V2Facts, pts: list[Point], lead: str, cue: Cue | None, bal: Balancer,
                       highest: bool | None = None) -> DraftTurn | None:
    """Which series is highest / lowest at one setting, if the winner is clear of the runner-up."""
    words = [True, False] if highest is None else [highest]
    bal.rng.shuffle(words)
    variants = []
    for hi in words:
        ranked = sorted(pts, key=lambda q: -q.value if hi else q.value)
        if abs(ranked[0].value - ranked[1].value) > ranked[0].tolerance + ranked[1].tolerance:
            guess = f.text_guess(pts, hi)
            text_right = guess is not None and guess.label == ranked[0].label
            if not text_right or bal.allow_text_right("figure"):
                variants.append((hi, ranked[0], text_right))
    if not variants:
        return None
    want_own = bal.prefer_own("figure")
    variants.sort(key=lambda v: (v[1].label == "Ours") != want_own)
    hi, best, text_right = variants[0]
    p0 = pts[0]
    word = "highest" if hi else "lowest"
    choices, letter = bal.options(best.label, [q.label for q in pts if q is not best])
    bal.record_own("figure", "Ours" in choices.values(), best.label == "Ours", len(choices))
    bal.record_text("figure", text_right, len(choices))
    q = (f"In Figure {p0.n}, which series has the {word} {p0.metric} at {p0.x_label} = {x_text(p0.x or 0)}? "
         f"Read it from the figure. Answer with the letter of the option.")
    answer = DraftAnswer(format="choice", value=letter, choices=choices)
    deriv = DraftDerivation(op="argmax" if hi else "argmin", candidates=list(choices.values()))
    return _turn(lead, q, cue, answer, (p0.paper, p0.unit), figure_step(p0), None, deriv)


def table_value_turn(c: Cell, lead: str, cue: Cue | None, f: V2Facts) -> DraftTurn:
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


def table_choice_turn(f: V2Facts, pid: str, lead: str, cue: Cue | None, bal: Balancer) -> DraftTurn | None:
    t = f.table(pid, 1)
    want_own = bal.prefer_own("table")
    variants = []
    for c, col in enumerate(t.columns[1:], start=1):
        for hi in (True, False):
            ranked = sorted(t.rows, key=lambda r: -float(r[c]) if hi else float(r[c]))
            if abs(float(ranked[0][c]) - float(ranked[1][c])) > 0.05:
                variants.append((col, hi, ranked[0][0]))
    if not variants:
        return None
    bal.rng.shuffle(variants)
    variants.sort(key=lambda v: v[2].endswith(" (ours)") != want_own)
    col, hi, best = variants[0]
    others = [r[0] for r in t.rows if r[0] != best]
    others = bal.rng.sample(others, min(3, len(others)))
    if not any(o.endswith(" (ours)") for o in others) and not best.endswith(" (ours)"):
        own = next(r[0] for r in t.rows if r[0].endswith(" (ours)"))
        others[-1] = own
    choices, letter = bal.options(best, others)
    bal.record_own("table", True, best.endswith(" (ours)"), len(choices))
    word = "highest" if hi else "lowest"
    q = f'In Table 1, which method has the {word} value in the column "{col}"? Answer with the letter of the option.'
    answer = DraftAnswer(format="choice", value=letter, choices=choices)
    deriv = DraftDerivation(op="argmax" if hi else "argmin", candidates=list(choices.values()))
    step = DraftStep(tool="table_extract", args={"paper": pid, "table": 1})
    return _turn(lead, q, cue, answer, (pid, "table:1"), step, None, deriv)


def method_turn(f: V2Facts, pid: str, lead: str, cue: Cue | None) -> DraftTurn:
    m = f.papers[pid].method
    answer = DraftAnswer(format="text", value=m)
    step = DraftStep(tool="pdf_extract", args={"paper": pid})
    read = DraftRead(paper=pid, unit="text", value=m)
    return _turn(lead, "What is the name of the method this paper introduces?", cue, answer, (pid, "text"), step, [read])
