"""Tell captions, headings, body paragraphs and page furniture apart, from text and font cues.

A caption is a block whose first line STARTS with a float label and number followed by ':' '.' '|'
or a dash (or a bold label, or the label alone on its line), in a font no larger than the body; a body
sentence that begins "Table 1 presents ..." is not one. Each float number is taken once: the first
real caption in page order wins.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ._layout import Block, Geometry, Line, PageText, union

CAPTION_RE = re.compile(
    r"^(?P<label>(?i:figure|fig\.?|table|tab\.))\s*(?P<n>\d{1,3}|[IVXL]{1,6}(?![A-Za-z]))(?P<rest>.*)$"
)
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50}


def label_number(n: str) -> int:
    """The float number of "3" or of an IEEE-style roman "IV"."""
    if n.isdigit():
        return int(n)
    vals = [_ROMAN[c] for c in n]
    return sum(-v if i + 1 < len(vals) and vals[i + 1] > v else v for i, v in enumerate(vals))
_PUNCT_RE = re.compile(r"^\s*(?:[:.|]|[—–-]\s)(?!\d)")
_NUMBERED_HEADING = re.compile(r"^(?P<num>(?:\d+(?:\.\d+)*\.?)|(?:[A-H](?:\.\d+)*\.?)|(?:[IVX]+\.))\s+(?P<title>\S.*)$")


@dataclass
class CaptionHit:
    kind: str  # "figure" | "table"
    n: int
    block: Block


def _caption_label(line: Line, next_lines: list[Line], geom: Geometry) -> tuple[str, int] | None:
    m = CAPTION_RE.match(line.text)
    if not m:
        return None
    if line.size > geom.body_size + 1.5:
        return None
    label, rest = m.group("label"), m.group("rest")
    if label[0].islower() and label.lower() != label:
        return None  # "fIGURE": not a label
    roman = not m.group("n").isdigit()
    if roman and not label.lower().startswith("tab"):
        return None  # roman numbers only number tables (IEEE "TABLE IV")
    ok = bool(_PUNCT_RE.match(rest))
    if label[0].islower():  # small caps set as lowercase glyphs: only with punctuation after the number
        ok = ok and line.size <= geom.body_size + 0.5
    elif not ok and not rest.strip():
        ok = bool(next_lines) or line.label_bold  # "Figure 3" alone on its line, caption below
    if not ok and line.label_bold and rest[:1] == " " and not label[0].islower():
        # bold label followed by plain text ("**Figure 1** Results ...")
        ok = not line.bold
    if not ok:
        return None
    kind = "table" if label.lower().startswith("tab") else "figure"
    return kind, label_number(m.group("n"))


def _split_block(block: Block, at: int) -> tuple[Block, Block]:
    a, b = block.lines[:at], block.lines[at:]
    return (Block(a, union([l.bbox for l in a]), block.page, block.kind),
            Block(b, union([l.bbox for l in b]), block.page, block.kind))


def _caption_extent(lines: list[Line]) -> int:
    """How many lines from the first belong to the caption (stop at a font change or a wide gap)."""
    first = lines[0]
    for i in range(1, len(lines)):
        prev, cur = lines[i - 1], lines[i]
        gap = cur.bbox[1] - prev.bbox[3]
        font_change = abs(cur.size - first.size) > 0.8 and abs(cur.peak - first.peak) > 0.8  # small caps keep the peak
        if font_change or gap > 0.9 * first.size:
            return i
    return len(lines)


def find_captions(pages: list[PageText], geom: Geometry) -> list[CaptionHit]:
    """Mark caption blocks (splitting blocks where a caption starts mid-block) and return them."""
    hits: list[CaptionHit] = []
    seen: set[tuple[str, int]] = set()
    for page in pages:
        new_blocks: list[Block] = []
        for block in page.blocks:
            pending = [block]
            while pending:
                blk = pending.pop(0)
                hit_at = None
                for i, ln in enumerate(blk.lines):
                    if i > 0:
                        prev = blk.lines[i - 1]
                        separated = (ln.bbox[1] - prev.bbox[3] > 0.4 * ln.size or abs(ln.size - prev.size) > 0.8
                                     or prev.text.rstrip().endswith((".", ":")))
                        if not separated:
                            continue
                    if _caption_label(ln, blk.lines[i + 1:], geom):
                        hit_at = i
                        break
                if hit_at is None:
                    new_blocks.append(blk)
                    continue
                if hit_at > 0:
                    head, blk = _split_block(blk, hit_at)
                    new_blocks.append(head)
                extent = _caption_extent(blk.lines)
                if extent < len(blk.lines):
                    blk, tail = _split_block(blk, extent)
                    pending.insert(0, tail)
                kind, n = _caption_label(blk.lines[0], blk.lines[1:], geom)  # type: ignore[misc]
                top, bottom = min(geom.y0 - 2, 0.06 * page.height), max(geom.y1 + 2, 0.94 * page.height)
                if blk.bbox[3] < top or blk.bbox[1] > bottom or (kind, n) in seen:
                    new_blocks.append(blk)  # page furniture or a repeated number: not a new float
                    continue
                blk.kind = "caption"
                blk.float_key = f"{kind}:{n}"
                seen.add((kind, n))
                hits.append(CaptionHit(kind, n, blk))
                new_blocks.append(blk)
        page.blocks = _absorb_caption_text(new_blocks)
    return hits


def _absorb_caption_text(blocks: list[Block]) -> list[Block]:
    """A caption that is only its label ("TABLE IV" on its own line, IEEE style) takes in the block set
    directly under it, which holds the caption text."""
    out = list(blocks)
    for cap in [b for b in blocks if b.kind == "caption" and len(b.lines) == 1]:
        m = CAPTION_RE.match(cap.lines[0].text)
        if not m or m.group("rest").strip(" .:|\u2014\u2013-"):
            continue
        size = cap.lines[0].size
        below = [b for b in out if b is not cap and b.kind != "caption"
                 and -1 <= b.bbox[1] - cap.bbox[3] <= 1.2 * size
                 and min(b.bbox[2], cap.bbox[2]) - max(b.bbox[0], cap.bbox[0]) > 0
                 and b.size <= size + 0.8 and len(b.lines) <= 4]
        if not below:
            continue
        nxt = min(below, key=lambda b: b.bbox[1])
        cap.lines = cap.lines + nxt.lines
        cap.bbox = union([cap.bbox, nxt.bbox])
        out.remove(nxt)
    return out


def heading_parts(block: Block, geom: Geometry) -> tuple[str, int] | None:
    """(title, level) if the block is a section heading, else None."""
    if len(block.lines) > 3:
        return None
    for a, b in zip(block.lines, block.lines[1:]):
        if b.bbox[1] < a.bbox[3] - 2:  # two lines side by side: a table row, not a heading
            return None
    if any(l.gaps > 2.0 * l.size for l in block.lines):
        return None
    text = " ".join(" ".join(l.text.split()) for l in block.lines)
    if not (2 <= len(text) <= 120) or not any(c.isalpha() for c in text):
        return None
    size = max(l.size for l in block.lines)
    bold = all(l.bold for l in block.lines)
    bigger = size >= geom.body_size + 0.9
    if not (bold or bigger) or size < geom.body_size - 0.6:
        return None
    if text.endswith((",", ";")) or (text.endswith(".") and len(text.split()) > 8):
        return None
    m = _NUMBERED_HEADING.match(text)
    if m:
        level = m.group("num").rstrip(".").count(".") + 1
    else:
        if not bigger and (len(text.split()) > 6 or text.endswith(("?", ":", "."))):
            return None  # a bold run-in phrase, not a heading
        level = 1 if bigger else 2
    return text, min(level, 3)


def classify_blocks(pages: list[PageText], geom: Geometry) -> None:
    """Label every non-caption block as margin, heading, paragraph or other (float content candidates)."""
    for page in pages:
        for block in page.blocks:
            if block.kind == "caption":
                continue
            x0, y0, x1, y1 = block.bbox
            if y1 < geom.y0 - 2 or y0 > geom.y1 + 2 or x1 < geom.x0 - 10 or x0 > geom.x1 + 10:
                block.kind = "margin"
            elif heading_parts(block, geom):
                block.kind = "heading"
            elif is_paragraph(block, geom):
                block.kind = "paragraph"
            else:
                block.kind = "other"


def is_paragraph(block: Block, geom: Geometry) -> bool:
    """Running body text: body font size and lines that fill most of a column without table-like gaps."""
    if abs(block.size - geom.body_size) > 0.8:
        return False
    text = "".join(block.text.split())
    if sum(c.isdigit() for c in text) > 0.3 * max(1, len(text)):
        return False  # rows of numbers: a table
    min_w = 0.55 * geom.column_width
    wide = [l for l in block.lines if l.width >= min_w and l.gaps < 0.9 * l.size]
    if len(block.lines) == 1:
        line = block.lines[0]
        if bool(wide) and len(line.text) >= 30:
            return True
        # the last line of a paragraph carried over from the previous page or column
        letters = sum(c.isalpha() for c in text)
        return (len(line.text.split()) >= 4 and line.text.rstrip().endswith((".", "?", "!"))
                and line.gaps < 0.9 * line.size and letters > 0.8 * len(text))
    return len(wide) >= 0.5 * len(block.lines)
