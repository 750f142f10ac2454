"""Render a planned paper to PDF: text flowed into one or two columns around figures and tables.

Text is laid out by PyMuPDF's Story (HTML + CSS) page by page with a DocumentWriter; floats are
placed where they are first mentioned if they fit, else at the top of the next column (column-wide)
or at the bottom of the page / top of the next page (full-width), as LaTeX would. A second pass
draws charts, tables and captions into the reserved boxes. The page and box (body plus caption, in
PDF points) of every float is written back into the ground truth.
"""
from __future__ import annotations

import html
import io
import math
import re
from dataclasses import dataclass
from types import ModuleType

import pymupdf

from sandbox.corpus.model import PaperGT

from .floats import FLOAT_GAP, FloatBox, draw_float, size_figure, size_table
from .prose import short_authors
from .vocab import AFFILIATIONS, VENUE_LONG

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


ONE_COLUMN = Geometry(1, 90, 90, 72, 72, 0, 10.5, 9.5)
TWO_COLUMN = Geometry(2, 54, 54, 60, 66, 21, 9.5, 8.5)


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


def _title_html(p: PaperGT) -> str:
    affs = sorted({AFFILIATIONS[sum(map(ord, a)) % len(AFFILIATIONS)] for a in p.authors})
    return (
        f'<p style="font-size:17pt; font-weight:bold; text-align:center; line-height:1.2; margin:0 0 12pt 0">'
        f"{html.escape(p.title)}</p>"
        f'<p style="font-size:11pt; text-align:center; margin:0 0 4pt 0">{html.escape(", ".join(p.authors))}</p>'
        f'<p style="font-size:9.5pt; text-align:center; font-style:italic; margin:0 0 4pt 0">'
        f"{html.escape('; '.join(affs))}</p>"
        f'<p style="font-size:9.5pt; text-align:center; margin:0">Published in {html.escape(VENUE_LONG[p.venue])}, {p.year}</p>'
    )


def _para_html(text: str, cls: str = "", bold_lead: bool = False) -> str:
    body = html.escape(text)
    if bold_lead and ". " in body:
        lead, rest = body.split(". ", 1)
        body = f"<b>{lead}.</b> {rest}"
    return f'<p class="{cls}">{body}</p>' if cls else f"<p>{body}</p>"


def _chunks(p: PaperGT, refs: list[str]) -> list[tuple[str, list[str]]]:
    """HTML chunks of the body, each followed by the keys of floats first mentioned in it."""
    out: list[tuple[str, list[str]]] = []
    cur: list[str] = ['<h4>Abstract</h4>', _para_html(p.abstract, "abstract")]
    seen: set[str] = set()
    for s in p.sections:
        level = "h2" if "." not in s.number else "h3"
        if cur:  # a heading starts a new chunk so it is never left alone at a column bottom
            out.append(("".join(cur), []))
            cur = []
        cur.append(f"<{level}>{s.number}&#160;&#160;{html.escape(s.title)}</{level}>")
        for i, para in enumerate(s.paragraphs):
            lead = s.title == "Related Work" and i < len(s.paragraphs) - 1
            cur.append(_para_html(para, "first" if i == 0 else "", bold_lead=lead))
            keys = []
            for kind, n in _FLOAT_RE.findall(para):
                key = f"{kind.lower()}:{n}"
                if key not in seen:
                    seen.add(key)
                    keys.append(key)
            if keys:
                out.append(("".join(cur), keys))
                cur = []
    out.append(("".join(cur), []))
    refs_html = "<h2>References</h2>" + "".join(
        f'<p class="ref">[{i}]&#160;{html.escape(r)}</p>' for i, r in enumerate(refs, start=1))
    out.append((refs_html, []))
    return out


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


def _boxes(p: PaperGT, g: Geometry, full_width_figures: set[int], backend: ModuleType | None) -> dict[str, FloatBox]:
    two = g.columns == 2
    boxes: dict[str, FloatBox] = {}
    extra = {"backend": backend} if backend is not None else {}
    for f in p.figures:
        boxes[f"figure:{f.n}"] = size_figure(f, g.column_w, g.text_w, two, f.n in full_width_figures, g.caption, **extra)
    for t in p.tables:
        boxes[f"table:{t.n}"] = size_table(t, g.column_w, g.text_w, two, g.caption)
        boxes[f"table:{t.n}"].fast = backend is not None
    return boxes


def render_paper(p: PaperGT, refs: list[str], full_width_figures: set[int], chart_backend: ModuleType | None = None) -> bytes:
    """The PDF of a planned paper; fills p.pages and every float's page and bbox. `chart_backend`
    draws the charts (default: matplotlib, corpus v1's; corpus v2 passes its own faster one)."""
    g = ONE_COLUMN if p.layout == "one_column" else TWO_COLUMN
    css = body_css(g)
    boxes = _boxes(p, g, full_width_figures if g.columns == 2 else set(), chart_backend)
    buf = io.BytesIO()
    flow = _Flow(g, pymupdf.DocumentWriter(buf), spaced=chart_backend is not None)
    title = pymupdf.Story(_title_html(p), user_css=css)
    flow.new_page()
    _, filled = title.place(pymupdf.Rect(g.left, g.top, PAGE.width - g.right, 400))
    title.draw(flow.dev)
    flow.y = flow.col_top = pymupdf.Rect(filled).y1 + 16
    chunks = _chunks(p, refs)
    for i, (body, keys) in enumerate(chunks):
        if i == len(chunks) - 1:  # floats go before the bibliography
            flow.flush(css)
        flow.text(body, css)
        for key in keys:
            flow.float_here(boxes[key])
    flow.flush(css)
    flow.close()
    return _finish(p, buf.getvalue(), flow.placed, check_values=chart_backend is None)


def _finish(p: PaperGT, text_pdf: bytes, placed: list[tuple[int, float, float, FloatBox]], check_values: bool = True) -> bytes:
    doc = pymupdf.open("pdf", text_pdf)
    fig_rects: dict[int, list[pymupdf.Rect]] = {}
    for page_no, x, y, box in placed:
        rect = draw_float(doc[page_no], box, x, y)
        box.gt.page = page_no + 1
        box.gt.bbox = (math.floor(rect.x0 * 100) / 100, math.floor(rect.y0 * 100) / 100,  # rounded outwards
                       math.ceil(rect.x1 * 100) / 100, math.ceil(rect.y1 * 100) / 100)
        if box.kind == "figure":
            fig_rects.setdefault(page_no, []).append(rect)
    first = doc[0]
    first.insert_text((24, PAGE.height - 250), f"arXiv:{p.arxiv_id}v1  [cs.LG]", fontname="tiro", fontsize=18,
                      rotate=90, color=(0.55, 0.55, 0.55))
    for i, page in enumerate(doc, start=1):
        label = str(i)
        w = pymupdf.get_text_length(label, fontname="tiro", fontsize=9)
        page.insert_text(((PAGE.width - w) / 2, PAGE.height - 30), label, fontname="tiro", fontsize=9)
    p.pages = doc.page_count
    if check_values:  # corpus v1's rule; v2 keeps asked values apart from every printed number instead
        _check_values_in_text(p, doc, fig_rects)
    stamp = f"D:{p.year}0615120000Z"
    doc.set_metadata({"title": p.title, "author": ", ".join(p.authors), "subject": f"{p.venue} {p.year}",
                      "keywords": p.area, "creator": "epiharness sandbox corpus", "producer": "PyMuPDF",
                      "creationDate": stamp, "modDate": stamp})
    doc.subset_fonts()
    out = doc.tobytes(garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return out


def _check_values_in_text(p: PaperGT, doc: pymupdf.Document, fig_rects: dict[int, list[pymupdf.Rect]]) -> None:
    """Mark a figure whose plotted values are also printed as text anywhere outside figures."""
    from .plan import numbers_in

    words: list[str] = []
    for i, page in enumerate(doc):
        for w in page.get_text("words"):
            r = pymupdf.Rect(w[:4])
            if not any(fr.intersects(r) for fr in fig_rects.get(i, [])):
                words.append(w[4])
    nums = numbers_in(" ".join(words))
    for f in p.figures:
        f.values_in_text = any(y in nums for s in f.series for y in s.y)


__all__ = ["render_paper", "short_authors", "ONE_COLUMN", "TWO_COLUMN"]
