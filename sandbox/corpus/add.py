"""Add a user's own PDF to the sandbox: parse it, give it an id (U001, ...), catalog and index it.

Nothing changes on disk unless the PDF parses: the file is copied only after parsing succeeds, the
index is rebuilt next, and the catalog is replaced atomically last.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import paths
from .build import build_index, load_catalog, sha256, write_atomic
from .model import Catalog, CatalogEntry

if TYPE_CHECKING:
    from tools.pdf import PdfLimits

ADDED_DIR = "added"


class AddPdfError(ValueError):
    """The file cannot be added; the message names the file and says why."""


@dataclass
class AddResult:
    entry: CatalogEntry
    already_present: bool


def _next_id(catalog: Catalog) -> str:
    used = [int(e.id[1:]) for e in catalog.papers if re.fullmatch(r"U\d+", e.id)]
    return f"U{(max(used) + 1) if used else 1:03d}"


def _authors(meta_author: str | None) -> list[str]:
    if not meta_author:
        return []
    parts = re.split(r"\s*(?:;|,| and )\s*", meta_author)
    return [p for p in (x.strip() for x in parts) if p]


def _abstract(parsed: object) -> str | None:
    blocks = getattr(parsed, "blocks", [])
    for b in blocks[:40]:
        text = " ".join(b.text.split())
        if text.lower().startswith("abstract") and len(text) > 80:
            return text[8:].lstrip(" .:—-")[:1500]
        if (b.section or "").lower().startswith("abstract") and len(text) > 80:
            return text[:1500]
    long_blocks = [" ".join(b.text.split()) for b in blocks[:12] if len(b.text) > 200]
    return long_blocks[0][:1500] if long_blocks else None


def add_pdf(pdf_path: Path, sandbox_dir: Path | None = None, *, with_index: bool = True,
            limits: PdfLimits | None = None) -> AddResult:
    """Parse `pdf_path` and add it to the sandbox catalog and search index.

    The file is untrusted: it is parsed first in a child process under `limits` (default: from the
    environment; tools/pdf/_limits.py), into the sandbox world's parse cache, so its tools reuse it.
    """
    import pymupdf

    from tools.pdf import PdfError, PdfLimits, format_mb, parse_cached

    from ..world import SandboxWorld

    root = Path(sandbox_dir) if sandbox_dir else paths.sandbox_dir()
    path = Path(pdf_path)
    if not path.exists():
        raise AddPdfError(f"{path}: no such file")
    if not path.is_file():
        raise AddPdfError(f"{path}: not a file")
    catalog = load_catalog(root)
    if catalog is None:
        raise AddPdfError(f"the sandbox in {root} is not built yet; run `epi sandbox build` before adding PDFs")
    limits = limits or PdfLimits.from_env()
    try:
        size = path.stat().st_size
        if size > limits.file_bytes:  # refused before reading: the file may not even fit in memory
            too_big = limits.refuse(f"the file is {format_mb(size)}", "file_mb")
            raise AddPdfError(f"{path}: {too_big.message}; the sandbox was not changed")
        data = path.read_bytes()
    except OSError as e:
        raise AddPdfError(f"{path}: cannot read the file ({e.strerror or e})") from None
    try:
        parsed = parse_cached(data, SandboxWorld(root).cache_dir, limits=limits, trusted=False)
    except PdfError as e:
        raise AddPdfError(f"{path}: {e.message}; the sandbox was not changed") from None
    digest = sha256(data)
    for e in catalog.papers:
        if e.sha256 == digest:
            return AddResult(e, True)
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        meta = doc.metadata or {}
    title = (parsed.title or meta.get("title") or "").strip() or path.stem.replace("_", " ")
    year_match = re.search(r"(19|20)\d{2}", meta.get("creationDate") or "")
    pid = _next_id(catalog)
    entry = CatalogEntry(
        id=pid, title=" ".join(title.split()), authors=_authors(meta.get("author")), venue=None,
        year=int(year_match.group(0)) if year_match else None, abstract=_abstract(parsed),
        pdf=f"{ADDED_DIR}/{pid}.pdf", sha256=digest, figures=[f.n for f in parsed.figures],
        tables=[t.n for t in parsed.tables], pages=parsed.pages, origin="added",
    )
    new_catalog = catalog.model_copy(update={"papers": [*catalog.papers, entry]})
    target = root / entry.pdf
    write_atomic(target, data)
    try:
        if with_index:
            build_index(new_catalog, root / "index")
        write_atomic(root / "catalog.json", new_catalog.model_dump_json(indent=1))
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return AddResult(entry, False)
