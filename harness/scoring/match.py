"""The deterministic matcher: one verdict per answer, graded the way a careful person grades.

The rules, in order (README "How answers are matched" has examples of each):
1. Reasoning blocks (`<think>…</think>` and the like) are dropped; the span after the last `Final answer:`
   is read (else a `\\boxed{}`, else an `Answer:` line, else the whole answer): its first sentence with a
   candidate is the answer, the lines after it count only for an alternative they offer. Prose before the
   marker never hedges. Markdown and LaTeX dressing go.
2. An answer that offers alternatives, a range, a bound or a list of candidates for one value is
   wrong and the verdict says `hedged`; several mentions of the same value are one candidate. A
   reason, comparison or negation that names another option or value is not an alternative
   (`answer_clauses.py`); a negated sole candidate is wrong.
3. Numbers: identifiers, references, citation years, operands of a worked sum and uncertainties are
   never the answer (`numbers.py`); units are read and compared (`units.py`): a different unit is
   wrong, percent and fraction are converted only when the answer writes `%`; `3/4` and `1:2` are values.
4. Choice (`match_choice.py`): one option letter, or the text of exactly one option. Text: the normalised
   gold or an alias, or a sentence naming exactly it. Set (`match_set.py`): the exact gold set
   (precision/recall/F1 reported), read from lists and from sentences.
Empty, whitespace-only, binary or enormous answers are wrong and unparseable, never an exception.
"""
from __future__ import annotations

import math
import re

from harness.agent import is_placeholder_answer
from harness.episode import Answer

from .answer_clauses import POST_ALTERNATIVE, Clauses, commit_split, has_name, is_bare, sentences
from .answer_text import ExtractedAnswer, extract_answer, last_line, normalize_text, strip_trailing_punct
from .match_choice import match_choice
from .match_set import match_set
from .model import AnswerVerdict
from .numbers import Mention, distinct_values, numbers_in
from .units import UnitInfo, gold_unit

__all__ = ["gold_display", "is_refusal", "match_answer", "match_choice", "match_number", "match_set", "match_text",
           "normalize_text", "read_number"]

def gold_display(gold: Answer) -> str:
    """The gold answer as one line for reports and judges."""
    v = gold.value
    if gold.format == "set" and isinstance(v, list):
        return "; ".join(str(x) for x in v)
    if gold.format == "number":
        text = f"{v:g}" if isinstance(v, float) else str(v)
        return f"{text} {gold.unit}".strip() if gold.unit else text
    if gold.format == "choice" and gold.choices and isinstance(v, str) and v in gold.choices:
        return f"{v}) {gold.choices[v]}"
    return str(v)


def _unparseable(detail: str) -> AnswerVerdict:
    return AnswerVerdict(correct=False, parseable=False, detail=detail)


def _hedged(detail: str) -> AnswerVerdict:
    return AnswerVerdict(correct=False, hedged=True, detail=f"hedged: {detail}")


# -- numbers ----------------------------------------------------------------------------------

_NUMBER_WORDS = {w: float(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
_REFUSAL = re.compile(
    r"^(?:i\s+(?:do\s*n[o']?t|cannot|can't|could\s*n[o']?t|am\s+unable\s+to|was\s+unable\s+to)\s+(?:know|tell|find|determine|"
    r"answer|say|identify|locate)|unknown|n/?a|none\s+of\s+the\s+above|not\s+(?:reported|available|found|given|"
    r"stated|mentioned)|(?:it\s+is\s+)?(?:unclear|impossible\s+to\s+(?:tell|say|determine))|no\s+answer|cannot\s+be\s+determined)\b",
    re.I)


def is_refusal(text: str) -> bool:
    """"I don't know", "Not reported in the paper", "N/A": a statement that there is no answer."""
    return bool(_REFUSAL.match(strip_trailing_punct(text).strip("\"'“”` ")))


def _compare_number(m: Mention, gold: Answer) -> AnswerVerdict:
    g = float(gold.value)  # type: ignore[arg-type]
    gu = gold_unit(gold.unit)
    tol = gold.tolerance
    values = [m.value]
    written = m.text + (f" {m.unit.text}" if m.unit else "")
    if m.unit is not None and gu is not None and m.unit.kind != "label" and gu.kind != "label" and not m.unit.compatible(gu):
        return AnswerVerdict(correct=False, detail=f"read {written}: unit {m.unit.text!r} is not the gold unit {gold.unit!r}")
    if m.unit is not None and m.unit.kind == "physical" and gu is not None and gu.kind == "label":
        return AnswerVerdict(correct=False, detail=f"read {written}: unit {m.unit.text!r} is not the gold unit {gold.unit!r}")
    if m.unit is not None and m.unit.kind == "percent" and (gu is None or gu.kind == "label"):
        values.append(m.value / 100)  # "77.23%" for a gold fraction 0.7723: the answer wrote its unit
    if m.unit is not None and m.unit.kind == "physical" and gu is not None and gu.kind == "physical":
        values = [m.value * m.unit.factor / gu.factor]
    if gu is not None and gu.kind == "magnitude":
        values.append(m.value / gu.factor)  # "7,200,000" for gold 7.2 (M)
    if tol is not None:
        ok = any(abs(v - g) <= tol + 1e-9 * max(1.0, abs(g)) for v in values)
        rule = f"|diff| <= {tol:g}"
    else:
        ok = any(math.isclose(v, g, rel_tol=1e-6, abs_tol=1e-12) for v in values)
        rule = "rel 1e-6"
    shown = gold_display(gold)
    return AnswerVerdict(correct=ok, detail=f"read {written}, gold {shown} ({rule})")


def _negated_only(mentions: list[Mention], text: str) -> AnswerVerdict | None:
    negated = [m for m in mentions if m.role == "negated"]
    if not negated:
        return None
    return AnswerVerdict(correct=False, detail=f"negated: {text[:60]!r} rules out {negated[0].text} and gives no value")


def _offered_number(rest: str, value: Mention, question: str | None, gu: UnitInfo | None) -> Mention | None:
    """A value the lines after the answer offer in its place ("or 84.7", "it might also be 79.1", a bare "79.1")."""
    for seg in sentences(rest):
        _, mentions = numbers_in(seg, question, gu)
        clauses = Clauses.of(seg, after_answer=True)
        others = [m for m in mentions if m.role in ("candidate", "setting") and not m.same_value(value)]
        if any(clauses.mode(m.start, m.end) == "alternative" for m in others if m.role == "candidate"):
            return others[0]
        if others and is_bare(seg, [(m.start, m.end) for m in mentions]):
            return others[0]
    return None


def read_number(ext: ExtractedAnswer, gold: Answer, question: str | None = None) -> tuple[Mention | None, AnswerVerdict | None]:
    """The one value an answer commits to, or the verdict that says why there is none (hedged, negated, no value)."""
    gu = gold_unit(gold.unit)
    text, rest = commit_split(ext.text, ext.rest, ext.source, lambda s: bool(numbers_in(s, question, gu)[0]))
    cands, mentions = numbers_in(text, question, gu)
    values = distinct_values(cands)
    word = strip_trailing_punct(text).lower()
    if not values and word in _NUMBER_WORDS:
        values = cands = [Mention(value=_NUMBER_WORDS[word], text=word, start=0, end=len(word))]
    if not values:
        return None, _negated_only(mentions, text) or _unparseable(f"no value in {ext.text[:60]!r}")
    if len(values) > 1:
        kinds = {c.role for c in cands}
        what = "a range" if _is_range(text) else "a list of candidates" if len(values) > 2 else "alternatives"
        if kinds == {"bound"}:
            what = "bounds"
        return None, _hedged(f"{what} {', '.join(v.text for v in values[:5])}")
    if cands[0].role == "bound":
        return None, _hedged(f"a bound ({cands[0].text}), not a value")
    other = _offered_number(rest, values[0], question, gu)
    if other is not None:
        return None, _hedged(f"alternative {other.text} offered after {values[0].text}")
    return values[0], None


def match_number(ext: ExtractedAnswer, gold: Answer, question: str | None = None) -> AnswerVerdict:
    value, why_not = read_number(ext, gold, question)
    return _compare_number(value, gold) if value is not None else why_not  # type: ignore[return-value]


_RANGE = re.compile(r"\bbetween\b.+\band\b|\d\s*(?:-|–|—|to)\s*\d|\bfrom\b.+\bto\b", re.I)


def _is_range(text: str) -> bool:
    return bool(_RANGE.search(text))


# -- text -------------------------------------------------------------------------------------

def _text_candidates(gold: Answer) -> list[str]:
    out = [str(gold.value)] + [a for a in gold.aliases if a.strip()]
    return [o for o in out if o.strip()]


def _is_list(line: str) -> bool:
    parts = [p.strip() for p in re.split(r"[,;]|\s+and\s+", line) if p.strip()]
    return len(parts) >= 2 and all(len(p.split()) <= 3 and (p[0].isupper() or p[0].isdigit()) for p in parts)


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<![\w\-/])" + r"\s+".join(words) + r"(?![\w\-/])", re.I)


_GOLD = "XGOLDX"  # stands for the gold name (or an alias) while the clauses around it are read
_ANY_CONTENT = {"or", ", or", "unless", "otherwise", "or else", "if not", "alternatively", "and/or", "vs", "vs.", "versus", "/"}


def _mask(text: str, accepted: list[str]) -> str:
    for a in sorted(accepted, key=len, reverse=True):
        core = re.sub(r"^(?:the|a|an)\s+", "", a.strip(), flags=re.I)
        text = _phrase_pattern(core).sub(_GOLD, text)
    return text


def _text_hedge(text: str, rest: str, accepted: list[str]) -> str | None:
    """The alternative a text answer offers, if any: in the answer, anything after "or", "unless", "vs.", "/";
    a name after "maybe", "possibly", "could be"; a name "also possible"; in the lines after it, only names."""
    gold_words = {_GOLD.lower()}
    for part, strict in ((text, False), (rest, True)):
        if not part.strip():
            continue
        masked = _mask(part, accepted)
        clauses = Clauses.of(masked, after_answer=strict)
        for cue in clauses.alternative_cues():
            clause = clauses.clause_after(cue).replace(_GOLD, " ")
            key = " ".join(cue.text.lower().split()).strip()
            offered = re.search(r"[A-Za-z0-9]", clause) if key in _ANY_CONTENT and not strict else has_name(clause, gold_words)
            if offered:
                return f"{cue.text.strip()}{clause}".strip()[:80]
        for m in re.finditer(r"[A-Za-z][\w\-]*", masked):
            if m.group(0) != _GOLD and has_name(m.group(0)) and POST_ALTERNATIVE.match(masked[m.end():m.end() + 60]):
                return masked[m.start():m.end() + 30].strip()
    return None


def match_text(ext: ExtractedAnswer, gold: Answer) -> AnswerVerdict:
    accepted = _text_candidates(gold)
    line = ext.text if ext.source != "whole" else last_line(ext.text)
    line = strip_trailing_punct(line).strip("\"'“”‘’ ")
    norm = normalize_text(line)
    if not norm:
        return _unparseable(f"no text answer in {ext.text[:60]!r}")
    keys = {normalize_text(a) for a in accepted}
    hedge = _text_hedge(ext.text, ext.rest, accepted)
    if norm in keys and hedge is None:
        return AnswerVerdict(correct=True, detail=f"normalised {norm[:60]!r}")
    if is_refusal(line):
        return _unparseable(f"a refusal: {line[:60]!r}")
    if hedge is not None:
        return _hedged(f"an alternative offered: {hedge!r}")
    if _is_list(line) and not any(_is_list(a) for a in accepted):
        return _hedged(f"a list of candidates {line[:80]!r}")
    masked = _mask(line, accepted)
    clauses = Clauses.of(masked)
    modes = [clauses.mode(m.start(), m.end()) for m in re.finditer(_GOLD, masked)]
    if any(mode != "negated" for mode in modes):
        return AnswerVerdict(correct=True, detail=f"the answer names {str(gold.value)!r}")
    if modes:
        return AnswerVerdict(correct=False, detail=f"negated: the answer rules out {str(gold.value)!r}")
    num = _as_number(str(gold.value))
    if num is not None:  # a table cell kept as text ("85.3"): compare as a number
        return match_number(ext, Answer(format="number", value=num))
    return AnswerVerdict(correct=False, detail=f"normalised {norm[:60]!r}")


def _as_number(s: str) -> float | None:
    try:
        return float(s.replace(",", "").strip())
    except ValueError:
        return None


# -- entry point ------------------------------------------------------------------------------

def match_answer(answer: str | bytes | None, gold: Answer, question: str | None = None) -> AnswerVerdict:
    """The matcher's verdict on one answer; `question` lets numbers that restate it be set aside."""
    ext = extract_answer(answer)
    if not ext.ok:
        return _unparseable(ext.problem or "no answer")
    if is_placeholder_answer(ext.text):  # `Final answer: <answer>` copied from the instructions
        return _unparseable(f"no answer: {ext.text.strip()[:60]!r} only repeats the instructions' placeholder")
    if gold.format == "choice":
        return match_choice(ext, gold)
    if gold.format == "number":
        return match_number(ext, gold, question)
    if gold.format == "set":
        return match_set(ext, gold)
    return match_text(ext, gold)

