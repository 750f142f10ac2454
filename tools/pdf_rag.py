"""pdf_rag: the passages of one paper that best answer a question, with section, page and the floats they cite.

A paper is cut into chunks along its sections and paragraphs (short paragraphs are joined, long ones
split with overlap) plus one chunk per figure/table caption, indexed with the same hybrid BM25 +
MiniLM index as web_search, and cached on disk by the PDF's sha256 (and in memory per process).
"""
from __future__ import annotations

import asyncio
import json
import re
import shutil
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from ._filelock import exclusive
from ._tool import tool
from ._types import EvidenceUnit, ToolError, ToolResult
from ._world import World
from .pdf.model import ParsedPaper

if TYPE_CHECKING:  # the index brings numpy, bm25s and faiss: imported when a paper is first indexed
    from .search_index import HybridIndex

CHUNKER_VERSION = 1
MIN_WORDS, MAX_WORDS, OVERLAP_WORDS = 40, 180, 30
SPAN_CHARS = 1500
_FLOAT_RE = re.compile(
    r"\b(Fig(?:ure)?s?\.?|Tab(?:le)?s?\.?)\s*((?:\d+[a-z]?)(?:\s*(?:,|and|&|or|to|[-\u2013])\s*\d+[a-z]?)*)", re.I
)


class Chunk(BaseModel):
    """One retrievable passage of a paper."""

    text: str
    section: str | None = None
    page: int = Field(description="1-based page where the passage starts")
    mentions: list[str] = Field(default_factory=list, description="units the passage cites, e.g. 'figure:2'")


class Span(BaseModel):
    """A ranked passage returned to the agent."""

    rank: int
    score: float
    chunk: Chunk


def float_mentions(text: str, known: set[str] | None = None) -> list[str]:
    """Units ('figure:N' / 'table:N') a passage refers to, in order of first mention.

    Ranges ("Figures 2-4") expand; when `known` is given, numbers the paper does not have are dropped.
    """
    found: list[str] = []
    for m in _FLOAT_RE.finditer(text):
        kind = "figure" if m.group(1).lower().startswith("fig") else "table"
        nums = [int(re.match(r"\d+", n).group()) for n in re.findall(r"\d+[a-z]?", m.group(2))]
        if re.search(r"(to|[-\u2013])", m.group(2)) and len(nums) == 2 and 0 < nums[1] - nums[0] < 10:
            nums = list(range(nums[0], nums[1] + 1))
        for n in nums:
            unit = f"{kind}:{n}"
            if n > 0 and unit not in found and (known is None or unit in known):
                found.append(unit)
    return found


def _split_words(text: str) -> list[str]:
    """Split a long paragraph into windows of at most MAX_WORDS words overlapping by OVERLAP_WORDS."""
    words = text.split()
    if len(words) <= MAX_WORDS:
        return [text]
    step = MAX_WORDS - OVERLAP_WORDS
    return [" ".join(words[i : i + MAX_WORDS]) for i in range(0, max(len(words) - OVERLAP_WORDS, 1), step)]


def chunk_paper(parsed: ParsedPaper) -> list[Chunk]:
    """Section- and paragraph-aligned chunks of the body text, then one chunk per caption.

    Paragraphs shorter than MIN_WORDS join the next one of the same section on the same page, so every
    chunk has one section and one page.
    """
    known = {f.unit for f in parsed.figures + parsed.tables} or None
    chunks: list[Chunk] = []
    pending: list[str] = []
    pending_section: str | None = None
    pending_page = 1

    def flush() -> None:
        if pending:
            for piece in _split_words(" ".join(pending)):
                chunks.append(Chunk(text=piece, section=pending_section, page=pending_page,
                                    mentions=float_mentions(piece, known)))
            pending.clear()

    for block in parsed.blocks:
        text = " ".join(block.text.split())
        if not text:
            continue
        if pending and (block.section != pending_section or block.page != pending_page
                        or len(" ".join(pending).split()) >= MIN_WORDS):
            flush()
        if not pending:
            pending_section, pending_page = block.section, block.page
        pending.append(text)
    flush()
    for ref in parsed.figures + parsed.tables:
        chunks.append(Chunk(text=" ".join(ref.caption.split()), section=f"{ref.kind} caption", page=ref.page,
                            mentions=[ref.unit] + [u for u in float_mentions(ref.caption, known) if u != ref.unit]))
    return chunks


def _index_text(chunk: Chunk) -> str:
    return f"{chunk.section}. {chunk.text}" if chunk.section else chunk.text


class _ChunkIndexCache:
    """Per-paper chunk indexes: built once, kept on disk under <cache>/rag/<sha256> and in memory."""

    def __init__(self, capacity: int = 32):
        self._mem: OrderedDict[str, tuple[list[Chunk], HybridIndex]] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}

    def get(self, parsed: ParsedPaper, cache_root: Path | None) -> tuple[list[Chunk], HybridIndex]:
        key = f"{parsed.sha256}-{CHUNKER_VERSION}"
        with self._lock:
            if key in self._mem:
                self._mem.move_to_end(key)
                return self._mem[key]
            building = self._building.setdefault(key, threading.Lock())
        # one lock per paper: two episodes opening the same paper build it once, while different papers
        # build side by side (on 2 cores the embedder then uses both)
        with building:
            with self._lock:
                if key in self._mem:
                    return self._mem[key]
            entry = self._load_or_build(parsed, cache_root / "rag" / parsed.sha256 if cache_root else None)
            with self._lock:
                self._mem[key] = entry
                self._building.pop(key, None)
                while len(self._mem) > self._capacity:
                    self._mem.popitem(last=False)
            return entry

    @staticmethod
    def _load_or_build(parsed: ParsedPaper, folder: Path | None) -> tuple[list[Chunk], HybridIndex]:
        if folder is None:
            return _ChunkIndexCache._load_or_build_here(parsed, None)
        # another process sharing the cache (a run beside this one) may be building the same paper: wait for it
        # and read what it wrote instead of embedding the paper a second time
        with exclusive(folder.with_name(folder.name + ".lock")):
            return _ChunkIndexCache._load_or_build_here(parsed, folder)

    @staticmethod
    def _load_or_build_here(parsed: ParsedPaper, folder: Path | None) -> tuple[list[Chunk], HybridIndex]:
        from .search_index import HybridIndex

        chunks_file = folder / "chunks.json" if folder else None
        if chunks_file and chunks_file.is_file():
            try:
                saved = json.loads(chunks_file.read_text(encoding="utf-8"))
                if saved.get("version") == CHUNKER_VERSION:
                    return [Chunk.model_validate(c) for c in saved["chunks"]], HybridIndex.load(folder / "index")
            except (ValueError, OSError, KeyError):
                pass  # a damaged cache entry is rebuilt below
        chunks = chunk_paper(parsed)
        if not chunks:
            raise ToolError("pdf_rag: the paper has no extractable text (a scanned PDF?); try figure_extract or pdf_extract",
                            kind="data_access")
        if folder is None:
            return chunks, HybridIndex.build([(str(i), _index_text(c)) for i, c in enumerate(chunks)], None)
        tmp = folder.with_name(folder.name + f".tmp{threading.get_ident()}")
        shutil.rmtree(tmp, ignore_errors=True)
        index = HybridIndex.build([(str(i), _index_text(c)) for i, c in enumerate(chunks)], tmp / "index")
        (tmp / "chunks.json").write_text(
            json.dumps({"version": CHUNKER_VERSION, "chunks": [c.model_dump() for c in chunks]}), encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)
        tmp.replace(folder)
        index.out_dir = folder / "index"
        return chunks, index


_CACHE = _ChunkIndexCache()


def rank_chunks(parsed: ParsedPaper, query: str, k: int, cache_dir: Path | None = None) -> list[Span]:
    """The k passages of `parsed` that best match `query`, best first (index cached under cache_dir/rag)."""
    chunks, index = _CACHE.get(parsed, cache_dir)
    return [Span(rank=r, score=s, chunk=chunks[int(doc)]) for r, (doc, s) in enumerate(index.search(query, k), 1)]


def _unit_label(unit: str) -> str:
    kind, n = unit.split(":")
    return f"{kind.capitalize()} {n}"


def format_spans(title: str, paper_id: str, query: str, spans: list[Span]) -> str:
    lines = [f"Passages of {paper_id} ({title}) for {query!r}:"]
    for s in spans:
        where = f"section {s.chunk.section!r}, page {s.chunk.page}" if s.chunk.section else f"page {s.chunk.page}"
        cites = f"; mentions {', '.join(_unit_label(u) for u in s.chunk.mentions)}" if s.chunk.mentions else ""
        text = s.chunk.text if len(s.chunk.text) <= SPAN_CHARS else s.chunk.text[: SPAN_CHARS - 3] + "..."
        lines.append(f"\n[{s.rank}] ({where}{cites})\n{text}")
    return "\n".join(lines)


@tool
async def pdf_rag(world: World, paper: str, query: str, k: int = 5) -> ToolResult:
    """Find the passages of one paper that answer a question; returns text spans with section, page and the figures/tables they mention.

    Args:
        paper: paper id, title, URL or arXiv id
        query: what to look for inside the paper
        k: how many passages to return (1 to 20)
    """
    query = query.strip()
    if not query:
        raise ToolError("pdf_rag: the query is empty; say what to look for inside the paper")
    from .pdf import load_paper  # the parser loads PyMuPDF; import on first use

    loaded = await load_paper(world, paper)
    spans = await asyncio.to_thread(rank_chunks, loaded.parsed, query, k, world.cache_dir)
    pid = loaded.meta.id
    pages = sorted({s.chunk.page for s in spans})
    return ToolResult(
        text=format_spans(loaded.meta.title, pid, query, spans),
        data={
            "paper_id": pid, "query": query,
            "spans": [{"rank": s.rank, "score": s.score, **s.chunk.model_dump()} for s in spans],
        },
        provenance=[EvidenceUnit(paper=pid, unit="text", page=p) for p in pages],
    )


async def all_passages(world: World, paper: str) -> list[Chunk]:
    """Every passage pdf_rag can return for `paper`, whole (its chunks, not cut at SPAN_CHARS), without building
    the paper's index: for readers that ask what any query could show (the benchmark audit). Raises what
    pdf_rag's loading raises (PaperNotFound, PdfError)."""
    from .pdf import load_paper  # the parser loads PyMuPDF; import on first use

    loaded = await load_paper(world, paper)
    return chunk_paper(loaded.parsed)
