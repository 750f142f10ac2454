"""Final turns of benchmark v2: memory-only questions that fuse values read at one aligned setting.

Every operand was read in an earlier turn on the same dataset, metric and x setting (EpiBench's
aligned settings), each paper of the episode supplies at least one, and the question names each by
the turn it was read in, never by its coordinates. Comparison: the signed difference, the spread,
or which turn's method is highest/lowest; aggregation: the mean, or how many exceed a reference;
constraint: which methods of an earlier figure pass conditions tied to other papers' values, where
dropping any condition would change the answer. Every answer stays the same when each value is
misread within its tolerance.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from ..episodegen_v1._model import DraftAnswer, DraftCondition, DraftDerivation, DraftRead, DraftRef, DraftTurn
from .facts import Point, V2Facts
from .turns import Balancer, point_read

MEMORY_NOTE = "Answer from what you gathered in earlier turns; no tools are available in this turn."


@dataclass(frozen=True)
class Operand:
    turn: int
    point: Point


def _turns(ops: list[Operand]) -> str:
    ts = [str(o.turn) for o in ops]
    return ts[0] if len(ts) == 1 else ", ".join(ts[:-1]) + f" and {ts[-1]}"


def _final(q: str, answer: DraftAnswer, reads: list[DraftRead], deriv: DraftDerivation, note: str) -> DraftTurn:
    keys: list[tuple[str, str]] = []
    for r in reads:
        if (r.paper, r.unit) not in keys:
            keys.append((r.paper, r.unit))
    return DraftTurn(question=f"{q} {MEMORY_NOTE}", answer=answer, evidence=[DraftRef(paper=p, unit=u) for p, u in keys],
                     memory_only=True, note=note, reads=reads, derivation=deriv)


def _unit(ops: list[Operand]) -> str | None:
    return "%" if "%" in ops[0].point.metric else None


def _apart(a: Operand, b: Operand) -> bool:
    return abs(a.point.value - b.point.value) > a.point.tolerance + b.point.tolerance


def _number(v: float, tol: float, unit: str | None) -> DraftAnswer:
    return DraftAnswer(format="number", value=round(v, 4), tolerance=round(tol, 4), unit=unit)


def _reads(ops: list[Operand]) -> list[DraftRead]:
    return [point_read(o.point, o.turn) for o in ops]


SAME = "All of these values were read at the same setting (same dataset, metric and x)."


NUMBER_GUESS_SHARE = 0.05  # numeric finals text alone may answer (the bound for figure-number turns)
SET_GUESS_SHARE = 0.10  # constraint finals text alone may answer


def _guesses(f: V2Facts, pts: list[Point]) -> list[float] | None:
    """What text alone offers for each value: its method's score in its paper's Table 1 (None if missing)."""
    vals = [f.table_value(q.paper, q.method, q.dataset) for q in pts]
    return None if any(v is None for v in vals) else vals  # type: ignore[return-value]


def _guess_ok(bal: Balancer, kind: str, guessed_right: bool, share: float) -> bool:
    """Keep a final that the guesses would answer only while such finals stay under `share` of their kind;
    record the decision when kept. Most finals thus need the values read off the figures."""
    if guessed_right and not bal.allow_text_right(kind):
        return False
    bal.record_text(kind, guessed_right, round(1 / share))
    return True


def difference(ops: list[Operand], f: V2Facts, bal: Balancer) -> DraftTurn | None:
    a, b = ops[0], ops[-1]
    tol = a.point.tolerance + b.point.tolerance
    g = _guesses(f, [a.point, b.point])
    if not _apart(a, b):
        return None
    if not _guess_ok(bal, "number", g is not None and abs((g[0] - g[1]) - (a.point.value - b.point.value)) <= tol,
                     NUMBER_GUESS_SHARE):
        return None
    q = (f"{SAME} By how much does the value you read in turn {a.turn} exceed the value you read in turn {b.turn}? "
         f"Answer with the first minus the second (negative if the second is larger).")
    ans = _number(a.point.value - b.point.value, a.point.tolerance + b.point.tolerance, _unit(ops))
    note = f"{a.point.value:g} - {b.point.value:g}"
    return _final(q, ans, _reads([a, b]), DraftDerivation(op="difference"), note)


def spread(ops: list[Operand], f: V2Facts, bal: Balancer) -> DraftTurn | None:
    hi = max(ops, key=lambda o: o.point.value)
    lo = min(ops, key=lambda o: o.point.value)
    if not all(_apart(hi, o) for o in ops if o is not hi) or not all(_apart(lo, o) for o in ops if o is not lo):
        return None
    g = _guesses(f, [o.point for o in ops])
    tol = hi.point.tolerance + lo.point.tolerance
    if not _guess_ok(bal, "number", g is not None and abs((max(g) - min(g)) - (hi.point.value - lo.point.value)) <= tol,
                     NUMBER_GUESS_SHARE):
        return None
    q = f"{SAME} Among the values you read in turns {_turns(ops)}, by how much does the highest exceed the lowest?"
    ans = _number(hi.point.value - lo.point.value, hi.point.tolerance + lo.point.tolerance, _unit(ops))
    note = "max - min of " + ", ".join(f"{o.point.value:g}" for o in ops)
    return _final(q, ans, _reads(ops), DraftDerivation(op="range"), note)


def rank(ops: list[Operand], bal: Balancer, f: V2Facts) -> DraftTurn | None:
    """Which turn's method has the highest / lowest value (options name turns, in balanced positions);
    one the methods' table values would answer is asked only while that keeps text-only guesses at chance."""
    words = [True, False]
    bal.rng.shuffle(words)
    for hi in words:
        best = max(ops, key=lambda o: o.point.value) if hi else min(ops, key=lambda o: o.point.value)
        if not all(_apart(best, o) for o in ops if o is not best):
            continue
        guess = f.text_guess([o.point for o in ops], hi)
        text_right = guess is not None and guess is best.point
        if text_right and not bal.allow_text_right("final"):
            continue
        bal.record_text("final", text_right, len(ops))
        label = {o.turn: f"the method whose value you read in turn {o.turn}" for o in ops}
        choices, letter = bal.options(label[best.turn], [label[o.turn] for o in ops if o is not best])
        word = "highest" if hi else "lowest"
        q = (f"{SAME} Of the methods whose values you read in turns {_turns(ops)}, which has the {word} value? "
             f"Answer with the letter of the option.")
        deriv = DraftDerivation(op="argmax" if hi else "argmin", candidates=list(choices.values()))
        note = f"{word}: " + ", ".join(f"T{o.turn}={o.point.value:g}" for o in ops)
        return _final(q, DraftAnswer(format="choice", value=letter, choices=choices), _reads(ops), deriv, note)
    return None


def mean(ops: list[Operand], f: V2Facts, bal: Balancer) -> DraftTurn | None:
    q = f"{SAME} What is the mean of the values you read in turns {_turns(ops)}?"
    n = len(ops)
    g = _guesses(f, [o.point for o in ops])
    true = sum(o.point.value for o in ops) / n
    if not _guess_ok(bal, "number", g is not None and abs(sum(g) / n - true) <= sum(o.point.tolerance for o in ops) / n,
                     NUMBER_GUESS_SHARE):
        return None
    ans = _number(sum(o.point.value for o in ops) / n, sum(o.point.tolerance for o in ops) / n, _unit(ops))
    note = "mean of " + ", ".join(f"{o.point.value:g}" for o in ops)
    return _final(q, ans, _reads(ops), DraftDerivation(op="mean"), note)


def count(ref: Operand, others: list[Operand], f: V2Facts, bal: Balancer) -> DraftTurn | None:
    if not all(_apart(ref, o) for o in others):
        return None
    k = sum(o.point.value > ref.point.value for o in others)
    if len(others) >= 2 and not 0 < k < len(others):
        return None
    g = _guesses(f, [ref.point] + [o.point for o in others])
    if not _guess_ok(bal, "number", g is not None and sum(x > g[0] for x in g[1:]) == k, NUMBER_GUESS_SHARE):
        return None
    q = f"{SAME} How many of the values you read in turns {_turns(others)} are higher than the value you read in turn {ref.turn}?"
    note = f"count > {ref.point.value:g}: " + ", ".join(f"{o.point.value:g}" for o in others)
    reads = _reads([ref] + others)
    return _final(q, DraftAnswer(format="number", value=k, tolerance=0.0), reads, DraftDerivation(op="count"), note)


def _bound(group: list[Operand]) -> tuple[float, float, str]:
    """A threshold from one value (its turn) or the mean of several (naming all their turns)."""
    if len(group) == 1:
        o = group[0]
        return o.point.value, o.point.tolerance, f"the value you read in turn {o.turn}"
    v = sum(o.point.value for o in group) / len(group)
    tol = sum(o.point.tolerance for o in group) / len(group)
    return v, tol, f"the mean of the values you read in turns {_turns(group)}"


def constraint(cands: list[Point], cand_turn: int, refs: list[Operand], rng: random.Random,
               bal: Balancer, f: V2Facts) -> DraftTurn | None:
    """Methods of the figure read in `cand_turn` (at its setting) lying between a lower bound and an upper
    bound taken from the other readings (one value, or the mean of two when there are three). Both
    conditions bind: some method falls below the lower bound, some above the upper one, and at least
    one passes; every method is clear of each bound by more than the tolerances."""
    splits = []
    for k in range(1, len(refs)):
        for low in itertools.combinations(refs, k):
            if len(low) <= 2 and len(refs) - k <= 2:
                splits.append((list(low), [r for r in refs if r not in low]))
    rng.shuffle(splits)
    labels = [c.label for c in cands]
    for low, high in splits:
        lv, ltol, ltext = _bound(low)
        hv, htol, htext = _bound(high)
        own = {r.point for r in refs}
        if any(c not in own and (abs(c.value - lv) <= c.tolerance + ltol or abs(c.value - hv) <= c.tolerance + htol)
               for c in cands):
            continue
        above = {c.label for c in cands if c.value > lv}
        below = {c.label for c in cands if c.value < hv}
        answer = above & below
        if not answer or answer == above or answer == below:
            continue
        gc, gl, gh = _guesses(f, cands), _guesses(f, [o.point for o in low]), _guesses(f, [o.point for o in high])
        guessed = gc is not None and gl is not None and gh is not None and \
            {c.label for c, g in zip(cands, gc) if sum(gl) / len(gl) < g < sum(gh) / len(gh)} == answer
        if not _guess_ok(bal, "set", guessed, SET_GUESS_SHARE):
            continue  # the tables alone would give the answer
        conds = [f"a value higher than {ltext}", f"a value lower than {htext}"]
        lead = (f"Consider every method plotted in the figure you read in turn {cand_turn}, at the setting you read "
                f"there (the other values named below were read at that same setting).")
        joined = f"{conds[0]} and {conds[1]}"
        reads = [point_read(c, cand_turn) for c in cands] + _reads(low + high)
        note = "; ".join(f"{c.label}={c.value:g}" for c in cands) + f" | lower bound {lv:g}, upper bound {hv:g}"
        passes = [sorted(above), sorted(below)]
        single = next(iter(answer)) if len(answer) == 1 else None
        if single is not None and len(cands) >= 3 and rng.random() < 0.5 \
                and (single != "Ours" or bal.prefer_own("final")):  # a choice only where it keeps the prior at chance
            best = single
            choices, letter = bal.options(best, [x for x in labels if x != best])
            bal.record_own("final", "Ours" in labels, best == "Ours", len(choices))
            q = f"{lead} Exactly one of them has {joined}. Which one? Answer with the letter of the option."
            deriv = DraftDerivation(op="filter", candidates=list(choices.values()),
                                    conditions=[DraftCondition(text=t, passes=ps) for t, ps in zip(conds, passes)])
            return _final(q, DraftAnswer(format="choice", value=letter, choices=choices), reads, deriv, note)
        q = f"{lead} Which of them have {joined}? List all of them by their names as printed in that figure's legend."
        deriv = DraftDerivation(op="filter", candidates=labels,
                                conditions=[DraftCondition(text=t, passes=ps) for t, ps in zip(conds, passes)])
        return _final(q, DraftAnswer(format="set", value=sorted(answer)), reads, deriv, note)
    return None
