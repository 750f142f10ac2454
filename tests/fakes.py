"""Small stand-ins shared by tests: a world with no papers and a tool that shows a paper's text."""
from __future__ import annotations

from tools import EvidenceUnit, PaperNotFound, ToolResult, World, tool


class NullWorld(World):
    """A world that knows no papers: for tests of the harness and the tool contract, not of retrieval."""

    async def search(self, query, k):
        return []

    async def resolve(self, ref):
        raise PaperNotFound(f"no paper {ref!r} in the null world")

    async def pdf_bytes(self, paper):
        return b""


@tool(name="pdf_extract")
async def text_of(world: World, paper: str) -> ToolResult:
    """Show the text of a paper.

    Args:
        paper: paper id
    """
    return ToolResult(text=f"text of {paper}", provenance=[EvidenceUnit(paper=paper, unit="text", page=1)])
