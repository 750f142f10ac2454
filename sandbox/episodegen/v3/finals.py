"""Final turns of benchmark v3: memory-only questions that fuse values seen at one aligned setting.

Unlike v2, a final mostly needs a value the agent saw in an earlier turn's evidence but was not asked to
report: another series of a figure it read ("the figure you read in turn 1 also plots X: ..."), named by its
role, never by its coordinates. The operands share dataset, metric and x; every answer stays the same when each
value is misread within its tolerance; counts and aggregates take at least two values; choice and set answers
are arranged by the prior balancer.
"""
from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass

from .._model import DraftAnswer, DraftCondition, DraftDerivation, DraftRead, DraftRef, DraftTurn
from ..v2.facts import Point
from ..v2.turns import point_read
from .facts import V3Facts
from .priors import Context, PriorBalancer

MEMORY_NOTE = "Answer from what you gathered in earlier turns; no tools are available in this turn."
MIN_SETS = 5  # candidate sets of the answer's size a set final offers at least (4 methods 2 passing, 5 methods 1)
SAME = "All of these values are at the same setting (same dataset, metric and x)."


@dataclass(frozen=True)
class Operand:
    turn: int  # the turn that asked for it (reported) or whose evidence showed it (unreported)
    point: Point
    reported: bool = True

    @property
    def text(self) -> str:
        if self.reported:
            return f"the value you reported in turn {self.turn}"
        return f'the value of "{self.point.label}" at that same setting in the figure you read in turn {self.turn}'


def _list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


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


def _guess(f: V3Facts, o: Operand) -> float | None:
    """What text alone offers for an operand: its table value shifted by the corpus's median plotted-table gap."""
    g = f.text_guesses(o.point)
    return g[-1] if g else None


def _guessable(f: V3Facts, ops: list[Operand], compute, answer: float, tol: float) -> bool:
    """Would the text guesses of every operand, combined as the final combines them, give its answer?"""
    gs = [_guess(f, o) for o in ops]
    if any(g is None for g in gs):
        return False
    return abs(compute(gs) - answer) <= tol


def _intro(ops: list[Operand]) -> str:
    """Names each unreported operand's figure by its role before the question uses it."""
    extra = [o for o in ops if not o.reported]
    if not extra:
        return SAME
    parts = [f'the figure you read in turn {o.turn} also plots "{o.point.label}"' for o in extra]
    return f"{SAME} {parts[0][0].upper()}{_list(parts)[1:]}."


def difference(ops: list[Operand], f: V3Facts, bal: PriorBalancer) -> DraftTurn | None:
    a, b = ops[0], ops[1]
    if not _apart(a, b):
        return None
    if _guessable(f, [a, b], lambda g: g[0] - g[1], a.point.value - b.point.value, a.point.tolerance + b.point.tolerance):
        return None
    q = (f"{_intro([a, b])} By how much does {a.text} exceed {b.text}? Answer with the first minus the second "
         f"(negative if the second is larger).")
    ans = _number(a.point.value - b.point.value, a.point.tolerance + b.point.tolerance, _unit(ops))
    return _final(q, ans, _reads([a, b]), DraftDerivation(op="difference"), f"{a.point.value:g} - {b.point.value:g}")


def spread(ops: list[Operand], f: V3Facts, bal: PriorBalancer) -> DraftTurn | None:
    if len(ops) < 3:
        return None
    hi = max(ops, key=lambda o: o.point.value)
    lo = min(ops, key=lambda o: o.point.value)
    if not all(_apart(hi, o) for o in ops if o is not hi) or not all(_apart(lo, o) for o in ops if o is not lo):
        return None
    if _guessable(f, ops, lambda g: max(g) - min(g), hi.point.value - lo.point.value, hi.point.tolerance + lo.point.tolerance):
        return None
    q = f"{_intro(ops)} Among {_list([o.text for o in ops])}, by how much does the highest exceed the lowest?"
    ans = _number(hi.point.value - lo.point.value, hi.point.tolerance + lo.point.tolerance, _unit(ops))
    note = "max - min of " + ", ".join(f"{o.point.value:g}" for o in ops)
    return _final(q, ans, _reads(ops), DraftDerivation(op="range"), note)


def mean(ops: list[Operand], f: V3Facts, bal: PriorBalancer) -> DraftTurn | None:
    if len(ops) < 2:
        return None
    n = len(ops)
    if _guessable(f, ops, lambda g: sum(g) / n, sum(o.point.value for o in ops) / n, sum(o.point.tolerance for o in ops) / n):
        return None
    q = f"{_intro(ops)} What is the mean of {_list([o.text for o in ops])}?"
    ans = _number(sum(o.point.value for o in ops) / n, sum(o.point.tolerance for o in ops) / n, _unit(ops))
    note = "mean of " + ", ".join(f"{o.point.value:g}" for o in ops)
    return _final(q, ans, _reads(ops), DraftDerivation(op="mean"), note)


def rank(ops: list[Operand], f: V3Facts, bal: PriorBalancer) -> DraftTurn | None:
    """Which operand is highest / lowest; options name the operands by their role, arranged against the priors."""
    if len(ops) < 3:
        return None
    words = [True, False]
    bal.rng.shuffle(words)
    for hi in words:
        best = max(ops, key=lambda o: o.point.value) if hi else min(ops, key=lambda o: o.point.value)
        if not all(_apart(best, o) for o in ops if o is not best):
            continue
        label = {o: o.text[0].upper() + o.text[1:] for o in ops}
        group = "choice / argmax" if hi else "choice / argmin"
        ctx = Context(ops[0].point.paper, hi)
        others = [label[o] for o in ops if o is not best]
        if not bal.choice_ok(group, label[best], others, f, ctx):
            continue  # e.g. the one reported value, the shortest option, is the answer too often already
        choices, letter = bal.arrange_choice(group, label[best], others, f, ctx)
        word = "highest" if hi else "lowest"
        q = f"{_intro(ops)} Which of the following is the {word}? Answer with the letter of the option."
        deriv = DraftDerivation(op="argmax" if hi else "argmin", candidates=list(choices.values()))
        note = f"{word}: " + ", ".join(f"{o.text}={o.point.value:g}" for o in ops)
        return _final(q, DraftAnswer(format="choice", value=letter, choices=choices), _reads(ops), deriv, note)
    return None


def count(ref: Operand, others: list[Operand], f: V3Facts, bal: PriorBalancer) -> DraftTurn | None:
    """How many of at least two values exceed a reference (an unreported value when there is one)."""
    if len(others) < 2 or not all(_apart(ref, o) for o in others):
        return None
    k = sum(o.point.value > ref.point.value for o in others)
    if _guessable(f, [ref] + others, lambda g: sum(x > g[0] for x in g[1:]), k, 0.0):
        return None
    possible = len(others) + 1
    if not bal.count_ok("count", k, possible):
        return None
    bal.record_count("count", k, possible)
    q = (f"{_intro([ref] + others)} How many of {_list([o.text for o in others])} are higher than {ref.text}?")
    note = f"count > {ref.point.value:g}: " + ", ".join(f"{o.point.value:g}" for o in others)
    return _final(q, DraftAnswer(format="number", value=k, tolerance=0.0), _reads([ref] + others),
                  DraftDerivation(op="count"), note)


def _bound(group: list[Operand]) -> tuple[float, float, str]:
    if len(group) == 1:
        o = group[0]
        return o.point.value, o.point.tolerance, o.text
    v = sum(o.point.value for o in group) / len(group)
    tol = sum(o.point.tolerance for o in group) / len(group)
    return v, tol, "the mean of " + _list([o.text for o in group])


def constraint(cands: list[Point], cand_turn: int, refs: list[Operand], rng: random.Random, bal: PriorBalancer,
               f: V3Facts) -> DraftTurn | None:
    """Methods of the figure read in `cand_turn` (every series at its setting: one reported, the rest only seen)
    passing two binding conditions tied to other papers' readings: above one bound and below another, or above
    (below) a bound and also plotted in another paper's figure read earlier, so the answer may hold the highest
    or the lowest candidate. Every candidate is clear of each bound by more than the tolerances."""
    variants: list[tuple[str, list[Operand], list[Operand], Operand | None]] = []
    for k in range(1, len(refs)):
        for low in itertools.combinations(refs, k):
            if len(low) <= 2 and len(refs) - k <= 2:
                variants.append(("band", list(low), [r for r in refs if r not in low], None))
    for member in refs:
        rest = [r for r in refs if r is not member]
        if 1 <= len(rest) <= 2 and any(r.point.paper != member.point.paper for r in rest):
            variants.append(("above+legend", rest, [], member))
            variants.append(("below+legend", [], rest, member))
    rng.shuffle(variants)
    labels = [c.label for c in cands]
    own = {r.point for r in refs}
    for kind, low, high, member in variants:
        conds: list[tuple[str, set[str]]] = []
        clear = True
        for group, above in ((low, True), (high, False)):
            if not group:
                continue
            v, tol, text = _bound(group)
            if any(c not in own and abs(c.value - v) <= c.tolerance + tol for c in cands):
                clear = False
                break
            passes = {c.label for c in cands if (c.value > v if above else c.value < v)}
            conds.append((f"a value {'higher' if above else 'lower'} than {text}", passes))
        if not clear:
            continue
        if member is not None:
            fig = f.figure(member.point.paper, member.point.n)
            methods = {s.method or s.label for s in fig.series}
            passes = {c.label for c in cands if c.method in methods}
            conds.append((f"a method also plotted in the figure you read in turn {member.turn}", passes))
        answer = set(labels)
        for _, ps in conds:
            answer &= ps
        if not answer or len(conds) != 2 or any(answer == ps for _, ps in conds):
            continue  # both conditions must bind, and something must pass
        reads = [point_read(c, cand_turn) for c in cands] + _reads(low + high + ([member] if member else []))
        dedup: list[DraftRead] = []
        for r in reads:
            if r not in dedup:
                dedup.append(r)
        lead = (f"Consider every method plotted in the figure you read in turn {cand_turn}, at the setting you read there "
                f"(the other values named below are at that same setting).")
        joined = f"{conds[0][0]} and {conds[1][0]}"
        note = "; ".join(f"{c.label}={c.value:g}" for c in cands) + f" | {kind}"
        ctx = Context(cands[0].paper, None)
        sets = math.comb(len(labels), len(answer))
        if len(answer) == 1 and len(cands) >= 4 and (rng.random() < 0.4 or sets < MIN_SETS):
            best = next(iter(answer))
            others = [x for x in labels if x != best]
            if bal.choice_ok("choice / filter", best, others, f, ctx):
                choices, letter = bal.arrange_choice("choice / filter", best, others, f, ctx)
                q = f"{lead} Exactly one of them has {joined}. Which one? Answer with the letter of the option."
                deriv = DraftDerivation(op="filter", candidates=list(choices.values()),
                                        conditions=[DraftCondition(text=t, passes=sorted(ps)) for t, ps in conds])
                return _final(q, DraftAnswer(format="choice", value=letter, choices=choices), dedup, deriv, note)
        if sets < MIN_SETS:
            continue  # a guess of the passing set, even knowing its size, is right at most one time in MIN_SETS
        order = bal.arrange_set("set / filter", labels, answer, f, ctx)
        if order is None:
            continue
        q = f"{lead} Which of them have {joined}? List all of them by their names as printed in that figure's legend."
        deriv = DraftDerivation(op="filter", candidates=order,
                                conditions=[DraftCondition(text=t, passes=sorted(ps)) for t, ps in conds])
        return _final(q, DraftAnswer(format="set", value=sorted(answer)), dedup, deriv, note)
    return None


def is_memory_final(turns: list[DraftTurn]) -> bool:
    """Does the final need a value an earlier turn's evidence showed but no turn asked to report?"""
    final = turns[-1]
    asked = set()
    for t in turns[:-1]:
        for r in t.reads or []:
            if r.turn is None:
                asked.add((r.paper, r.unit, r.series, r.x))
    for r in final.reads or []:
        if r.turn is None or not r.unit.startswith("figure:"):
            continue
        shown = {(e.paper, e.unit) for e in turns[r.turn - 1].evidence}
        if (r.paper, r.unit) in shown and (r.paper, r.unit, r.series, r.x) not in asked:
            return True
    return False


__all__ = ["Operand", "difference", "spread", "mean", "rank", "count", "constraint", "is_memory_final"]
