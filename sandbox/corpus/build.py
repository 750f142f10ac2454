"""Build the sandbox corpus on disk: PDFs, ground truth, catalog, build stamp and search index.

`build_corpus` is idempotent: when the stamp says the same plan (the hash of the planned ground truth,
so a change of the generator's code counts), renderer code and seed were built and every file is
there, it does nothing (planning takes seconds; rendering is what is saved). Papers render in parallel
processes, which also read each paper's text and embed its search document (the index's heavy part, so it
runs on every core), and each rendered paper is cached with those by the hash of its content and of the
renderer's code (`render-cache/`), so a rebuild after a change re-renders only the papers that changed. Papers a user
added with `epi sandbox add` are kept across rebuilds. Which corpus (v1 or v2) is built is named by
`corpus` (see versions.py).
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from .. import paths
from .model import Catalog, CatalogEntry, GroundTruth, PaperGT
from .versions import DEFAULT_CORPUS, DEFAULT_SEED, CorpusVersion, corpus_version

STAMP_NAME = "build.json"
CACHE_NAME = "render-cache"


class BuildStamp(BaseModel):
    """What was built, so a second build can tell it has nothing to do."""

    generator_version: str
    seed: int
    papers: int
    ground_truth_sha256: str
    pdf_sha256: dict[str, str]
    index_format: int = 0
    plan_sha256: str = ""  # the planned ground truth, before rendering
    renderer: str = ""  # renderer_digest() of the code that rendered the PDFs


@dataclass
class BuildResult:
    sandbox_dir: Path
    up_to_date: bool
    papers: int
    pages: int
    seconds: float
    bytes: int
    rendered: int = 0  # papers rendered in this build (the rest came from the render cache)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write via a temporary file and rename, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    tmp.replace(path)


def _full_width_figures(p: PaperGT, seed: int) -> set[int]:
    """Which figures of a two-column paper span both columns (wide bar charts and about a quarter of the rest)."""
    rng = random.Random(f"{seed}:{p.id}:fullwidth")
    return {f.n for f in p.figures
            if (f.kind == "bar" and len(f.series) * len(f.series[0].x) >= 9) or rng.random() < 0.25}


def _render_one(job: tuple[str, str, list[str], int]) -> tuple[str, bytes]:
    corpus, paper_json, refs, seed = job
    p = PaperGT.model_validate_json(paper_json)
    version = corpus_version(corpus)
    pdf = version.render(p, refs, _full_width_figures(p, seed), version.chart_backend)
    return p.model_dump_json(), pdf


IndexPart = tuple[str, list[float]]  # a paper's PDF text (page_text) and the dense vector of its search document


def _index_part(p: PaperGT, pdf: bytes) -> IndexPart:
    """What the search index needs of one rendered paper, computed where it was rendered (in parallel): its
    PDF text, as page_text reads the written file, and the embedding of its search document's lead (the
    encoder embeds each text independently of its batch, so this is the vector a whole-corpus batch gives)."""
    import pymupdf

    from tools.embed import embed
    from tools.search_index import DENSE_CHARS

    with pymupdf.open("pdf", pdf) as doc:
        text = "\n".join(page.get_text() for page in doc)
    vec = embed([(landing_text(p) + "\n" + text)[:DENSE_CHARS]])[0]
    return text, [float(x) for x in vec]


def _render_job(arg: tuple[tuple[str, str, list[str], int], bool]) -> tuple[str, bytes, IndexPart | None]:
    job, with_index = arg
    gt_json, pdf = _render_one(job)
    return gt_json, pdf, _index_part(PaperGT.model_validate_json(gt_json), pdf) if with_index else None


def load_catalog(sandbox_dir: Path | None = None) -> Catalog | None:
    path = (sandbox_dir / "catalog.json") if sandbox_dir else paths.catalog_path()
    return Catalog.model_validate_json(path.read_text(encoding="utf-8")) if path.is_file() else None


def load_ground_truth(sandbox_dir: Path | None = None) -> GroundTruth:
    path = (sandbox_dir / "ground_truth.json") if sandbox_dir else paths.ground_truth_path()
    return GroundTruth.model_validate_json(path.read_text(encoding="utf-8"))


def page_text(pdf: Path) -> str:
    """The text of a PDF as a crawler sees it: every page's text in reading order."""
    import pymupdf

    with pymupdf.open(pdf) as doc:
        return "\n".join(page.get_text() for page in doc)


def landing_text(e: CatalogEntry | PaperGT) -> str:
    """What the paper's landing page (`epi sandbox serve`: /papers/<id>) shows: title, authors, venue, year, abstract."""
    return "\n".join(x for x in (e.title, ", ".join(e.authors), f"{e.venue or ''} {e.year or ''}".strip(),
                                 e.abstract or "") if x)


def index_docs(catalog: Catalog, root: Path | None = None, texts: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """One search document per paper: what a web crawler of the sandbox site reads for it, its landing
    page (title, authors, venue, year, abstract) and its PDF's text (the same header, body, references).
    Without the PDFs (root None), the landing page and the reference strings stand in. `texts`: PDF texts
    already read (by paper id), e.g. by the render workers."""
    docs = []
    for e in catalog.papers:
        pdf = root / e.pdf if root is not None else None
        if texts and e.id in texts and e.origin == "generated":
            docs.append((e.id, landing_text(e) + "\n" + texts[e.id]))
        elif pdf is not None and pdf.is_file():
            docs.append((e.id, landing_text(e) + "\n" + page_text(pdf)))
        else:
            docs.append((e.id, "\n".join([landing_text(e), *e.references_text])))
    return docs


def build_index(catalog: Catalog, index_dir: Path, root: Path | None = None,
                parts: dict[str, IndexPart] | None = None) -> None:
    """The search index of the catalog; `parts` (by paper id) are texts and vectors the render workers made."""
    from tools.search_index import HybridIndex

    parts = parts or {}
    docs = index_docs(catalog, root or index_dir.parent, {pid: t for pid, (t, _) in parts.items()})
    vectors = None
    if parts and all(pid in parts for pid, _ in docs):
        import numpy as np

        vectors = np.asarray([parts[pid][1] for pid, _ in docs], dtype=np.float32)
    # the tokens are kept so that `epi sandbox add` can add a paper without reading every paper again
    HybridIndex.build(docs, index_dir, keep_tokens=True, vectors=vectors)


def _index_format() -> int:
    from tools.search_index import INDEX_FORMAT

    return INDEX_FORMAT


def _index_is_current(root: Path) -> bool:
    meta = root / "index" / "ids.json"
    try:
        return meta.is_file() and json.loads(meta.read_text(encoding="utf-8")).get("format") == _index_format()
    except (OSError, ValueError):
        return False


def _is_up_to_date(root: Path, version: CorpusVersion, seed: int, n_papers: int, plan_hash: str) -> bool:
    stamp_path = root / STAMP_NAME
    if not stamp_path.is_file() or not (root / "ground_truth.json").is_file() or not (root / "catalog.json").is_file():
        return False
    try:
        stamp = BuildStamp.model_validate_json(stamp_path.read_text(encoding="utf-8"))
    except ValueError:
        return False
    if (stamp.generator_version, stamp.seed, stamp.papers) != (version.generator_version, seed, n_papers):
        return False
    if (stamp.plan_sha256, stamp.renderer) != (plan_hash, renderer_digest(version)):
        return False
    return all((root / "corpus" / f"{pid}.pdf").is_file() for pid in stamp.pdf_sha256)


def _catalog_entry(p: PaperGT, by_id: dict[str, PaperGT], pdf_hash: str, version: CorpusVersion) -> CatalogEntry:
    return CatalogEntry(
        id=p.id, title=p.title, authors=p.authors, venue=p.venue, year=p.year, area=p.area, abstract=p.abstract,
        references_text=[version.reference_string(by_id[r]) for r in p.references], arxiv_id=p.arxiv_id,
        pdf=f"corpus/{p.pdf}", sha256=pdf_hash, figures=[f.n for f in p.figures], tables=[t.n for t in p.tables],
        pages=p.pages or 0, origin="generated",
    )


def renderer_digest(version: CorpusVersion) -> str:
    """Hash of the version's renderer source: part of every render-cache key, so new code never reuses old PDFs."""
    h = hashlib.sha256()
    for name in version.renderer_files:
        h.update((paths.PACKAGE_DIR / name).read_bytes())
    return h.hexdigest()[:16]


def render_corpus(gt: GroundTruth, workers: int | None = None, cache_dir: Path | None = None,
                  corpus: str | None = None, index_parts: dict[str, IndexPart] | None = None
                  ) -> tuple[dict[str, bytes], int]:
    """Render every paper (in parallel processes, cached by content); fills pages and float positions
    into `gt`. Returns the PDFs by paper id and how many papers were rendered (not cached). With
    `index_parts` (a dict to fill), each worker also reads its paper's text and embeds its search
    document, so the index's heavy part runs in parallel with rendering and is cached with the PDF."""
    version = corpus_version(corpus) if corpus else _version_for(gt)
    by_id = {p.id: p for p in gt.papers}
    digest = renderer_digest(version)
    jobs, keys = [], []
    for p in gt.papers:
        refs = [version.reference_string(by_id[r]) for r in p.references]
        job = (version.name, p.model_dump_json(), refs, gt.seed)
        jobs.append(job)
        keys.append(sha256(json.dumps([digest, *job]).encode("utf-8")))
    with_index = index_parts is not None
    results: list[tuple[str, bytes] | None] = [None] * len(jobs)
    parts: list[IndexPart | None] = [None] * len(jobs)
    if cache_dir is not None:
        for i, key in enumerate(keys):
            pdf, meta, part = cache_dir / f"{key}.pdf", cache_dir / f"{key}.json", cache_dir / f"{key}.index.json"
            if pdf.is_file() and meta.is_file():
                results[i] = (meta.read_text(encoding="utf-8"), pdf.read_bytes())
                if with_index and part.is_file():
                    text, vec = json.loads(part.read_text(encoding="utf-8"))
                    parts[i] = (text, vec)
    todo = [i for i, r in enumerate(results) if r is None]
    workers = workers or min(8, os.cpu_count() or 1)
    args = [(jobs[i], with_index) for i in todo]
    if workers > 1 and len(todo) > 4:
        pool = ProcessPoolExecutor(max_workers=workers)
        fresh = pool.map(_render_job, args, chunksize=2)
    else:
        pool, fresh = None, map(_render_job, args)
    try:
        for i, (gt_json, pdf, part) in zip(todo, fresh):  # cached as each arrives: an interrupted build keeps them
            results[i], parts[i] = (gt_json, pdf), part
            if cache_dir is not None:
                write_atomic(cache_dir / f"{keys[i]}.pdf", pdf)
                write_atomic(cache_dir / f"{keys[i]}.json", gt_json)
                if part is not None:
                    write_atomic(cache_dir / f"{keys[i]}.index.json", json.dumps(part))
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    pdfs: dict[str, bytes] = {}
    for i, out in enumerate(results):
        assert out is not None
        gt.papers[i] = PaperGT.model_validate_json(out[0])
        pdfs[gt.papers[i].id] = out[1]
        if with_index and parts[i] is not None:
            index_parts[gt.papers[i].id] = parts[i]  # type: ignore[index]
    return pdfs, len(todo)


def _version_for(gt: GroundTruth) -> CorpusVersion:
    from .versions import version_of

    return version_of(gt.generator_version)


def build_corpus(sandbox_dir: Path | None = None, *, seed: int = DEFAULT_SEED, n_papers: int | None = None,
                 force: bool = False, with_index: bool = True, workers: int | None = None,
                 corpus: str = DEFAULT_CORPUS) -> BuildResult:
    """Generate corpus `corpus` into `sandbox_dir` (default: that version's folder) unless it is up to date.
    RecipeError, before anything is written, for a recipe the version cannot make (too few papers)."""
    version = corpus_version(corpus)
    n_papers = n_papers or version.default_papers
    version.check_recipe(n_papers)  # before anything is planned or written
    root = Path(sandbox_dir) if sandbox_dir else version.default_dir()
    t0 = time.perf_counter()
    gt = version.plan(seed, n_papers)
    plan_hash = ground_truth_hash(gt)
    if not force and _is_up_to_date(root, version, seed, n_papers, plan_hash):
        gt = load_ground_truth(root)
        if with_index and not _index_is_current(root):
            catalog = load_catalog(root)
            assert catalog is not None
            build_index(catalog, root / "index", root)
        return BuildResult(root, True, len(gt.papers), sum(p.pages or 0 for p in gt.papers),
                           time.perf_counter() - t0, 0)
    old = load_catalog(root) if (root / "catalog.json").is_file() else None
    added = [e for e in (old.papers if old else []) if e.origin == "added" and (root / e.pdf).is_file()]
    parts: dict[str, IndexPart] | None = {} if with_index else None
    pdfs, rendered = render_corpus(gt, workers, root / CACHE_NAME, corpus, parts)
    if version.check_rendered is not None:
        version.check_rendered(gt)
    corpus_dir = root / "corpus"
    corpus_dir.mkdir(parents=True, exist_ok=True)
    for stale in corpus_dir.glob("P*.pdf"):
        if stale.stem not in pdfs:
            stale.unlink()
    hashes = {}
    for pid, pdf in pdfs.items():
        write_atomic(corpus_dir / f"{pid}.pdf", pdf)
        hashes[pid] = sha256(pdf)
    by_id = {p.id: p for p in gt.papers}
    gt_json = gt.model_dump_json(indent=1)
    catalog = Catalog(generator_version=version.generator_version, seed=seed,
                      papers=[_catalog_entry(p, by_id, hashes[p.id], version) for p in gt.papers] + added)
    write_atomic(root / "ground_truth.json", gt_json)
    write_atomic(root / "catalog.json", catalog.model_dump_json(indent=1))
    if with_index:
        build_index(catalog, root / "index", root, parts)
    stamp = BuildStamp(generator_version=version.generator_version, seed=seed, papers=n_papers,
                       ground_truth_sha256=sha256(gt_json.encode("utf-8")), pdf_sha256=hashes,
                       index_format=_index_format() if with_index else 0, plan_sha256=plan_hash,
                       renderer=renderer_digest(version))
    write_atomic(root / STAMP_NAME, stamp.model_dump_json(indent=1))
    return BuildResult(root, False, len(gt.papers), sum(p.pages or 0 for p in gt.papers),
                       time.perf_counter() - t0, sum(len(b) for b in pdfs.values()), rendered)


def ground_truth_hash(gt: GroundTruth) -> str:
    """Hash of the ground truth as written to disk."""
    return sha256(gt.model_dump_json(indent=1).encode("utf-8"))


__all__ = ["BuildResult", "BuildStamp", "build_corpus", "build_index", "index_docs", "load_catalog",
           "load_ground_truth", "page_text", "render_corpus", "ground_truth_hash", "write_atomic", "DEFAULT_SEED"]
