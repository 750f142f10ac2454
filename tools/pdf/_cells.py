"""Table cells from a table's region: ruled grids through find_tables, everything else by text alignment.

Booktabs tables have a few horizontal rules and no vertical ones, so ruling lines cannot give the
columns. There we group words into rows by their vertical centre, into cells by horizontal gaps
(and PyMuPDF's own line breaks), and cells into columns by their x-extent across the fullest rows.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from statistics import median

import pymupdf

from ._crop import body_box
from ._parse import open_pdf
from .model import FloatRef

_WORD_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
Word = tuple[float, float, float, float, str, int, int]  # x0, y0, x1, y1, text, block, line


@dataclass
class TableCells:
    rows: list[list[str]] = field(default_factory=list)
    method: str = "text"  # "lines" (ruled grid) or "text" (alignment)

    @property
    def markdown(self) -> str:
        return rows_to_markdown(self.rows)


def rows_to_markdown(rows: list[list[str]]) -> str:
    if not rows:
        return ""
    esc = lambda s: " ".join(s.split()).replace("|", "\\|")
    width = max(len(r) for r in rows)
    lines = ["| " + " | ".join(esc(c) for c in rows[0] + [""] * (width - len(rows[0]))) + " |",
             "|" + "---|" * width]
    for r in rows[1:]:
        lines.append("| " + " | ".join(esc(c) for c in r + [""] * (width - len(r))) + " |")
    return "\n".join(lines)


def _rulings(page: pymupdf.Page, clip: pymupdf.Rect) -> tuple[int, int]:
    """Distinct vertical and horizontal ruling lines inside the clip."""
    vx: set[int] = set()
    hy: set[int] = set()
    for d in page.get_drawings():
        r = d["rect"]
        if not r.intersects(clip + (-2, -2, 2, 2)):
            continue
        if r.width <= 2 and r.height >= 6:
            vx.add(round(r.x0))
        elif r.height <= 2 and r.width >= 0.3 * clip.width:
            hy.add(round(r.y0))
        elif d.get("items") and r.width > 6 and r.height > 6 and any(it[0] == "re" for it in d["items"]):
            vx.update({round(r.x0), round(r.x1)})
            hy.update({round(r.y0), round(r.y1)})
    return len(vx), len(hy)


def _from_grid(page: pymupdf.Page, clip: pymupdf.Rect) -> list[list[str]] | None:
    try:
        found = page.find_tables(clip=clip, strategy="lines")
    except Exception:  # find_tables can fail on odd drawings; alignment is the fallback
        return None
    best = max(found.tables, key=lambda t: t.row_count * t.col_count, default=None)
    if best is None or best.row_count < 2 or best.col_count < 2:
        return None
    return [[" ".join((c or "").split()) for c in row] for row in best.extract()]


def _rows_of_words(words: list[Word]) -> list[list[Word]]:
    h = median([w[3] - w[1] for w in words])
    rows: list[list[Word]] = []
    for w in sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0])):
        cy = (w[1] + w[3]) / 2
        if rows:
            row_cy = median([(v[1] + v[3]) / 2 for v in rows[-1]])
            if abs(cy - row_cy) < 0.45 * h:
                rows[-1].append(w)
                continue
        rows.append([w])
    return rows


_NUMBER = re.compile(r"^[-+\u2212]?\(?[\d][\d.,]*%?\)?[*\u2020\u2021]*$")
Cell = tuple[float, float, str, list[Word]]


def _cells_of_row(row: list[Word], h: float) -> list[Cell]:
    """Split a row into cells at wide gaps, at PyMuPDF line breaks, and between two numbers."""
    row = sorted(row, key=lambda w: w[0])
    cells: list[list[Word]] = [[row[0]]]
    for w in row[1:]:
        prev = cells[-1][-1]
        gap = w[0] - prev[2]
        new_line = (w[5], w[6]) != (prev[5], prev[6])
        numbers = bool(_NUMBER.match(prev[4]) and _NUMBER.match(w[4]))
        if gap > 0.4 * h or (new_line and gap > 0.25 * h) or (numbers and gap > 0.1 * h):
            cells.append([w])
        else:
            cells[-1].append(w)
    return [(c[0][0], c[-1][2], " ".join(w[4] for w in c), c) for c in cells]


def _supported(slots: list[list[float]], rows: list[list[Cell]]) -> list[list[float]]:
    """Drop column slots that few rows start a cell in (a wide word gap in justified prose), merging
    each into its left neighbour."""
    need = max(2, 0.25 * len(rows))
    starts = [sum(1 for r in rows if any(s[0] - 1 <= c[0] <= s[1] for c in r)) for s in slots]
    kept: list[list[float]] = []
    for s, n in zip(slots, starts):
        if kept and n < need:
            kept[-1][1] = max(kept[-1][1], s[1])
        else:
            kept.append(list(s))
    return kept


def _slot_of(slots: list[list[float]], x0: float, x1: float) -> int:
    overlaps = [max(0.0, min(x1, s[1]) - max(x0, s[0])) for s in slots]
    k = max(range(len(slots)), key=lambda i: overlaps[i])
    if overlaps[k] == 0:
        cx = (x0 + x1) / 2
        k = min(range(len(slots)), key=lambda i: abs((slots[i][0] + slots[i][1]) / 2 - cx))
    return k


def _align(words: list[Word]) -> list[list[str]]:
    if not words:
        return []
    h = median([w[3] - w[1] for w in words])
    rows = [_cells_of_row(r, h) for r in _rows_of_words(words)]
    most = max(len(r) for r in rows)
    fullest = [r for r in rows if len(r) == most]
    full = fullest if len(fullest) >= 2 else [r for r in rows if len(r) >= max(2, 0.8 * most)] or rows
    spans = sorted((c[0], c[1]) for r in full for c in r)
    slots: list[list[float]] = []
    for x0, x1 in spans:
        if slots and x0 <= slots[-1][1] + 1:
            slots[-1][1] = max(slots[-1][1], x1)
        else:
            slots.append([x0, x1])
    slots = _supported(slots, rows)
    out: list[list[str]] = []
    for r in rows:
        cells = [""] * len(slots)
        data_row = len(r) >= 0.6 * most
        for x0, x1, text, cell_words in r:
            touched = {i for i, s in enumerate(slots) if min(x1, s[1]) - max(x0, s[0]) > 0.5}
            fits = [next((i for i, sl in enumerate(slots)
                          if sl[0] <= (w[0] + w[2]) / 2 <= sl[1] and w[2] - w[0] <= 1.5 * (sl[1] - sl[0]) + 4), None)
                    for w in cell_words]
            clean = None not in fits and len(set(fits)) == len(fits)
            if len(touched) > 1 and (data_row or clean):  # cells glued together: split word by word
                for w in cell_words:
                    k = _slot_of(slots, w[0], w[2])
                    cells[k] = f"{cells[k]} {w[4]}".strip()
                continue
            k = _slot_of(slots, x0, x1)
            cells[k] = f"{cells[k]} {text}".strip()
        out.append(cells)
    keep = [j for j in range(len(slots)) if any(r[j] for r in out)]
    return [[r[j] for j in keep] for r in out if any(r)]


def extract_table(data: bytes, ref: FloatRef) -> TableCells:
    """The table's cells as rows of strings, header row first."""
    box = body_box(ref)
    if box is None:
        return TableCells()
    doc = open_pdf(data, max_pages=10**6)
    try:
        page = doc[ref.page - 1]
        clip = pymupdf.Rect(box) + (-1, -1, 1, 1)
        n_vertical, n_horizontal = _rulings(page, clip)
        if n_vertical >= 3 and n_horizontal >= 2:
            grid = _from_grid(page, clip)
            if grid:
                return TableCells(rows=grid, method="lines")
        cap = pymupdf.Rect(ref.caption_bbox)
        words: list[Word] = []
        for w in page.get_text("words", flags=_WORD_FLAGS):  # unclipped: clipping glues cut-off letters on
            cx, cy = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
            if clip.contains(pymupdf.Point(cx, cy)) and not cap.contains(pymupdf.Point(cx, cy)):
                words.append((w[0], w[1], w[2], w[3], w[4], w[5], w[6]))
        return TableCells(rows=_align(words), method="text")
    finally:
        doc.close()
