"""Reading order, sections, body text blocks and the markdown the agent reads.

Two-column pages are read left column then right column, within horizontal bands cut by
full-width items (a full-width table or figure, the title block). Float bodies are replaced by one
placeholder line at their caption: `[Figure N (page P): caption]`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .model import FloatRef, Section, TextBlock
from ._classify import heading_parts
from ._layout import Block, Geometry, PageText, spans_middle


def reading_order(page: PageText, geom: Geometry) -> list[Block]:
    """The page's visible blocks (no margins, no float bodies) in reading order."""
    items = [b for b in page.blocks if b.kind != "margin" and not (b.float_key and b.kind != "caption")]
    if not geom.two_column:
        return sorted(items, key=lambda b: (round(b.bbox[1]), b.bbox[0]))
    items.sort(key=lambda b: (b.bbox[1], b.bbox[0]))
    ordered: list[Block] = []
    left: list[Block] = []
    right: list[Block] = []

    def flush() -> None:
        ordered.extend(sorted(left, key=lambda b: b.bbox[1]))
        ordered.extend(sorted(right, key=lambda b: b.bbox[1]))
        left.clear()
        right.clear()

    for b in items:
        if spans_middle(b.bbox, geom.mid, margin=25):
            flush()
            ordered.append(b)
        elif (b.bbox[0] + b.bbox[2]) / 2 < geom.mid:
            left.append(b)
        else:
            right.append(b)
    flush()
    return ordered


def find_title(pages: list[PageText], geom: Geometry) -> list[Block]:
    """The largest-font block(s) in the top half of page 1, if clearly bigger than the body."""
    if not pages:
        return []
    cands = [b for b in pages[0].blocks if b.kind not in ("margin", "caption") and b.bbox[1] < 0.5 * pages[0].height
             and len(b.text) >= 8]
    if not cands:
        return []
    top = lambda b: max(l.peak for l in b.lines)
    best = max(cands, key=top)
    size = top(best)
    if size < geom.body_size + 1.5:
        return []
    same = sorted((b for b in cands if abs(top(b) - size) < 0.6), key=lambda b: b.bbox[1])
    i = next(k for k, b in enumerate(same) if b is best)
    lo = hi = i
    while lo > 0 and same[lo].bbox[1] - same[lo - 1].bbox[3] < 0.8 * size:  # a title over several blocks
        lo -= 1
    while hi + 1 < len(same) and same[hi + 1].bbox[1] - same[hi].bbox[3] < 0.8 * size:
        hi += 1
    return same[lo:hi + 1]


_FRONT_SECTIONS = re.compile(
    r"^(?:(?:\d+|[IVX]+)\.?\s+)?(?:abstract|introduction|background|overview|motivation|summary|keywords"
    r"|index terms|preliminaries|related work)\b", re.I)
_ABSTRACT_START = re.compile(r"^abstract(?![a-z])", re.I)


def _front_matter_end(page: PageText) -> float:
    """Top of the abstract (heading or run-in "Abstract—") or else of the first body paragraph on page 1:
    bold or large lines above it are authors and affiliations, not sections."""
    abstract = [b.bbox[1] for b in page.blocks if _ABSTRACT_START.match(b.text.strip())]
    if abstract:
        return min(abstract)
    return min((b.bbox[1] for b in page.blocks if b.kind == "paragraph" and len(b.lines) >= 2), default=0.0)


def _is_front_matter(b: Block, front_end: float) -> bool:
    """A page-1 heading-like block above the abstract that is not a known opening section."""
    return b.bbox[1] < front_end - 1 and not _FRONT_SECTIONS.match(b.text.strip())


@dataclass
class ReadResult:
    title: str | None
    sections: list[Section]
    blocks: list[TextBlock]
    markdown: str


def _placeholder(ref: FloatRef) -> str:
    label = "Figure" if ref.kind == "figure" else "Table"
    caption = ref.caption
    prefix = f"{label} {ref.n}"
    body = caption[len(prefix):].lstrip(" :.|—–-") if caption.startswith(prefix) else caption
    return f"[{label} {ref.n} (page {ref.page}): {body}]"


def read_document(pages: list[PageText], geom: Geometry, floats: dict[str, FloatRef]) -> ReadResult:
    """Walk the pages in reading order, collecting sections, paragraphs and markdown."""
    title_blocks = find_title(pages, geom)
    front_end = _front_matter_end(pages[0]) if pages else 0.0
    title = " ".join(" ".join(b.text for b in title_blocks).split()) or None
    sections: list[Section] = []
    blocks: list[TextBlock] = []
    md: list[str] = [f"# {title}"] if title else []
    current: str | None = None
    for page in pages:
        md.append(f"<!-- page {page.number} -->")
        for b in reading_order(page, geom):
            if any(b is t for t in title_blocks):
                continue
            if b.kind == "caption":
                ref = floats.get(b.float_key or "")
                if ref is not None:
                    md.append(_placeholder(ref))
                    continue
            if b.kind == "heading" and page.number == 1 and _is_front_matter(b, front_end):
                b.kind = "other"  # authors and affiliations above the first paragraph
            if b.kind == "heading":
                parts = heading_parts(b, geom)
                if parts:
                    text, level = parts
                    current = text
                    sections.append(Section(title=text, level=level, page=page.number))
                    md.append(f"{'#' * (level + 1)} {text}")
                    continue
            text = b.text
            if not text:
                continue
            blocks.append(TextBlock(text=text, page=page.number, bbox=b.bbox, section=current))
            md.append(text)
    return ReadResult(title=title, sections=sections, blocks=blocks, markdown="\n\n".join(md) + "\n")
