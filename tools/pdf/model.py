"""What the PDF parser produces from a paper: the shared input of pdf_extract, pdf_rag and the extractors."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

BBox = tuple[float, float, float, float]


class Section(BaseModel):
    title: str
    level: int = 1
    page: int = Field(description="1-based page where the heading sits")


class TextBlock(BaseModel):
    """A paragraph of body text in reading order."""

    text: str
    page: int
    bbox: BBox
    section: str | None = None


class FloatRef(BaseModel):
    """A figure or table found through its caption."""

    kind: Literal["figure", "table"]
    n: int
    page: int = Field(description="1-based page")
    caption: str
    caption_bbox: BBox
    bbox: BBox | None = Field(default=None, description="region of the figure or table body, with the caption")

    @property
    def unit(self) -> str:
        return f"{self.kind}:{self.n}"


class PdfMeasures(BaseModel):
    """What an untrusted PDF was measured to cost when it was first parsed (compared with the limits
    again on every cache hit, so lowering a limit refuses a file parsed before)."""

    file_bytes: int
    decompressed_bytes: int = Field(description="bytes all non-image streams inflate to")
    largest_image_pixels: int = Field(description="pixels of the largest image the file holds")


class ParsedPaper(BaseModel):
    sha256: str
    pages: int
    title: str | None = None
    sections: list[Section] = Field(default_factory=list)
    blocks: list[TextBlock] = Field(default_factory=list)
    figures: list[FloatRef] = Field(default_factory=list)
    tables: list[FloatRef] = Field(default_factory=list)
    markdown: str = ""
    two_column: bool = False
    parser_version: str = ""
    measured: PdfMeasures | None = Field(default=None, description="set when the file was parsed as untrusted")

    def figure(self, n: int) -> FloatRef | None:
        return next((f for f in self.figures if f.n == n), None)

    def table(self, n: int) -> FloatRef | None:
        return next((t for t in self.tables if t.n == n), None)
