"""Add a user's own PDF to a named corpus folder: parse it, give it an id (U001, ...), catalog and index it.

The paper goes into the corpus folder the user names, never silently into the default one: a folder
that does not exist yet is first derived from a base corpus (by default the current one), its PDFs
linked and its catalog and index copied, so the base stays as it was (runs record which corpus they
searched: `identity.py`). The search index grows incrementally (`tools.search_index.HybridIndex.add`):
only the new paper is read and embedded, and the result is exactly what a full rebuild gives.

Nothing changes on disk unless the PDF parses: the folder is derived and the file copied only after
parsing succeeds, the index is written next, and the catalog is replaced atomically last.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import paths
from .build import index_docs, load_catalog, sha256, write_atomic
from .model import Catalog, CatalogEntry

if TYPE_CHECKING:
    from tools.pdf import PdfLimits

ADDED_DIR = "added"
_LINKED = ("corpus", ADDED_DIR)  # PDFs: only ever replaced whole, never written in place, so links are safe
_COPIED = ("catalog.json", "ground_truth.json", "build.json")


class AddPdfError(ValueError):
    """The file cannot be added; the message names the file and says why."""


@dataclass
class AddResult:
    entry: CatalogEntry
    already_present: bool
    corpus: Path | None = None  # the corpus folder the paper is in
    derived_from: Path | None = None  # the base corpus, when the folder was made by this add
    index_seconds: float = 0.0  # time spent on the search index
    note: str | None = None  # e.g. a one-time tokenization of an index that kept no tokens


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


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:  # another file system, or links not allowed
        shutil.copy2(src, dst)


def derive_corpus(base: Path, target: Path) -> Path:
    """Make `target` (a folder that does not exist, or is empty) a corpus of its own with what `base` holds:
    PDFs linked, catalog, ground truth, build stamp and search index copied. Made under a temporary name and
    renamed at the end, so a crash leaves no half corpus under `target`. The base is only read."""
    base, target = Path(base).resolve(), Path(target).resolve()
    if not (base / "catalog.json").is_file():
        raise AddPdfError(f"the base corpus {base} is not built (no catalog.json); run `epi sandbox build`")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise AddPdfError(f"{target} exists and is not a corpus folder (no catalog.json); name a new folder")
    tmp = target.with_name(f".{target.name}.deriving-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir(parents=True)
        for name in _COPIED:
            if (base / name).is_file():
                shutil.copy2(base / name, tmp / name)
        for folder in _LINKED:
            if (base / folder).is_dir():
                (tmp / folder).mkdir()
                for pdf in (base / folder).iterdir():
                    if pdf.is_file():
                        _link_or_copy(pdf, tmp / folder / pdf.name)
        if (base / "index").is_dir():
            shutil.copytree(base / "index", tmp / "index")  # rewritten by an add: a copy, never a link
        if target.is_dir():
            target.rmdir()
        os.replace(tmp, target)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise AddPdfError(f"cannot make the corpus folder {target} from {base}: {e.strerror or e}") from None
    return target


def add_pdf(pdf_path: Path, sandbox_dir: Path, *, base: Path | None = None, with_index: bool = True,
            limits: PdfLimits | None = None) -> AddResult:
    """Parse `pdf_path` and add it to the corpus folder `sandbox_dir` (derived from `base`, by default the current
    corpus, when it does not exist yet): catalog entry, PDF and an incremental search index.

    The file is untrusted: it is parsed first in a child process under `limits` (default: from the
    environment; tools/pdf/_limits.py), into the corpus's parse cache, so its tools reuse it.
    """
    import pymupdf

    from tools.pdf import PdfError, PdfLimits, format_mb, parse_cached

    from ..world import SandboxWorld

    root = Path(sandbox_dir).resolve()
    path = Path(pdf_path)
    if not path.exists():
        raise AddPdfError(f"{path}: no such file")
    if not path.is_file():
        raise AddPdfError(f"{path}: not a file")
    derive = not (root / "catalog.json").is_file()
    base_dir = Path(base).resolve() if base else paths.sandbox_dir().resolve()
    catalog = load_catalog(base_dir if derive else root)
    if catalog is None:
        raise AddPdfError(f"the sandbox in {base_dir if derive else root} is not built yet; run `epi sandbox build` "
                          "before adding PDFs")
    limits = limits or PdfLimits.from_env()
    try:
        size = path.stat().st_size
        if size > limits.file_bytes:  # refused before reading: the file may not even fit in memory
            too_big = limits.refuse(f"the file is {format_mb(size)}", "file_mb")
            raise AddPdfError(f"{path}: {too_big.message}; the sandbox was not changed")
        data = path.read_bytes()
    except OSError as e:
        raise AddPdfError(f"{path}: cannot read the file ({e.strerror or e})") from None
    # a corpus still to be made: the parse is cached aside, and moves into its cache once it exists
    scratch = Path(tempfile.mkdtemp(prefix="epi-add-")) if derive else None
    try:
        try:
            parsed = parse_cached(data, scratch or SandboxWorld(root).cache_dir, limits=limits, trusted=False)
        except PdfError as e:
            raise AddPdfError(f"{path}: {e.message}; the sandbox was not changed") from None
        digest = sha256(data)
        for e in catalog.papers:
            if e.sha256 == digest:
                return AddResult(e, True, base_dir if derive else root)
        if derive:
            derive_corpus(base_dir, root)
            _move_into(scratch, SandboxWorld(root).cache_dir)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
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
    result = AddResult(entry, False, root, base_dir if derive else None)
    try:
        if with_index:
            t0 = time.perf_counter()
            result.note = index_added(catalog, entry, root)
            result.index_seconds = time.perf_counter() - t0
        write_atomic(root / "catalog.json", new_catalog.model_dump_json(indent=1))
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return result


def _move_into(src: Path, dst: Path) -> None:
    """Move every file under `src` to the same place under `dst` (a cache: an entry already there is kept)."""
    for f in sorted(src.rglob("*")):
        if f.is_file():
            target = dst / f.relative_to(src)
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(f, target)


def index_added(catalog: Catalog, entry: CatalogEntry, root: Path) -> str | None:
    """Add one paper to the corpus's search index (the catalog is the one before the add). Incremental when the
    index keeps its tokens; an index that does not is tokenized once (not embedded again) and then keeps them;
    one that does not match the catalog is rebuilt. Returns a note for the user when it was not a plain add."""
    from tools.search_index import HybridIndex, SearchIndexError

    from .build import build_index

    new_doc = index_docs(catalog.model_copy(update={"papers": [entry]}), root)
    everything = catalog.model_copy(update={"papers": [*catalog.papers, entry]})
    note = None
    try:
        index = HybridIndex.load(root / "index")
        if index.ids != [e.id for e in catalog.papers]:
            raise SearchIndexError("the index does not hold the catalog's papers")
        if index.tokens is None:
            index.with_tokens(index_docs(catalog, root))
            note = (f"the search index kept no tokens (built before incremental adds): its {len(index.ids)} papers were "
                    "read once to tokenize them; later adds only read the new paper")
        index.add(new_doc, root / "index")
    except SearchIndexError as e:
        build_index(everything, root / "index", root)
        note = f"the search index was rebuilt ({e})"
    return note
