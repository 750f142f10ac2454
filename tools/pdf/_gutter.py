"""Split text blocks that PyMuPDF built across the column gutter of a two-column page.

PyMuPDF groups lines into blocks by proximity, so the end of a caption in the left column and a
reference at the same height in the right column can come out as one block (and `_merge_rows` then
joins their lines row by row). Such a block is cut back into one block per column from its raw
lines, before captions are looked for. Lines that really cross the gutter (a full-width title or
caption) stay whole, in a block of their own.
"""
from __future__ import annotations

from ._layout import Block, Geometry, Line, PageText, merge_rows, union

_GUTTER_SLACK = 3.0  # points a column line may reach past the page middle


def _crosses(line: Line, mid: float) -> bool:
    return line.bbox[0] < mid - _GUTTER_SLACK and line.bbox[2] > mid + _GUTTER_SLACK


def _running_text(line: Line, geom: Geometry) -> bool:
    """A line of text filling half a column without cell-like gaps (not a table cell)."""
    return line.width >= 0.5 * geom.column_width and line.gaps < 0.9 * line.size


def column_parts(block: Block, geom: Geometry) -> list[Block] | None:
    """The block cut into left-column, right-column and gutter-crossing parts, or None to keep it.

    Only blocks with lines on both sides of the gutter and running text on at least one side are
    cut, so a full-width table whose cells happen to sit left and right of the middle stays whole.
    """
    raw = block.raw or block.lines
    if len(raw) < 2:
        return None
    mid = geom.mid
    left: list[Line] = []
    right: list[Line] = []
    full: list[Line] = []
    for ln in raw:
        if _crosses(ln, mid):
            full.append(ln)
        elif (ln.bbox[0] + ln.bbox[2]) / 2 < mid:
            left.append(ln)
        else:
            right.append(ln)
    if not left or not right or not any(_running_text(ln, geom) for ln in left + right):
        return None
    parts = sorted((p for p in (full, left, right) if p), key=lambda p: min(ln.bbox[1] for ln in p))
    return [Block(lines=merge_rows(p), bbox=union([ln.bbox for ln in p]), page=block.page, kind=block.kind, raw=p)
            for p in parts]


def split_at_gutter(pages: list[PageText], geom: Geometry) -> int:
    """Cut every block straddling the gutter of a two-column document; returns how many were cut."""
    if not geom.two_column:
        return 0
    cut = 0
    for page in pages:
        out: list[Block] = []
        for block in page.blocks:
            parts = column_parts(block, geom)
            if parts is None:
                out.append(block)
            else:
                out.extend(parts)
                cut += 1
        page.blocks = out
    return cut
