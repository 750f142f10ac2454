"""Small stand-ins shared by tests: a world with no papers, a tool that shows a paper's text, and a snapshot of a
folder's files (to show that a refused command wrote nothing)."""
from __future__ import annotations

from pathlib import Path

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


def folder_snapshot(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Every file under `folder` (but those under a folder named in `skip`) and its bytes, once no run's plot worker
    is still drawing there (a run returns before its plots are drawn: harness/plot_worker.py)."""
    from harness.plot_worker import MARKER, wait_for_plots

    for marker in Path(folder).rglob(MARKER):
        if marker.parent.name == "plots":
            assert wait_for_plots(marker.parent.parent, timeout_s=120), f"plots of {marker.parent.parent} never drawn"
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not set(p.relative_to(folder).parts) & set(skip)}
