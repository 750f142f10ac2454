"""The sandbox world: the offline corpus as a `tools.World` (search, resolve, PDF bytes).

It reveals only what `catalog.json` holds, never the ground truth. Search is the general engine of
`tools.search_index` over each paper's page text, ranked as it ranks (no re-ranking by fields a cue
might name). References are resolved by corpus
id, title (normalised exact match, then a unique fuzzy match), sandbox URL or arXiv-style id; a
reference that looks like a file path is refused, and PDFs are only ever read inside the sandbox folder.
"""
from __future__ import annotations

import asyncio
import difflib
import os
import re
import threading
import unicodedata
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from tools import PaperMeta, PaperNotFound, SearchHit, World
from tools.search_version import ENGINE_VERSION

from . import paths
from .corpus.model import Catalog, CatalogEntry

if TYPE_CHECKING:
    from .corpus.identity import CorpusIdentity

SITE = "https://sandbox.local"
_ID_RE = re.compile(r"^[PQU]\d{3,}$")  # P: corpora v1 and v2, Q: corpus v3, U: added by the user
_ARXIV_RE = re.compile(r"^(?:arxiv:)?(\d{4}\.\d{4,5})(?:v\d+)?$", re.IGNORECASE)
_URL_ID_RE = re.compile(r"/(?:papers/([A-Za-z0-9]+)/?|pdf/([A-Za-z0-9]+)\.pdf)$")
_ARXIV_URL_RE = re.compile(r"/(?:abs|pdf)/(\d{4}\.\d{4,5})(?:v\d+)?(?:\.pdf)?$")


class SandboxNotBuilt(RuntimeError):
    """The sandbox folder has no catalog yet."""


def normalise_title(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return " ".join(re.findall(r"[a-z0-9]+", text))


def paper_url(paper_id: str) -> str:
    return f"{SITE}/papers/{paper_id}"


class SandboxWorld(World):
    """The offline corpus under `sandbox_dir` (default: sandbox.paths.sandbox_dir())."""

    name = "sandbox"
    search_engine = ENGINE_VERSION  # reports name it: the same episodes rank differently under another engine

    def __init__(self, sandbox_dir: Path | None = None):
        self.root = (Path(sandbox_dir) if sandbox_dir else paths.sandbox_dir()).resolve()  # a symlinked folder too
        default_root = sandbox_dir is None or self.root == paths.sandbox_dir().resolve() or "EPI_CACHE_DIR" in os.environ
        super().__init__(paths.cache_dir() if default_root else self.root / "cache")
        catalog_file = self.root / "catalog.json"
        if not catalog_file.is_file():
            raise SandboxNotBuilt(f"the sandbox in {self.root} is not built (no catalog.json); run `epi sandbox build`")
        self._catalog = Catalog.model_validate_json(catalog_file.read_text(encoding="utf-8"))
        self._by_id = {e.id: e for e in self._catalog.papers}
        self._by_arxiv = {e.arxiv_id: e for e in self._catalog.papers if e.arxiv_id}
        self._by_title = {normalise_title(e.title): e for e in self._catalog.papers}
        self._index = None
        self._index_lock = threading.Lock()  # concurrent first searches load the index once, not once each

    @property
    def catalog(self) -> Catalog:
        return self._catalog

    @property
    def corpus(self) -> "CorpusIdentity":
        """Which corpus this world serves (its catalog now): recorded in every run.json."""
        from .corpus.identity import corpus_identity

        return corpus_identity(self.root)

    def meta(self, entry: CatalogEntry) -> PaperMeta:
        return PaperMeta(id=entry.id, title=entry.title, authors=entry.authors, venue=entry.venue, year=entry.year,
                         abstract=entry.abstract, url=paper_url(entry.id), pdf_url=f"{SITE}/pdf/{entry.id}.pdf",
                         arxiv_id=entry.arxiv_id, area=entry.area)

    # ---- resolve ------------------------------------------------------------------------
    def resolve_entry(self, ref: str) -> CatalogEntry:
        """The catalog entry a reference names; PaperNotFound with a reason otherwise."""
        ref = (ref or "").strip()
        if not ref:
            raise PaperNotFound("empty paper reference; give a paper id such as 'P007', a title, a URL or an arXiv id")
        if ".." in ref.replace("\\", "/").split("/") or ref.startswith(("/", "\\", "~", "file:")) \
                or re.match(r"^[A-Za-z]:[\\/]", ref):
            raise PaperNotFound(f"refusing paper reference {ref!r}: file paths are not paper references; "
                                "give a paper id, a title, a sandbox URL or an arXiv id")
        if _ID_RE.match(ref.upper()) and ref.upper() in self._by_id:
            return self._by_id[ref.upper()]
        m = _ARXIV_RE.match(ref)
        if m:
            if m.group(1) in self._by_arxiv:
                return self._by_arxiv[m.group(1)]
            raise PaperNotFound(f"no paper with arXiv id {m.group(1)} in the sandbox corpus")
        if re.match(r"^[a-z]+://", ref, re.IGNORECASE):
            return self._resolve_url(ref)
        if _ID_RE.match(ref.upper()):
            raise PaperNotFound(f"no paper with id {ref!r} in the sandbox corpus")
        return self._resolve_title(ref)

    def _resolve_url(self, url: str) -> CatalogEntry:
        path = urlparse(url).path
        if ".." in path.split("/"):
            raise PaperNotFound(f"refusing URL {url!r}: it contains '..'")
        m = _URL_ID_RE.search(path)
        if m:
            pid = (m.group(1) or m.group(2)).upper()
            if pid in self._by_id:
                return self._by_id[pid]
        m = _ARXIV_URL_RE.search(path)
        if m and m.group(1) in self._by_arxiv:
            return self._by_arxiv[m.group(1)]
        raise PaperNotFound(f"the URL {url!r} does not name a paper of the sandbox corpus "
                            f"(expected {SITE}/papers/<id> or .../pdf/<id>.pdf)")

    def _resolve_title(self, title: str) -> CatalogEntry:
        key = normalise_title(title)
        if key in self._by_title:
            return self._by_title[key]
        if len(key) < 8:
            raise PaperNotFound(f"no paper titled {title!r}; give a longer title or a paper id")
        scored = sorted(((difflib.SequenceMatcher(None, key, t).ratio(), t) for t in self._by_title), reverse=True)
        best = [s for s in scored if s[0] >= 0.85]
        if len(best) == 1 or (best and best[0][0] - best[1][0] > 0.05):
            return self._by_title[best[0][1]]
        contains = [t for t in self._by_title if key in t]
        if len(contains) == 1:
            return self._by_title[contains[0]]
        if len(best) > 1 or len(contains) > 1:
            names = [self._by_title[t].title for t in ([s[1] for s in best] or contains)[:3]]
            raise PaperNotFound(f"the title {title!r} matches several papers ({'; '.join(names)}); be more specific")
        raise PaperNotFound(f"no paper titled {title!r} in the sandbox corpus; try web_search first")

    async def resolve(self, ref: str) -> PaperMeta:
        return self.meta(self.resolve_entry(ref))

    # ---- bytes and search ---------------------------------------------------------------
    def pdf_path(self, paper_id: str) -> Path:
        entry = self._by_id.get(paper_id)
        if entry is None:
            raise PaperNotFound(f"no paper with id {paper_id!r} in the sandbox corpus")
        path = (self.root / entry.pdf).resolve()
        if not path.is_relative_to(self.root):
            raise PermissionError(f"catalog entry {paper_id} points outside the sandbox folder ({entry.pdf})")
        return path

    async def pdf_bytes(self, paper: PaperMeta) -> bytes:
        return self.pdf_path(paper.id).read_bytes()

    def pdf_trusted(self, paper: PaperMeta) -> bool:
        """The corpus generator (our code) wrote every paper but those a user added (`epi sandbox add`):
        those are parsed under the PDF limits like any file from outside."""
        entry = self._by_id.get(paper.id)
        return entry is not None and entry.origin == "generated"

    def _load_index(self) -> Any:
        from tools.search_index import HybridIndex

        if self._index is None:
            with self._index_lock:
                if self._index is None:
                    self._index = HybridIndex.load(self.root / "index")
        return self._index

    def preload(self, tools: Collection[str]) -> None:
        """web_search needs the search index and its query embedder: ~0.7 s of imports and loading."""
        if "web_search" in tools:
            from tools.embed import get_encoder

            self._load_index()
            get_encoder()

    def _search_sync(self, query: str, k: int) -> list[SearchHit]:
        hits = []
        for pid, score in self._load_index().search(query, k):
            e = self._by_id.get(pid)
            if e is None:
                continue
            lead = (e.abstract or "")[:200].rsplit(" ", 1)[0] + ("..." if len(e.abstract or "") > 200 else "")
            snippet = f"{', '.join(e.authors)}. {e.venue or ''} {e.year or ''}. {lead}".strip()
            hits.append(SearchHit(title=e.title, url=paper_url(e.id), snippet=snippet, score=float(score), paper_id=e.id))
        return hits

    async def search(self, query: str, k: int) -> list[SearchHit]:
        return await asyncio.to_thread(self._search_sync, query, k)
