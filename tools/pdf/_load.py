"""load_paper: resolve a reference in a world, fetch its PDF, parse it once per content hash.

Untrusted bytes (a user's file, a download: anything the world does not vouch for) are parsed the first
time in a child process held to the PDF limits (parse_isolated); the result is cached by sha256, so a
file pays for that process once. Trusted bytes (the corpus our own generator wrote) parse in process.
"""
from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from .._world import PaperMeta, World
from ._checks import check_measures
from ._errors import PdfError
from ._isolate import parse_isolated
from ._limits import PdfLimits, PdfLimitsError, format_mb
from ._parse import PARSER_VERSION, parse_pdf
from .model import ParsedPaper

_REFUSED_KEPT = 256


@dataclass
class LoadedPaper:
    """A resolved paper: what the world says about it, its parse, and the PDF bytes."""

    meta: PaperMeta
    parsed: ParsedPaper
    data: bytes


def _cache_path(cache_dir: Path, sha: str) -> Path:
    return Path(cache_dir) / "parsed" / f"{sha}.{PARSER_VERSION}.json"


class _ParseCache:
    """Parses on disk by sha256 and parser version; refusals in memory by sha256 and limits (a refusal can
    come from the wall clock, which a busy machine moves, so it is never written down). One lock per file:
    two episodes opening the same new paper start one child process, not two."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._busy: dict[str, threading.Lock] = {}
        self._refused: OrderedDict[tuple[str, PdfLimits], PdfError] = OrderedDict()

    @staticmethod
    def read(path: Path) -> ParsedPaper | None:
        if not path.is_file():
            return None
        try:
            return ParsedPaper.model_validate_json(path.read_text(encoding="utf-8"))
        except (ValidationError, OSError, ValueError):
            return None  # a damaged cache entry is parsed again and overwritten

    @staticmethod
    def write(path: Path, parsed: ParsedPaper) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(parsed.model_dump_json(), encoding="utf-8")
            tmp.replace(path)
        except OSError:
            pass  # a read-only cache only costs time

    def file_lock(self, sha: str) -> threading.Lock:
        with self._lock:
            return self._busy.setdefault(sha, threading.Lock())

    def refused(self, key: tuple[str, PdfLimits]) -> PdfError | None:
        with self._lock:
            return self._refused.get(key)

    def refuse(self, key: tuple[str, PdfLimits], error: PdfError) -> None:
        with self._lock:
            self._refused[key] = error
            while len(self._refused) > _REFUSED_KEPT:
                self._refused.popitem(last=False)


_CACHE = _ParseCache()


def _accept(parsed: ParsedPaper, limits: PdfLimits, trusted: bool) -> ParsedPaper:
    """A cached parse, held to the limits in force now: a cache never changes a result."""
    if parsed.pages > limits.pages:
        raise limits.refuse(f"it has {parsed.pages} pages", "pages")
    if not trusted and parsed.measured is not None:
        check_measures(parsed.measured, limits)
    return parsed


def parse_cached(data: bytes, cache_dir: Path | None, *, limits: PdfLimits | None = None,
                 trusted: bool = False) -> ParsedPaper:
    """The parse of `data` through a JSON cache keyed by sha256 and parser version.

    Untrusted bytes (the default) are parsed on a miss by parse_isolated under `limits` (default: from the
    environment); trusted ones (files our own code generated) by parse_pdf in this process, held to the
    page limit only.
    """
    limits = limits or PdfLimits.from_env()
    if not trusted and len(data) > limits.file_bytes:
        raise limits.refuse(f"the file is {format_mb(len(data))}", "file_mb")
    sha = hashlib.sha256(data).hexdigest()
    path = _cache_path(cache_dir, sha) if cache_dir is not None else None
    key = (sha, limits)
    with _CACHE.file_lock(sha):
        cached = _CACHE.read(path) if path else None
        if cached is not None:
            return _accept(cached, limits, trusted)
        if not trusted and (earlier := _CACHE.refused(key)) is not None:
            raise earlier
        try:
            parsed = parse_pdf(data, max_pages=limits.pages) if trusted else parse_isolated(data, limits)
        except PdfError as e:
            if not trusted:
                _CACHE.refuse(key, e)
            raise
        if path:
            _CACHE.write(path, parsed)
    return parsed


def world_limits(world: World) -> PdfLimits:
    """The PDF limits of a world: its own, else the environment's (a bad value is a refusal naming it)."""
    if world.pdf_limits is not None:
        return world.pdf_limits
    try:
        return PdfLimits.from_env()
    except PdfLimitsError as e:
        raise PdfError(f"the PDF limits are misconfigured: {e}", kind="refused") from None


async def load_paper(world: World, ref: str) -> LoadedPaper:
    """Resolve `ref` (id, title, URL, arXiv id), fetch the PDF and parse it (cached by content hash).

    Raises PaperNotFound from the world, PdfError for a PDF that cannot be fetched or read or is over a
    limit. The world says whether it vouches for the bytes (World.pdf_trusted).
    """
    meta = await world.resolve(ref)
    limits = world_limits(world)
    try:
        data = await world.pdf_bytes(meta)
    except (OSError, ValueError) as e:
        raise PdfError(f"could not fetch the PDF of {meta.id} ({meta.title}): {e}") from None
    parsed = await asyncio.to_thread(parse_cached, data, world.cache_dir, limits=limits,
                                     trusted=world.pdf_trusted(meta))
    return LoadedPaper(meta=meta, parsed=parsed, data=data)
