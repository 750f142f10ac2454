"""Small synthetic papers drawn with PyMuPDF for the PDF hardening tests (fast and deterministic)."""
from __future__ import annotations

import pymupdf

FILLER = ("We study how retrieval models rank scientific documents under realistic conditions and report "
          "the effect of each component on accuracy and cost across several benchmark collections today").split()


class Page:
    """A letter-size page in one column (x 72..540) with helpers to place text, rules and paragraphs."""

    def __init__(self, doc: pymupdf.Document) -> None:
        self.page = doc.new_page(width=612, height=792)

    def text(self, x: float, y: float, s: str, size: float = 10, bold: bool = False) -> None:
        """`s` with its baseline at y."""
        self.page.insert_text((x, y), s, fontsize=size, fontname="hebo" if bold else "helv")

    def rule(self, x0: float, x1: float, y: float, width: float = 0.5) -> None:
        self.page.draw_line((x0, y), (x1, y), width=width)

    def vrule(self, x: float, y0: float, y1: float) -> None:
        self.page.draw_line((x, y0), (x, y1), width=0.5)

    def paragraph(self, y: float, lines: int = 4, size: float = 10, x0: float = 72) -> float:
        """Body text lines filling the column from y; returns the baseline after the paragraph."""
        words = FILLER * 4
        for i in range(lines):
            self.text(x0, y, " ".join(words[i * 11:(i + 1) * 11]), size)
            y += size * 1.25
        return y + size


def new_doc() -> pymupdf.Document:
    return pymupdf.open()


def to_bytes(doc: pymupdf.Document) -> bytes:
    data = doc.tobytes()
    doc.close()
    return data
