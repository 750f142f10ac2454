"""parse_pdf: bytes in, ParsedPaper out (captions, float regions, sections, blocks, markdown).

Only pages that hold a caption have their vector paths and images looked at, which is what keeps
parsing far cheaper than running a layout model over every page.
"""
from __future__ import annotations

import hashlib

import pymupdf

from ._checks import check_page_tree, measure_streams
from ._classify import classify_blocks, find_captions
from ._errors import PdfError
from ._gutter import split_at_gutter
from ._layout import PageText, measure_geometry, read_page, union
from ._limits import PdfLimits, format_mb
from ._reading import read_document
from ._regions import locate_regions, mark_float_blocks
from .model import FloatRef, ParsedPaper

PARSER_VERSION = "epi-pdf-3"
DEFAULT_MAX_PAGES = 300

# Text boxes as this parser has always measured them: `import pymupdf` imports pymupdf4llm when it is
# installed, which switches PyMuPDF's quad corrections off for the whole process. Said here, the parse
# no longer depends on which optional packages are installed (or skipped, as the child process does).
pymupdf.TOOLS.unset_quad_corrections(True)


def open_pdf(data: bytes, *, max_pages: int = DEFAULT_MAX_PAGES, limits: PdfLimits | None = None) -> pymupdf.Document:
    """Open PDF bytes, refusing with a PdfError what cannot or should not be read.

    The page tree is always walked before mupdf counts pages (a lying /Count made it throw); with
    `limits` (an untrusted file) the file size is checked first and `limits.pages` replaces max_pages.
    """
    if not data:
        raise PdfError("empty file: 0 bytes, not a PDF")
    head = data[:1024]
    if b"%PDF-" not in head:
        shown = data[:16].decode("latin-1")
        raise PdfError(f"not a PDF: the file does not start with a %PDF- header (starts with {shown!r})")
    caps = limits or PdfLimits(pages=max_pages)
    if limits is not None and len(data) > limits.file_bytes:
        raise limits.refuse(f"the file is {format_mb(len(data))}", "file_mb")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as e:  # mupdf raises its own types for damaged files
        raise PdfError(f"corrupt PDF: PyMuPDF could not open it ({e})") from None
    try:
        if doc.needs_pass and not doc.authenticate(""):
            raise PdfError("encrypted PDF: it needs a password, which we do not have")
        walked = check_page_tree(doc, caps)
        try:
            n = doc.page_count
        except RuntimeError as e:
            raise PdfError(f"corrupt PDF: its page tree cannot be read ({e})") from None
        if n == 0:
            raise PdfError("corrupt PDF: it has no readable pages")
        if n != walked:
            raise PdfError(f"corrupt PDF: its page tree holds {walked} pages but PyMuPDF counts {n}")
        if n > caps.pages:
            raise caps.refuse(f"it has {n} pages", "pages")
    except BaseException:
        doc.close()
        raise
    return doc


def _read_pages(doc: pymupdf.Document) -> list[PageText]:
    pages: list[PageText] = []
    for i in range(doc.page_count):
        try:
            pages.append(read_page(doc[i], i + 1))
        except Exception as e:  # a damaged page stream
            raise PdfError(f"corrupt PDF: page {i + 1} cannot be read ({e})") from None
    return pages


def _caption_text(block_text: str) -> str:
    return " ".join(block_text.split())


def parse_pdf(data: bytes, *, max_pages: int = DEFAULT_MAX_PAGES, limits: PdfLimits | None = None) -> ParsedPaper:
    """Parse a paper's PDF into markdown, sections, text blocks and captioned figures and tables.

    With `limits` the file is first checked against them (tools/pdf/_checks.py) and its measures kept in
    `ParsedPaper.measured`. This runs in the calling process: untrusted files go through
    parse_isolated, which calls it in a child process that also caps seconds and memory.
    """
    sha = hashlib.sha256(data).hexdigest()
    doc = open_pdf(data, max_pages=max_pages, limits=limits)
    try:
        measured = measure_streams(doc, limits, len(data)) if limits else None
        pages = _read_pages(doc)
        if not any(p.blocks for p in pages):
            raise PdfError("PDF has no text layer (scanned images only?); nothing to extract")
        geom = measure_geometry(pages)
        if split_at_gutter(pages, geom):
            geom = measure_geometry(pages)
        captions = find_captions(pages, geom)
        classify_blocks(pages, geom)
        regions = locate_regions(doc, pages, captions, geom)
    finally:
        doc.close()
    mark_float_blocks(pages, regions)
    floats: dict[str, FloatRef] = {}
    for cap in captions:
        key = cap.block.float_key or ""
        reg = regions.get(key)
        cb = cap.block.bbox
        bbox = union([reg.body, cb]) if reg and reg.body else None
        floats[key] = FloatRef(kind=cap.kind, n=cap.n, page=cap.block.page, caption=_caption_text(cap.block.text),
                               caption_bbox=_round(cb), bbox=_round(bbox) if bbox else None)
    read = read_document(pages, geom, floats)
    figures = sorted((f for f in floats.values() if f.kind == "figure"), key=lambda f: f.n)
    tables = sorted((f for f in floats.values() if f.kind == "table"), key=lambda f: f.n)
    return ParsedPaper(sha256=sha, pages=len(pages), title=read.title, sections=read.sections, blocks=read.blocks,
                       figures=figures, tables=tables, markdown=read.markdown, two_column=geom.two_column,
                       parser_version=PARSER_VERSION, measured=measured)


def _round(b: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    return (round(b[0], 1), round(b[1], 1), round(b[2], 1), round(b[3], 1))
