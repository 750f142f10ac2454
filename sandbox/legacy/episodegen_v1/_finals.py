"""Memory-only final turns that fuse evidence read in earlier turns across papers.

comparison: which value is higher / the signed difference; aggregation: sum, mean or count over
values; constraint: which candidates (table rows, figure series) satisfy conditions tied to a value
from another paper, as a complete set or a single choice. Every answer is checked to be unique even
when each value is misread within its tolerance.
"""
from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass

from ._facts import Group, ValueFact, x_text
from ._model import DraftAnswer, DraftRef, DraftTurn
from ._turns import choice_options, fact_phrase, number_answer, separated

MEMORY_NOTE = "Answer from what you gathered in earlier turns; no tools are available in this turn."


@dataclass(frozen=True)
class Known:
    """A value read in an earlier turn (1-based), and the turn where its paper was located."""

    turn: int
    fact: ValueFact
    paper_turn: int

    @property
    def phrase(self) -> str:
        return fact_phrase(self.fact, self.paper_turn)


def _evidence(facts: list[ValueFact], extra: list[tuple[str, str]] = ()) -> list[DraftRef]:  # type: ignore[assignment]
    keys: list[tuple[str, str]] = []
    for k in [f.key for f in facts] + list(extra):
        if k not in keys:
            keys.append(k)
    return [DraftRef(paper=p, unit=u) for p, u in keys]


def _final(question: str, answer: DraftAnswer, evidence: list[DraftRef], note: str) -> DraftTurn:
    return DraftTurn(question=f"{question} {MEMORY_NOTE}", answer=answer, evidence=evidence, memory_only=True, note=note)


def _common_unit(facts: list[ValueFact]) -> str | None:
    units = {f.unit_label for f in facts}
    return units.pop() if len(units) == 1 else None


def _cross_paper_sets(known: list[Known], k: int, rng: random.Random) -> list[list[Known]]:
    """Combinations of k known values that span at least two papers, shuffled (values of distinct papers first)."""
    combos = [list(c) for c in itertools.combinations(known, k) if len({x.fact.paper for x in c}) >= 2]
    rng.shuffle(combos)
    combos.sort(key=lambda c: -len({x.fact.paper for x in c}))
    return combos


def _listing(items: list[Known]) -> str:
    return "; ".join(f"({i + 1}) {x.phrase}" for i, x in enumerate(items))


def comparison_final(known: list[Known], rng: random.Random, hard: bool) -> DraftTurn | None:
    variants = ["rank", "difference"]
    rng.shuffle(variants)
    for variant, combo in itertools.product(variants, _cross_paper_sets(known, 3 if hard else 2, rng)):
        facts = [x.fact for x in combo]
        if variant == "difference" and len(combo) == 3:
            hi, lo = max(facts, key=lambda f: f.value), min(facts, key=lambda f: f.value)
            if not (separated(facts, hi) and separated(facts, lo)):
                continue
            q = (f"Compare these values you read earlier: {_listing(combo)}. By how much does the highest of "
                 f"them exceed the lowest?")
            note = f"max {hi.value:g} - min {lo.value:g}"
            answer = number_answer(hi.value - lo.value, hi.tolerance + lo.tolerance, _common_unit(facts))
            return _final(q, answer, _evidence(facts), note)
        if variant == "rank":
            highest = rng.random() < 0.5
            best = (max if highest else min)(facts, key=lambda f: f.value)
            if not separated(facts, best):
                continue
            word = "highest" if highest else "lowest"
            choices, letter = choice_options(combo[facts.index(best)].phrase,
                                             [x.phrase for x in combo if x.fact is not best], rng)
            q = f"Compare the values you read earlier. Which of these is the {word}? Answer with the letter of the option."
            note = f"{word}: " + ", ".join(f"{f.paper} {f.unit} {f.label}/{f.at}={f.value:g}" for f in facts)
            return _final(q, DraftAnswer(format="choice", value=letter, choices=choices), _evidence(facts), note)
        a, b = combo
        diff = a.fact.value - b.fact.value
        tol = a.fact.tolerance + b.fact.tolerance
        if abs(diff) <= tol:
            continue
        q = (f"Which is higher, {a.phrase} or {b.phrase}, and by how much? Answer with the first minus the "
             f"second (a negative number if the second is higher).")
        note = f"{a.fact.value:g} - {b.fact.value:g}"
        return _final(q, number_answer(diff, tol, _common_unit(facts)), _evidence(facts), note)
    return None


def _threshold(values: list[ValueFact], rng: random.Random) -> float | None:
    """A round threshold between two neighbouring values, clear of every value by more than its tolerance."""
    ordered = sorted(values, key=lambda f: f.value)
    gaps = list(zip(ordered, ordered[1:]))
    rng.shuffle(gaps)
    for lo, hi in gaps:
        for step in (10.0, 5.0, 1.0, 0.5, 0.1, 0.05, 0.01):
            t = math.floor((lo.value + hi.value) / 2 / step) * step
            t = round(t, 4)
            if all(abs(f.value - t) > f.tolerance for f in values):
                return t
    return None


def aggregation_final(known: list[Known], rng: random.Random, hard: bool) -> DraftTurn | None:
    kinds = ["sum", "mean", "count"]
    rng.shuffle(kinds)
    for kind in kinds:
        k = min(len(known), 4 if kind == "count" and hard else 3 if hard else 2 if kind != "count" else 3)
        for combo in _cross_paper_sets(known, k, rng)[:20]:
            facts = [x.fact for x in combo]
            listing = _listing(combo)
            if kind == "sum":
                q = f"What is the sum of these values you read earlier: {listing}?"
                ans = number_answer(sum(f.value for f in facts), sum(f.tolerance for f in facts), _common_unit(facts))
            elif kind == "mean":
                q = f"What is the mean of these values you read earlier: {listing}?"
                ans = number_answer(sum(f.value for f in facts) / k, sum(f.tolerance for f in facts) / k, _common_unit(facts))
            else:
                t = _threshold(facts, rng)
                if t is None:
                    continue
                n_above = sum(f.value > t for f in facts)
                if not 0 < n_above < k:
                    continue
                q = f"How many of these values you read earlier are greater than {t:g}: {listing}?"
                ans = DraftAnswer(format="number", value=n_above, tolerance=0.0)
            note = f"{kind} of " + ", ".join(f"{f.value:g}" for f in facts)
            return _final(q, ans, _evidence(facts), note)
    return None


def _candidates_phrase(g: Group, paper_turn: int) -> tuple[str, str]:
    """How to name the candidate group and its compared quantity in a question."""
    where = f"of the paper from turn {paper_turn}"
    if g.kind == "table":
        return f"every {g.members[0].row_kind} listed in Table {g.n} {where}", f'a "{g.at}" value'
    m0 = g.members[0]
    return f"every series in Figure {g.n} {where}", f"a value at {m0.x_label} = {x_text(g.at)}"


def constraint_final(known: list[Known], groups: list[tuple[Group, int]], rng: random.Random,
                     hard: bool) -> DraftTurn | None:
    """Candidates of an earlier-read table or figure compared against a value read from another paper."""
    options = [(g, pt, x) for g, pt in groups for x in known if x.fact.paper != g.paper]
    rng.shuffle(options)
    for g, paper_turn, ref in options:
        f = ref.fact
        if not all(abs(m.value - f.value) > m.tolerance + f.tolerance for m in g.members):
            continue
        above = rng.random() < 0.5
        passing = [m for m in g.members if (m.value > f.value) == above]
        word = "higher" if above else "lower"
        cands, quantity = _candidates_phrase(g, paper_turn)
        cond = f"{quantity} {word} than {ref.phrase}"
        evidence = _evidence([f], [(g.paper, g.unit)])
        extra = ""
        if hard:
            second = [h for h, _ in groups if h.paper == g.paper and h.unit == g.unit and h.at != g.at]
            labels = {m.label for m in g.members}
            for h in second:
                members = [m for m in h.members if m.label in labels]
                if {m.label for m in members} != labels:
                    continue
                t = _threshold(members, rng)
                if t is None:
                    continue
                ok = {m.label for m in members if m.value > t}
                narrowed = [m for m in passing if m.label in ok]
                if narrowed and len(narrowed) < len(passing):
                    _, q2 = _candidates_phrase(h, paper_turn)
                    extra = f", and also {q2} greater than {t:g}"
                    passing = narrowed
                    break
        if not passing or len(passing) == len(g.members) and not extra:
            continue
        note = f"{g.paper} {g.unit} {g.at} vs {f.paper} {f.unit}={f.value:g}: " + ", ".join(m.label for m in passing)
        if len(passing) == 1 and len(g.members) >= 3 and rng.random() < 0.5:
            choices, letter = choice_options(passing[0].label, [m.label for m in g.members if m is not passing[0]], rng)
            q = f"Consider {cands}. Exactly one of them has {cond}{extra}. Which one? Answer with the letter of the option."
            return _final(q, DraftAnswer(format="choice", value=letter, choices=choices), evidence, note)
        q = f"Consider {cands}. Which of them have {cond}{extra}? List all of them (by their names as printed)."
        return _final(q, DraftAnswer(format="set", value=sorted(m.label for m in passing)), evidence, note)
    return None
