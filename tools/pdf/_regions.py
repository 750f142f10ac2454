"""Find the body of each figure and table from its caption, as pdffigures2 does.

From the caption we look up and down inside the caption's column (or the full text width when the
caption spans the middle), stopping at body paragraphs, headings and other captions. What lies in
between (vector paths, raster images, chart or cell text) is the float. Which side the body is on
is settled per document by a vote over the unambiguous captions, so a table whose caption is
followed by another table still gets the right body.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pymupdf

from ._classify import CaptionHit
from ._layout import Geometry, Line, PageText, Rect, spans_middle, union

_IMAGE_KINDS = ("fill-image", "fill-imgmask", "fill-shade")
_OBSTACLE_KINDS = ("paragraph", "heading", "caption")


@dataclass
class Item:
    """A piece of float content: a drawn shape, or a line of text (chart labels, table cells)."""

    box: Rect
    line: Line | None = None


@dataclass
class SideCandidate:
    region: Rect | None
    gap: float
    graphics: int
    lines: int
    strips: list[Rect] = field(default_factory=list)  # boxes of the content strips, outward from the caption


@dataclass
class FloatRegion:
    key: str
    body: Rect | None
    side: str  # "above" | "below" | "none"
    page: int = 0
    caption: Rect = (0.0, 0.0, 0.0, 0.0)
    strips: list[Rect] = field(default_factory=list)


def page_graphics(page: pymupdf.Page, geom: Geometry) -> list[Rect]:
    """Boxes of every path and image drawn on the page, minus page-sized backgrounds and margin rules.

    Paths are cut to the clip they are drawn in: a plotting library draws hatch tiles and bars far
    larger than what shows, and their raw boxes would stretch the figure over the page.
    """
    area = page.rect.width * page.rect.height
    boxes = visible_paths(page)
    boxes += [tuple(box) for kind, box in page.get_bboxlog() if kind in _IMAGE_KINDS]
    out: list[Rect] = []
    for x0, y0, x1, y1 in boxes:
        if (x1 - x0) * (y1 - y0) > 0.5 * area:
            continue
        if y1 < geom.y0 - 8 or y0 > geom.y1 + 8:
            continue
        out.append((x0, y0, x1, y1))
    return out


def _intersect(a: Rect, b: Rect) -> Rect | None:
    r = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return r if r[0] <= r[2] and r[1] <= r[3] else None


def visible_paths(page: pymupdf.Page) -> list[Rect]:
    """The part of each vector path's box that its clip lets show (paths clipped away are dropped)."""
    out: list[Rect] = []
    clips: list[tuple[int, Rect | None]] = []  # (nesting level, clip box; None once nothing shows)
    for d in page.get_drawings(extended=True):
        level = d.get("level", 0)
        while clips and clips[-1][0] >= level:
            clips.pop()
        kind = d.get("type")
        if kind == "clip":
            box = tuple(d["scissor"])
            if clips:
                box = _intersect(box, clips[-1][1]) if clips[-1][1] else None
            clips.append((level, box))
            continue
        if kind not in ("f", "s", "fs"):
            continue
        box = tuple(d["rect"])
        if clips:
            box = _intersect(box, clips[-1][1]) if clips[-1][1] else None
        if box is not None:
            out.append(box)
    return out


def _h_overlap(box: Rect, band: tuple[float, float]) -> float:
    """Fraction of the box's width inside the band (1.0 for zero-width boxes inside it)."""
    w = box[2] - box[0]
    inter = min(box[2], band[1]) - max(box[0], band[0])
    if w <= 0.5:
        return 1.0 if band[0] - 1 <= box[0] <= band[1] + 1 else 0.0
    return max(0.0, inter) / w


def _side(page: PageText, graphics: list[Rect], cap: CaptionHit, band: tuple[float, float],
          geom: Geometry, above: bool) -> SideCandidate:
    cb = cap.block.bbox
    column_band = geom.two_column and band[1] - band[0] < 0.75 * (geom.x1 - geom.x0)
    obstacles = [b.bbox for b in page.blocks if b is not cap.block and b.kind != "margin" and (
        (b.kind in _OBSTACLE_KINDS and _h_overlap(b.bbox, band) > 0.4)
        or (column_band and spans_middle(b.bbox, geom.mid) and _h_overlap(b.bbox, band) > 0.1))]
    if above:
        lo = max([o[3] for o in obstacles if o[3] <= cb[1] + 2 and o[1] < cb[1]], default=min(geom.y0, 40.0) - 12)
        hi = cb[1]
    else:
        lo = cb[3]
        hi = min([o[1] for o in obstacles if o[1] >= cb[3] - 2 and o[3] > cb[3]], default=max(geom.y1, page.height - 40) + 12)
    if hi - lo < 4:
        return SideCandidate(None, 1e9, 0, 0)
    inside = lambda r: lo - 1 <= (r[1] + r[3]) / 2 <= hi + 1 and _h_overlap(r, band) > 0.5
    # in a column, a shape crossing the gutter belongs to a full-width neighbour (a table's rule)
    items = [Item((max(g[0], band[0] - 30), max(g[1], lo), min(g[2], band[1] + 30), min(g[3], hi)))
             for g in graphics if inside(g) and not (column_band and spans_middle(g, geom.mid))]
    for b in page.blocks:
        if b.kind != "other":
            continue
        for ln in b.lines:
            if inside(ln.bbox) and _h_overlap(ln.bbox, band) > 0.8:
                items.append(Item(ln.bbox, ln))
    lefts = [b.bbox[0] for b in page.blocks if b.kind == "paragraph"] or [geom.x0, geom.x1 - geom.column_width]
    strips = _contiguous(items, cb, above, geom, column_band, _wide_items(page, graphics, geom, lo, hi), lefts)
    if not strips:
        return SideCandidate(None, 1e9, 0, 0)
    items = [it for strip in strips for it in strip]
    region = union([it.box for it in items])
    n_graphics = sum(1 for it in items if it.line is None)
    gap = cb[1] - region[3] if above else region[1] - cb[3]
    return SideCandidate(region, max(0.0, gap), n_graphics, len(items) - n_graphics,
                         [union([it.box for it in strip]) for strip in strips])


def _wide_items(page: PageText, graphics: list[Rect], geom: Geometry, lo: float, hi: float) -> list[Rect]:
    """Non-body content between lo and hi that crosses the column gap (full-width floats)."""
    out = [g for g in graphics if lo <= (g[1] + g[3]) / 2 <= hi and spans_middle(g, geom.mid)]
    out += [ln.bbox for b in page.blocks if b.kind == "other" for ln in b.lines
            if lo <= (ln.bbox[1] + ln.bbox[3]) / 2 <= hi and spans_middle(ln.bbox, geom.mid)]
    return out


def _contiguous(items: list[Item], cb: Rect, above: bool, geom: Geometry, column_band: bool,
                wide: list[Rect], lefts: list[float]) -> list[list[Item]]:
    """Keep the horizontal strips of content that continue the float outward from its caption.

    Strips are cut at empty rows of >= 5pt. In a two-column paper a full-width float stops at a strip
    that stays inside one column, and a column float stops at a strip holding full-width content:
    that is a neighbouring float, not this one. A strip of running body text ends the float too (the
    line of a paragraph next to it that PyMuPDF left in a block of its own).
    """
    if not items:
        return []
    items = sorted(items, key=lambda it: -it.box[3] if above else it.box[1])
    strips: list[list[Item]] = []
    edge = None
    for it in items:
        r = it.box
        if strips and edge is not None and ((edge - r[3]) if above else (r[1] - edge)) < 5:
            strips[-1].append(it)
            edge = min(edge, r[1]) if above else max(edge, r[3])
        else:
            strips.append([it])
            edge = r[1] if above else r[3]
    if _body_text(strips[0], geom, lefts):
        return []
    kept = [strips[0]]
    full_band = geom.two_column and not column_band
    for prev, strip in zip(strips, strips[1:]):
        if _body_text(strip, geom, lefts):
            break
        box = union([it.box for it in strip])
        pbox = union([it.box for it in prev])
        gap = (pbox[1] - box[3]) if above else (box[1] - pbox[3])
        if gap > 40:
            break
        if full_band and not spans_middle(box, geom.mid):
            break
        if column_band and any(w[1] < box[3] and w[3] > box[1] for w in wide):
            break
        kept.append(strip)
    return kept


def _body_text(strip: list[Item], geom: Geometry, lefts: list[float]) -> bool:
    """Lines of running text in the body font starting at a column's left edge: a sentence's end or
    a full line, no cell gaps, few digits. Chart titles are centred, table rows hold numbers."""
    lines = [it.line for it in strip if it.line is not None]
    if len(lines) < len(strip):
        return False  # a shape in the strip: float content
    text = "".join("".join(ln.text for ln in lines).split())
    if sum(c.isalpha() for c in text) < 0.75 * len(text) or sum(c.isdigit() for c in text) > 0.1 * len(text):
        return False
    if any(abs(ln.size - geom.body_size) > 0.6 or ln.gaps >= 0.9 * ln.size for ln in lines):
        return False
    first = min(lines, key=lambda ln: ln.bbox[1])
    flush = any(abs(first.bbox[0] - x) <= 2.5 for x in lefts)
    full = any(ln.width >= 0.7 * geom.column_width for ln in lines)
    return flush and (full or first.text.rstrip().endswith((".", "?", "!")))


def _has_body(kind: str, c: SideCandidate) -> bool:
    if c.region is None:
        return False
    if kind == "figure":
        return c.graphics > 0 or c.lines >= 3
    return c.lines >= 2 or c.graphics >= 2


def locate_regions(doc: pymupdf.Document, pages: list[PageText], captions: list[CaptionHit],
                   geom: Geometry) -> dict[str, FloatRegion]:
    """The body box of every caption's float, keyed "figure:N" / "table:N"."""
    by_page: dict[int, list[CaptionHit]] = {}
    for c in captions:
        by_page.setdefault(c.block.page, []).append(c)
    cands: dict[str, tuple[CaptionHit, SideCandidate, SideCandidate]] = {}
    for pno, caps in by_page.items():
        page = pages[pno - 1]
        graphics = page_graphics(doc[pno - 1], geom)
        for cap in caps:
            band = geom.band_of(cap.block.bbox)
            cands[cap.block.float_key or ""] = (
                cap, _side(page, graphics, cap, band, geom, True), _side(page, graphics, cap, band, geom, False))
    votes: dict[str, Counter[str]] = {"figure": Counter(), "table": Counter()}
    for cap, up, down in cands.values():
        has_up, has_down = _has_body(cap.kind, up), _has_body(cap.kind, down)
        if has_up and not has_down:
            votes[cap.kind]["above"] += 1
        elif has_down and not has_up:
            votes[cap.kind]["below"] += 1
        elif has_up and has_down and abs(up.gap - down.gap) > 20:
            votes[cap.kind]["above" if up.gap < down.gap else "below"] += 1
    out: dict[str, FloatRegion] = {}
    for key, (cap, up, down) in cands.items():
        has_up, has_down = _has_body(cap.kind, up), _has_body(cap.kind, down)
        if has_up and has_down:
            conv = votes[cap.kind].most_common(1)[0][0] if votes[cap.kind] else None
            if conv is None or abs(up.gap - down.gap) > 25:
                side = "above" if up.gap <= down.gap else "below"
            else:
                side = conv
        elif has_up:
            side = "above"
        elif has_down:
            side = "below"
        else:
            out[key] = FloatRegion(key, None, "none")
            continue
        chosen = up if side == "above" else down
        out[key] = FloatRegion(key, chosen.region, side, cap.block.page, cap.block.bbox, chosen.strips)
    _separate_facing(list(out.values()))
    return out


def _separate_facing(regions: list[FloatRegion]) -> None:
    """Cut apart two floats stacked between their captions (a table under its caption, then a figure
    over its own): each took the other's body too. The cut is the widest empty row between them."""
    for a in regions:
        for b in regions:
            if a is b or a.page != b.page or a.side != "below" or b.side != "above" or not a.body or not b.body:
                continue
            if a.caption[3] > b.caption[1] + 1 or min(a.body[3], b.body[3]) - max(a.body[1], b.body[1]) < 2:
                continue
            if min(a.body[2], b.body[2]) - max(a.body[0], b.body[0]) <= 0:
                continue
            gaps = [(a.strips[i + 1][1] - a.strips[i][3], i) for i in range(len(a.strips) - 1)
                    if a.strips[i + 1][3] > b.body[1] and a.strips[i + 1][1] <= b.body[3]]
            if not gaps:
                continue
            _, i = max(gaps)
            cut = (a.strips[i][3] + a.strips[i + 1][1]) / 2
            a.strips = a.strips[:i + 1]
            a.body = union(a.strips)
            keep = [s for s in b.strips if s[1] >= cut]
            if keep:
                b.strips = keep
                b.body = union(keep)


def mark_float_blocks(pages: list[PageText], regions: dict[str, FloatRegion]) -> None:
    """Tag the text blocks inside a float body so the markdown shows a placeholder instead of them."""
    for page in pages:
        for cap_block in [b for b in page.blocks if b.kind == "caption"]:
            reg = regions.get(cap_block.float_key or "")
            if reg is None or reg.body is None:
                continue
            x0, y0, x1, y1 = reg.body
            for b in page.blocks:
                if b.kind in ("other", "heading") and b.float_key is None:
                    bx0, by0, bx1, by1 = b.bbox
                    inter = max(0.0, min(bx1, x1 + 2) - max(bx0, x0 - 2)) * max(0.0, min(by1, y1 + 2) - max(by0, y0 - 2))
                    if inter >= 0.8 * max(1e-3, (bx1 - bx0) * (by1 - by0)):
                        b.float_key = reg.key
