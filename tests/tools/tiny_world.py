"""A tiny World over a few PDFs generated with PyMuPDF, for tests that need papers but not the full sandbox."""
from __future__ import annotations

from pathlib import Path

import pymupdf

from tools import PaperMeta, PaperNotFound, SearchHit, World
from tools.search_index import HybridIndex, paper_document_text

from .search_fixtures import PAPERS


def make_pdf(path: Path, meta: PaperMeta, pages: int = 2) -> Path:
    """A small real PDF: title, authors, abstract, then a section with a paragraph on each page."""
    doc = pymupdf.open()
    for n in range(pages):
        page = doc.new_page()
        y = 72
        if n == 0:
            page.insert_textbox(pymupdf.Rect(72, y, 540, y + 60), meta.title, fontsize=16)
            page.insert_text((72, y + 70), ", ".join(meta.authors), fontsize=11)
            page.insert_textbox(pymupdf.Rect(72, y + 90, 540, y + 250), "Abstract. " + (meta.abstract or ""), fontsize=10)
            y += 270
        page.insert_text((72, y), f"{n + 1} Section {n + 1}", fontsize=12)
        page.insert_textbox(pymupdf.Rect(72, y + 10, 540, y + 200),
                            f"This is body text on page {n + 1} of {meta.id}. " * 6, fontsize=10)
    doc.save(path)
    return path


class TinyWorld(World):
    """Papers P001..P00n of the search fixtures, each with a generated PDF in a folder."""

    name = "tiny"

    def __init__(self, root: Path, n: int = 5):
        super().__init__(root / "cache")
        self.pdf_dir = root / "pdfs"
        self.pdf_dir.mkdir(parents=True, exist_ok=True)
        self.papers: dict[str, PaperMeta] = {}
        for p in PAPERS[:n]:
            meta = PaperMeta(id=p.id, title=p.title, authors=list(p.authors), venue=p.venue, year=p.year,
                             abstract=p.abstract, url=f"https://sandbox.local/papers/{p.id}")
            make_pdf(self.pdf_dir / f"{p.id}.pdf", meta)
            self.papers[p.id] = meta
        self.index = HybridIndex.build(
            [(m.id, paper_document_text(m.title, m.authors, m.venue, m.year, m.abstract)) for m in self.papers.values()],
            None)

    async def search(self, query: str, k: int) -> list[SearchHit]:
        return [SearchHit(title=self.papers[d].title, url=self.papers[d].url or "", snippet=self.papers[d].abstract or "",
                          score=s, paper_id=d) for d, s in self.index.search(query, k)]

    async def resolve(self, ref: str) -> PaperMeta:
        if ref in self.papers:
            return self.papers[ref]
        raise PaperNotFound(f"no paper {ref!r} in the tiny world; known ids: {', '.join(self.papers)}")

    async def pdf_bytes(self, paper: PaperMeta) -> bytes:
        return (self.pdf_dir / f"{paper.id}.pdf").read_bytes()
