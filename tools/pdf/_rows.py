"""Turn aligned text lines of a table into logical rows: one header row, wrapped cells joined.

Text alignment gives one row per visual line. Real tables break that in two ways:
- headers stacked over several lines ("Recomm." over "nDCG"; a spanning "Classification" over
  "MAG" and "MeSH"): every header line is folded into ONE header row, a spanning cell's text going
  to each column it spans;
- cells that wrap onto several lines (p{} columns of prose): a line that continues the cells of the
  line above (its first cell empty or itself wrapped, lowercase or hyphen continuation, no numbers)
  joins that row; when full-width rules split the body into bands of wrapped prose, each band is one row.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ._layout import join_lines

_NUMERIC = re.compile(r"^[-+\u2212±]?\(?[\d][\d.,]*%?\)?[*\u2020\u2021]*$")
_TERMINAL = (".", "!", "?", ":", ";")


@dataclass
class GridRow:
    """One visual line of a table: a text per column slot, and which slots each cell spans."""

    y0: float
    y1: float
    cells: list[str]
    spans: dict[int, tuple[int, int]] = field(default_factory=dict)  # slot -> (first, last) slot covered

    @property
    def filled(self) -> list[int]:
        return [j for j, c in enumerate(self.cells) if c]


@dataclass
class Rule:
    """A horizontal ruling line inside the table."""

    x0: float
    x1: float
    y: float


def _is_numeric_cell(text: str) -> bool:
    words = text.split()
    return bool(words) and sum(1 for w in words if _NUMERIC.match(w)) >= 0.5 * len(words)


def is_data_row(row: GridRow) -> bool:
    """A row holding numbers in at least half of its filled cells after the first."""
    rest = [c for c in row.cells[1:] if c]
    return len(rest) >= 1 and sum(1 for c in rest if _is_numeric_cell(c)) >= 0.5 * len(rest)


def wraps_into(above: str, below: str) -> bool:
    """Does `below` read as the next line of the same cell as `above`?"""
    a, b = above.rstrip(), below.lstrip()
    if not a or not b:
        return False
    if a.endswith("-") and len(a) > 1 and a[-2].isalpha():
        return True
    if a.endswith(","):
        return True
    return b[0].islower() and not a.endswith(_TERMINAL)


def header_count(rows: list[GridRow], full_rules: list[Rule]) -> int:
    """How many leading visual lines form the header: those above the lowest full-width rule that still
    lies above the first row of numbers (the first such rule when there are no numbers), else the lines
    before the first row of numbers, else one. Never more than 5."""
    if len(rows) < 2:
        return len(rows)
    first_data = next((i for i, r in enumerate(rows) if is_data_row(r)), None)
    cuts = sorted({sum(1 for r in rows if (r.y0 + r.y1) / 2 < rule.y) for rule in full_rules})
    cuts = [c for c in cuts if 1 <= c < len(rows) and c <= 5]
    if first_data is not None:
        cuts = [c for c in cuts if c <= first_data]
        if cuts:
            return cuts[-1]
        return first_data if 1 <= first_data <= 5 else 1
    return cuts[0] if cuts else 1


def fold_header(rows: list[GridRow]) -> GridRow:
    """One header row whose cells join, top to bottom, the header text over each column."""
    width = len(rows[0].cells)
    parts: list[list[str]] = [[] for _ in range(width)]
    for row in rows:
        for j, text in enumerate(row.cells):
            if not text:
                continue
            lo, hi = row.spans.get(j, (j, j))
            for k in range(lo, hi + 1):
                if not parts[k] or parts[k][-1] != text:
                    parts[k].append(text)
    return GridRow(rows[0].y0, rows[-1].y1, [" ".join(p) for p in parts])


def _join(a: GridRow, b: GridRow) -> GridRow:
    cells = [join_lines([x, y]) if x and y else (x or y) for x, y in zip(a.cells, b.cells)]
    return GridRow(a.y0, b.y1, cells)


def continues(prev: GridRow, row: GridRow) -> bool:
    """A visual line that carries on the wrapped cells of the line above rather than starting a row."""
    filled = row.filled
    if not filled or not set(filled) <= set(prev.filled):
        return False
    if any(_is_numeric_cell(row.cells[j]) for j in filled):
        return False
    if row.cells[0] and not wraps_into(prev.cells[0], row.cells[0]):
        return False  # a new row label
    return any(wraps_into(prev.cells[j], row.cells[j]) for j in filled)


def _merge_continuations(rows: list[GridRow]) -> list[GridRow]:
    out: list[GridRow] = []
    for row in rows:
        if out and continues(out[-1], row):
            out[-1] = _join(out[-1], row)
        else:
            out.append(row)
    return out


def _bands(rows: list[GridRow], rules: list[Rule]) -> list[list[GridRow]]:
    ys = sorted(r.y for r in rules)
    groups: dict[int, list[GridRow]] = {}
    for row in rows:
        cy = (row.y0 + row.y1) / 2
        groups.setdefault(sum(1 for y in ys if y < cy), []).append(row)
    return [groups[k] for k in sorted(groups)]


def _prose_band(band: list[GridRow]) -> bool:
    """A band of several lines of wrapped text (no numbers), as in tables of quoted answers."""
    if len(band) < 2 or any(is_data_row(r) for r in band):
        return False
    text = "".join(c for r in band for c in r.cells)
    if sum(ch.isdigit() for ch in text) > 0.15 * max(1, len(text)):
        return False
    return any(wraps_into(a.cells[j], b.cells[j]) for a, b in zip(band, band[1:]) for j in range(len(a.cells)))


def merge_body(rows: list[GridRow], full_rules: list[Rule]) -> list[GridRow]:
    """Join wrapped lines: whole bands between full-width rules when every band is wrapped prose,
    otherwise line by line through `continues`."""
    if not rows:
        return rows
    inner = [r for r in full_rules if rows[0].y0 < r.y < rows[-1].y1]
    bands = _bands(rows, inner) if inner else [rows]
    if len(bands) >= 2 and all(_prose_band(b) or len(b) == 1 for b in bands) and any(len(b) > 1 for b in bands):
        out: list[GridRow] = []
        for band in bands:
            row = band[0]
            for nxt in band[1:]:
                row = _join(row, nxt)
            out.append(row)
        return out
    return [r for band in bands for r in _merge_continuations(band)]


def logical_rows(rows: list[GridRow], rules: list[Rule], table_width: float) -> list[list[str]]:
    """Header folded into one row, wrapped lines joined; plain lists of cell strings."""
    if not rows:
        return []
    if len(rows[0].cells) < 2:
        return [r.cells for r in rows]  # a box of running text: its lines are its rows
    full = [r for r in rules if r.x1 - r.x0 >= 0.8 * table_width]
    n_head = header_count(rows, full)
    head = fold_header(rows[:n_head])
    body = merge_body(rows[n_head:], full)
    return [head.cells] + [r.cells for r in body]
