"""The world interface: where papers come from. Sandbox (offline corpus) and live (web) implement it."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:  # tools.pdf._limits is light, but a world that never opens a PDF need not load it
    from .pdf._limits import PdfLimits


class PaperMeta(BaseModel):
    """What a world knows about a paper before it is parsed."""

    id: str = Field(description="stable paper id inside this world (corpus id, arXiv id, or URL hash)")
    title: str
    authors: list[str] = Field(default_factory=list)
    venue: str | None = None
    year: int | None = None
    abstract: str | None = None
    url: str | None = Field(default=None, description="landing page URL")
    pdf_url: str | None = None
    arxiv_id: str | None = None
    area: str | None = None


class SearchHit(BaseModel):
    """One ranked search result."""

    title: str
    url: str
    snippet: str = ""
    score: float = 0.0
    paper_id: str | None = Field(default=None, description="set when the hit is a known paper of this world")


class PaperNotFound(LookupError):
    """The reference does not name a paper this world can find."""


class World(ABC):
    """Answers three questions: find papers for a query, resolve and describe a paper, give its PDF bytes."""

    name: str = "world"
    pdf_limits: PdfLimits | None = None
    """Caps on each PDF this world's papers are parsed under; None: the defaults with any
    EPI_PDF_MAX_* environment variable applied (tools/pdf/_limits.py)."""

    def __init__(self, cache_dir: Path):
        from ._watch import note

        note("world", type(self).__name__)  # an agent building its own world during its episode is reported
        self.cache_dir = Path(cache_dir)

    @abstractmethod
    async def search(self, query: str, k: int) -> list[SearchHit]:
        """Ranked hits for a free-text query."""

    @abstractmethod
    async def resolve(self, ref: str) -> PaperMeta:
        """Resolve a paper id, title, URL or arXiv id to a paper; raise PaperNotFound if none matches."""

    @abstractmethod
    async def pdf_bytes(self, paper: PaperMeta) -> bytes:
        """The PDF of a resolved paper; raise OSError/ValueError subclasses for fetch failures."""

    def pdf_trusted(self, paper: PaperMeta) -> bool:
        """Does this world vouch for the paper's PDF bytes (our own generator wrote them)? A trusted PDF is
        parsed in the tool's process; any other is first parsed in a worker process held to pdf_limits.
        Default: no; only a world over files it made itself should say yes."""
        return False

    def preload(self, tools: Collection[str]) -> None:
        """Load now, blocking, what the named tools will need from this world (a search index, an embedder).

        A local run calls it from a background thread as its episodes start, so the load overlaps their
        first model calls instead of stalling the first tool call of every episode. It must be safe
        alongside the tools' own calls (they load the same things under a lock) and may raise: the run
        ignores the error, and the tool call that needs the resource loads it again and reports it.
        Default: nothing to load."""
        return None

    async def close(self) -> None:  # pragma: no cover - default no-op
        return None
