"""Checks an untrusted PDF passes before its pages are read, and a render passes before it draws.

Each check reads only what it measures, within a budget: the page tree is walked node by node (a loop
or a lying /Count is refused), every non-image stream is inflated into nothing until the total passes
the decompressed-bytes limit, images are measured by the size their dictionary declares (never decoded).
So a hostile file costs at most the limit it breaks, and the parse after the checks stays within the
limits by construction.
"""
from __future__ import annotations

import re

import pymupdf

from ._errors import PdfError
from ._limits import PdfLimits, format_mb
from .model import PdfMeasures

MAX_TREE_DEPTH = 64
_REF = re.compile(r"(\d+)\s+\d+\s+R")
_REPAIR = "re-save it with a PDF tool that repairs files, then try again"


def _key(doc: pymupdf.Document, xref: int, key: str) -> tuple[str, str]:
    try:
        return doc.xref_get_key(xref, key)
    except (ValueError, RuntimeError):  # an xref number past the table, or an object mupdf cannot load
        return "null", "null"


def check_page_tree(doc: pymupdf.Document, limits: PdfLimits) -> int:
    """The number of pages, counted by walking the tree; refuses a loop, a node whose /Count is not the
    number of pages under it, a tree deeper than MAX_TREE_DEPTH, and more pages than the limit."""
    kind, value = _key(doc, doc.pdf_catalog(), "Pages")
    if kind != "xref":
        raise PdfError("corrupt PDF: its catalog has no page tree (/Pages)")
    top = int(value.split()[0])
    seen: set[int] = set()
    leaves = 0

    def walk(node: int, depth: int) -> int:
        nonlocal leaves
        if node in seen:
            raise PdfError(f"corrupt PDF: its page tree reaches object {node} twice (a loop); {_REPAIR}")
        if depth > MAX_TREE_DEPTH:
            raise PdfError(f"corrupt PDF: its page tree is nested more than {MAX_TREE_DEPTH} levels deep; {_REPAIR}")
        seen.add(node)
        kind, kids = _key(doc, node, "Kids")
        if kind == "xref":  # an indirect array
            kids = _resolve(doc, kids)
            kind = "array" if kids.lstrip().startswith("[") else "null"
        if kind != "array":  # a leaf: a page
            leaves += 1
            if leaves > limits.pages:
                kind, count = _key(doc, top, "Count")
                said = f" (its page tree says {count})" if kind == "int" else ""
                raise limits.refuse(f"it has more than {limits.pages} pages{said}", "pages")
            return 1
        found = sum(walk(int(k), depth + 1) for k in _REF.findall(kids))
        kind, count = _key(doc, node, "Count")
        if kind == "xref":  # an indirect number
            count = _resolve(doc, count)
            kind = "int" if count.strip().lstrip("-").isdigit() else "null"
        if kind == "int" and int(count) != found:
            raise PdfError(f"corrupt PDF: its page tree says /Count {count} at object {node} but holds {found} "
                           f"page{'s' if found != 1 else ''} there; {_REPAIR}")
        return found

    return walk(top, 0)


def _resolve(doc: pymupdf.Document, ref: str) -> str:
    """The object an indirect reference ('12 0 R') names, as PDF source; 'null' if it cannot be read."""
    try:
        return doc.xref_object(int(ref.split()[0]), compressed=True)
    except (ValueError, RuntimeError):
        return "null"


def _int_value(doc: pymupdf.Document, xref: int, key: str) -> int:
    kind, value = _key(doc, xref, key)
    if kind == "xref":  # an indirect number
        value = _resolve(doc, value)
    try:
        return int(float(value))
    except ValueError:
        return 0


def measure_streams(doc: pymupdf.Document, limits: PdfLimits, file_bytes: int) -> PdfMeasures:
    """Inflate every non-image stream into nothing, refusing once the total passes the limit, and
    measure every image by its declared size, refusing one over the pixel limit. Object streams go
    first: mupdf inflates one whole as soon as any object inside it is read."""
    pdf = pymupdf.mupdf.pdf_specifics(doc.this)
    streams: list[tuple[bool, int]] = []
    largest = 0
    for xref in range(1, pymupdf.mupdf.pdf_xref_len(pdf)):
        entry = pymupdf.mupdf.ll_pdf_get_xref_entry_no_change(pdf.m_internal, xref)
        if entry is None or entry.type != "n":  # free, or inside an object stream (never a stream itself)
            continue
        try:
            if not doc.xref_is_stream(xref):
                continue
        except (ValueError, RuntimeError):
            continue
        if _key(doc, xref, "Subtype")[1] == "/Image":
            w, h = _int_value(doc, xref, "Width"), _int_value(doc, xref, "Height")
            if w * h > limits.image_pixels:
                raise limits.refuse(f"it holds an image of {w} x {h} pixels ({w * h / 1e6:,.0f} megapixels, "
                                    f"object {xref})", "image_megapixels")
            largest = max(largest, w * h)
        else:
            streams.append((_key(doc, xref, "Type")[1] != "/ObjStm", xref))
    total = 0
    for _, xref in sorted(streams):
        try:
            stream = pymupdf.mupdf.pdf_open_stream_number(pdf, xref)
            total += pymupdf.mupdf.fz_skip(stream, limits.decompressed_bytes - total + 1)
        except RuntimeError:
            continue  # a damaged stream: the parse reports it if a page needs it
        if total > limits.decompressed_bytes:
            raise limits.refuse(f"its streams decompress to more than {limits.decompressed_mb:g} MB "
                                f"(object {xref} is where the total passed it)", "decompressed_mb")
    return PdfMeasures(file_bytes=file_bytes, decompressed_bytes=total, largest_image_pixels=largest)


def check_measures(measured: PdfMeasures, limits: PdfLimits) -> None:
    """A cached parse's measures against the limits in force now (the cache never changes a result)."""
    if measured.file_bytes > limits.file_bytes:
        raise limits.refuse(f"the file is {format_mb(measured.file_bytes)}", "file_mb")
    if measured.decompressed_bytes > limits.decompressed_bytes:
        raise limits.refuse(f"its streams decompress to {format_mb(measured.decompressed_bytes)}",
                            "decompressed_mb")
    if measured.largest_image_pixels > limits.image_pixels:
        raise limits.refuse(f"it holds an image of {measured.largest_image_pixels / 1e6:,.0f} megapixels",
                            "image_megapixels")


def check_render(page: pymupdf.Page, clip: pymupdf.Rect, dpi: int, limits: PdfLimits) -> None:
    """Refuse a render before it starts: the PNG's own pixels, and every image drawn across the clip
    (inline ones included, measured without decoding) alone and together, against the pixel limit."""
    w, h = round(clip.width * dpi / 72), round(clip.height * dpi / 72)
    where = f"page {page.number + 1}"
    if w * h > limits.image_pixels:
        raise limits.refuse(f"rendering the region of {where} at {dpi} dpi makes a {w} x {h} pixel image",
                            "image_megapixels")
    total = 0
    for info in page.get_image_info():
        if (pymupdf.Rect(info["bbox"]) & clip).is_empty:
            continue  # outside the clip: the renderer never decodes it
        iw, ih = info["width"], info["height"]
        if iw * ih > limits.image_pixels:
            raise limits.refuse(f"{where} draws an image of {iw} x {ih} pixels ({iw * ih / 1e6:,.0f} megapixels) "
                                "in the region to render", "image_megapixels")
        total += iw * ih
    if total > limits.image_pixels:
        raise limits.refuse(f"the images drawn in the region of {where} add up to {total / 1e6:,.0f} megapixels",
                            "image_megapixels")
