"""The deterministic matcher: a binary verdict per answer format (choice, number, text, set).

Tolerant of how agents write answers ("(B)", "Answer: 3.5 %", "A; B; C", a JSON list) but never of a
different value. Set answers also get precision, recall and F1 with greedy one-to-one matching
(LiveDRBench); a set is correct only if it is exactly the gold set. For set answers an alias is
written "gold item=accepted spelling" in the episode's `aliases`.
"""
from __future__ import annotations

import json
import math
import re
import string
import unicodedata

from harness.episode import Answer

from .model import AnswerVerdict

_PREFIX = re.compile(r"^\s*(?:(?:the\s+)?(?:final\s+)?answer\s*(?:is)?\s*[:\-=]?\s*|option\s+)", re.IGNORECASE)
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+")
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_PUNCT = str.maketrans({c: " " for c in string.punctuation})
_LONE_LETTER = re.compile(r"^[\(\[]?([A-Za-z])[\)\]]?[.:]?$")
_LEADING_LETTER = re.compile(r"^(?:\(([A-Za-z])\)|([A-Z])[\).:])\s*(.*)$", re.DOTALL)


def strip_prefix(answer: str) -> str:
    """Drop a leading 'Answer:' / 'The answer is' / 'Option' and surrounding whitespace."""
    return _PREFIX.sub("", answer.strip(), count=1).strip()


def normalize_text(s: str) -> str:
    """Case, unicode, punctuation, articles and whitespace normalised (SQuAD-style)."""
    s = unicodedata.normalize("NFKC", s).lower().replace("\u2212", "-")
    s = s.translate(_PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def parse_number(s: str) -> float | None:
    """The first number in s (commas, units and % stripped), or None."""
    m = _NUMBER.search(s.replace("\u2212", "-"))
    if not m:
        return None
    try:
        return float(m.group(0).replace(",", ""))
    except ValueError:
        return None


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


def match_choice(answer: str, gold: Answer) -> AnswerVerdict:
    letters = {k.upper() for k in gold.choices} if gold.choices else set(string.ascii_uppercase)
    want = str(gold.value).strip().upper()
    a = strip_prefix(answer)
    picked: str | None = None
    m = _LONE_LETTER.match(a)
    if m and m.group(1).upper() in letters:
        picked = m.group(1).upper()
    if picked is None:
        m = _LEADING_LETTER.match(a)
        if m:
            letter = (m.group(1) or m.group(2)).upper()
            if letter in letters:
                picked = letter
    if picked is None and gold.choices:
        na = normalize_text(a)
        exact = [k for k, text in gold.choices.items() if normalize_text(text) == na]
        inside = [k for k, text in gold.choices.items() if normalize_text(text) and normalize_text(text) in na]
        hits = exact or inside
        if len(hits) == 1:
            picked = hits[0].upper()
    if picked is None:
        return AnswerVerdict(correct=False, parseable=False, detail=f"no option letter found in {answer[:60]!r}")
    return AnswerVerdict(correct=picked == want, detail=f"picked {picked}, gold {want}")


def match_number(answer: str, gold: Answer) -> AnswerVerdict:
    pred = parse_number(answer)
    g = float(gold.value)  # type: ignore[arg-type]
    if pred is None:
        return AnswerVerdict(correct=False, parseable=False, detail=f"no number in {answer[:60]!r}")
    if gold.tolerance is not None:
        ok = abs(pred - g) <= gold.tolerance + 1e-12
        rule = f"|diff| <= {gold.tolerance:g}"
    else:
        ok = math.isclose(pred, g, rel_tol=1e-6, abs_tol=1e-12)
        rule = "rel 1e-6"
    return AnswerVerdict(correct=ok, detail=f"parsed {pred:g}, gold {g:g} ({rule})")


def match_text(answer: str, gold: Answer) -> AnswerVerdict:
    accepted = {normalize_text(str(gold.value))} | {normalize_text(a) for a in gold.aliases}
    na = normalize_text(strip_prefix(answer))
    if not na:
        return AnswerVerdict(correct=False, parseable=False, detail="empty answer")
    return AnswerVerdict(correct=na in accepted, detail=f"normalised {na[:60]!r}")


def split_set_answer(answer: str) -> list[str]:
    """Items of a set answer: a JSON list, else split on ';' / newlines, else on ','."""
    a = strip_prefix(answer)
    if a.startswith("["):
        try:
            data = json.loads(a)
            if isinstance(data, list):
                return [str(x).strip() for x in data if str(x).strip()]
        except json.JSONDecodeError:
            a = a.strip("[]")
    parts = re.split(r"[;\n]", a) if re.search(r"[;\n]", a) else a.split(",")
    items = []
    for p in parts:
        p = re.sub(r"^\s*(?:and|&)\s+", "", p.strip().strip("-*\u2022").strip())
        if p:
            items.append(p)
    return items


def _item_key(s: str) -> str:
    """Normalised set item; pure numbers compare by value ("3.50" == "3.5")."""
    n = normalize_text(s)
    try:
        return repr(float(s.strip().replace(",", "")))
    except ValueError:
        return n


def _set_aliases(gold: Answer, items: list[str]) -> list[set[str]]:
    accepted = [{_item_key(g)} for g in items]
    for alias in gold.aliases:
        if "=" not in alias:
            continue
        item, _, other = alias.partition("=")
        for i, g in enumerate(items):
            if _item_key(g) == _item_key(item):
                accepted[i].add(_item_key(other))
    return accepted


def _score_items(preds_raw: list[str], gold_items: list[str], accepted: list[set[str]]) -> AnswerVerdict:
    preds: list[str] = []
    for p in preds_raw:
        if _item_key(p) not in {_item_key(q) for q in preds}:
            preds.append(p)
    if not preds:
        return AnswerVerdict(correct=False, parseable=False, detail="no items", precision=0.0, recall=0.0, f1=0.0)
    used: set[int] = set()
    matched = 0
    for p in preds:  # greedy one-to-one: each gold item is used once
        k = _item_key(p)
        for i, acc in enumerate(accepted):
            if i not in used and k in acc:
                used.add(i)
                matched += 1
                break
    precision = matched / len(preds)
    recall = matched / len(gold_items)
    f1 = 0.0 if matched == 0 else 2 * precision * recall / (precision + recall)
    return AnswerVerdict(
        correct=matched == len(gold_items) == len(preds), precision=precision, recall=recall, f1=f1,
        detail=f"{matched} of {len(preds)} items match {len(gold_items)} gold items",
    )


def match_set(answer: str, gold: Answer) -> AnswerVerdict:
    """Precision/recall/F1 with greedy one-to-one matching; correct iff exactly the gold set.

    Without ';' or newlines an answer is read both comma-split and as one item (gold items may hold
    commas, e.g. "Smith, J."), and the better reading counts.
    """
    gold_items = [str(x) for x in gold.value] if isinstance(gold.value, list) else [str(gold.value)]
    accepted = _set_aliases(gold, gold_items)
    best = _score_items(split_set_answer(answer), gold_items, accepted)
    whole = strip_prefix(answer)
    if not re.search(r"[;\n]", whole) and "," in whole and not whole.startswith("["):
        alt = _score_items([whole], gold_items, accepted)
        if (alt.correct, alt.f1 or 0.0) > (best.correct, best.f1 or 0.0):
            best = alt
    return best


def match_answer(answer: str | None, gold: Answer) -> AnswerVerdict:
    """The matcher's verdict on one answer; None or blank is wrong and unparseable."""
    if answer is None or not answer.strip():
        return AnswerVerdict(correct=False, parseable=False, detail="no answer")
    if gold.format == "choice":
        return match_choice(answer, gold)
    if gold.format == "number":
        return match_number(answer, gold)
    if gold.format == "set":
        return match_set(answer, gold)
    return match_text(answer, gold)
