"""Figures and tables of a generated page: how big they are, and how they are drawn.

A float is sized before layout (a table by its rows and caption; a figure by the layout, which renders its
chart) and drawn after the text has been flowed around the space reserved for it. Tables are drawn in
booktabs style (top, middle and bottom rules only) with the caption above; figures carry their caption below.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

import pymupdf

from .model import FigureGT, TableGT

CAPTION_GAP = 5.0  # between a float body and its caption
FLOAT_GAP = 10.0  # between a float and the surrounding text
_BODY_FONT = "tiro"
_BOLD_FONT = "tibo"


def caption_css(size: float) -> str:
    return f"body {{margin: 0; font-family: Times; font-size: {size}pt; line-height: 1.2; text-align: justify;}} p {{margin: 0;}}"


def caption_html(caption: str, centered: bool) -> str:
    label, _, rest = caption.partition(": ")
    align = ' style="text-align: center"' if centered else ""
    return f"<p{align}><b>{html.escape(label)}:</b> {html.escape(rest)}</p>"


def measure_html(body: str, css: str, width: float) -> float:
    """Height the HTML takes when flowed into a box `width` wide."""
    story = pymupdf.Story(body, user_css=css)
    _, filled = story.place(pymupdf.Rect(0, 0, width, 2000))
    return pymupdf.Rect(filled).height


@dataclass
class FloatBox:
    """A figure or table ready to be placed: its sizes and what to draw."""

    kind: str  # "figure" | "table"
    gt: FigureGT | TableGT
    width: float  # the float's full box width (column or text width)
    body_w: float
    body_h: float
    caption_h: float
    caption_size: float
    full_width: bool
    centered_caption: bool
    table_font: float = 8.5
    col_widths: tuple[float, ...] = ()
    chart: bytes = b""
    fast: bool = False  # corpus v2: draw table text with one TextWriter (same look, ~20x faster)

    @property
    def height(self) -> float:
        return self.body_h + CAPTION_GAP + self.caption_h

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.gt.n}"


def bold_cells(t: TableGT) -> set[tuple[int, int]]:
    """(row, col) of the best value in each metric column (not for parameter or compute counts)."""
    out: set[tuple[int, int]] = set()
    for c in range(1, len(t.columns)):
        if t.columns[c] in ("Params (M)", "GFLOPs"):
            continue
        vals = [(float(r[c]), i) for i, r in enumerate(t.rows)]
        best = max(vals) if t.higher_is_better else min(vals)
        out.add((best[1], c))
    return out


def _table_widths(t: TableGT, size: float) -> list[float]:
    bold = bold_cells(t)
    widths = []
    for c, head in enumerate(t.columns):
        w = pymupdf.get_text_length(head, fontname=_BODY_FONT, fontsize=size)
        for i, r in enumerate(t.rows):
            font = _BOLD_FONT if (i, c) in bold else _BODY_FONT
            w = max(w, pymupdf.get_text_length(r[c], fontname=font, fontsize=size))
        widths.append(w + 2 * size)
    return widths


def size_table(t: TableGT, column_w: float, text_w: float, two_column: bool, caption_size: float) -> FloatBox:
    """A table box: full width in two-column papers when it does not fit a column."""
    for size in ((8.5, 8.0, 7.5) if two_column else (9.5, 9.0, 8.5)):
        widths = _table_widths(t, size)
        if sum(widths) <= column_w or not two_column:
            break
    full = two_column and sum(widths) > column_w
    if sum(widths) > text_w:  # shrink uniformly as a last resort
        size = size * text_w / sum(widths)
        widths = _table_widths(t, size)
    box_w = text_w if (full or not two_column) else column_w
    row_h = size * 1.45
    body_h = row_h * (len(t.rows) + 1) + 6
    cap_w = box_w if two_column else min(box_w, max(sum(widths) + 40, box_w * 0.85))
    centered = pymupdf.get_text_length(t.caption, fontname=_BODY_FONT, fontsize=caption_size) < cap_w * 0.95
    cap_h = measure_html(caption_html(t.caption, centered), caption_css(caption_size), cap_w)
    return FloatBox("table", t, box_w, sum(widths), body_h, cap_h, caption_size, full, centered,
                    table_font=size, col_widths=tuple(widths))


def draw_float(page: pymupdf.Page, box: FloatBox, x0: float, y0: float) -> pymupdf.Rect:
    """Draw the float with its top-left at (x0, y0); return the rect of body and caption."""
    bx = x0 + (box.width - box.body_w) / 2
    css = caption_css(box.caption_size)
    if box.kind == "figure":
        body = pymupdf.Rect(bx, y0, bx + box.body_w, y0 + box.body_h)
        if box.gt.visual == "vector":
            src = pymupdf.open("pdf", box.chart)
            page.show_pdf_page(body, src, 0)
            src.close()
        else:
            page.insert_image(body, stream=box.chart)
        cap = pymupdf.Rect(x0, body.y1 + CAPTION_GAP, x0 + box.width, body.y1 + CAPTION_GAP + box.caption_h + 2)
        page.insert_htmlbox(cap, caption_html(box.gt.caption, box.centered_caption), css=css)
        return pymupdf.Rect(x0, y0, x0 + box.width, max(cap.y1 - 2, _ink_bottom(page, cap)))
    cap_w = box.width if box.full_width or box.width < 300 else min(box.width, max(box.body_w + 40, box.width * 0.85))
    cx = x0 + (box.width - cap_w) / 2
    cap = pymupdf.Rect(cx, y0, cx + cap_w, y0 + box.caption_h + 2)
    page.insert_htmlbox(cap, caption_html(box.gt.caption, box.centered_caption), css=css)
    (_draw_table_fast if box.fast else _draw_table)(page, box, bx, y0 + box.caption_h + CAPTION_GAP)
    top = min([y0] + [w[1] for w in page.get_text("words", clip=cap)])
    return pymupdf.Rect(x0, top, x0 + box.width, y0 + box.height)


def _ink_bottom(page: pymupdf.Page, rect: pymupdf.Rect) -> float:
    """Lowest edge of the words drawn in `rect` (glyph boxes reach below the line box)."""
    return max([rect.y0] + [w[3] for w in page.get_text("words", clip=rect)])


def _draw_table(page: pymupdf.Page, box: FloatBox, x0: float, y0: float) -> None:
    t: TableGT = box.gt  # type: ignore[assignment]
    size, widths = box.table_font, box.col_widths
    row_h = size * 1.45
    x1 = x0 + sum(widths)
    bold = bold_cells(t)
    page.draw_line((x0, y0 + 1), (x1, y0 + 1), width=0.8)
    y = y0 + 3
    for i, row in enumerate([t.columns] + t.rows):
        x = x0
        for c, cell in enumerate(row):
            font = _BOLD_FONT if (i - 1, c) in bold else _BODY_FONT
            tw = pymupdf.get_text_length(cell, fontname=font, fontsize=size)
            tx = x + size if c == 0 else x + (widths[c] - tw) / 2
            page.insert_text((tx, y + size * 1.05), cell, fontname=font, fontsize=size)
            x += widths[c]
        y += row_h
        if i == 0:
            page.draw_line((x0, y - 1.5), (x1, y - 1.5), width=0.5)
            y += 1
    page.draw_line((x0, y + 1), (x1, y + 1), width=0.8)


_FONTS: dict[str, pymupdf.Font] = {}


def _font(name: str) -> pymupdf.Font:
    if name not in _FONTS:
        _FONTS[name] = pymupdf.Font(name)
    return _FONTS[name]


def _draw_table_fast(page: pymupdf.Page, box: FloatBox, x0: float, y0: float) -> None:
    """`_draw_table` with every cell appended to one TextWriter (page.insert_text rescans the page's fonts per call)."""
    t: TableGT = box.gt  # type: ignore[assignment]
    size, widths = box.table_font, box.col_widths
    row_h = size * 1.45
    x1 = x0 + sum(widths)
    bold = bold_cells(t)
    writer = pymupdf.TextWriter(page.rect)
    rules = [y0 + 1]
    y = y0 + 3
    for i, row in enumerate([t.columns] + t.rows):
        x = x0
        for c, cell in enumerate(row):
            font = _font(_BOLD_FONT if (i - 1, c) in bold else _BODY_FONT)
            tw = font.text_length(cell, fontsize=size)
            tx = x + size if c == 0 else x + (widths[c] - tw) / 2
            writer.append((tx, y + size * 1.05), cell, font=font, fontsize=size)
            x += widths[c]
        y += row_h
        if i == 0:
            rules.append(y - 1.5)
            y += 1
    rules.append(y + 1)
    writer.write_text(page)
    shape = page.new_shape()
    for k, ry in enumerate(rules):
        shape.draw_line((x0, ry), (x1, ry))
        shape.finish(width=0.5 if k == 1 else 0.8, closePath=False)
    shape.commit()
