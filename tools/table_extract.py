"""table_extract: one table's cells as rows (markdown and JSON) with its caption and the text that mentions it."""
from __future__ import annotations

import asyncio

from ._tool import tool
from ._types import EvidenceUnit, ToolResult
from ._world import World
from .pdf._present import nearby_text, require_float


@tool
async def table_extract(world: World, paper: str, table: int) -> ToolResult:
    """Extract a table from a paper as rows of cells (markdown), with its caption and the paragraphs that mention it.

    Args:
        paper: paper id, title, URL or arXiv id
        table: the table number as printed in its caption (Table N), 1 or more
    """
    from .pdf import extract_table, load_paper  # the parser loads PyMuPDF; import on first use

    loaded = await load_paper(world, paper)
    meta, parsed = loaded.meta, loaded.parsed
    ref = require_float(parsed, meta.id, "table", table)
    cells = await asyncio.to_thread(extract_table, loaded.data, ref)
    bbox = ref.bbox or ref.caption_bbox
    text = f"Table {ref.n} (page {ref.page}) of {meta.id}: {ref.caption}\n\n"
    text += cells.markdown if cells.rows else "(The table's cells could not be read from the PDF.)"
    near = nearby_text(parsed, ref)
    if near:
        text += "\n\nText that mentions it:\n" + near
    return ToolResult(
        text=text,
        data={"n": ref.n, "page": ref.page, "bbox": list(bbox), "caption": ref.caption, "rows": cells.rows,
              "markdown": cells.markdown},
        provenance=[EvidenceUnit(paper=meta.id, unit=f"table:{ref.n}", page=ref.page, bbox=bbox)])
