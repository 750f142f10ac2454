"""Set answers: items read the ways people write lists, scored by precision/recall/F1 (LiveDRBench).

Items are split on bullets and lines, `;`, `,`, "and" and a `/` between whole names (`KeskaMask/UlmsaSeg`;
`w/o attention` and `A/B testing` stay names); a JSON list is read as one. Gold items that hold commas
("Smith, J.") are kept whole by also trying the coarser readings, and the reading that fits best counts.
A set stated in a sentence is read too: the lead-in (`The methods that qualify are`, `Both qualify:`), the
predicate (`... both qualify`, `... meet the condition`) and what the sentence excludes (`, while
VeltorParse does not`, `but not X`, `; X does not`) are not items. Greedy one-to-one matching: each gold
item is used once; correct means the exact gold set. An alias for a set item is written "gold item=accepted
spelling". A list that offers alternatives ("X, Y or possibly Z", or "maybe also Z" on the next line) is hedged.
"""
from __future__ import annotations

import json
import re
import string
import unicodedata

from harness.episode import Answer

from .answer_clauses import Clauses, has_name, sentences
from .answer_text import ExtractedAnswer, strip_trailing_punct
from .model import AnswerVerdict

_PUNCT = str.maketrans({c: " " for c in string.punctuation})
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_BULLET = re.compile(r"^\s*(?:[-*+•·]|\d{1,2}[.)])\s+")
_LEAD = re.compile(r"^\s*(?:and|&|or|only|both|just|namely)\s+", re.I)
_TRAILING_NOTE = re.compile(r"\s*\([^()]*\)\s*$")
# "The methods are X and Y": the lead-in of a sentence that lists the items
_PREAMBLE = re.compile(r"^[^:;\n]{0,120}?\b(?:are|is|were|was|include|includes|including|comprise|contains?)\s*:?\s+", re.I)
_COLON_LEAD = re.compile(r"^[^:\n]{0,80}:\s+")
_HEDGE = re.compile(r"\bor\b|\bpossibly\b|\bmaybe\b|\bperhaps\b|\beither\b|\band/or\b", re.I)
# a slash between two whole names (two or more letters each side), not inside "w/o" or "A/B testing"
_SLASH = re.compile(r"(?<=[\w)][\w)])\s*/\s*(?=[\w(][\w(])|\s+/\s+")
# what a sentence says of its items after naming them ("... both qualify", "... meet the condition")
_PREDICATE = re.compile(
    r"\s+(?:(?:both|all|each|together|also|alone)\s+)?(?:qualify|qualifies|qualified|meet|meets|satisfy|satisfies|pass|"
    r"passes|do|does|are|is|were|was|have|has|remain|remains|fit|fits|match|matches|exceed|exceeds|reach|reaches|"
    r"achieve|achieves|hold|holds|make|makes)\b.*$", re.I)
# what a sentence excludes: ", while X does not", ", but not X", "except X"
_CONTRAST = re.compile(r"\s*[,(]?\s*\b(?:while|whereas|but|although|though|except|excluding|unlike)\b.*$|\s*[,(]\s*not\b.*$",
                       re.I | re.S)
_NEGATED_CLAUSE = re.compile(r"\b(?:not|never|none|neither|nor|fails?|excluded|eliminated|ruled\s+out)\b|n[’']t\b", re.I)
_NOTE = re.compile(r"\s*\([^()]*\)")


def _norm(s: str) -> str:
    s = unicodedata.normalize("NFKC", s).lower().replace("\u2212", "-").translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", s).split())


def item_key(s: str) -> str:
    """Normalised set item; pure numbers compare by value ("3.50" == "3.5")."""
    try:
        return repr(float(s.strip().replace(",", "")))
    except ValueError:
        return _norm(s)


def _clean_item(s: str) -> str:
    s = _BULLET.sub("", s.strip())
    s = _LEAD.sub("", s)
    return strip_trailing_punct(s).strip("\"'“”‘’` ").strip()


def _split(t: str) -> list[list[str]]:
    coarse = [p for p in re.split(r"[;\n]", t) if p.strip()]
    comma = [q for p in coarse for q in p.split(",") if q.strip()]
    anded = [r for q in comma for r in re.split(r"\s+(?:and|&)\s+", q) if r.strip()]
    slashed = [x for r in anded for x in _SLASH.split(r) if x.strip()]
    return [[t], coarse, comma, anded, slashed]


def readings(text: str) -> list[list[str]]:
    """Candidate item lists, coarse to fine: JSON list; lines/`;`; then `,`; then "and"; then `/`."""
    t = text.strip()
    if t.startswith("["):
        try:
            data = json.loads(t)
            if isinstance(data, list):
                return [[str(x).strip() for x in data if str(x).strip()]]
        except json.JSONDecodeError:
            t = t.strip("[]")
    out: list[list[str]] = []
    for r in _split(t):
        items = [c for c in (_clean_item(x) for x in r) if c]
        if items and items not in out:
            out.append(items)
    return out


def _sentence_clauses(text: str) -> list[str]:
    """The clauses of a sentence answer that name items: what each excludes cut off, negated ones dropped."""
    out = []
    for sent in sentences(text, semicolons=False):
        for clause in re.split(r";", sent):
            clause = _CONTRAST.sub("", _NOTE.sub("", clause)).strip()
            if clause and not _NEGATED_CLAUSE.search(clause):
                out.append(clause)
    return out


def sentence_readings(text: str) -> list[list[str]]:
    """Item lists of a set stated in sentences: lead-ins and predicates dropped ("Both X and Y qualify.")."""
    out: list[list[str]] = []
    clauses = _sentence_clauses(text)
    whole = sentences(text, semicolons=False)
    groups = [clauses, _sentence_clauses(whole[0])] if len(whole) > 1 else [clauses]
    for group in groups:
        for lead in (None, _PREAMBLE, _COLON_LEAD):
            parts = [lead.sub("", c, count=1) if lead else c for c in group]
            for r in _split("; ".join(parts))[2:]:
                items = [c for c in (_clean_item(_PREDICATE.sub("", x)) for x in r) if c]
                if items and items not in out:
                    out.append(items)
    return out


def _accepted(gold: Answer, items: list[str]) -> list[set[str]]:
    accepted = [{item_key(g)} for g in items]
    for alias in gold.aliases:
        if "=" not in alias:
            continue
        item, _, other = alias.partition("=")
        for i, g in enumerate(items):
            if item_key(g) == item_key(item):
                accepted[i].add(item_key(other))
    return accepted


def score_items(preds_raw: list[str], gold_items: list[str], accepted: list[set[str]]) -> AnswerVerdict:
    """Precision/recall/F1 by greedy one-to-one matching; correct iff exactly the gold set."""
    preds: list[str] = []
    for p in preds_raw:
        if item_key(p) not in {item_key(q) for q in preds}:
            preds.append(p)
    if not preds:
        return AnswerVerdict(correct=False, parseable=False, detail="no items", precision=0.0, recall=0.0, f1=0.0)
    used: set[int] = set()
    matched = 0
    for p in preds:
        keys = {item_key(p), item_key(_TRAILING_NOTE.sub("", p))}
        for i, acc in enumerate(accepted):
            if i not in used and keys & acc:
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


def answer_readings(ext: ExtractedAnswer) -> list[list[str]]:
    """Every item list the answer can be read as, lead-in dropped too ("The methods are X and Y"), and as
    sentences ("Both X and Y qualify, while Z does not")."""
    out = readings(ext.text)
    if _PREAMBLE.match(ext.text):
        out += readings(_PREAMBLE.sub("", ext.text, count=1))
    return out + [r for r in sentence_readings(ext.text) if r not in out]


def _offered_after(rest: str, items: list[str]) -> str | None:
    """A name the lines after the answer offer as another item ("maybe also VeltorParse")."""
    answered = {w.lower() for i in items for w in re.findall(r"[\w\-]+", i)}
    clauses = Clauses.of(rest, after_answer=True)
    for cue in clauses.alternative_cues():
        clause = clauses.clause_after(cue)
        if has_name(clause, answered):
            return f"{cue.text.strip()}{clause}".strip()[:80]
    return None


def match_set(ext: ExtractedAnswer, gold: Answer) -> AnswerVerdict:
    gold_items = [str(x) for x in gold.value] if isinstance(gold.value, list) else [str(gold.value)]
    accepted = _accepted(gold, gold_items)
    text = ext.text
    gold_words = " ".join(gold_items + list(gold.aliases))
    if _HEDGE.search(text) and not _HEDGE.search(gold_words):
        best = max((score_items(r, gold_items, accepted) for r in readings(_HEDGE.sub(",", text))),
                   key=lambda v: v.f1 or 0.0)
        return best.model_copy(update={"correct": False, "hedged": True, "detail": f"hedged: alternatives in a list ({best.detail})"})
    best: AnswerVerdict | None = None
    best_items: list[str] = []
    for r in answer_readings(ext):
        v = score_items(r, gold_items, accepted)
        if best is None or (v.correct, v.f1 or 0.0) > (best.correct, best.f1 or 0.0):
            best, best_items = v, r
    if best is None:
        return AnswerVerdict(correct=False, parseable=False, detail="no items")
    other = _offered_after(ext.rest, best_items) if ext.rest else None
    if other is not None:
        return best.model_copy(update={"correct": False, "hedged": True, "detail": f"hedged: {other!r} offered after the list"})
    return best
