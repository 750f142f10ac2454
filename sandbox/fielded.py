"""Fielded re-ranking of sandbox search hits: bibliographic cues name fields, not just words.

A citation cue ("Vance et al. (AAAI 2022), the paper that ...") names a first author, a venue and a
year; papers that merely *cite* that work carry the same words in their reference lists, so a bag of
words ranks them alike. Like scholarly search engines, we add a bonus for matches on the paper's own
fields (first-author surname before "et al.", any author surname, venue, year, title words, method
name, the query's word pairs in title and abstract) on top of the hybrid text score, which still decides among papers the fields do not separate.
"""
from __future__ import annotations

import re

from .corpus.model import CatalogEntry

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*|\d+")
_YEAR = re.compile(r"(?<![\w\-])(19[5-9]\d|20\d\d)(?![\w\-])")  # not "iNaturalist-2018"
_ET_AL = re.compile(r"\b([A-Z][A-Za-z'\-]+)\s+et\s+al\b")
_STOP = {"a", "an", "and", "for", "of", "the", "in", "on", "to", "with", "via", "by", "from", "at", "is", "paper",
         "method", "new", "based", "approach", "using", "towards", "toward"}

# Bonuses in units of the hybrid score, which lies in [0, 1].
FIRST_AUTHOR = 1.0
ANY_AUTHOR = 0.25
VENUE = 0.4
YEAR = 0.8
TITLE_WORDS = 0.8
METHOD_NAME = 1.0
PHRASES = 0.6


def _surname(name: str) -> str:
    parts = name.replace(".", " ").split()
    return parts[-1].lower() if parts else ""


def _content_words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP and len(w) > 1}


def _bigrams(text: str) -> set[tuple[str, str]]:
    words = [w.lower() for w in _WORD.findall(text)]
    return {(a, b) for a, b in zip(words, words[1:]) if not (a in _STOP and b in _STOP)}


def field_bonus(query: str, entry: CatalogEntry) -> float:
    """How strongly the query's bibliographic fields point at this paper (0 when it names none of them)."""
    words = {w.lower() for w in _WORD.findall(query)}
    bonus = 0.0
    surnames = [_surname(a) for a in entry.authors]
    et_al = {m.lower() for m in _ET_AL.findall(query)}
    if surnames and surnames[0] in et_al:
        bonus += FIRST_AUTHOR
    elif any(s and s in words for s in surnames):
        bonus += ANY_AUTHOR
    if entry.venue and re.search(rf"(?<![A-Za-z]){re.escape(entry.venue)}(?![A-Za-z])", query):
        bonus += VENUE
    years = {int(y) for y in _YEAR.findall(query)}
    if entry.year and entry.year in years:
        bonus += YEAR
    title_words = _content_words(entry.title)
    if title_words:
        bonus += TITLE_WORDS * len(title_words & words) / len(title_words)
    head = entry.title.split(":", 1)[0].strip().lower() if ":" in entry.title else ""
    if head and len(head) >= 4 and re.search(rf"(?<![a-z0-9]){re.escape(head)}(?![a-z0-9])", query.lower()):
        bonus += METHOD_NAME
    wanted = _bigrams(query)
    if wanted:  # phrases of the query (a method idea, "ImageNet-1K (linear)") found verbatim in title or abstract
        bonus += PHRASES * len(wanted & _bigrams(f"{entry.title} {entry.abstract or ''}")) / len(wanted)
    return bonus


def rerank(query: str, scored: list[tuple[CatalogEntry, float]]) -> list[tuple[CatalogEntry, float]]:
    """Hybrid score (scaled to [0, 1] over the pool) plus the field bonus, best first; ties keep the hybrid order."""
    if not scored:
        return []
    top = max(s for _, s in scored) or 1.0
    out = [(e, round(s / top + field_bonus(query, e), 6), i) for i, (e, s) in enumerate(scored)]
    out.sort(key=lambda t: (-t[1], t[2]))
    return [(e, s) for e, s, _ in out]
