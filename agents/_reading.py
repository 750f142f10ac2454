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


def _is_number(cell: str) -> bool:
    return bool(re.fullmatch(r"[-+\u2212]?\d+(?:\.\d+)?\s*%?\*?", cell.strip()))


def _compact(row: list[str]) -> tuple[str, list[str]]:
    """A body row as (label, value cells): leading text cells joined as the label, then the rest.

    Extracted tables often spread one printed cell over several columns (a label split in two, empty
    spacer columns); reading by position in the non-empty cells is what a person does.
    """
    cells = [c.strip() for c in row if c and c.strip()]
    i = 0
    while i < len(cells) and not _is_number(cells[i]):
        i += 1
    return " ".join(cells[:i]), cells[i:]


def table_columns(rows: list[list[str]]) -> list[str]:
    """The header's non-empty cells after the row-header cell."""
    header = [c.strip() for c in rows[0] if c and c.strip()] if rows else []
    return header[1:]


def column_values(rows: list[list[str]], column: str) -> dict[str, float]:
    """Row label -> number in `column`, for every body row whose cells line up with the header."""
    out: dict[str, float] = {}
    cols = [norm(c) for c in table_columns(rows)]
    want = norm(column)
    idx = next((i for i, c in enumerate(cols) if c == want), None)
    if idx is None:
        idx = next((i for i, c in enumerate(cols) if want in c or (c and c in want)), None)
    if idx is None:
        return out
    for row in rows[1:]:
        label, values = _compact(row)
        if label and len(values) == len(cols):
            v = first_number(values[idx])
            if v is not None:
                out[label] = v
    return out


def table_cell(rows: list[list[str]], label: str, column: str) -> float | None:
    """The number in row `label` under header `column`, matching names loosely."""
    values = column_values(rows, column)
    want = norm(label)
    for name, v in values.items():
        if norm(name) == want:
            return v
    return None


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
    re.compile(r'the [^";()]*?(?:\([^)]*\)[^";()]*?)* of "(?P<label>[^"]+)" at [^=]+? = (?P<at>[^;?]+?) in (?P<kind>Figure) (?P<n>\d+) of the paper from turn (?P<t>\d+)'),
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


_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
_SURNAME = re.compile(r"\b([A-Z][\w'\-]+) et al\.")
_VENUE = re.compile(r"\b([A-Z]{2,}[a-zA-Z]*)\b")


def _hit_fit(cue: str, hit: dict[str, object]) -> int:
    """How many bibliographic facts stated in the cue (year, venue, first author) a hit shows; -1 per clash."""
    text = f"{hit.get('title', '')} {hit.get('snippet', '')}"
    score = 0
    years = set(_YEAR.findall(cue))
    if years:
        score += 1 if years & set(_YEAR.findall(text)) else -1
    for venue in set(_VENUE.findall(cue)) - {"A"}:
        if re.search(rf"\b{re.escape(venue)}\b", text):
            score += 1
    m = _SURNAME.search(cue)
    if m:
        first_author = str(hit.get("snippet", "")).split(",")[0].split(".")[0]
        score += 1 if first_author.endswith(m.group(1)) else -1
    return score


def best_hit_paper(obs: Observation, cue: str | None) -> str | None:
    """The paper id (or URL) of the hit that fits the cue's year/venue/author best; search rank breaks ties."""
    hits = [h for h in (obs.data or {}).get("hits") or [] if h.get("paper_id") or h.get("url")]
    if not hits:
        return None
    best = max(enumerate(hits), key=lambda ih: (_hit_fit(cue or "", ih[1]), -ih[0]))[1]
    return str(best.get("paper_id") or best.get("url"))


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
