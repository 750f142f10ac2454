"""The page flow of the living renderer: page geometry, body CSS, and the page/column cursor that places
text and reserves float boxes (PyMuPDF's Story laid out page by page with a DocumentWriter). Floats are
placed where they are first mentioned if they fit, else at the top of the next column (column-wide) or at
the bottom of the page / top of the next page (full-width), as LaTeX would. `layout.py` draws the floats
into the reserved boxes.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass

import pymupdf

from .floats import FLOAT_GAP, FloatBox

PAGE = pymupdf.paper_rect("letter")
_FLOAT_RE = re.compile(r"\b(Figure|Table) (\d+)\b")


@dataclass(frozen=True)
class Geometry:
    """Margins, columns and font sizes of one layout."""

    columns: int
    left: float
    right: float
    top: float
    bottom: float
    gutter: float
    font: float
    caption: float

    @property
    def text_w(self) -> float:
        return PAGE.width - self.left - self.right

    @property
    def column_w(self) -> float:
        return (self.text_w - self.gutter * (self.columns - 1)) / self.columns

    def column_x(self, c: int) -> float:
        return self.left + c * (self.column_w + self.gutter)


def body_css(g: Geometry) -> str:
    return (
        f"body {{margin: 0; font-family: Times; font-size: {g.font}pt; line-height: 1.22; text-align: justify;}}"
        f"p {{margin: 0; text-indent: 1.2em;}}"
        f"p.first {{text-indent: 0;}}"
        f"h2 {{font-size: {g.font + 2}pt; font-weight: bold; margin: 0.9em 0 0.45em 0; text-align: left;}}"
        f"h3 {{font-size: {g.font + 0.5}pt; font-weight: bold; margin: 0.7em 0 0.35em 0; text-align: left;}}"
        f"h4 {{font-size: {g.font + 1}pt; font-weight: bold; margin: 0 0 0.4em 0; text-align: center;}}"
        f"p.abstract {{font-style: italic; text-indent: 0; margin: 0 {0 if g.columns == 2 else 2.5}em 0.4em;}}"
        f"p.ref {{font-size: {g.font - 1}pt; text-indent: 0; margin: 0 0 0.25em 0; text-align: left;}}"
    )


def _para_html(text: str, cls: str = "", bold_lead: bool = False) -> str:
    body = html.escape(text)
    if bold_lead and ". " in body:
        lead, rest = body.split(". ", 1)
        body = f"<b>{lead}.</b> {rest}"
    return f'<p class="{cls}">{body}</p>' if cls else f"<p>{body}</p>"


class _Flow:
    """Page/column cursor that places text and reserves float boxes."""

    def __init__(self, g: Geometry, writer: pymupdf.DocumentWriter, spaced: bool = False):
        # spaced (corpus v2): no column float right under a full-width one at a page's top, where a
        # parser would take the wide float's cells for part of the column float
        self.g, self.writer, self.spaced = g, writer, spaced
        self.page = -1
        self.dev = None
        self.placed: list[tuple[int, float, float, FloatBox]] = []  # page, x, y, box
        self.pending: list[FloatBox] = []

    def new_page(self, top: float | None = None) -> None:
        if self.dev is not None:
            self.writer.end_page()
        self.dev = self.writer.begin_page(PAGE)
        self.page += 1
        self.col = 0
        y = self.g.top if top is None else top
        for box in [b for b in self.pending if b.full_width]:
            if y + box.height <= PAGE.height - self.g.bottom - 120:
                self.placed.append((self.page, self.g.left, y, box))
                self.pending.remove(box)
                y += box.height + FLOAT_GAP
        self.col_top = y
        self.bottom = PAGE.height - self.g.bottom
        self.y = y
        self._column_floats()

    def new_column(self) -> None:
        if self.col + 1 >= self.g.columns:
            self.new_page()
            return
        self.col += 1
        self.y = self.col_top
        self._column_floats()

    def _column_floats(self) -> None:
        if self.spaced and self.g.columns == 2 and self.y == self.col_top and self.col_top > self.g.top:
            return
        for box in [b for b in self.pending if not b.full_width or self.g.columns == 1]:
            if self.y + box.height <= self.bottom - 60:
                self.placed.append((self.page, self.g.column_x(self.col) if not box.full_width else self.g.left,
                                    self.y, box))
                self.pending.remove(box)
                self.y += box.height + FLOAT_GAP

    def text(self, body: str, css: str) -> None:
        story = pymupdf.Story(body, user_css=css)
        if body.startswith("<h") and self.bottom - self.y < self.g.font * 7:
            self.new_column()
        while True:
            if self.bottom - self.y < self.g.font * 2:
                self.new_column()
                continue
            x = self.g.column_x(self.col)
            more, filled = story.place(pymupdf.Rect(x, self.y, x + self.g.column_w, self.bottom))
            story.draw(self.dev)
            if not more:
                self.y = pymupdf.Rect(filled).y1
                return
            self.new_column()

    def float_here(self, box: FloatBox) -> None:
        """Place a float right after the text that mentions it, or defer it."""
        g = self.g
        y = self.y + FLOAT_GAP * 0.6
        if box.full_width and g.columns == 2:
            if self.col == 0 and y + box.height + FLOAT_GAP < self.bottom - 40:
                self.bottom -= box.height + FLOAT_GAP
                self.placed.append((self.page, g.left, self.bottom + FLOAT_GAP, box))
            else:
                self.pending.append(box)
            return
        if not self.pending and y + box.height <= self.bottom:
            x = g.column_x(self.col) if g.columns == 2 else g.left
            self.placed.append((self.page, x, y, box))
            self.y = y + box.height + FLOAT_GAP
        else:
            self.pending.append(box)

    def flush(self, css: str) -> None:
        while self.pending:
            before = len(self.pending)
            self._column_floats()
            if len(self.pending) == before:
                if any(b.full_width for b in self.pending) and self.g.columns == 2:
                    self.new_page()
                else:
                    self.new_column()

    def close(self) -> None:
        if self.dev is not None:
            self.writer.end_page()
        self.writer.close()
