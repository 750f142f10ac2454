"""Answer priors learned on the second benchmark: for every group of turns by answer format and derivation op
(choice, set/filter, argmax/argmin, count, text), rules that read no value, only names and positions: the
generic-sounding baseline, the paper's own method or "Ours", the newest paper's method, words of the title, the
option's position, the extremes of the candidate list, the most common answer, and a classifier over all of
them. The rule that scores best on the second benchmark is scored on the audited file against chance.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from harness.episode import Episode, Turn

from ._views import PaperView

_HIGH = re.compile(r"\b(highest|largest|best|most|higher|greater|above)\b", re.I)
_LOW = re.compile(r"\b(lowest|smallest|worst|least|lower|below)\b", re.I)
_OURS = re.compile(r"^ours$|\(ours\)\s*$", re.I)
CANDIDATE_FEATURES = ("ours", "own", "generic", "words", "lower_word", "in_title", "pos", "first", "last",
                      "newest", "oldest", "asks_high", "asks_best", "n")


@dataclass
class PriorTurn:
    """One turn a prior can answer: its group, candidates with their features, the gold and chance."""

    episode: str
    turn: int
    group: str
    candidates: list[str]
    feats: list[dict[str, float]]
    gold: set[str]  # the candidates that form the answer (one for choice and text)
    chance: float
    count: int | None = None  # count turns: the gold count and the number of possible counts
    possible: int = 0


def group_of(turn: Turn) -> str | None:
    fmt = turn.answer.format
    op = turn.derivation.op if turn.derivation else None
    if fmt == "choice":
        return f"choice / {op or 'pick'}"
    if fmt == "set":
        return f"set / {op or 'filter'}"
    if fmt == "number" and op == "count":
        return "count"
    if fmt == "text":
        return "text"
    return None


def _generic(name: str) -> tuple[float, float]:
    words = re.findall(r"[A-Za-z][\w\-]*", name)
    lower = sum(w.islower() or "-" in w and w.split("-")[-1].islower() for w in words)
    return float(len(words)), float(lower > 0)


def candidate_features(cands: list[str], turn: Turn, view: PaperView | None, years: dict[str, int | None],
                       lower_better: bool | None) -> list[dict[str, float]]:
    own = view.own_method() if view else None
    title = view.title.lower() if view else ""
    q = turn.question
    high = 1.0 if _HIGH.search(q) and not _LOW.search(q.split("?")[0][-80:]) else 0.0
    year_of = [float(years.get(c) or math.nan) for c in cands]
    known = [y for y in year_of if not math.isnan(y)]
    out = []
    n = len(cands)
    for i, c in enumerate(cands):
        bare = re.sub(r"\s*\((?:ours|full)\)\s*$", "", c, flags=re.I)
        words, lower = _generic(bare)
        out.append({
            "ours": float(bool(_OURS.search(c.strip()))), "own": float(bool(own) and bare == own),
            "generic": float(lower > 0 and not _OURS.search(c.strip())), "words": words, "lower_word": lower,
            "in_title": float(bool(bare) and bare.lower() in title), "pos": i / max(1, n - 1),
            "first": float(i == 0), "last": float(i == n - 1),
            "newest": float(bool(known) and year_of[i] == max(known)), "oldest": float(bool(known) and year_of[i] == min(known)),
            "asks_high": high, "asks_best": float(high != (1.0 if lower_better else 0.0)) if lower_better is not None else high,
            "n": float(n)})
    return out


def prior_turns(episodes: list[Episode], views: dict[str, PaperView], method_years: dict[str, int | None]) -> list[PriorTurn]:
    """Every turn of a prior group, with what a prior may know of it (never a value)."""
    out = []
    for ep in episodes:
        for ti, turn in enumerate(ep.turns):
            g = group_of(turn)
            if g is None:
                continue
            ans = turn.answer
            paper = next((e.paper for e in turn.evidence), None)
            view = views.get(paper) if paper else None
            lower = _lower_better(turn, view)
            if g == "count":
                n_counted = max(0, len({r.turn for r in turn.reads if r.turn is not None}) - 1) or \
                    (len(turn.derivation.candidates) if turn.derivation else 0)
                if n_counted and isinstance(ans.value, (int, float)):
                    out.append(PriorTurn(ep.id, ti + 1, g, [], [], set(), 1.0 / (n_counted + 1), int(ans.value), n_counted + 1))
                continue
            if ans.format == "choice" and ans.choices:
                letters = sorted(ans.choices)
                cands = [ans.choices[k] for k in letters]
                gold = {ans.choices.get(str(ans.value), "")}
                chance = 1.0 / len(cands)
            elif ans.format == "set" and turn.derivation and turn.derivation.candidates:
                cands = list(turn.derivation.candidates)
                gold = {str(v) for v in ans.value} if isinstance(ans.value, list) else set()
                chance = 1.0 / math.comb(len(cands), len(gold)) if gold and len(gold) <= len(cands) else 0.0
            elif ans.format == "text" and view is not None:
                cands = _text_candidates(view)
                gold = {str(ans.value)}
                if not cands or not (gold & set(cands)):
                    cands = cands + [str(ans.value)]  # the answer is always a candidate a reader could name
                chance = 1.0 / len(cands)
            else:
                continue
            years = {c: method_years.get(re.sub(r"\s*\((?:ours|full)\)\s*$", "", c, flags=re.I)) for c in cands}
            for c in cands:
                if _OURS.search(c.strip()) and view is not None:
                    years[c] = view.year
            feats = candidate_features(cands, turn, view, years, lower)
            if g == "text":  # the list of names is the audit's own, not an order the benchmark chose
                for f in feats:
                    f.update(pos=math.nan, first=math.nan, last=math.nan)
            out.append(PriorTurn(ep.id, ti + 1, g, cands, feats, gold, chance))
    return out


def _lower_better(turn: Turn, view: PaperView | None) -> bool | None:
    m = re.search(r'\bTable (\d+)\b', turn.question)
    if view is not None and m and int(m.group(1)) in view.tables:
        return view.tables[int(m.group(1))].lower_is_better
    return None


def _text_candidates(view: PaperView) -> list[str]:
    """Names a reader could give as "the method this paper introduces": every row label of its tables."""
    seen: list[str] = []
    for t in view.tables.values():
        for r in t.rows[1:]:
            name = re.sub(r"\s*\((?:ours|full)\)\s*$", "", r[0], flags=re.I) if r else ""
            if name and not name.lower().startswith(("w/o", "without")) and name not in seen:
                seen.append(name)
    return seen


Rule = Callable[[PriorTurn], "set[str] | int | None"]


def _top(feature: str, sign: float = 1.0) -> Rule:
    def pick(t: PriorTurn) -> set[str] | None:
        vals = [sign * f[feature] for f in t.feats]
        if not vals or all(math.isnan(v) for v in vals):
            return None
        best = max(v for v in vals if not math.isnan(v))
        hits = [c for c, v in zip(t.candidates, vals) if v == best]
        return {hits[0]}  # ties: the first in the list (lists follow the tables' row order)
    return pick


def _minus_extremes(t: PriorTurn) -> set[str] | None:
    return set(t.candidates[1:-1]) if len(t.candidates) > 2 else None


def _without(feature: str) -> Rule:
    return lambda t: {c for c, f in zip(t.candidates, t.feats) if not f[feature]} or None


NAMED_RULES: dict[str, tuple[tuple[str, ...], Rule]] = {
    "the 'Ours' / own-method option": (("choice", "text"), lambda t: _top("ours")(t) or _top("own")(t)),
    "the generic-sounding name": (("choice",), _top("generic")),
    "the own method when the best is asked, else the generic name": (
        ("choice",), lambda t: (_top("ours")(t) or _top("own")(t)) if t.feats and t.feats[0]["asks_best"] else _top("generic")(t)),
    "the name in the title": (("choice", "text"), _top("in_title")),
    "the newest paper's method": (("choice",), _top("newest")),
    "the oldest paper's method": (("choice",), _top("oldest")),
    "the first option": (("choice",), _top("first")),
    "the last option": (("choice",), _top("last")),
    "the candidates minus the two extremes of the list": (("set",), _minus_extremes),
    "every candidate but 'Ours' and generic names": (("set",), lambda t: {c for c, f in zip(t.candidates, t.feats)
                                                                          if not (f["ours"] or f["own"] or f["generic"])} or None),
}


@dataclass
class LearnedPrior:
    """A classifier over the candidate features of one group (per-candidate: is it part of the answer?)."""

    group: str
    model: object | None = None
    common: Counter = field(default_factory=Counter)
    _seen: dict[tuple, object] = field(default_factory=dict)  # turn -> probabilities (a model call costs ms)

    def fit(self, turns: list[PriorTurn]) -> LearnedPrior:
        from sklearn.ensemble import HistGradientBoostingClassifier
        from threadpoolctl import threadpool_limits

        if self.group == "count":
            self.common = Counter(t.count for t in turns)
            return self
        x = [_row(f) for t in turns for f in t.feats]
        y = [int(c in t.gold) for t in turns for c in t.candidates]
        if len(set(y)) < 2:
            return self
        with threadpool_limits(1):
            self.model = HistGradientBoostingClassifier(max_iter=60, learning_rate=0.1, max_depth=3, min_samples_leaf=8,
                                                        random_state=0).fit(np.array(x), np.array(y))
        return self

    def __call__(self, t: PriorTurn) -> set[str] | int | None:
        if self.group == "count":
            return self.common.most_common(1)[0][0] if self.common else None
        if self.model is None or not t.candidates:
            return None
        key = (t.episode, t.turn, tuple(t.candidates))
        if key not in self._seen:
            self._seen[key] = self.model.predict_proba(np.array([_row(f) for f in t.feats]))[:, 1]  # type: ignore[attr-defined]
        p = self._seen[key]
        if self.group.startswith("set"):
            picked = {c for c, v in zip(t.candidates, p) if v >= 0.5}
            return picked or {t.candidates[int(np.argmax(p))]}
        return {t.candidates[int(np.argmax(p))]}


def _row(f: dict[str, float]) -> list[float]:
    return [-1.0 if math.isnan(f[k]) else f[k] for k in CANDIDATE_FEATURES]


def right(rule: Rule, t: PriorTurn) -> bool:
    pick = rule(t)
    if t.group == "count":
        return pick is not None and pick == t.count
    return isinstance(pick, set) and pick == t.gold


def honest_accuracy(name: str, rule: Rule, training: list[PriorTurn]) -> float:
    """A rule's accuracy on the training turns; a learned rule is scored 2-fold (fit on one half of the
    episodes, scored on the other), so choosing it is not flattered by fitting its own answers."""
    if not isinstance(rule, LearnedPrior):
        return sum(right(rule, t) for t in training) / max(1, len(training))
    halves = ([t for t in training if hash_half(t.episode)], [t for t in training if not hash_half(t.episode)])
    hits = 0
    for fit_on, score_on in (halves, halves[::-1]):
        learned = LearnedPrior(rule.group).fit(fit_on)
        hits += sum(right(learned, t) for t in score_on)
    return hits / max(1, len(training))


def hash_half(episode: str) -> bool:
    import hashlib

    return hashlib.sha256(episode.encode()).digest()[0] % 2 == 0


def rules_for(group: str, training: list[PriorTurn]) -> dict[str, Rule]:
    """The named rules that apply to the group, its most common answer, and the classifier learned on it."""
    kind = group.split(" /")[0]
    rules: dict[str, Rule] = {name: r for name, (kinds, r) in NAMED_RULES.items() if kind in kinds}
    if kind == "choice":
        by_pos = Counter(int(np.argmax([c in t.gold for c in t.candidates])) for t in training if t.gold & set(t.candidates))
        if by_pos:
            k = by_pos.most_common(1)[0][0]
            rules[f"the most common option position ({k + 1})"] = lambda t, k=k: {t.candidates[k]} if k < len(t.candidates) else None
    rules["a classifier over names and positions" if group != "count" else "the most common count"] = \
        LearnedPrior(group).fit(training)
    return rules
