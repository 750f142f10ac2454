"""Keep every choice and set answer free of the answer priors `epi episodes audit` learns (harness/audit/
_answer_priors.py): the 'Ours' / own-method option, the generic-sounding name, the own method when the best is
asked else the generic name, the name in the title, the newest and the oldest paper's method, the first and the
last option, the shortest and the longest option (harness/audit/_priors.py), the most common position, the
candidate list minus its two extremes, every candidate but 'Ours' and generic names, and the most common count.

The generator cannot import the audit (the sandbox room does not import the harness), so the rules are
restated here on the ground truth; `PriorBalancer` scores each arrangement a turn could take (which option sits
where, the order of a set's candidates) by what every rule would answer, and keeps the one that leaves every
rule, per group of turns and per "asks for the best / the worst", closest to chance.
"""
from __future__ import annotations

import itertools
import math
import random
import re
from collections import Counter
from dataclasses import dataclass, field

from .facts import V3Facts, bare, generic_name

LETTERS = "ABCDEFGH"
_OURS = re.compile(r"^ours$|\(ours\)\s*$", re.I)
SLACK = 0.03  # share of a group's turns a rule may be right beyond chance while the file is built


@dataclass(frozen=True)
class Context:
    """What a prior knows of a turn besides its candidates: the paper it is about and whether it asks for the best."""

    paper: str | None
    asks_best: bool | None


def own_method(f: V3Facts, pid: str | None) -> str | None:
    """The paper's own method as a reader of its text finds it: a table row marked '(ours)', else the title's lead."""
    if pid is None:
        return None
    if f.papers[pid].method:  # the truth; the audit finds it in the paper's text (title, abstract, a row marked ours)
        return f.papers[pid].method
    for t in sorted(f.papers[pid].tables, key=lambda t: t.n):
        for r in t.rows:
            if r and re.search(r"\(ours\)\s*$", r[0], re.I):
                return bare(r[0])
    m = re.match(r"^([A-Z][\w\-]*[A-Z0-9][\w\-]*)\s*:", f.papers[pid].title.strip())
    return m.group(1) if m else None


def _features(f: V3Facts, cands: list[str], ctx: Context) -> list[dict[str, float]]:
    own = own_method(f, ctx.paper)
    title = f.papers[ctx.paper].title.lower() if ctx.paper else ""
    years = []
    for c in cands:
        y = f.method_year.get(bare(c))
        if _OURS.search(c.strip()) and ctx.paper:
            y = f.papers[ctx.paper].year
        years.append(math.nan if y is None else float(y))
    known = [y for y in years if not math.isnan(y)]
    n = len(cands)
    out = []
    for i, c in enumerate(cands):
        b = bare(c)
        ours = bool(_OURS.search(c.strip()))
        out.append({"ours": float(ours), "own": float(bool(own) and b == own),
                    "generic": float(generic_name(b) and not ours), "in_title": float(bool(b) and b.lower() in title),
                    "first": float(i == 0), "last": float(i == n - 1),
                    "newest": float(bool(known) and years[i] == max(known)),
                    "oldest": float(bool(known) and years[i] == min(known))})
    return out


def _top(feats: list[dict[str, float]], key: str) -> int:
    vals = [x[key] for x in feats]
    return vals.index(max(vals))  # ties: the first, as the audit's rule does


def _unique(lengths: list[int], pick: int) -> int | None:
    """The one option of length `pick`; None when several share it (the audit's length rules then abstain)."""
    at = [i for i, n in enumerate(lengths) if n == pick]
    return at[0] if len(at) == 1 else None


def choice_picks(f: V3Facts, cands: list[str], ctx: Context) -> dict[str, int | None]:
    """rule name -> the index each named choice rule picks (None: the rule does not answer this turn)."""
    fe = _features(f, cands, ctx)
    ours_or_own = _top(fe, "ours") if any(x["ours"] for x in fe) else _top(fe, "own")
    lengths = [len(c) for c in cands]
    picks: dict[str, int | None] = {
        "ours/own": ours_or_own, "generic": _top(fe, "generic"), "in_title": _top(fe, "in_title"),
        "newest": _top(fe, "newest"), "oldest": _top(fe, "oldest"), "first": 0, "last": len(cands) - 1,
        "shortest": _unique(lengths, min(lengths)), "longest": _unique(lengths, max(lengths))}
    picks["own if best else generic"] = ours_or_own if ctx.asks_best else picks["generic"]
    # newer methods tend to score better in any corpus: the newest when the best is asked, else the oldest
    picks["newest if best else oldest"] = picks["newest"] if ctx.asks_best else picks["oldest"]
    picks["oldest if best else newest"] = picks["oldest"] if ctx.asks_best else picks["newest"]
    return picks


def set_picks(f: V3Facts, cands: list[str], ctx: Context) -> dict[str, set[str]]:
    fe = _features(f, cands, ctx)
    for x in fe:
        x["own"] = max(x["own"], x["ours"])
    out = {"minus extremes": set(cands[1:-1]) if len(cands) > 2 else set(),
           "no ours/generic": {c for c, x in zip(cands, fe) if not (x["ours"] or x["own"] or x["generic"])}}
    # what a classifier over the same features can express: every candidate but those with one or two features,
    # or only those with one
    keys = ("newest", "oldest", "own", "first", "last")
    for a, b in itertools.combinations_with_replacement(keys, 2):
        out[f"all but {a}/{b}"] = {c for c, x in zip(cands, fe) if not (x[a] or x[b])}
    for a in keys:
        out[f"only {a}"] = {c for c, x in zip(cands, fe) if x[a]}
    return out


@dataclass
class PriorBalancer:
    """Per group of turns (and per asks-best bucket), how often each rule has been right and what chance gives."""

    rng: random.Random
    hits: Counter = field(default_factory=Counter)  # (group, bucket, rule) -> turns the rule answers
    chance: dict = field(default_factory=dict)  # (group, bucket, rule) -> sum of chance over the turns it answers
    turns: Counter = field(default_factory=Counter)  # (group, bucket) -> turns
    positions: Counter = field(default_factory=Counter)  # (group, n, position) -> turns
    answers: Counter = field(default_factory=Counter)  # (group, answer) -> turns (counts, set sizes)

    def copy(self) -> "PriorBalancer":
        return PriorBalancer(self.rng, Counter(self.hits), dict(self.chance), Counter(self.turns),
                             Counter(self.positions), Counter(self.answers))

    def _excess(self, key: tuple, right: dict[str, bool | None], chance: float) -> float:
        """The worst rule's hits over chance after this turn, in turns (lower is better); a rule that does not
        answer this turn (None) keeps its standing."""
        return max((self.hits[key + (r,)] + bool(ok) - self.chance.get(key + (r,), 0.0) - (chance if ok is not None else 0.0)
                    for r, ok in right.items()), default=0.0)

    def _record(self, key: tuple, right: dict[str, bool | None], chance: float) -> None:
        self.turns[key] += 1
        for r, ok in right.items():
            if ok is not None:
                self.hits[key + (r,)] += ok
                self.chance[key + (r,)] = self.chance.get(key + (r,), 0.0) + chance

    def arrange_choice(self, group: str, correct: str, others: list[str], f: V3Facts, ctx: Context,
                       tries: int = 24) -> tuple[dict[str, str], str]:
        """Options with `correct` placed where no rule gains on chance; records the turn."""
        n = len(others) + 1
        key = (group, ctx.asks_best)
        best: tuple | None = None
        used = [self.positions[(group, n, i)] for i in range(n)]
        free = [i for i in range(n) if used[i] == min(used)]  # the least used positions only: no position prior
        for k in range(tries):
            rest = list(others)
            self.rng.shuffle(rest)
            pos = free[k % len(free)]
            order = rest[:pos] + [correct] + rest[pos:]
            picks = choice_picks(f, order, ctx)
            right = {r: None if i is None else i == pos for r, i in picks.items()}
            score = (round(self._excess(key, right, 1 / n), 6), self.rng.random())
            if best is None or score < best[0]:
                best = (score, order, pos, right)
        assert best is not None
        _, order, pos, right = best
        self._record(key, right, 1 / n)
        self.positions[(group, n, pos)] += 1
        return {LETTERS[i]: t for i, t in enumerate(order)}, LETTERS[pos]

    def choice_ok(self, group: str, correct: str, others: list[str], f: V3Facts, ctx: Context) -> bool:
        """Can some arrangement of these options keep every rule within SLACK of chance?"""
        n = len(others) + 1
        key = (group, ctx.asks_best)
        budget = SLACK * (self.turns[key] + 1) + 0.5
        used = [self.positions[(group, n, i)] for i in range(n)]
        for pos in [i for i in range(n) if used[i] == min(used)]:
            order = others[:pos] + [correct] + others[pos:]
            right = {r: None if i is None else i == pos for r, i in choice_picks(f, order, ctx).items()}
            if self._excess(key, right, 1 / n) <= budget:
                return True
        return False

    def arrange_set(self, group: str, cands: list[str], gold: set[str], f: V3Facts, ctx: Context,
                    tries: int = 24) -> list[str] | None:
        """An order of the candidates under which no set rule is right beyond its share; None if none is."""
        key = (group, None)
        chance = 1.0 / math.comb(len(cands), len(gold))
        budget = SLACK * (self.turns[key] + 1) + 0.5
        best: tuple | None = None
        orders = [list(p) for p in itertools.islice(itertools.permutations(cands), 720)] if len(cands) <= 6 else []
        self.rng.shuffle(orders)
        for order in orders[:tries] or [self.rng.sample(cands, len(cands)) for _ in range(tries)]:
            right = {r: s == gold for r, s in set_picks(f, order, ctx).items()}
            ex = self._excess(key, right, chance)
            score = (round(ex, 6), self.rng.random())
            if best is None or score < best[0]:
                best = (score, order, right, ex)
        if best is None or best[3] > budget:
            return None
        _, order, right, _ = best
        self._record(key, right, chance)
        return order

    def count_ok(self, group: str, answer: int, possible: int) -> bool:
        """Keep the most common count at chance: an answer may be used while it is not ahead of the others."""
        counts = [self.answers[(group, possible, k)] for k in range(possible)]
        return counts[answer] <= min(counts)

    def record_count(self, group: str, answer: int, possible: int) -> None:
        self.answers[(group, possible, answer)] += 1
