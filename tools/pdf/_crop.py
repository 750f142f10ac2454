"""Render a figure's region to PNG, and split a float box into caption and body."""
from __future__ import annotations

from dataclasses import dataclass

import pymupdf

from ._checks import check_render
from ._errors import PdfError
from ._limits import PdfLimits
from ._parse import open_pdf
from .model import BBox, FloatRef

MIN_DPI = 150


@dataclass
class FigureCrop:
    png: bytes
    width: int
    height: int
    dpi: int
    bbox: BBox


def body_box(ref: FloatRef) -> BBox | None:
    """The float's box without its caption (the caption is above or below the body)."""
    if ref.bbox is None:
        return None
    x0, y0, x1, y1 = ref.bbox
    cx0, cy0, cx1, cy1 = ref.caption_bbox
    if (cy0 + cy1) / 2 > (y0 + y1) / 2:  # caption below
        return (x0, y0, x1, max(y0 + 1, cy0))
    return (x0, min(y1 - 1, cy1), x1, y1)


def crop_figure(data: bytes, ref: FloatRef, *, dpi: int = MIN_DPI, with_caption: bool = True,
                limits: PdfLimits | None = None) -> FigureCrop:
    """PNG of the figure's region (with its caption unless told otherwise) at >= 150 dpi.

    Before anything is drawn, the PNG's size and the images drawn across the region are held to the pixel
    limit (`limits`, default: from the environment), whoever parsed the file.
    """
    dpi = max(MIN_DPI, int(dpi))
    limits = limits or PdfLimits.from_env()
    doc = open_pdf(data, max_pages=10**6)
    try:
        page = doc[ref.page - 1]
        box = ref.bbox if with_caption else body_box(ref)
        if box is None:  # no body found: show the caption's column, half a page around it
            cx0, cy0, cx1, cy1 = ref.caption_bbox
            box = (cx0, max(0.0, cy0 - 0.35 * page.rect.height), cx1, cy1)
        clip = pymupdf.Rect(box) + (-3, -3, 3, 3)
        clip &= page.rect
        check_render(page, clip, dpi, limits)
        pix = page.get_pixmap(clip=clip, dpi=dpi)
        return FigureCrop(png=pix.tobytes("png"), width=pix.width, height=pix.height, dpi=dpi,
                          bbox=(clip.x0, clip.y0, clip.x1, clip.y1))
    except (RuntimeError, IndexError) as e:  # mupdf on a damaged page; a float on a page the file lacks
        raise PdfError(f"corrupt PDF: page {ref.page} cannot be rendered ({e})") from None
    finally:
        doc.close()
