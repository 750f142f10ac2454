"""Build the sandbox corpus on disk: PDFs, ground truth, catalog, build stamp and search index.

`build_corpus` is idempotent: when the stamp says the same generator version, seed and paper count
were built and every file is there, it does nothing. Papers a user added with `epi sandbox add` are
kept across rebuilds.
"""
from __future__ import annotations

import hashlib
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from .. import paths
from .model import Catalog, CatalogEntry, GroundTruth, PaperGT
from .plan import DEFAULT_PAPERS, GENERATOR_VERSION, plan_corpus
from .prose import reference_string

DEFAULT_SEED = 7
STAMP_NAME = "build.json"


class BuildStamp(BaseModel):
    """What was built, so a second build can tell it has nothing to do."""

    generator_version: str
    seed: int
    papers: int
    ground_truth_sha256: str
    pdf_sha256: dict[str, str]


@dataclass
class BuildResult:
    sandbox_dir: Path
    up_to_date: bool
    papers: int
    pages: int
    seconds: float
    bytes: int


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


def _render_one(job: tuple[str, list[str], int]) -> tuple[str, bytes]:
    from .layout import render_paper

    paper_json, refs, seed = job
    p = PaperGT.model_validate_json(paper_json)
    pdf = render_paper(p, refs, _full_width_figures(p, seed))
    return p.model_dump_json(), pdf


def load_catalog(sandbox_dir: Path | None = None) -> Catalog | None:
    path = (sandbox_dir / "catalog.json") if sandbox_dir else paths.catalog_path()
    return Catalog.model_validate_json(path.read_text(encoding="utf-8")) if path.is_file() else None


def load_ground_truth(sandbox_dir: Path | None = None) -> GroundTruth:
    path = (sandbox_dir / "ground_truth.json") if sandbox_dir else paths.ground_truth_path()
    return GroundTruth.model_validate_json(path.read_text(encoding="utf-8"))


def index_docs(catalog: Catalog) -> list[tuple[str, str]]:
    """One search document per paper: title, authors, venue, year, abstract and reference strings."""
    docs = []
    for e in catalog.papers:
        parts = [e.title, ", ".join(e.authors), e.venue or "", str(e.year or ""), e.abstract or "", *e.references_text]
        docs.append((e.id, "\n".join(x for x in parts if x)))
    return docs


def build_index(catalog: Catalog, index_dir: Path) -> None:
    from tools.search_index import HybridIndex

    HybridIndex.build(index_docs(catalog), index_dir)


def _is_up_to_date(root: Path, seed: int, n_papers: int) -> bool:
    stamp_path = root / STAMP_NAME
    if not stamp_path.is_file() or not (root / "ground_truth.json").is_file() or not (root / "catalog.json").is_file():
        return False
    try:
        stamp = BuildStamp.model_validate_json(stamp_path.read_text(encoding="utf-8"))
    except ValueError:
        return False
    if (stamp.generator_version, stamp.seed, stamp.papers) != (GENERATOR_VERSION, seed, n_papers):
        return False
    return all((root / "corpus" / f"{pid}.pdf").is_file() for pid in stamp.pdf_sha256)


def _catalog_entry(p: PaperGT, by_id: dict[str, PaperGT], pdf_hash: str) -> CatalogEntry:
    return CatalogEntry(
        id=p.id, title=p.title, authors=p.authors, venue=p.venue, year=p.year, area=p.area, abstract=p.abstract,
        references_text=[reference_string(by_id[r]) for r in p.references], arxiv_id=p.arxiv_id,
        pdf=f"corpus/{p.pdf}", sha256=pdf_hash, figures=[f.n for f in p.figures], tables=[t.n for t in p.tables],
        pages=p.pages or 0, origin="generated",
    )


def render_corpus(gt: GroundTruth, workers: int | None = None) -> dict[str, bytes]:
    """Render every paper (in parallel processes); fills pages and float positions into `gt`."""
    by_id = {p.id: p for p in gt.papers}
    jobs = [(p.model_dump_json(), [reference_string(by_id[r]) for r in p.references], gt.seed) for p in gt.papers]
    workers = workers or min(2, os.cpu_count() or 1)
    if workers > 1 and len(jobs) > 4:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(_render_one, jobs, chunksize=2))
    else:
        results = [_render_one(j) for j in jobs]
    pdfs: dict[str, bytes] = {}
    for i, (paper_json, pdf) in enumerate(results):
        gt.papers[i] = PaperGT.model_validate_json(paper_json)
        pdfs[gt.papers[i].id] = pdf
    return pdfs


def build_corpus(sandbox_dir: Path | None = None, *, seed: int = DEFAULT_SEED, n_papers: int = DEFAULT_PAPERS,
                 force: bool = False, with_index: bool = True, workers: int | None = None) -> BuildResult:
    """Generate the corpus into `sandbox_dir` (default: sandbox.paths.sandbox_dir()) unless it is up to date."""
    root = Path(sandbox_dir) if sandbox_dir else paths.sandbox_dir()
    t0 = time.perf_counter()
    if not force and _is_up_to_date(root, seed, n_papers):
        gt = load_ground_truth(root)
        if with_index and not (root / "index" / "ids.json").is_file():
            catalog = load_catalog(root)
            assert catalog is not None
            build_index(catalog, root / "index")
        return BuildResult(root, True, len(gt.papers), sum(p.pages or 0 for p in gt.papers),
                           time.perf_counter() - t0, 0)
    old = load_catalog(root) if (root / "catalog.json").is_file() else None
    added = [e for e in (old.papers if old else []) if e.origin == "added" and (root / e.pdf).is_file()]
    gt = plan_corpus(seed, n_papers)
    pdfs = render_corpus(gt, workers)
    corpus = root / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for stale in corpus.glob("P*.pdf"):
        if stale.stem not in pdfs:
            stale.unlink()
    hashes = {}
    for pid, pdf in pdfs.items():
        write_atomic(corpus / f"{pid}.pdf", pdf)
        hashes[pid] = sha256(pdf)
    by_id = {p.id: p for p in gt.papers}
    gt_json = gt.model_dump_json(indent=1)
    catalog = Catalog(generator_version=GENERATOR_VERSION, seed=seed,
                      papers=[_catalog_entry(p, by_id, hashes[p.id]) for p in gt.papers] + added)
    write_atomic(root / "ground_truth.json", gt_json)
    write_atomic(root / "catalog.json", catalog.model_dump_json(indent=1))
    if with_index:
        build_index(catalog, root / "index")
    stamp = BuildStamp(generator_version=GENERATOR_VERSION, seed=seed, papers=n_papers,
                       ground_truth_sha256=sha256(gt_json.encode("utf-8")), pdf_sha256=hashes)
    write_atomic(root / STAMP_NAME, stamp.model_dump_json(indent=1))
    return BuildResult(root, False, len(gt.papers), sum(p.pages or 0 for p in gt.papers),
                       time.perf_counter() - t0, sum(len(b) for b in pdfs.values()))


def ground_truth_hash(gt: GroundTruth) -> str:
    """Hash of the ground truth as written to disk."""
    return sha256(gt.model_dump_json(indent=1).encode("utf-8"))


__all__ = ["BuildResult", "BuildStamp", "build_corpus", "build_index", "index_docs", "load_catalog",
           "load_ground_truth", "render_corpus", "ground_truth_hash", "write_atomic", "DEFAULT_SEED"]
