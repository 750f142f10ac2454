"""Plain-text reading helpers for the heuristic agent: numbers, table cells, quoted names, fact phrases.

They parse the wording of questions (which name the table/figure, row and column in quotes) and the
structured data tools return (`data["rows"]` of table_extract, hits of web_search).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from harness.agent import Observation

_NUM = re.compile(r"[-+]?(?:\d+\.\d+|\d+|\.\d+)(?:[eE][-+]?\d+)?")


def norm(s: str) -> str:
    """Lower-case, collapse whitespace and strip surrounding punctuation, for name matching."""
    return " ".join(s.lower().replace("\u2212", "-").split()).strip(" .,:;*")


def first_number(s: str | None) -> float | None:
    if not s:
        return None
    m = _NUM.search(s.replace("\u2212", "-").replace(",", ""))
    return float(m.group(0)) if m else None


def fmt_number(v: float) -> str:
    r = round(v, 4)
    return str(int(r)) if float(r).is_integer() else f"{r:g}"


def table_cell(rows: list[list[str]], label: str, column: str) -> float | None:
    """The number in row `label` (first cell) under header `column`, matching names loosely."""
    if not rows:
        return None
    header = [norm(c) for c in rows[0]]
    want_col = norm(column)
    col = next((i for i, h in enumerate(header) if h == want_col), None)
    if col is None:
        col = next((i for i, h in enumerate(header) if want_col in h or (h and h in want_col)), None)
    if col is None:
        return None
    for row in rows[1:]:
        if row and norm(row[0]) == norm(label) and col < len(row):
            return first_number(row[col])
    return None


def column_values(rows: list[list[str]], column: str) -> dict[str, float]:
    """Row label -> number in `column`, for every body row that has one."""
    out: dict[str, float] = {}
    if not rows:
        return out
    for row in rows[1:]:
        if row:
            v = table_cell(rows, row[0], column)
            if v is not None:
                out[row[0].strip()] = v
    return out


def letter_for(choices: dict[str, str] | None, text: str) -> str | None:
    """The option letter whose text is `text` (loosely), if any."""
    for letter, option in sorted((choices or {}).items()):
        if norm(option) == norm(text):
            return letter
    return None


@dataclass(frozen=True)
class FactRef:
    """A value named in a question: which table/figure of the paper from which turn, row/series and column/x."""

    kind: str  # "table" or "figure"
    n: int
    label: str
    at: str
    paper_turn: int


_FACT_PATTERNS = [
    re.compile(r'the "(?P<at>[^"]+)" value of "(?P<label>[^"]+)" in (?P<kind>Table) (?P<n>\d+) of the paper from turn (?P<t>\d+)'),
    re.compile(r'the height of the "(?P<label>[^"]+)" bar at "(?P<at>[^"]+)" in (?P<kind>Figure) (?P<n>\d+) of the paper from turn (?P<t>\d+)'),
    re.compile(r'the [^"]*? of "(?P<label>[^"]+)" at [^=]+? = (?P<at>[^;?]+?) in (?P<kind>Figure) (?P<n>\d+) of the paper from turn (?P<t>\d+)'),
]


def fact_refs(text: str) -> list[FactRef]:
    """Every fact phrase in `text`, in order of appearance (overlapping matches dropped)."""
    found: list[tuple[int, int, FactRef]] = []
    for pat in _FACT_PATTERNS:
        for m in pat.finditer(text):
            ref = FactRef(m.group("kind").lower(), int(m.group("n")), m.group("label"), m.group("at").strip(),
                          int(m.group("t")))
            found.append((m.start(), m.end(), ref))
    found.sort(key=lambda x: x[0])
    out: list[FactRef] = []
    last_end = -1
    for start, end, ref in found:
        if start >= last_end:
            out.append(ref)
            last_end = end
    return out


def top_hit_paper(obs: Observation) -> str | None:
    """The paper id (or URL) of the first web_search hit."""
    hits = (obs.data or {}).get("hits") or []
    for h in hits:
        ref = h.get("paper_id") or h.get("url")
        if ref:
            return str(ref)
    return None


def latest_table(memory: list[Observation], paper: str, n: int) -> list[list[str]] | None:
    """Rows of Table n of `paper` from the most recent successful table_extract in memory."""
    for obs in reversed(memory):
        if obs.tool != "table_extract" or obs.error or not obs.data or obs.data.get("n") != n:
            continue
        if any(p.paper == paper for p in obs.provenance) or obs.args.get("paper") == paper:
            return obs.data.get("rows") or None
    return None


_METHOD = re.compile(r"\b[Ww]e (?:introduce|propose|present) ([A-Z][\w\-]*)")


def method_name(text: str, title: str | None) -> str | None:
    """The method a paper introduces: 'we introduce X' in its text, else the part of the title before ':'."""
    m = _METHOD.search(text or "")
    if m:
        return m.group(1).rstrip(".,")
    if title and ":" in title:
        return title.split(":", 1)[0].strip()
    return None
