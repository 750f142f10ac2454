"""figure_extract: one figure as a PNG crop (>= 150 dpi) with its caption and the text that mentions it."""
from __future__ import annotations

import asyncio

from ._tool import tool
from ._types import EvidenceUnit, ToolImage, ToolResult
from ._world import World
from .pdf._present import nearby_text, require_float


async def _figure(world: World, paper: str, figure: int, *, image: bool) -> ToolResult:
    from .pdf import crop_figure, load_paper, world_limits  # the parser loads PyMuPDF; import on first use

    loaded = await load_paper(world, paper)
    meta, parsed = loaded.meta, loaded.parsed
    ref = require_float(parsed, meta.id, "figure", figure)
    crop = await asyncio.to_thread(crop_figure, loaded.data, ref, limits=world_limits(world)) if image else None
    bbox = ref.bbox or ref.caption_bbox
    near = nearby_text(parsed, ref)
    text = f"Figure {ref.n} (page {ref.page}) of {meta.id}: {ref.caption}"
    if ref.bbox is None:
        text += "\n(The figure body could not be located; the image shows the area above its caption.)"
    if near:
        text += "\n\nText that mentions it:\n" + near
    images = [ToolImage.from_png(f"{meta.id}_figure{ref.n}.png", crop.png, caption=ref.caption)] if crop else []
    return ToolResult(
        text=text, images=images,
        data={"n": ref.n, "page": ref.page, "bbox": list(bbox), "caption": ref.caption},
        provenance=[EvidenceUnit(paper=meta.id, unit=f"figure:{ref.n}", page=ref.page, bbox=bbox)])


@tool
async def figure_extract(world: World, paper: str, figure: int) -> ToolResult:
    """Extract a figure from a paper as an image, with its caption and the paragraphs that mention it.

    Args:
        paper: paper id, title, URL or arXiv id
        figure: the figure number as printed in its caption (Figure N), 1 or more
    """
    return await _figure(world, paper, figure, image=True)


@tool(name="figure_extract")
async def figure_extract_text(world: World, paper: str, figure: int) -> ToolResult:
    """figure_extract's result without its image: the same text, data and provenance, nothing rendered.

    For readers that never look at the image (the benchmark audit reads what the tools show as text); not
    offered to agents (the registry serves `figure_extract`).

    Args:
        paper: paper id, title, URL or arXiv id
        figure: the figure number as printed in its caption (Figure N), 1 or more
    """
    return await _figure(world, paper, figure, image=False)
