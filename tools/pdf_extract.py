"""pdf_extract: a paper as markdown (headings, page markers, a placeholder per figure and table), paged."""
from __future__ import annotations

from ._tool import tool
from ._types import EvidenceUnit, ToolError, ToolResult
from ._world import World
from .pdf._present import split_markdown


def _float_lines(kind: str, refs) -> list[str]:
    return [f"- {kind} {r.n} (page {r.page}): {r.caption}" for r in refs]


@tool
async def pdf_extract(world: World, paper: str, part: int = 1) -> ToolResult:
    """Read a paper as markdown with section headings, page markers and a placeholder for every figure and table; long papers come in parts.

    Args:
        paper: paper id, title, URL or arXiv id (or the handle returned by an earlier call)
        part: which part of the markdown to return, 1-based; the result says how many parts there are
    """
    from .pdf import load_paper  # the parser loads PyMuPDF; import on first use

    loaded = await load_paper(world, paper)
    meta, parsed = loaded.meta, loaded.parsed
    parts = split_markdown(parsed.markdown)
    if not 1 <= part <= len(parts):
        raise ToolError(f"part must be between 1 and {len(parts)} for paper {meta.id}; got {part}", kind="bad_arguments")
    head = [f"Paper {meta.id}: {meta.title}"]
    if meta.authors:
        head.append("Authors: " + ", ".join(meta.authors))
    if meta.venue:
        head.append(f"Venue: {meta.venue} {meta.year or ''}".rstrip())
    elif meta.year:
        head.append(f"Year: {meta.year}")
    head.append(f"Pages: {parsed.pages}. Part {part} of {len(parts)} (handle: {meta.id})"
                + (f"; call pdf_extract(paper=\"{meta.id}\", part={part + 1}) for more." if part < len(parts) else "."))
    if part == 1:
        head.append("Figures:" if parsed.figures else "Figures: none found")
        head += _float_lines("Figure", parsed.figures)
        head.append("Tables:" if parsed.tables else "Tables: none found")
        head += _float_lines("Table", parsed.tables)
    text = "\n".join(head) + "\n\n" + parts[part - 1]
    data = {
        "paper_id": meta.id, "title": meta.title, "authors": meta.authors, "venue": meta.venue, "year": meta.year,
        "pages": parsed.pages, "part": part, "parts": len(parts), "handle": meta.id,
        "sections": [s.title for s in parsed.sections],
        "figures": [{"n": f.n, "page": f.page, "caption": f.caption} for f in parsed.figures],
        "tables": [{"n": t.n, "page": t.page, "caption": t.caption} for t in parsed.tables],
    }
    return ToolResult(text=text, data=data, provenance=[EvidenceUnit(paper=meta.id, unit="text")])
