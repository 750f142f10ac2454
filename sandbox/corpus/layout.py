"""Render a corpus-v3 paper to PDF with the page flow (flow.py) and float drawing (floats.py), plus what v3 papers
have: figures sized by kind (multi-panel and wide figures span both columns), the bibliography before
the appendices, and appendix floats placed after it.
"""
from __future__ import annotations

import html
import io
import math

import pymupdf

from .floats import CAPTION_GAP, FloatBox, _font, caption_css, caption_html, draw_float, measure_html, size_table
from .flow import _FLOAT_RE, PAGE, Geometry, _Flow, _para_html, body_css
from .model import FigureGT, PaperGT, TableGT
from . import chart
from .vocab import AFFILIATIONS, VENUE_LONG

# NeurIPS/ICLR-like one column at 11 pt; CVPR/ACL-like two columns at 10 pt
ONE_COLUMN = Geometry(1, 100, 100, 72, 72, 0, 11.0, 9.5)
TWO_COLUMN = Geometry(2, 54, 54, 64, 68, 22, 10.0, 9.0)
_ASPECT = {"line": 0.68, "scatter": 0.72, "bar": 0.62, "stacked_bar": 0.7, "hbar": 0.75, "heatmap": 0.62,
           "diagram": 0.34, "image_grid": 0.0, "panels": 0.0}
_ARXIV_CAT = {"graph learning": "cs.LG", "self-supervised learning": "cs.CV", "image generation": "cs.CV",
              "speech recognition": "eess.AS", "machine translation": "cs.CL"}


def _title_html(p: PaperGT) -> str:
    affs = sorted({AFFILIATIONS[sum(map(ord, a)) % len(AFFILIATIONS)] for a in p.authors})
    return (
        f'<p style="font-size:16pt; font-weight:bold; text-align:center; line-height:1.2; margin:0 0 12pt 0">'
        f"{html.escape(p.title)}</p>"
        f'<p style="font-size:10.5pt; text-align:center; margin:0 0 4pt 0">{html.escape(", ".join(p.authors))}</p>'
        f'<p style="font-size:9pt; text-align:center; font-style:italic; margin:0 0 4pt 0">{html.escape("; ".join(affs))}</p>'
        f'<p style="font-size:9pt; text-align:center; margin:0">{html.escape(VENUE_LONG.get(p.venue, p.venue))}, {p.year}</p>'
    )


def _figure_size(f: FigureGT, g: Geometry) -> tuple[float, float, float, bool]:
    """(body width, body height, box width, full width)."""
    two = g.columns == 2
    full = two and (f.full_width or f.kind == "panels")
    box_w = g.text_w if (full or not two) else g.column_w
    if f.kind == "panels":
        k = len(f.panels or [])
        w = box_w * (0.98 if k == 3 or two else 0.9)
        return w, min(w / k * 0.82 + 24, 210), box_w, full
    if f.kind == "image_grid":
        rows, cols = len(f.series), len(f.series[0].x)
        w = box_w * (0.95 if two and not full else 0.8)
        label = max(pymupdf.get_text_length(s.label, fontsize=6.4) for s in f.series) + 12
        cell = (w - label) / cols
        return w, cell * rows + 6, box_w, full
    if not two:
        w = g.text_w * (0.62 if f.kind not in ("diagram",) else 0.85)
    elif full:
        w = g.text_w * (0.62 if f.kind not in ("diagram", "hbar") else 0.8)
    else:
        w = g.column_w
    h = w * _ASPECT[f.kind] * (1.1 if two and not full else 1.0)
    if f.kind == "hbar":
        h = max(h, 26 + 11 * len(f.series[0].x) * len(f.series))
    return w, h, box_w, full


def size_figure(f: FigureGT, g: Geometry) -> FloatBox:
    body_w, body_h, box_w, full = _figure_size(f, g)
    data = (chart.render_vector if f.visual == "vector" else chart.render_raster)(f, body_w, body_h)
    centered = pymupdf.get_text_length(f.caption, fontname="tiro", fontsize=g.caption) < box_w * 0.95
    cap_h = measure_html(caption_html(f.caption, centered), caption_css(g.caption), box_w)
    return FloatBox("figure", f, box_w, body_w, body_h, cap_h, g.caption, full or g.columns == 1, centered, chart=data)


def _chunks(p: PaperGT, refs: list[str]) -> tuple[list[tuple[str, list[str]]], int]:
    """Chunks of HTML with the float keys first mentioned in each; and the index of the bibliography chunk."""
    out: list[tuple[str, list[str]]] = []
    cur = ["<h4>Abstract</h4>", _para_html(p.abstract, "abstract")]
    seen: set[str] = set()
    bib_at = -1
    for s in p.sections:
        if s.number[0].isalpha() and bib_at < 0:
            if cur:
                out.append(("".join(cur), []))
                cur = []
            bib_at = len(out)
            out.append(_bib(refs))
            cur = ['<h2>Appendix</h2>'] if s.number == "A" else []
        level = "h2" if "." not in s.number else "h3"
        if cur:
            out.append(("".join(cur), []))
            cur = []
        cur.append(f"<{level}>{s.number}&#160;&#160;{html.escape(s.title)}</{level}>")
        for i, para in enumerate(s.paragraphs):
            cur.append(_para_html(para, "first" if i == 0 else ""))
            keys = []
            for kind, n in _FLOAT_RE.findall(para):
                key = f"{kind.lower()}:{n}"
                if key not in seen:
                    seen.add(key)
                    keys.append(key)
            if keys:
                out.append(("".join(cur), keys))
                cur = []
    if cur:
        out.append(("".join(cur), []))
    if bib_at < 0:
        bib_at = len(out)
        out.append(_bib(refs))
    return out, bib_at


def _bib(refs: list[str]) -> tuple[str, list[str]]:
    return ("<h2>References</h2>" + "".join(f'<p class="ref">[{i}]&#160;{html.escape(r)}</p>'
                                           for i, r in enumerate(refs, start=1)), [])


def render_paper(p: PaperGT, refs: list[str], full_width_figures: set[int] | None = None, _backend=None) -> bytes:
    """The PDF of a planned v3 paper; fills p.pages and every float's page and bbox."""
    g = ONE_COLUMN if p.layout == "one_column" else TWO_COLUMN
    css = body_css(g)
    boxes: dict[str, FloatBox] = {f"figure:{f.n}": size_figure(f, g) for f in p.figures}
    for t in p.tables:
        boxes[f"table:{t.n}"] = size_table(t, g.column_w, g.text_w, g.columns == 2, g.caption)
    buf = io.BytesIO()
    flow = _Flow(g, pymupdf.DocumentWriter(buf), spaced=True)
    title = pymupdf.Story(_title_html(p), user_css=css)
    flow.new_page()
    _, filled = title.place(pymupdf.Rect(g.left, g.top, PAGE.width - g.right, 400))
    title.draw(flow.dev)
    flow.y = flow.col_top = pymupdf.Rect(filled).y1 + 16
    chunks, bib_at = _chunks(p, refs)
    for i, (body, keys) in enumerate(chunks):
        if i == bib_at:
            flow.flush(css)
        flow.text(body, css)
        for key in keys:
            if key in boxes:
                flow.float_here(boxes.pop(key))
    for box in boxes.values():  # a float no paragraph mentions still appears
        flow.float_here(box)
    flow.flush(css)
    flow.close()
    return _finish(p, buf.getvalue(), flow.placed)


def _draw_table(page: pymupdf.Page, box: FloatBox, x0: float, y0: float) -> None:
    t: TableGT = box.gt  # type: ignore[assignment]
    size, widths = box.table_font, box.col_widths
    row_h = size * 1.45
    x1 = x0 + sum(widths)
    bold = _bold_cells(t)
    writer = pymupdf.TextWriter(page.rect)
    rules = [y0 + 1]
    y = y0 + 3
    for i, row in enumerate([t.columns] + t.rows):
        x = x0
        for c, cell in enumerate(row):
            font = _font("tibo" if (i - 1, c) in bold else "tiro")
            w = font.text_length(cell, fontsize=size)
            tx = x + size if c == 0 else x + (widths[c] - w) / 2
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


def _bold_cells(t: TableGT) -> set[tuple[int, int]]:
    if t.role not in ("main", "ablation", "per_class"):
        return set()
    out = set()
    for c in range(1, len(t.columns)):
        if t.columns[c] == "Params (M)":
            continue
        vals = [(float(r[c]), i) for i, r in enumerate(t.rows)]
        out.add(((max(vals) if t.higher_is_better else min(vals))[1], c))
    return out


def _place(page: pymupdf.Page, box: FloatBox, x0: float, y0: float) -> pymupdf.Rect:
    if box.kind == "figure":
        return draw_float(page, box, x0, y0)
    bx = x0 + (box.width - box.body_w) / 2
    cap_w = box.width if box.full_width or box.width < 300 else min(box.width, max(box.body_w + 40, box.width * 0.85))
    cx = x0 + (box.width - cap_w) / 2
    cap = pymupdf.Rect(cx, y0, cx + cap_w, y0 + box.caption_h + 2)
    page.insert_htmlbox(cap, caption_html(box.gt.caption, box.centered_caption), css=caption_css(box.caption_size))
    _draw_table(page, box, bx, y0 + box.caption_h + CAPTION_GAP)
    top = min([y0] + [w[1] for w in page.get_text("words", clip=cap)])
    return pymupdf.Rect(x0, top, x0 + box.width, y0 + box.height)


def _finish(p: PaperGT, text_pdf: bytes, placed) -> bytes:
    doc = pymupdf.open("pdf", text_pdf)
    for page_no, x, y, box in placed:
        rect = _place(doc[page_no], box, x, y)
        box.gt.page = page_no + 1
        box.gt.bbox = (math.floor(rect.x0 * 100) / 100, math.floor(rect.y0 * 100) / 100,
                       math.ceil(rect.x1 * 100) / 100, math.ceil(rect.y1 * 100) / 100)
    doc[0].insert_text((24, PAGE.height - 250), f"arXiv:{p.arxiv_id}v{1 + len(p.id) % 2}  [{_ARXIV_CAT.get(p.area, 'cs.CV')}]",
                       fontname="tiro", fontsize=18, rotate=90, color=(0.55, 0.55, 0.55))
    for i, page in enumerate(doc, start=1):
        label = str(i)
        w = pymupdf.get_text_length(label, fontname="tiro", fontsize=9)
        page.insert_text(((PAGE.width - w) / 2, PAGE.height - 30), label, fontname="tiro", fontsize=9)
    p.pages = doc.page_count
    stamp = f"D:{p.year}0615120000Z"
    doc.set_metadata({"title": p.title, "author": ", ".join(p.authors), "subject": f"{p.venue} {p.year}",
                      "keywords": p.area, "creator": "epiharness sandbox corpus", "producer": "PyMuPDF",
                      "creationDate": stamp, "modDate": stamp})
    doc.subset_fonts()
    out = doc.tobytes(garbage=1, deflate=True, no_new_id=True)
    doc.close()
    return out
