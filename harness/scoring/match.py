"""The deterministic matcher: one verdict per answer, graded the way a careful person grades.

The rules, in order (README "How answers are matched" has examples of each):
1. Reasoning blocks (`<think>…</think>` and the like) are dropped; the last `Final answer:` line wins,
   else a `\\boxed{}`, else an `Answer:` line, else the whole answer. Markdown and LaTeX dressing go.
2. An answer that offers alternatives, a range, a bound or a list of candidates for one value is
   wrong and the verdict says `hedged`; several mentions of the same value are one candidate.
3. Numbers: identifiers, references, citation years, operands of a worked sum and uncertainties are
   never the answer (`numbers.py`); units are read and compared (`units.py`): a different unit is
   wrong, percent and fraction are converted only when the answer writes `%`.
4. Choice: one option letter, or the text of exactly one option. Text: the normalised gold or an
   alias, or a sentence naming exactly it. Set: the exact gold set (precision/recall/F1 reported).
Empty, whitespace-only, binary or enormous answers are wrong and unparseable, never an exception.
"""
from __future__ import annotations

import math
import re
import string
import unicodedata

from harness.episode import Answer

from .answer_text import ExtractedAnswer, extract_answer, last_line, strip_trailing_punct
from .match_set import match_set
from .model import AnswerVerdict
from .numbers import Mention, distinct_values, numbers_in
from .units import gold_unit

_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_PUNCT = str.maketrans({c: " " for c in string.punctuation})
_ALTERNATIVES = re.compile(r"\s+or\s+|\s+/\s+|\beither\b|\bversus\b|\bvs\.?\s|\bor\s+possibly\b|\bor\s+maybe\b|\band/or\b", re.I)
_LETTER = re.compile(r"(?<![\w'’\-])([A-Z])(?![\w'’\-])")
_LOWER_LETTER = re.compile(r"\(([a-z])\)|\b(?:option|choice|answer)\s*:?\s*\(?([a-z])\)?(?![\w'’])", re.I)
_ARTICLE_VERBS = {"is", "was", "or", "and", "seems", "appears", "would", "should", "because", "since", "wins",
                  "gives", "has", "matches", "holds", "remains", "looks", "nor", "vs", "versus"}
_LETTER_REFERENCE = re.compile(r"\b(?:appendix|table|figure|fig|section|sec|part|panel|model|type|plan|grade|class|group)\.?\s*$", re.I)
_NEGATED = re.compile(r"\b(?:not|n't|never|rather\s+than|instead\s+of|unlike)\s+(?:the\s+)?$", re.I)


def normalize_text(s: str) -> str:
    """Case, unicode, punctuation, articles and whitespace normalised (SQuAD-style)."""
    s = unicodedata.normalize("NFKC", s).lower().replace("\u2212", "-")
    s = s.translate(_PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


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


def match_number(ext: ExtractedAnswer, gold: Answer, question: str | None = None) -> AnswerVerdict:
    cands, _ = numbers_in(ext.text, question, gold_unit(gold.unit))
    values = distinct_values(cands)
    word = strip_trailing_punct(ext.text).lower()
    if not values and word in _NUMBER_WORDS:
        values = cands = [Mention(value=_NUMBER_WORDS[word], text=word, start=0, end=len(word))]
    if not values:
        return _unparseable(f"no value in {ext.text[:60]!r}")
    if len(values) > 1:
        kinds = {c.role for c in cands}
        what = "a range" if _is_range(ext.text) else "a list of candidates" if len(values) > 2 else "alternatives"
        if kinds == {"bound"}:
            what = "bounds"
        return _hedged(f"{what} {', '.join(v.text for v in values[:5])}")
    if cands[0].role == "bound":
        return _hedged(f"a bound ({cands[0].text}), not a value")
    return _compare_number(values[0], gold)


_RANGE = re.compile(r"\bbetween\b.+\band\b|\d\s*(?:-|–|—|to)\s*\d|\bfrom\b.+\bto\b", re.I)


def _is_range(text: str) -> bool:
    return bool(_RANGE.search(text))


# -- choice -----------------------------------------------------------------------------------

def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<![\w\-/])" + r"\s+".join(words) + r"(?![\w\-/])", re.I)


def _mark_options(text: str, choices: dict[str, str]) -> str:
    """Replace each option's text by a ⟦letter⟧ marker (longest first), so option texts count as mentions."""
    for letter, option in sorted(choices.items(), key=lambda kv: -len(kv[1])):
        if option.strip():
            text = _phrase_pattern(option.strip()).sub(f" ⟦{letter.upper()}⟧ ", text)
    return text


def _letters(text: str, allowed: set[str]) -> list[str]:
    found: list[str] = []

    def add(x: str) -> None:
        if x in allowed and x not in found:
            found.append(x)

    stripped = strip_trailing_punct(text).strip("()[]{}*` ")
    if len(stripped) == 1 and stripped.upper() in allowed:
        return [stripped.upper()]
    for m in re.finditer(r"⟦([A-Z])⟧|" + _LETTER.pattern + "|" + _LOWER_LETTER.pattern, text, re.I):
        marked, upper, low1, low2 = m.group(1), m.group(2), m.group(3), m.group(4)
        if marked:
            add(marked)
            continue
        if upper and upper.isupper():
            follow = re.match(r"\s+([a-z]+)", text[m.end():])
            if upper in ("A", "I") and follow and follow.group(1) not in _ARTICLE_VERBS:
                continue  # "A higher value ...": an article, not option A
            if _LETTER_REFERENCE.search(text[max(0, m.start() - 20):m.start()]):
                continue  # "Appendix B", "Table A"
            add(upper)
        elif low1 or low2:
            add((low1 or low2).upper())
    return found


def match_choice(ext: ExtractedAnswer, gold: Answer) -> AnswerVerdict:
    choices = {k.upper(): v for k, v in (gold.choices or {}).items()}
    allowed = set(choices) or set("ABCDEFGH")
    want = str(gold.value).strip().upper()
    text = ext.text
    norm = normalize_text(strip_trailing_punct(text))
    exact = [k for k, v in choices.items() if normalize_text(v) and normalize_text(v) == norm]
    picked = exact if len(exact) == 1 else _letters(_mark_options(text, choices), allowed)
    if not picked:
        return _unparseable(f"no option letter or option text in {ext.text[:60]!r}")
    if len(picked) > 1:
        return _hedged(f"several options {', '.join(picked)}")
    return AnswerVerdict(correct=picked[0] == want, detail=f"picked {picked[0]}, gold {want}")


# -- text -------------------------------------------------------------------------------------

def _text_candidates(gold: Answer) -> list[str]:
    out = [str(gold.value)] + [a for a in gold.aliases if a.strip()]
    return [o for o in out if o.strip()]


def _is_list(line: str) -> bool:
    parts = [p.strip() for p in re.split(r"[,;]|\s+and\s+", line) if p.strip()]
    return len(parts) >= 2 and all(len(p.split()) <= 3 and (p[0].isupper() or p[0].isdigit()) for p in parts)


def match_text(ext: ExtractedAnswer, gold: Answer) -> AnswerVerdict:
    accepted = _text_candidates(gold)
    line = ext.text if ext.source != "whole" else last_line(ext.text)
    line = strip_trailing_punct(line).strip("\"'“”‘’ ")
    norm = normalize_text(line)
    if not norm:
        return _unparseable(f"no text answer in {ext.text[:60]!r}")
    keys = {normalize_text(a) for a in accepted}
    if norm in keys:
        return AnswerVerdict(correct=True, detail=f"normalised {norm[:60]!r}")
    if is_refusal(line):
        return _unparseable(f"a refusal: {line[:60]!r}")
    gold_has_alt = any(_ALTERNATIVES.search(f" {a} ") for a in accepted)
    if not gold_has_alt and len([p for p in _ALTERNATIVES.split(line) if p and p.strip()]) > 1:
        return _hedged(f"alternatives in {line[:80]!r}")
    if _is_list(line) and not any(_is_list(a) for a in accepted):
        return _hedged(f"a list of candidates {line[:80]!r}")
    for a in accepted:
        core = re.sub(r"^(?:the|a|an)\s+", "", a.strip(), flags=re.I)
        for m in _phrase_pattern(core).finditer(line):
            if not _NEGATED.search(line[max(0, m.start() - 25):m.start()]):
                return AnswerVerdict(correct=True, detail=f"the answer names {core!r}")
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
    if gold.format == "choice":
        return match_choice(ext, gold)
    if gold.format == "number":
        return match_number(ext, gold, question)
    if gold.format == "set":
        return match_set(ext, gold)
    return match_text(ext, gold)

