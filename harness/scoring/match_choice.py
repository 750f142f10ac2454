"""Choice answers: one option letter, or the text of exactly one option, read clause by clause.

`D`, `(d)`, `Option D`, `\\boxed{D}`, `D. NorloDet` and `NorloDet` pick D. Two options offered (`C or A`,
`A, B, C`, `B/C`, `D vs. C`, `D\\nor C` on the next line) are hedged. An option named in a reason, a
comparison or a negation is not offered (`D, because C is lower`, `D (not C)`, `ahead of TavquinGNN (B)`),
and a negated sole option is a wrong answer (`Not D.`, `D is incorrect`, `anything but D`).
"""
from __future__ import annotations

import re

from harness.episode import Answer

from .answer_clauses import Clauses, Mode, commit_split, is_bare, sentences
from .answer_text import ExtractedAnswer, normalize_text, strip_trailing_punct
from .model import AnswerVerdict

_LETTER = re.compile(r"(?<![\w'’\-])([A-Z])(?![\w'’\-])")
_LOWER_LETTER = re.compile(r"\(([a-z])\)|\b(?:option|choice|answer)\s*:?\s*\(?([a-z])\)?(?![\w'’])", re.I)
_ARTICLE_VERBS = {"is", "was", "or", "and", "seems", "appears", "would", "should", "because", "since", "wins",
                  "gives", "has", "matches", "holds", "remains", "looks", "nor", "vs", "versus"}
_LETTER_REFERENCE = re.compile(r"\b(?:appendix|table|figure|fig|section|sec|part|panel|model|type|plan|grade|class|group)\.?\s*$", re.I)
_MENTION = re.compile(r"⟦([A-Z])⟧|" + _LETTER.pattern + "|" + _LOWER_LETTER.pattern, re.I)


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<![\w\-/])" + r"\s+".join(words) + r"(?![\w\-/])", re.I)


def _mark_options(text: str, choices: dict[str, str]) -> str:
    """Replace each option's text by a ⟦letter⟧ marker (longest first), so option texts count as mentions."""
    for letter, option in sorted(choices.items(), key=lambda kv: -len(kv[1])):
        if option.strip():
            text = _phrase_pattern(option.strip()).sub(f" ⟦{letter.upper()}⟧ ", text)
    return text


def letter_mentions(text: str, allowed: set[str]) -> list[tuple[str, int, int]]:
    """(letter, start, end) of each option named in a text whose option texts are marked."""
    stripped = strip_trailing_punct(text).strip("()[]{}*` ")
    if len(stripped) == 1 and stripped.upper() in allowed:
        i = text.find(stripped)
        return [(stripped.upper(), i, i + 1)]
    found: list[tuple[str, int, int]] = []
    for m in _MENTION.finditer(text):
        marked, upper, low1, low2 = m.group(1), m.group(2), m.group(3), m.group(4)
        letter = None
        if marked:
            letter = marked
        elif upper and upper.isupper():
            follow = re.match(r"\s+([a-z]+)", text[m.end():])
            if upper in ("A", "I") and follow and follow.group(1) not in _ARTICLE_VERBS:
                continue  # "A higher value ...": an article, not option A
            if _LETTER_REFERENCE.search(text[max(0, m.start() - 20):m.start()]):
                continue  # "Appendix B", "Table A"
            letter = upper
        elif low1 or low2:
            letter = (low1 or low2).upper()
        if letter in allowed:
            found.append((letter, m.start(), m.end()))
    return found


def _by_mode(text: str, allowed: set[str]) -> dict[Mode, list[str]]:
    clauses = Clauses.of(text)
    out: dict[Mode, list[str]] = {"assert": [], "alternative": [], "reason": [], "negated": []}
    for letter, a, b in letter_mentions(text, allowed):
        bucket = out[clauses.mode(a, b)]
        if letter not in bucket:
            bucket.append(letter)
    return out


def _offered_after(rest: str, picked: str, choices: dict[str, str], allowed: set[str]) -> str | None:
    """An option the lines after the answer offer in its place ("or C", "Alternatively C.", a bare "C")."""
    for seg in sentences(rest):
        marked = _mark_options(seg, choices)
        mentions = letter_mentions(marked, allowed)
        clauses = Clauses.of(marked, after_answer=True)
        others = [(x, a, b) for x, a, b in mentions if x != picked]
        if any(clauses.mode(a, b) == "alternative" for _, a, b in others):
            return others[0][0]
        if others and is_bare(marked, [(a, b) for _, a, b in mentions]):
            return others[0][0]
    return None


def match_choice(ext: ExtractedAnswer, gold: Answer) -> AnswerVerdict:
    choices = {k.upper(): v for k, v in (gold.choices or {}).items()}
    allowed = set(choices) or set("ABCDEFGH")
    want = str(gold.value).strip().upper()
    text, rest = commit_split(ext.text, ext.rest, ext.source,
                              lambda s: bool(letter_mentions(_mark_options(s, choices), allowed)))
    norm = normalize_text(strip_trailing_punct(text))
    exact = [k for k, v in choices.items() if normalize_text(v) and normalize_text(v) == norm]
    modes = {"assert": exact, "alternative": [], "reason": [], "negated": []} if len(exact) == 1 else \
        _by_mode(_mark_options(text, choices), allowed)
    offered = list(dict.fromkeys(modes["assert"] + modes["alternative"])) or modes["reason"]
    if not offered and modes["negated"]:
        return AnswerVerdict(correct=False, detail=f"negated: the answer rules out {', '.join(modes['negated'])} and picks none")
    if not offered:
        return AnswerVerdict(correct=False, parseable=False, detail=f"no option letter or option text in {ext.text[:60]!r}")
    if len(offered) > 1:
        return AnswerVerdict(correct=False, hedged=True, detail=f"hedged: several options {', '.join(offered)}")
    other = _offered_after(rest, offered[0], choices, allowed)
    if other is not None:
        return AnswerVerdict(correct=False, hedged=True, detail=f"hedged: option {other} offered after {offered[0]}")
    return AnswerVerdict(correct=offered[0] == want, detail=f"picked {offered[0]}, gold {want}")
