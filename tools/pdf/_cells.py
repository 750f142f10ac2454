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
from ._errors import PdfError
from ._parse import open_pdf
from ._rows import GridRow, Rule, logical_rows
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


def _near(r: pymupdf.Rect, clip: pymupdf.Rect, pad: float = 2.0) -> bool:
    """Overlap test that also works for zero-width or zero-height rects (which Rect.intersects calls empty)."""
    return r.x0 <= clip.x1 + pad and r.x1 >= clip.x0 - pad and r.y0 <= clip.y1 + pad and r.y1 >= clip.y0 - pad


def _join_segments(segments: list[tuple[float, float, float]]) -> list[Rule]:
    """Horizontal segments at one height whose gaps are under 3pt (dotted or dashed rules) as one rule."""
    rules: list[Rule] = []
    for x0, x1, y in sorted(segments, key=lambda s: (round(s[2]), s[0])):
        last = rules[-1] if rules else None
        if last and abs(last.y - y) < 0.8 and x0 <= last.x1 + 3:
            last.x1 = max(last.x1, x1)
        else:
            rules.append(Rule(x0, x1, y))
    return [r for r in rules if r.x1 - r.x0 >= 4]


def _rulings(page: pymupdf.Page, clip: pymupdf.Rect) -> tuple[int, int, list[Rule]]:
    """Distinct vertical and horizontal ruling lines inside the clip, and the horizontal rules themselves."""
    vx: set[int] = set()
    hy: set[int] = set()
    segments: list[tuple[float, float, float]] = []
    inner = clip + (-3, -3, 3, 3)
    for d in page.get_drawings():
        r = d["rect"]
        if not _near(r, clip):
            continue
        if not (inner.x0 <= r.x0 and r.x1 <= inner.x1 and inner.y0 <= r.y0 and r.y1 <= inner.y1):
            continue  # a shape reaching out of the table (a neighbouring figure) rules nothing in it
        if r.width <= 2 and r.height >= 6:
            vx.add(round(r.x0))
        elif r.height <= 2:
            segments.append((r.x0, r.x1, (r.y0 + r.y1) / 2))
        elif d.get("items") and r.width > 6 and r.height > 6 and any(it[0] == "re" for it in d["items"]):
            vx.update({round(r.x0), round(r.x1)})
            hy.update({round(r.y0), round(r.y1)})
    rules = _join_segments(segments)
    hy.update(round(r.y) for r in rules if r.x1 - r.x0 >= 0.3 * clip.width)
    return len(vx), len(hy), rules


def _from_grid(page: pymupdf.Page, clip: pymupdf.Rect, words: list[Word]) -> list[list[str]] | None:
    """Cells of a fully ruled table from find_tables' cell boxes, each filled with the words centred in
    it (find_tables' own text extraction reorders punctuation such as the comma in "25,000")."""
    try:
        found = page.find_tables(clip=clip, strategy="lines")
    except Exception:  # find_tables can fail on odd drawings; alignment is the fallback
        return None
    best = max(found.tables, key=lambda t: t.row_count * t.col_count, default=None)
    if best is None or best.row_count < 2 or best.col_count < 2:
        return None
    rows: list[list[str]] = []
    for row in best.rows:
        cells: list[str] = []
        for box in row.cells:
            if box is None:  # the continuation of a merged cell
                cells.append("")
                continue
            x0, y0, x1, y1 = box
            inside = [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]
            inside.sort(key=lambda w: (w[5], w[6], w[0]))
            cells.append(" ".join(w[4] for w in inside))
        rows.append(cells)
    filled = sum(1 for r in rows for c in r if c)
    if filled < 0.5 * sum(len(r) for r in rows):  # mostly empty: a chart's grid, not the table
        return None
    return rows


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
        # one PyMuPDF line stretched by justification keeps its words together up to 0.8h
        wide = gap > (0.8 * h if not new_line and not numbers else 0.4 * h)
        if wide or (new_line and gap > 0.25 * h) or (numbers and gap > 0.1 * h):
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


def _span_of(slots: list[list[float]], k: int, x0: float, x1: float, y1: float, h: float,
             rules: list[Rule], free: set[int]) -> tuple[int, int] | None:
    """The slots a header cell covers: those centred under it, those under the rule drawn just below it
    (booktabs \\cmidrule), or the run of empty slots around it whose middle is the cell's middle."""
    centre = lambda sl: (sl[0] + sl[1]) / 2
    covered = {i for i, sl in enumerate(slots) if x0 - 2 <= centre(sl) <= x1 + 2}
    cx = (x0 + x1) / 2
    for r in rules:
        if y1 - 1 <= r.y <= y1 + 1.2 * h and r.x0 - 2 <= cx <= r.x1 + 2:
            covered |= {i for i, sl in enumerate(slots) if r.x0 - 2 <= centre(sl) <= r.x1 + 2}
    covered.add(k)
    lo = hi = k  # a spanning cell never covers another cell of its row
    while lo - 1 in covered and lo - 1 in free:
        lo -= 1
    while hi + 1 in covered and hi + 1 in free:
        hi += 1
    if lo == hi and abs(centre(slots[k]) - cx) > 6:  # centred over a run of columns, not over its own
        for a in range(k, -1, -1):
            if a != k and a not in free:
                break
            for b in range(k, len(slots)):
                if b != k and b not in free:
                    break
                if b > a and abs((slots[a][0] + slots[b][1]) / 2 - cx) < max(3.0, 0.1 * (slots[b][1] - slots[a][0])):
                    return (a, b)
    return (lo, hi) if hi > lo else None


def _align(words: list[Word], rules: list[Rule] | None = None) -> list[GridRow]:
    """Visual lines of the table as GridRows over column slots found from the fullest lines."""
    if not words:
        return []
    rules = rules or []
    width = max(w[2] for w in words) - min(w[0] for w in words)
    part_rules = [r for r in rules if r.x1 - r.x0 < 0.8 * width]  # \\cmidrule under a spanning header
    h = median([w[3] - w[1] for w in words])
    word_rows = _rows_of_words(words)
    rows = [_cells_of_row(r, h) for r in word_rows]
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
    out: list[GridRow] = []
    for wr, r in zip(word_rows, rows):
        grid = GridRow(min(w[1] for w in wr), max(w[3] for w in wr), [""] * len(slots))
        data_row = len(r) >= 0.6 * most
        numeric_row = any(_NUMBER.match(c[2]) for c in r[1:])  # header cells may span columns, data cells not
        taken = {_slot_of(slots, c[0], c[1]) for c in r}
        free = set(range(len(slots))) - taken
        for x0, x1, text, cell_words in r:
            touched = {i for i, s in enumerate(slots) if min(x1, s[1]) - max(x0, s[0]) > 0.5}
            fits = [next((i for i, sl in enumerate(slots)
                          if sl[0] <= (w[0] + w[2]) / 2 <= sl[1] and w[2] - w[0] <= 1.5 * (sl[1] - sl[0]) + 4), None)
                    for w in cell_words]
            clean = None not in fits and len(set(fits)) == len(fits)
            if len(touched) > 1 and (clean or (numeric_row and data_row)):  # glued cells: split word by word
                for w in cell_words:
                    k = _slot_of(slots, w[0], w[2])
                    grid.cells[k] = f"{grid.cells[k]} {w[4]}".strip()
                continue
            k = _slot_of(slots, x0, x1)
            grid.cells[k] = f"{grid.cells[k]} {text}".strip()
            span = _span_of(slots, k, x0, x1, max(w[3] for w in cell_words), h, part_rules, free)
            if span and not numeric_row:
                grid.spans[k] = span
        out.append(grid)
    keep = [j for j in range(len(slots)) if any(r.cells[j] for r in out)]
    for r in out:
        r.cells = [r.cells[j] for j in keep]
        r.spans = {keep.index(j): (_first_kept(keep, lo), _last_kept(keep, hi))
                   for j, (lo, hi) in r.spans.items() if j in keep}
    return [r for r in out if any(r.cells)]


def _first_kept(keep: list[int], j: int) -> int:
    return next((i for i, k in enumerate(keep) if k >= j), len(keep) - 1)


def _last_kept(keep: list[int], j: int) -> int:
    return max((i for i, k in enumerate(keep) if k <= j), default=0)


def _within_outer_rules(words: list[Word], rules: list[Rule]) -> list[Word]:
    """Drop words above the top rule and below the bottom rule of a ruled (booktabs) table: they are
    body text the region caught, not cells."""
    if not words:
        return words
    width = max(w[2] for w in words) - min(w[0] for w in words)
    ys = sorted(r.y for r in rules if r.x1 - r.x0 >= 0.6 * width)
    between = [w for w in words if ys and ys[0] <= (w[1] + w[3]) / 2 <= ys[-1]]
    if len(ys) < 2 or len(between) < 0.6 * len(words):
        return words
    return between


def extract_table(data: bytes, ref: FloatRef) -> TableCells:
    """The table's cells as rows of strings, header row first."""
    box = body_box(ref)
    if box is None:
        return TableCells()
    doc = open_pdf(data, max_pages=10**6)
    try:
        page = doc[ref.page - 1]
        clip = pymupdf.Rect(box) + (-1, -1, 1, 1)
        n_vertical, n_horizontal, rules = _rulings(page, clip)
        cap = pymupdf.Rect(ref.caption_bbox)
        words: list[Word] = []
        for w in page.get_text("words", flags=_WORD_FLAGS):  # unclipped: clipping glues cut-off letters on
            cx, cy = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
            if clip.contains(pymupdf.Point(cx, cy)) and not cap.contains(pymupdf.Point(cx, cy)):
                words.append((w[0], w[1], w[2], w[3], w[4], w[5], w[6]))
        if n_vertical >= 3 and n_horizontal >= 2:
            grid = _from_grid(page, clip, words)
            if grid:
                return TableCells(rows=grid, method="lines")
        words = _within_outer_rules(words, rules)
        return TableCells(rows=logical_rows(_align(words, rules), rules, clip.width), method="text")
    except (RuntimeError, IndexError) as e:  # mupdf on a damaged page; a float on a page the file lacks
        raise PdfError(f"corrupt PDF: page {ref.page} cannot be read ({e})") from None
    finally:
        doc.close()
