"""The no-vision composite: an agent that navigates with the gold checklists (like the text-only adversary),
never looks at an image, and answers each turn with the best of the adversaries: the geometry reader where the
chart is drawn as vectors, else the best text guesser; table cells and names read as text; finals computed from
its own estimates, or the learned answer prior of the turn's group where that scored better on the second
benchmark. Scored like an agent: ESR with its 95% interval, Acc_final, Acc_pre.
"""
from __future__ import annotations

import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

from harness.episode import Episode, Turn, ValueRead
from harness.scoring.match import match_answer

from ._views import PaperView

Estimate = Callable[[str, str, str, float | None, str | None], float | None]  # paper, unit, series, x, dataset -> value
_TABLE_RANK = re.compile(r'In Table (\d+), which (?:method|row) has the (highest|lowest) value in the column "([^"]+)"')
_FIGURE_RANK = re.compile(r"In Figure (\d+), which series has the (highest|lowest) .*? at [^=]+= (-?\d+(?:\.\d+)?)")
_THAN = re.compile(r"\b(higher|lower|greater|less|above|below) than the (?:value you read in turn (\d+)|mean of the values "
                   r"you read in turns ([\d, and]+))")
_COUNT = re.compile(r"\b(higher|lower|greater|less|above|below) than the value you read in turn (\d+)")


@dataclass
class CompositeScore:
    episodes: int = 0
    successes: int = 0
    finals_right: int = 0
    pre_right: int = 0
    pre_total: int = 0
    by_source: dict[str, list[int]] = field(default_factory=dict)  # how each turn was answered -> [right, total]
    wins: list[str] = field(default_factory=list)


def needs_annotation(turn: Turn) -> bool:
    """A number or set turn with neither `reads` nor `derivation`: the composite computes those answers from the
    annotations (which value, which operation), so without them it could only stay silent."""
    return turn.answer.format in ("number", "set") and not turn.reads and turn.derivation is None


def _fmt(v: float) -> str:
    return f"{v:.2f}"


def _high(word: str) -> bool:
    return word in ("higher", "greater", "above", "highest")


class Composite:
    def __init__(self, estimate: Estimate, views: dict[str, PaperView], prior: Callable[[Episode, int], str | None],
                 use_prior: Callable[[Turn], bool]):
        self.estimate, self.views, self.prior, self.use_prior = estimate, views, prior, use_prior

    def _read(self, r: ValueRead) -> float | None:
        if r.unit.startswith("table:"):
            view = self.views.get(r.paper)
            t = view.tables.get(int(r.unit.split(":")[1])) if view else None
            row = view.row_index(t, r.series or "") if view and t else None
            col = t.column(r.column or r.dataset) if t else None
            return t.values(col)[row] if t is not None and row is not None and col is not None else None
        if r.unit.startswith("figure:") and r.series:
            return self.estimate(r.paper, r.unit, r.series, r.x, r.dataset)
        return None

    def answer(self, ep: Episode, ti: int) -> tuple[str | None, str]:
        """The composite's answer to turn ti (0-based) and how it was found."""
        turn = ep.turns[ti]
        if self.use_prior(turn):
            return self.prior(ep, ti), "answer prior"
        ans = turn.answer
        own = [r for r in turn.reads if r.turn is None and r.unit != "text"]
        if ans.format == "number" and own and not turn.derivation:
            v = self._read(own[0])
            return (None if v is None else _fmt(v)), ("figure estimate" if own[0].unit.startswith("figure") else "table text")
        if ans.format == "text":
            return self.prior(ep, ti), "text (title)"
        if turn.derivation is not None and any(r.turn is not None for r in turn.reads):
            return self._final(ep, ti), "computed from its own estimates"
        if ans.format == "choice" and ans.choices:
            return self._rank(turn), "ranked from estimates or table text"
        return self.prior(ep, ti), "answer prior"

    def _rank(self, turn: Turn) -> str | None:
        paper = next((e.paper for e in turn.evidence), None)
        view = self.views.get(paper or "")
        choices = turn.answer.choices or {}
        vals: dict[str, float] = {}
        if (m := _TABLE_RANK.search(turn.question)) and view is not None:
            t = view.tables.get(int(m.group(1)))
            col = t.column(m.group(3)) if t else None
            for k, name in choices.items():
                row = view.row_index(t, re.sub(r"\s*\(ours\)$", "", name)) if t is not None and col is not None else None
                v = t.values(col)[row] if t is not None and col is not None and row is not None else None
                if v is not None:
                    vals[k] = v
            high = m.group(2) == "highest"
        elif (m := _FIGURE_RANK.search(turn.question)) and paper and view is not None:
            n, x = int(m.group(1)), float(m.group(3))
            for k, name in choices.items():
                v = self.estimate(paper, f"figure:{n}", name, x, view.dataset_named(n))
                if v is not None:
                    vals[k] = v
            high = m.group(2) == "highest"
        else:
            return None
        if not vals:
            return None
        return (max if high else min)(vals, key=lambda k: vals[k])

    def _final(self, ep: Episode, ti: int) -> str | None:
        turn = ep.turns[ti]
        d = turn.derivation
        assert d is not None
        reads = [r for r in turn.reads if r.turn is not None]
        by_turn: dict[int, float | None] = {}
        for r in reads:
            by_turn.setdefault(r.turn, self._asked(ep, r))  # type: ignore[arg-type]
        # one operand per value read (two values shown by one turn's evidence are two operands)
        distinct = list(dict.fromkeys((r.paper, r.unit, r.series, r.column, r.x, r.turn) for r in reads))
        first = {(r.paper, r.unit, r.series, r.column, r.x, r.turn): r for r in reversed(reads)}
        ops = [self._asked(ep, first[k]) for k in distinct]
        if d.op in ("mean", "sum", "range", "difference") and ops and all(v is not None for v in ops):
            nums = [float(v) for v in ops if v is not None]
            if d.op == "mean":
                return _fmt(statistics.fmean(nums))
            if d.op == "sum":
                return _fmt(sum(nums))
            if d.op == "range":
                return _fmt(max(nums) - min(nums))
            return _fmt(nums[0] - nums[1]) if len(nums) == 2 else None
        if d.op == "count" and (m := _COUNT.search(turn.question)):
            limit = by_turn.get(int(m.group(2)))
            others = [v for t, v in by_turn.items() if t != int(m.group(2))]
            if limit is None or any(v is None for v in others):
                return None
            return str(sum((v > limit) if _high(m.group(1)) else (v < limit) for v in others if v is not None))
        values: dict[str | None, float | None] = {}
        for r in reads:  # a candidate's own read comes first; a later read of the same label is another paper's
            if r.series in d.candidates and r.series not in values:
                values[r.series] = self._read(r)
        if d.op in ("argmax", "argmin") and turn.answer.choices:
            known = {c: v for c, v in values.items() if v is not None and c is not None}
            if not known:
                return None
            pick = (max if d.op == "argmax" else min)(known, key=lambda c: known[c])
            return next((k for k, v in turn.answer.choices.items() if v == pick), None)
        if d.op == "filter" and d.conditions:
            passing = set(d.candidates)
            for cond in d.conditions:
                m = _THAN.search(cond.text)
                if m is None:
                    return None
                turns = [int(m.group(2))] if m.group(2) else [int(t) for t in re.findall(r"\d+", m.group(3))]
                bounds = [self._asked(ep, None, t) for t in turns]
                if any(b is None for b in bounds):
                    return None
                bound = statistics.fmean(b for b in bounds if b is not None)
                passing = {c for c in passing if values.get(c) is not None and
                           ((values[c] > bound) if _high(m.group(1)) else (values[c] < bound))}  # type: ignore[operator]
            if turn.answer.format == "set":
                return ", ".join(c for c in d.candidates if c in passing) or "none"
            if len(passing) == 1 and turn.answer.choices:
                pick = next(iter(passing))
                return next((k for k, v in turn.answer.choices.items() if v == pick), None)
        return None

    def _asked(self, ep: Episode, r: ValueRead | None, at: int | None = None) -> float | None:
        """The value asked in turn `at` (1-based; that turn's own read), as this composite answered it."""
        t = at if at is not None else (r.turn if r is not None else None)
        if t is None or not 1 <= t <= len(ep.turns):
            return None
        own = [x for x in ep.turns[t - 1].reads if x.turn is None and x.unit != "text"]
        if r is not None and own and not any(_same_value(x, r) for x in own):
            return self._read(r)  # a value that turn's evidence showed but did not ask for: estimate it itself
        target = own[0] if own else r
        return self._read(target) if target is not None else None


def _same_value(a: ValueRead, b: ValueRead) -> bool:
    return (a.paper, a.unit, a.series, a.column, a.x) == (b.paper, b.unit, b.series, b.column, b.x)


def score(composite: Composite, episodes: list[Episode]) -> CompositeScore:
    out = CompositeScore()
    for ep in episodes:
        ok_all = True
        for ti, turn in enumerate(ep.turns):
            answer, how = composite.answer(ep, ti)
            ok = answer is not None and match_answer(answer, turn.answer, turn.question).correct
            ok_all &= ok
            tally = out.by_source.setdefault(how, [0, 0])
            tally[0] += ok
            tally[1] += 1
            if ti == len(ep.turns) - 1:
                out.finals_right += ok
            else:
                out.pre_right += ok
                out.pre_total += 1
        out.episodes += 1
        out.successes += ok_all
        if ok_all:
            out.wins.append(ep.id)
    return out
