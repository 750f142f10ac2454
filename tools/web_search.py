"""web_search: ranked search results (title, snippet, URL, paper id) from the world's search backend."""
from __future__ import annotations

from ._tool import tool
from ._types import ToolError, ToolResult
from ._world import SearchHit, World

MAX_QUERY_CHARS = 500
SNIPPET_CHARS = 300


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 3].rstrip() + "..."


def format_hits(query: str, hits: list[SearchHit]) -> str:
    """The ranked hits as numbered plain text the model can read and cite (ids and URLs verbatim)."""
    if not hits:
        return f"No results for {query!r}. Try other words: a title, author surnames, a venue or year, or the method name."
    lines = [f"Results for {query!r}:"]
    for rank, hit in enumerate(hits, 1):
        lines.append(f"{rank}. {hit.title}")
        if hit.paper_id:
            lines.append(f"   paper id: {hit.paper_id}")
        lines.append(f"   url: {hit.url}")
        if hit.snippet:
            lines.append(f"   {_snippet(hit.snippet)}")
    return "\n".join(lines)


@tool
async def web_search(world: World, query: str, k: int = 5) -> ToolResult:
    """Search the web (or the sandbox corpus) for papers; returns ranked titles, snippets, URLs and paper ids.

    Args:
        query: what to look for: a title, authors, venue and year, a method name, or a description
        k: how many results to return (1 to 20)
    """
    query = query.strip()
    if not query:
        raise ToolError("web_search: the query is empty; say what to look for (title, authors, topic)")
    if len(query) > MAX_QUERY_CHARS:
        raise ToolError(f"web_search: the query has {len(query)} characters; keep it under {MAX_QUERY_CHARS}")
    hits = (await world.search(query, k))[:k]
    return ToolResult(
        text=format_hits(query, hits),
        data={"query": query, "hits": [h.model_dump() for h in hits]},
    )
