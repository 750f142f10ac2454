"""Corpus v1 (kept buildable for sandbox-v1): deterministic, and every float in the ground truth is really in its PDF.

Corpus v2 has its own tests (test_corpus_v2.py)."""
from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from pathlib import Path

import pymupdf
import pytest

from sandbox.corpus.build import BuildStamp, build_corpus, ground_truth_hash, load_catalog, load_ground_truth, sha256
from sandbox.corpus.model import GroundTruth
from sandbox.legacy.corpus_v1.plan import plan_corpus

SMALL = 12
SEED = 7
_BUILT: dict[str, Path] = {}


@pytest.fixture(scope="session")
def built_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 12-paper sandbox with its search index, built once per test session (shared with test_world)."""
    if "root" not in _BUILT:
        root = tmp_path_factory.mktemp("sandbox")
        build_corpus(root, seed=SEED, n_papers=SMALL, corpus="v1")
        _BUILT["root"] = root
    return _BUILT["root"]


@pytest.fixture(scope="session")
def gt(built_sandbox: Path) -> GroundTruth:
    return load_ground_truth(built_sandbox)


def _numbers(text: str) -> set[float]:
    return {float(x) for x in re.findall(r"\d+(?:\.\d+)?", text)}


def test_same_seed_same_plan_and_different_seed_differs() -> None:
    a, b, c = plan_corpus(3, 24), plan_corpus(3, 24), plan_corpus(4, 24)
    assert ground_truth_hash(a) == ground_truth_hash(b)
    assert ground_truth_hash(a) != ground_truth_hash(c)


@pytest.mark.slow
def test_rebuild_with_same_seed_gives_identical_files(built_sandbox: Path, tmp_path: Path) -> None:
    build_corpus(tmp_path, seed=SEED, n_papers=SMALL, with_index=False, workers=1, corpus="v1")
    assert (tmp_path / "ground_truth.json").read_bytes() == (built_sandbox / "ground_truth.json").read_bytes()
    first = BuildStamp.model_validate_json((built_sandbox / "build.json").read_text())
    second = BuildStamp.model_validate_json((tmp_path / "build.json").read_text())
    assert first.pdf_sha256 == second.pdf_sha256  # PDF bytes are reproducible too


def test_build_is_idempotent(built_sandbox: Path) -> None:
    before = (built_sandbox / "build.json").read_bytes()
    result = build_corpus(built_sandbox, seed=SEED, n_papers=SMALL, corpus="v1")
    assert result.up_to_date
    assert (built_sandbox / "build.json").read_bytes() == before


def test_every_float_is_on_its_recorded_page_with_its_caption(built_sandbox: Path, gt: GroundTruth) -> None:
    for p in gt.papers:
        with pymupdf.open(built_sandbox / "corpus" / p.pdf) as doc:
            assert doc.page_count == p.pages and 3 <= doc.page_count <= 6, (p.id, doc.page_count)
            for kind, floats in (("Figure", p.figures), ("Table", p.tables)):
                for f in floats:
                    assert f.caption.startswith(f"{kind} {f.n}:")
                    page = doc[f.page - 1]
                    box = pymupdf.Rect(f.bbox)
                    assert box in page.rect
                    hits = page.search_for(f"{kind} {f.n}:")
                    assert any(box.contains(h) for h in hits), (p.id, kind, f.n, f.page)
                    for other in range(doc.page_count):  # the caption label exists once in the paper
                        if other != f.page - 1:
                            assert not doc[other].search_for(f"{kind} {f.n}:"), (p.id, kind, f.n, other + 1)


def test_captions_sit_under_figures_and_above_tables(built_sandbox: Path, gt: GroundTruth) -> None:
    for p in gt.papers:
        with pymupdf.open(built_sandbox / "corpus" / p.pdf) as doc:
            for f in p.figures:
                page = doc[f.page - 1]
                cap = page.search_for(f"Figure {f.n}:")[0]
                body = pymupdf.Rect(f.bbox) + (-1, -1, 1, 1)
                if f.visual == "raster":
                    imgs = [pymupdf.Rect(i["bbox"]) for i in page.get_image_info() if body.contains(pymupdf.Rect(i["bbox"]))]
                    assert imgs and all(cap.y0 >= r.y1 - 1 for r in imgs), (p.id, f.n)
                else:
                    drawn = [d["rect"] for d in page.get_drawings() if body.contains(d["rect"]) and d["rect"].y1 < cap.y0]
                    assert len(drawn) > 5 and cap.y0 >= body.y0 + 0.6 * body.height, (p.id, f.n)
            for t in p.tables:
                page = doc[t.page - 1]
                cap = page.search_for(f"Table {t.n}:")[0]
                words = page.get_text("words", clip=pymupdf.Rect(t.bbox))
                cells = " ".join(w[4] for w in words if w[1] > cap.y1)
                for row in t.rows:
                    for cell in row:
                        assert all(part in cells for part in cell.split()), (p.id, t.n, cell)


def test_text_stays_on_the_page_and_off_the_floats(built_sandbox: Path, gt: GroundTruth) -> None:
    for p in gt.papers:
        with pymupdf.open(built_sandbox / "corpus" / p.pdf) as doc:
            for i, page in enumerate(doc):
                boxes = [pymupdf.Rect(f.bbox) for f in [*p.figures, *p.tables] if f.page == i + 1]
                for w in page.get_text("words"):
                    r = pymupdf.Rect(w[:4])
                    assert r.x0 >= 4 and r.x1 <= page.rect.width - 20 and r.y1 <= page.rect.height - 20, (p.id, w)
                    for b in boxes:
                        inside = pymupdf.Rect(b.x0 - 1, b.y0 - 1, b.x1 + 1, b.y1 + 1).contains(r)
                        assert inside or not b.intersects(r), (p.id, i + 1, w[4])


def test_plotted_values_are_not_printed_in_the_text(built_sandbox: Path, gt: GroundTruth) -> None:
    for p in gt.papers:
        with pymupdf.open(built_sandbox / "corpus" / p.pdf) as doc:
            words = []
            for i, page in enumerate(doc):
                figs = [pymupdf.Rect(f.bbox) for f in p.figures if f.page == i + 1]
                words += [w[4] for w in page.get_text("words") if not any(b.intersects(pymupdf.Rect(w[:4])) for b in figs)]
        printed = _numbers(" ".join(words))
        for f in p.figures:
            assert f.values_in_text is False
            assert not printed & {y for s in f.series for y in s.y}, (p.id, f.n)


def test_plotted_values_are_readable_off_the_axes(gt: GroundTruth) -> None:
    for p in gt.papers:
        for f in p.figures:
            ys = [y for s in f.series for y in s.y]
            assert all(abs(y * 2 - round(y * 2)) < 1e-9 for y in ys), (p.id, f.n, ys)
            assert len(f.series) >= 1 and all(len(s.x) == len(s.y) >= 2 for s in f.series)


def test_citation_graph_points_back_in_time_and_is_printed(built_sandbox: Path, gt: GroundTruth) -> None:
    by_id = {p.id: p for p in gt.papers}
    assert sum(len(p.references) for p in gt.papers) > 0
    for p in gt.papers:
        assert p.id not in p.references and len(set(p.references)) == len(p.references)
        with pymupdf.open(built_sandbox / "corpus" / p.pdf) as doc:
            text = " ".join(page.get_text() for page in doc)
        flat = re.sub(r"-\s+", "-", " ".join(unicodedata.normalize("NFKC", text).split()))
        for n, rid in enumerate(p.references, start=1):
            q = by_id[rid]
            assert q.year <= p.year
            assert f"[{n}]" in flat and q.title in flat, (p.id, rid)


def test_both_layouts_and_all_areas_present(gt: GroundTruth) -> None:
    assert Counter(p.layout for p in gt.papers).keys() == {"one_column", "two_column"}
    assert len({p.area for p in gt.papers}) == 6


def test_full_size_plan_has_the_promised_composition() -> None:
    full = plan_corpus(SEED)
    assert len(full.papers) >= 80
    areas = Counter(p.area for p in full.papers)
    assert len(areas) >= 6 and min(areas.values()) >= 10
    assert {p.year for p in full.papers} <= set(range(2016, 2025)) and len({p.year for p in full.papers}) == 9
    assert len({p.venue for p in full.papers}) == 7
    for field in ("title", "method", "arxiv_id"):
        values = [getattr(p, field) for p in full.papers]
        assert len(set(values)) == len(values), field
    assert all(1 <= len(p.figures) <= 4 and 1 <= len(p.tables) <= 3 for p in full.papers)
    figs = [f for p in full.papers for f in p.figures]
    assert {f.kind for f in figs} == {"line", "bar", "scatter"} and {f.visual for f in figs} == {"vector", "raster"}
    layouts = Counter(p.layout for p in full.papers)
    assert abs(layouts["one_column"] - layouts["two_column"]) <= len(full.papers) // 8


def test_two_column_papers_have_full_width_and_column_floats(built_sandbox: Path, gt: GroundTruth) -> None:
    widths = [pymupdf.Rect(f.bbox).width for p in gt.papers if p.layout == "two_column" for f in [*p.figures, *p.tables]]
    assert any(w > 400 for w in widths) and any(w < 260 for w in widths)


def test_catalog_reveals_metadata_not_values(built_sandbox: Path, gt: GroundTruth) -> None:
    catalog = load_catalog(built_sandbox)
    assert catalog is not None and [e.id for e in catalog.papers] == [p.id for p in gt.papers]
    for e, p in zip(catalog.papers, gt.papers):
        assert e.sha256 == sha256((built_sandbox / e.pdf).read_bytes())
        assert e.figures == [f.n for f in p.figures] and e.tables == [t.n for t in p.tables] and e.pages == p.pages
        assert len(e.references_text) == len(p.references)
    raw = (built_sandbox / "catalog.json").read_text()
    assert "series" not in json.loads(raw)["papers"][0]


def test_pdf_metadata_is_fixed(built_sandbox: Path, gt: GroundTruth) -> None:
    p = gt.papers[0]
    with pymupdf.open(built_sandbox / "corpus" / p.pdf) as doc:
        assert doc.metadata["title"] == p.title
        assert doc.metadata["creationDate"].startswith(f"D:{p.year}")
