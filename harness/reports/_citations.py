"""The one citation syntax of a report, and its parser.

A citation names a paper and, optionally, one of its units: `[P0123, Figure 2]`, `[P0123, Table 1]`,
`[P0123]` (the paper's text); several in one bracket are separated by `;`
(`[P0123, Table 1; P0456, Figure 2]`). In the live world the paper may be a URL
(`[https://arxiv.org/abs/2101.00001, Figure 2]`). A bracket that tries to cite but does not follow the
syntax (`[12]`, `[P0123 Fig 2]`, `[P0123, Figure]`) is malformed: it is kept as a problem, never guessed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from tools import EvidenceUnit

_BRACKET = re.compile(r"\[([^\[\]\n]{1,400})\](?!\()")  # not a markdown link [text](url)
_PAPER = r"(?:[A-Z]{1,3}\d{2,6}|https?://[^\s,;\]]+)"
_ONE = re.compile(rf"^\s*(?P<paper>{_PAPER})\s*(?:,\s*(?:(?P<kind>figure|table)\s+(?P<n>\d{{1,3}})|(?P<text>text))\s*)?$",
                  re.I)
# brackets that look like an attempt to cite: a paper-like id, a URL, a float word, or numbered references
_ATTEMPT = re.compile(rf"{_PAPER}|\b(?:fig(?:ure)?|tab(?:le)?)\b\.?\s*\d|^\s*\d{{1,3}}(?:\s*[,–-]\s*\d{{1,3}})*\s*$", re.I)


@dataclass(frozen=True)
class Citation:
    """One cited unit as written, where it sits in the text (`start`, `end` of its bracket)."""

    paper: str
    unit: str  # "figure:N" | "table:N" | "text"
    start: int
    end: int

    @property
    def key(self) -> tuple[str, str]:
        return (self.paper, self.unit)

    def as_unit(self) -> EvidenceUnit:
        return EvidenceUnit(paper=self.paper, unit=self.unit)


@dataclass(frozen=True)
class CitationProblem:
    text: str
    start: int
    why: str


def parse_citations(text: str) -> tuple[list[Citation], list[CitationProblem], list[tuple[int, int]]]:
    """(citations, malformed brackets, spans of every bracket read as a citation attempt) in `text`."""
    cites: list[Citation] = []
    problems: list[CitationProblem] = []
    spans: list[tuple[int, int]] = []
    for m in _BRACKET.finditer(text):
        inner = m.group(1)
        if not _ATTEMPT.search(inner):
            continue  # "[sic]", "[x]", a checkbox: not a citation
        spans.append(m.span())
        parts = [p for p in inner.split(";")]
        found: list[Citation] = []
        bad = False
        for part in parts:
            one = _ONE.match(part)
            if one is None:
                bad = True
                break
            paper = one.group("paper")
            if one.group("kind"):
                unit = f"{one.group('kind').lower()}:{int(one.group('n'))}"
            else:
                unit = "text"
            found.append(Citation(paper=paper, unit=unit, start=m.start(), end=m.end()))
        if bad:
            problems.append(CitationProblem(m.group(0), m.start(),
                                            f"citation {m.group(0)!r} is not in the syntax [PAPER, Figure N] / "
                                            f"[PAPER, Table N] / [PAPER]"))
        else:
            cites.extend(found)
    return cites, problems, spans
