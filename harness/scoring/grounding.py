"""Grounding: is an answer's value traceable in the trace? A hallucination signal from the trace alone.

For each answer the matcher can read as one value (number, text, set; a choice letter is picked from the
question's own options and a hedge has no single value, so neither is checked), the first that holds:
1. observation: the value is printed in the text a tool call of this or an earlier turn returned (a number
   equal to the answer up to the answer's printed precision or the episode's tolerance, whichever is
   looser; a name found as words, or for a sentence every name in it; every item of a set). For a number,
   only a call that exposed evidence of this turn or an earlier one counts (a unit the episode requires
   there, the same evidence EC counts): a table or a paper the question is not about grounds nothing;
2. earlier_answers: a number equal to an earlier turn's grounded answer, or to a sum, difference, ratio, mean
   or max-min spread of such answers (how memory-only finals are built); an earlier answer that was itself
   traceable to nothing (or only to another figure) grounds nothing, so repeating a guess is not a trace;
3. figure: a number printed nowhere, while a figure this turn requires was opened by then: it may have been
   read off the image, which the trace cannot check (the weakest support, counted apart);
4. figure_other: only a figure of a paper this turn requires, not the figure it requires, was opened: not
   grounded, reported apart so a reader sees the agent looked at the right paper's wrong figure;
5. none: traceable to nothing; the turn is flagged.
One irrelevant read buys nothing: a figure or table the turn does not require grounds no number. An episode
file that annotates no evidence at all falls back to any call and any figure (there is no other yardstick).
Numbers inside names and after reference words ("P027", "3D", "Table 2", "section 4.3") in observations are
not values.
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from functools import cached_property

from harness.episode import Answer, Episode
from harness.trace_fold import EpisodeFold

from .answer_text import extract_answer, strip_trailing_punct
from .match import normalize_text, read_number
from .match_set import answer_readings
from .numbers import Mention
from .process_model import GroundingCheck

# A number standing alone in an observation: not the tail of a name ("P027", "x1.5"), not glued to letters
# ("3D", "10k"), not after a reference word ("Table 2", "page 3"). Observations are long (a paper as
# markdown), so they get this one regex; answers, which are short, get the matcher's full reading.
_OBS_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.]\w)(?!\w)")
_REFERENCE = re.compile(r"\b(?:tables?|tab|figures?|figs?|sections?|sec|pages?|pp?|eqs?|equations?|appendix|steps?|turns?|"
                        r"parts?|refs?|rows?|columns?|chapters?|lines?)\.?\s*[(\[]?\s*$", re.I)
# what a reference number looks like: a small whole number or a dotted one ("4.3", "A.2" is not a number)
_REFERENCE_NUMBER = re.compile(r"\d{1,3}(?:\.\d{1,2}){0,2}")
_MAX_COMBINED = 8  # earlier answers combined in subsets; 2^8 subsets stay cheap


@dataclass
class Observation:
    """The text one executed, error-free tool call returned, with its numbers read once."""

    turn: int
    step: int
    tool: str
    text: str
    figure: str | None = None  # "P027 figure:1" when the call exposed a figure
    units: frozenset[tuple[str, str]] = frozenset()  # the (paper, unit) keys the call exposed

    @property
    def where(self) -> str:
        return f"turn {self.turn} step {self.step} {self.tool}"

    @cached_property
    def words(self) -> str:
        return f" {normalize_text(self.text)} "

    @cached_property
    def numbers(self) -> list[float]:
        text = self.text.replace("\u2212", "-")
        out = []
        for m in _OBS_NUMBER.finditer(text):
            raw = m.group(0)
            if _REFERENCE_NUMBER.fullmatch(raw) and _REFERENCE.search(text[max(0, m.start() - 16):m.start()]):
                continue  # "Table 2", "page 13", "section 4.3", "Eq. 2.1": references, not values
            try:
                out.append(float(raw.replace(",", "")))
            except ValueError:
                continue
        return out


@dataclass
class NumberValue:
    """A number read from an answer, with how close another value must be to count as the same."""

    value: float
    text: str
    slack: float

    def same(self, x: float) -> bool:
        return abs(x - self.value) <= self.slack + 1e-9 * max(1.0, abs(self.value))


def _slack(m: Mention, gold: Answer) -> float:
    """Half a unit of the last printed digit ("10.0" stands for 9.95..10.05), or the episode's tolerance."""
    text = m.text.replace(",", "")
    if "e" in text.lower() or "/" in text or ":" in text:  # scientific notation, a fraction or a ratio: as written
        printed = abs(m.value) * 1e-6
    else:
        decimals = len(text.split(".")[1]) if "." in text else 0
        printed = 0.5 * 10 ** -decimals
    return max(printed, gold.tolerance or 0.0)


def answer_number(answer: str | None, gold: Answer, question: str | None) -> NumberValue | None:
    """The one number the matcher reads from the answer; None for no answer, none, a negation or a hedge."""
    ext = extract_answer(answer)
    if not ext.ok:
        return None
    value, _ = read_number(ext, gold, question)
    if value is None:
        return None
    return NumberValue(value=value.value, text=value.text, slack=_slack(value, gold))


@dataclass
class EpisodeObservations:
    """Everything the agent was shown in an episode, by turn, read from the fold once."""

    by_turn: dict[int, list[Observation]] = field(default_factory=dict)

    @classmethod
    def of(cls, fold: EpisodeFold) -> "EpisodeObservations":
        out = cls()
        for tf in fold.ordered_turns:
            for c in tf.executed_calls:
                if c.error is not None:
                    continue
                fig = next((u.label() for u in c.exposed if u.unit.startswith("figure:")), None)
                out.by_turn.setdefault(tf.turn, []).append(
                    Observation(turn=tf.turn, step=c.step, tool=c.tool, text=c.result_text or c.result_summary or "", figure=fig,
                                units=frozenset(u.key for u in c.exposed)))
        return out

    def upto(self, t: int) -> list[Observation]:
        return [o for k in sorted(self.by_turn) if k <= t for o in self.by_turn[k]]


def _find_words(phrase: str, obs: list[Observation]) -> Observation | None:
    key = normalize_text(phrase)
    if not key:
        return None
    return next((o for o in obs if f" {key} " in o.words), None)


def _name_words(text: str) -> list[str]:
    """The names in a sentence answer ("The paper introduces BresaParse." -> ["BresaParse"])."""
    tokens = re.findall(r"[\w\-]+", text)
    return [w for i, w in enumerate(tokens) if any(c.isdigit() for c in w) or any(c.isupper() for c in w[1:])
            or (i > 0 and w[:1].isupper())]


def _combinations(earlier: list[tuple[int, float]]) -> list[tuple[str, float]]:
    """Values a memory-only answer can be built from: each earlier answer, pair differences, sums,
    ratios and means, and sums, means and spreads of larger groups (at most the last 8 answers)."""
    vals = earlier[-_MAX_COMBINED:]
    out = [(f"turn {t}", v) for t, v in vals]
    for (ta, a), (tb, b) in itertools.permutations(vals, 2):
        out.append((f"turn {ta} - turn {tb}", a - b))
        if b != 0:
            out.append((f"turn {ta} / turn {tb}", a / b))
    for size in range(2, len(vals) + 1):
        for group in itertools.combinations(vals, size):
            names = ", ".join(f"turn {t}" for t, _ in group)
            xs = [v for _, v in group]
            out += [(f"sum of {names}", sum(xs)), (f"mean of {names}", sum(xs) / len(xs)),
                    (f"spread of {names}", max(xs) - min(xs))]
    return [(w, v) for w, v in out if math.isfinite(v)]


@dataclass(frozen=True)
class Evidence:
    """What grounds a number at a turn: the units required by it and by earlier turns, and by it alone.
    `annotated` is False when the episode requires no evidence anywhere: then any call and figure count."""

    so_far: frozenset[tuple[str, str]]
    this_turn: frozenset[tuple[str, str]]
    annotated: bool

    def observation(self, o: Observation) -> bool:
        return not self.annotated or bool(o.units & self.so_far)

    def figure(self, o: Observation) -> str | None:
        """"figure" for a figure the turn requires, "figure_other" for another figure of a paper it requires."""
        figs = {k for k in o.units if k[1].startswith("figure:")}
        if not figs:
            return None
        if not self.annotated or figs & self.this_turn:
            return "figure"
        if {p for p, _ in figs} & {p for p, _ in self.this_turn}:
            return "figure_other"
        return None


def _ground_number(t: int, num: NumberValue, obs: EpisodeObservations, earlier: list[tuple[int, float]],
                   evidence: Evidence) -> GroundingCheck:
    seen = obs.upto(t)
    hit = next((o for o in seen if evidence.observation(o) and any(num.same(x) for x in o.numbers)), None)
    if hit is not None:
        return GroundingCheck(value=num.text, source="observation", where=hit.where)
    combo = next((w for w, v in _combinations(earlier) if num.same(v)), None)
    if combo is not None:
        return GroundingCheck(value=num.text, source="earlier_answers", where=combo)
    figures = [(evidence.figure(o), o) for o in reversed(seen)]
    for kind in ("figure", "figure_other"):
        fig = next((o for k, o in figures if k == kind), None)
        if fig is not None:
            return GroundingCheck(value=num.text, source=kind, where=f"{fig.where} {fig.figure}")  # type: ignore[arg-type]
    return GroundingCheck(value=num.text, source="none")


def _ground_text(t: int, answer: str, obs: EpisodeObservations) -> GroundingCheck | None:
    ext = extract_answer(answer)
    if not ext.ok:
        return None
    value = strip_trailing_punct(ext.text)
    seen = obs.upto(t)
    whole = _find_words(value, seen)
    if whole is not None:
        return GroundingCheck(value=value[:80], source="observation", where=whole.where)
    names = _name_words(value)  # a sentence: the names in it must all be found
    hits = [_find_words(w, seen) for w in names]
    if names and all(hits):
        return GroundingCheck(value=value[:80], source="observation", where=hits[0].where)  # type: ignore[union-attr]
    return GroundingCheck(value=value[:80], source="none")


def _ground_set(t: int, answer: str, obs: EpisodeObservations) -> GroundingCheck | None:
    ext = extract_answer(answer)
    if not ext.ok:
        return None
    seen = obs.upto(t)
    def rank(found: int, items: list[str]) -> tuple[bool, float, int]:
        """All items found first, then the share found; a whole name beats its pieces, else the finest reading."""
        complete = found == len(items)
        return complete, found / len(items), -len(items) if complete else len(items)

    best: tuple[int, list[str], list[Observation | None]] | None = None
    for items in answer_readings(ext):
        hits = [_find_words(i, seen) for i in items]
        found = sum(h is not None for h in hits)
        if best is None or rank(found, items) > rank(best[0], best[1]):
            best = (found, items, hits)
    if best is None:
        return None
    found, items, hits = best
    shown = "; ".join(items)[:80]
    if found == len(items):
        where = sorted({h.where for h in hits if h is not None})
        return GroundingCheck(value=shown, source="observation", where=", ".join(where[:3]), items_found=found, items=len(items))
    return GroundingCheck(value=shown, source="none", items_found=found, items=len(items))


def ground_answers(episode: Episode, fold: EpisodeFold) -> dict[int, GroundingCheck]:
    """Turn -> grounding of its answer, for the turns whose answer can be checked (see the module doc)."""
    obs = EpisodeObservations.of(fold)
    earlier: list[tuple[int, float]] = []
    out: dict[int, GroundingCheck] = {}
    annotated = any(turn.evidence for turn in episode.turns)
    so_far: set[tuple[str, str]] = set()
    for t, gold_turn in enumerate(episode.turns, 1):
        this_turn = frozenset(u.key for u in gold_turn.evidence)
        so_far |= this_turn
        tf = fold.turns.get(t)
        answer = tf.answer_text if tf else None
        gold = gold_turn.answer
        if not answer or not answer.strip():
            continue
        check: GroundingCheck | None = None
        if gold.format == "number":
            num = answer_number(answer, gold, gold_turn.question)
            if num is not None:
                check = _ground_number(t, num, obs, earlier, Evidence(frozenset(so_far), this_turn, annotated))
                if check.grounded:  # an answer traceable to nothing grounds nothing later: repeating a guess is no trace
                    earlier.append((t, num.value))
        elif gold.format == "text":
            check = _ground_text(t, answer, obs)
        elif gold.format == "set":
            check = _ground_set(t, answer, obs)
        if check is not None:
            out[t] = check
    return out
