"""Run a checklist's steps through the real tools while generating episodes, so every cue stays solvable.

With a built sandbox, `ToolProbe` asks the search engine where a checklist's query ranks the target
(it must be on the first page of results) and which part of `pdf_extract` shows a reference entry.
Without one (a ground truth alone, in unit tests) `NoProbe` accepts every query and says part 1.
"""
from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Protocol

SEARCH_K = 20  # web_search's largest k: a checklist query must put the target among these (it asks for as many as needed)


class Probe(Protocol):
    verified: bool

    def rank(self, query: str, target: str) -> int | None:
        """1-based rank of `target` among the first SEARCH_K hits of `query`, or None (NoProbe: 1)."""

    def top1(self, query: str) -> str | None:
        """The paper the engine ranks first for `query`."""

    def hits(self, query: str) -> list[str] | None:
        """The paper ids of the first SEARCH_K hits of `query`, best first; None without a search engine."""

    def reference_part(self, paper: str, number: int, title: str) -> int | None:
        """The pdf_extract part of `paper` showing its reference entry [number] (the cited title beside it)."""

    def figure_whole(self, paper: str, n: int, bbox: tuple[float, float, float, float] | None) -> bool:
        """Does figure_extract's crop of Figure n hold the whole chart (the drawn box `bbox`)?"""


class NoProbe:
    verified = False

    def rank(self, query: str, target: str) -> int | None:
        return 1

    def top1(self, query: str) -> str | None:
        return None

    def hits(self, query: str) -> list[str] | None:
        return None

    def reference_part(self, paper: str, number: int, title: str) -> int | None:
        return 1

    def figure_whole(self, paper: str, n: int, bbox: tuple[float, float, float, float] | None) -> bool:
        return True


class ToolProbe:
    """The sandbox world's search engine and pdf_extract, memoised."""

    verified = True

    def __init__(self, sandbox_dir: Path):
        from sandbox.world import SandboxWorld

        self.world = SandboxWorld(sandbox_dir)
        self._search: dict[str, list[str]] = {}
        self._parts: dict[str, list[str]] = {}
        self._parsed: dict[str, object] = {}

    def hits(self, query: str) -> list[str]:
        if query not in self._search:
            self._search[query] = [h.paper_id or "" for h in self.world._search_sync(query, SEARCH_K)]
        return self._search[query]

    def rank(self, query: str, target: str) -> int | None:
        hits = self.hits(query)
        return hits.index(target) + 1 if target in hits else None

    def top1(self, query: str) -> str | None:
        hits = self.hits(query)
        return hits[0] if hits else None

    def reference_part(self, paper: str, number: int, title: str) -> int | None:
        if paper not in self._parts:
            self._parts[paper] = asyncio.run(self._read_parts(paper))
        lead = " ".join(title.split()[:4])  # titles appear only in reference entries, and may wrap after that
        for i, text in enumerate(self._parts[paper], start=1):
            flat = re.sub(r"-\s+", "-", " ".join(text.split()))  # a title hyphen-wrapped at a line end
            at = flat.find(lead)
            if at >= 0 and f"[{number}]" in flat[max(0, at - 200):at]:
                return i
        return None

    def figure_whole(self, paper: str, n: int, bbox: tuple[float, float, float, float] | None) -> bool:
        from tools.pdf import parse_pdf

        if paper not in self._parsed:
            self._parsed[paper] = parse_pdf(self.world.pdf_path(paper).read_bytes())
        ref = self._parsed[paper].figure(n)
        if ref is None or ref.bbox is None or bbox is None:
            return False
        # The drawn box spans the float's slot (a narrower chart is centred in it): the crop must cover its
        # height, where a cut would drop the title or legend, and most of its width.
        slack = 3.0
        return (ref.bbox[1] <= bbox[1] + slack and ref.bbox[3] >= bbox[3] - slack
                and ref.bbox[2] - ref.bbox[0] >= 0.6 * (bbox[2] - bbox[0]))

    async def _read_parts(self, paper: str) -> list[str]:
        from tools import get_tool

        extract = get_tool("pdf_extract")
        first = await extract(self.world, {"paper": paper})
        parts = [first.text]
        for k in range(2, (first.data or {}).get("parts", 1) + 1):
            parts.append((await extract(self.world, {"paper": paper, "part": k})).text)
        return parts
