"""Page text as lines and blocks with font cues, and the document geometry (body font, columns, margins).

Everything downstream (captions, headings, float regions, reading order) is decided from these
light-weight records, so each page's text is read from PyMuPDF exactly once.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from statistics import median
from typing import Literal

import pymupdf

Rect = tuple[float, float, float, float]
BlockKind = Literal["paragraph", "heading", "caption", "margin", "other"]

_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|medi", re.I)


@dataclass
class Line:
    """One visual line of text with the cues the classifiers need."""

    text: str
    bbox: Rect
    size: float
    bold: bool
    label_bold: bool
    gaps: float = 0.0  # the widest gap between consecutive spans, in points
    peak: float = 0.0  # the largest span font size (small caps lower the average)

    @property
    def width(self) -> float:
        return self.bbox[2] - self.bbox[0]


@dataclass
class Block:
    """A PyMuPDF text block: lines that belong together, later classified."""

    lines: list[Line]
    bbox: Rect
    page: int
    kind: BlockKind = "other"
    float_key: str | None = None  # "figure:N"/"table:N" for caption blocks and float bodies
    raw: list[Line] = field(default_factory=list)  # PyMuPDF's lines before same-row merging

    @property
    def size(self) -> float:
        sizes = Counter()
        for ln in self.lines:
            sizes[round(ln.size * 2) / 2] += len(ln.text)
        return sizes.most_common(1)[0][0] if sizes else 0.0

    @property
    def text(self) -> str:
        return join_lines([ln.text for ln in self.lines])


@dataclass
class PageText:
    number: int  # 1-based
    width: float
    height: float
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Geometry:
    """Document-wide layout facts measured from body paragraphs."""

    body_size: float
    x0: float
    x1: float
    y0: float
    y1: float
    two_column: bool
    page_width: float
    page_height: float

    @property
    def mid(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def column_width(self) -> float:
        return (self.x1 - self.x0) / 2 - 6 if self.two_column else self.x1 - self.x0

    def band_of(self, bbox: Rect) -> tuple[float, float]:
        """The column (or full text width) a box belongs to."""
        if not self.two_column or spans_middle(bbox, self.mid):
            return (min(self.x0, bbox[0]), max(self.x1, bbox[2]))
        if (bbox[0] + bbox[2]) / 2 < self.mid:
            return (min(self.x0, bbox[0]), max(self.mid, bbox[2]))
        return (min(self.mid, bbox[0]), max(self.x1, bbox[2]))


def spans_middle(bbox: Rect, mid: float, margin: float = 12.0) -> bool:
    return bbox[0] < mid - margin and bbox[2] > mid + margin


def join_lines(lines: list[str]) -> str:
    """Join visual lines into running text, undoing end-of-line hyphenation."""
    out = ""
    for raw in lines:
        t = " ".join(raw.split())
        if not t:
            continue
        if out.endswith("-") and len(out) > 1 and out[-2].isalpha() and t[:1].islower():
            out = out[:-1] + t
        elif out:
            out += " " + t
        else:
            out = t
    return out


def _is_bold(span: dict) -> bool:
    return bool(span["flags"] & 16) or bool(_BOLD_FONT.search(span["font"]))


def read_page(page: pymupdf.Page, number: int) -> PageText:
    """Lines and blocks of one page from a single `get_text("dict")` call."""
    d = page.get_text("dict", flags=_TEXT_FLAGS)
    out = PageText(number=number, width=page.rect.width, height=page.rect.height)
    for b in d["blocks"]:
        if b.get("type", 0) != 0:
            continue
        lines: list[Line] = []
        for ln in b["lines"]:
            spans = [s for s in ln["spans"] if s["text"].strip()]
            if not spans:
                continue
            text = "".join(s["text"] for s in ln["spans"]).strip()
            chars = sum(len(s["text"].strip()) for s in spans) or 1
            size = sum(s["size"] * len(s["text"].strip()) for s in spans) / chars
            bold_chars = sum(len(s["text"].strip()) for s in spans if _is_bold(s))
            gaps = max((b2["bbox"][0] - b1["bbox"][2] for b1, b2 in zip(spans, spans[1:])), default=0.0)
            lines.append(Line(text=text, bbox=tuple(ln["bbox"]), size=size, bold=bold_chars >= 0.8 * chars,
                              label_bold=_is_bold(spans[0]), gaps=gaps, peak=max(s["size"] for s in spans)))
        if lines:
            merged = _merge_rows(lines)
            out.blocks.append(Block(lines=merged, bbox=_union([l.bbox for l in lines]), page=number, raw=lines))
    return out


def _merge_rows(lines: list[Line]) -> list[Line]:
    """Join lines of one block that sit on the same row ("1" + "Introduction", table cells)."""
    lines = sorted(lines, key=lambda l: ((l.bbox[1] + l.bbox[3]) / 2, l.bbox[0]))
    rows: list[list[Line]] = []
    for ln in lines:
        cy = (ln.bbox[1] + ln.bbox[3]) / 2
        if rows:
            last = rows[-1][-1]
            if last.bbox[1] <= cy <= last.bbox[3] and not (ln.bbox[0] < last.bbox[2] - 1 and ln.bbox[2] > last.bbox[0] + 1):
                rows[-1].append(ln)
                continue
        rows.append([ln])
    out: list[Line] = []
    for row in rows:
        if len(row) == 1:
            out.append(row[0])
            continue
        row.sort(key=lambda l: l.bbox[0])
        chars = sum(len(l.text) for l in row) or 1
        gaps = max([l.gaps for l in row] + [b.bbox[0] - a.bbox[2] for a, b in zip(row, row[1:])])
        out.append(Line(text=" ".join(l.text for l in row), bbox=_union([l.bbox for l in row]),
                        size=sum(l.size * len(l.text) for l in row) / chars, bold=all(l.bold for l in row),
                        label_bold=row[0].label_bold, gaps=gaps, peak=max(l.peak for l in row)))
    return out


merge_rows = _merge_rows


def _union(boxes: list[Rect]) -> Rect:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


union = _union


def measure_geometry(pages: list[PageText]) -> Geometry:
    """Body font size, text area and column layout from the lines of the whole document."""
    sizes: Counter[float] = Counter()
    for p in pages:
        for b in p.blocks:
            for ln in b.lines:
                sizes[round(ln.size * 2) / 2] += len(ln.text)
    body = sizes.most_common(1)[0][0] if sizes else 10.0
    pw = pages[0].width if pages else 612.0
    ph = pages[0].height if pages else 792.0
    body_lines = [ln for p in pages for b in p.blocks for ln in b.lines
                  if abs(ln.size - body) <= 0.8 and len(ln.text) >= 25]
    if not body_lines:
        return Geometry(body, 0.1 * pw, 0.9 * pw, 0.06 * ph, 0.94 * ph, False, pw, ph)
    xs0 = sorted(ln.bbox[0] for ln in body_lines)
    xs1 = sorted(ln.bbox[2] for ln in body_lines)
    ys0 = sorted(ln.bbox[1] for ln in body_lines)
    ys1 = sorted(ln.bbox[3] for ln in body_lines)
    q = lambda v, f: v[min(len(v) - 1, int(f * len(v)))]
    x0, x1 = q(xs0, 0.02), q(xs1, 0.98)
    y0, y1 = q(ys0, 0.005), q(ys1, 0.995)
    y0, y1 = _stretch_to_content(pages, body, y0, y1)
    width = x1 - x0
    widths = [ln.width for ln in body_lines]
    narrow = sum(1 for w in widths if w < 0.6 * width)
    mid = (x0 + x1) / 2
    right = sum(1 for ln in body_lines if ln.bbox[0] > mid - 2 and ln.width < 0.6 * width)
    two_col = narrow > 0.6 * len(widths) and right > 0.2 * len(widths) and median(widths) < 0.6 * width
    return Geometry(body, x0, x1, y0, y1, two_col, pw, ph)


def _stretch_to_content(pages: list[PageText], body: float, y0: float, y1: float) -> tuple[float, float]:
    """Widen the text area to non-furniture text at most body-sized, for papers whose pages all open
    with a float or a title (body lines alone would put the top margin below the first table).

    Furniture is what repeats at the same height on several pages (running heads, footers) and bare
    page numbers; it is left outside.
    """
    def key(ln: Line) -> tuple[int, str]:
        return (round(ln.bbox[1] / 3), re.sub(r"[\d\s]+", "", ln.text).lower())

    seen: Counter[tuple[int, str]] = Counter()
    for p in pages:
        for k in {key(ln) for b in p.blocks for ln in b.lines}:
            seen[k] += 1
    tops: list[float] = []
    bottoms: list[float] = []
    for p in pages:
        for b in p.blocks:
            for ln in b.lines:
                if ln.size > body + 1.5 or not re.search(r"[A-Za-z]{2}", ln.text) or (len(pages) > 1 and seen[key(ln)] > 1):
                    continue
                if abs(ln.bbox[0] - ln.bbox[2]) < 3 * ln.size and abs(ln.bbox[1] - ln.bbox[3]) > 3 * ln.size:
                    continue  # vertical text in the margin (arXiv stamp)
                tops.append(ln.bbox[1])
                bottoms.append(ln.bbox[3])
    if len(tops) < 20:
        return y0, y1
    tops.sort()
    bottoms.sort()
    return min(y0, tops[min(len(tops) - 1, int(0.002 * len(tops)))]), max(y1, bottoms[int(0.998 * (len(bottoms) - 1))])
