"""load_paper: resolve a reference in a world, fetch its PDF, parse it once per content hash."""
from __future__ import annotations

import asyncio
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from .._world import PaperMeta, World
from ._errors import PdfError
from ._parse import DEFAULT_MAX_PAGES, PARSER_VERSION, parse_pdf
from .model import ParsedPaper


@dataclass
class LoadedPaper:
    """A resolved paper: what the world says about it, its parse, and the PDF bytes."""

    meta: PaperMeta
    parsed: ParsedPaper
    data: bytes


def _cache_path(cache_dir: Path, sha: str) -> Path:
    return Path(cache_dir) / "parsed" / f"{sha}.{PARSER_VERSION}.json"


def parse_cached(data: bytes, cache_dir: Path | None, *, max_pages: int = DEFAULT_MAX_PAGES) -> ParsedPaper:
    """parse_pdf through a JSON cache keyed by sha256 and parser version; a cache never changes a result."""
    if cache_dir is None:
        return parse_pdf(data, max_pages=max_pages)
    sha = hashlib.sha256(data).hexdigest()
    path = _cache_path(cache_dir, sha)
    if path.is_file():
        try:
            parsed = ParsedPaper.model_validate_json(path.read_text(encoding="utf-8"))
            if parsed.pages <= max_pages:
                return parsed
        except (ValidationError, OSError, ValueError):
            pass  # a damaged cache entry is parsed again and overwritten
    parsed = parse_pdf(data, max_pages=max_pages)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(parsed.model_dump_json(), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache only costs time
    return parsed


async def load_paper(world: World, ref: str, *, max_pages: int = DEFAULT_MAX_PAGES) -> LoadedPaper:
    """Resolve `ref` (id, title, URL, arXiv id), fetch the PDF and parse it (cached by content hash).

    Raises PaperNotFound from the world, PdfError for a PDF that cannot be fetched or read.
    """
    meta = await world.resolve(ref)
    try:
        data = await world.pdf_bytes(meta)
    except (OSError, ValueError) as e:
        raise PdfError(f"could not fetch the PDF of {meta.id} ({meta.title}): {e}") from None
    parsed = await asyncio.to_thread(parse_cached, data, world.cache_dir, max_pages=max_pages)
    return LoadedPaper(meta=meta, parsed=parsed, data=data)
