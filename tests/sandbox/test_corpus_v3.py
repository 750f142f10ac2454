"""Corpus v3 (issue 26, item 3): papers with the habits of real ones.

The text and figure habits are measured on the plan of a full-size corpus (planning renders nothing and
takes seconds); pages, placement, raster resolution and what a figure's drawing encodes are measured on
a small rendered build. Every number is computed by sandbox/corpus/habits.py, which reads the ground
truth and the PDFs, not the generator's intentions.
"""
from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from typer.testing import CliRunner

from harness.cli._apps import UserError, app
from sandbox.corpus.build import build_corpus, ground_truth_hash, load_ground_truth
from sandbox.corpus.model import FigureGT, GroundTruth
from sandbox.corpus import habits as S
from sandbox.corpus.plan import DEFAULT_PAPERS, plan_corpus
from sandbox.corpus.versions import corpus_version

V3_PAPERS = 48
V3_SEED = 7
_MAIN_SANDBOX = Path(__file__).resolve().parents[2] / "sandbox"


@pytest.fixture(scope="module")
def full_plan() -> dict:
    return S.corpus_habits(plan_corpus(V3_SEED, DEFAULT_PAPERS))


@pytest.fixture(scope="module")
def v3_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sandbox_v3")
    build_corpus(root, seed=V3_SEED, n_papers=V3_PAPERS, corpus="v3", workers=2, with_index=False)
    return root


@pytest.fixture(scope="module")
def small_plan() -> GroundTruth:
    return plan_corpus(V3_SEED, V3_PAPERS)


def _text_problems(gt: GroundTruth) -> list[str]:
    """The thresholds a planned (unrendered) corpus breaks; pages are measured only on a rendered one."""
    return [x for x in S.problems(S.corpus_habits(gt)) if not x.startswith(("pages", "median pages"))]


def test_a_small_corpus_meets_every_text_threshold() -> None:
    """References, repeated sentences, abstracts, titles and figures hold at small sizes too, not only at 480
    (48 papers: the first assertion of the next test; the rendered 48 papers: every threshold, pages included)."""
    assert _text_problems(plan_corpus(V3_SEED, 96)) == []


def test_each_text_check_fails_on_a_corpus_with_the_flaw(small_plan: GroundTruth) -> None:
    assert _text_problems(small_plan) == []

    def flawed(edit) -> list[str]:  # noqa: ANN001
        gt = small_plan.model_copy(deep=True)
        edit(gt.papers)
        return _text_problems(gt)

    stock = "Our results hold across every benchmark we tried."

    def repeat(ps: list) -> None:  # one stock sentence in three of 48 papers (6%)
        for p in ps[:3]:
            p.sections[0].paragraphs[0] += " " + stock
    assert any(x.startswith("a sentence is in 3 papers") and stock[:30] in x for x in flawed(repeat))

    def leak(ps: list) -> None:  # an alternative the template engine did not resolve
        ps[5].sections[1].paragraphs[0] += " [Much work uses it|It is studied widely]; we discuss it."
    assert any("keep template markup" in x and small_plan.papers[5].id in x for x in flawed(leak))

    def boast(ps: list) -> None:  # every abstract claims the best result
        for p in ps:
            p.abstract += " It sets a new state of the art."
    assert any("abstracts claim the best" in x for x in flawed(boast))

    def cite_across(ps: list) -> None:  # a third of the papers cite two papers of other areas
        for p in ps[::3]:
            p.references += [q.id for q in ps if q.area != p.area][:2]
    assert any(x.startswith("cross-area references") for x in flawed(cite_across))

    def one_pattern(ps: list) -> None:  # every title as "Name: Technique for Task"
        for p in ps:
            p.title = f"{p.method or 'Study'}: Something for {p.task}"
    assert any(x.startswith("a title pattern has") for x in flawed(one_pattern))


def test_a_sentence_may_repeat_in_2_percent_of_papers_and_never_more_than_a_pair_below_100() -> None:
    assert [S.sentence_limit(n) for n in (24, 48, 99, 100, 150, 480)] == [2, 2, 2, 2, 3, 9]


def test_the_cross_area_budget_keeps_every_small_corpus_in_its_area(monkeypatch: pytest.MonkeyPatch) -> None:
    """A small corpus has few same-area papers to cite, so independent cross-area draws reach 10% for some
    seeds; the planner's running budget holds the share under the limit for every one."""
    from sandbox.corpus import plan as P

    def shares() -> list[float]:
        return [S.corpus_habits(plan_corpus(seed, P.MIN_PAPERS))["cross_area_reference_share"] for seed in (1, 2, 3)]

    assert max(shares()) <= S.MAX_CROSS_AREA_REFS
    monkeypatch.setattr(P, "CROSS_AREA_MAX", 1.0)  # no budget
    assert max(shares()) > S.MAX_CROSS_AREA_REFS


def test_areas_have_their_own_datasets_metrics_and_coherent_sweeps(full_plan: dict) -> None:
    h = full_plan
    assert h["areas"] >= S.MIN_AREAS
    assert h["datasets_shared_between_areas"] == 0
    metrics = {v["metric"] for v in h["per_area"].values()}
    assert len(metrics) == h["areas"]
    assert all(len(v["sweep_axes"]) >= 2 for v in h["per_area"].values())
    assert h["sweep_plots"] > 500 and h["sweeps_incoherent_with_families"] == 0


def test_method_names_do_not_reveal_the_area(full_plan: dict) -> None:
    g = full_plan["area_from_method_name"]
    assert g["accuracy"] <= g["chance"] + 0.1, g


def test_references_stay_in_the_area_and_each_has_a_reason(full_plan: dict) -> None:
    assert full_plan["references"] > 2000
    assert 0 < full_plan["cross_area_reference_share"] <= S.MAX_CROSS_AREA_REFS
    assert full_plan["references_with_reason_share"] >= 0.99


def test_text_has_no_stock_sentences_and_varied_titles_and_claims(full_plan: dict) -> None:
    h = full_plan
    assert h["max_sentence_paper_share"] <= S.MAX_SENTENCE_SHARE, h["most_repeated_sentence"]
    assert h["title_pattern_count"] >= S.MIN_TITLE_PATTERNS
    assert h["max_title_pattern_share"] <= S.MAX_TITLE_PATTERN_SHARE
    assert 0.2 <= h["abstracts_claiming_best_share"] <= S.MAX_BEST_CLAIMS
    assert h["section_structures"] >= 4 and h["max_section_structure_share"] < 0.4
    assert h["author_surnames"] >= 80


def test_figures_of_many_kinds_with_realistic_curves_and_legends(full_plan: dict) -> None:
    h = full_plan
    assert h["figure_kinds_at_min_share"] >= S.MIN_FIGURE_KINDS, h["figure_kinds"]
    kinds = set(h["figure_kinds"])
    assert {"scatter", "grouped bar", "stacked bar", "horizontal bar", "heatmap", "multi-panel",
            "line with error bars", "line with shaded band", "line (log axis)"} <= kinds
    assert h["procedural_figures"] > 0 and {"diagram (procedural)", "image grid (procedural)"} <= kinds
    assert h["line_plots_with_crossing_share"] > 0.1 and h["line_plots_non_monotone_share"] > 0.1
    assert h["figures_with_ours_in_legend_share"] <= S.MAX_OURS_SHARE
    v = h["visual"]
    assert min(v.values()) > 0.05 * h["figures"], v


def test_rendered_papers_have_realistic_length_structure_and_appendices(v3_build: Path) -> None:
    gt = load_ground_truth(v3_build)
    h = S.corpus_habits(gt, v3_build)
    assert S.problems(h) == []  # every item-3 threshold, measured on the rendered small corpus
    assert h["pages"]["min"] >= S.MIN_PAGES and h["pages"]["max"] <= S.MAX_PAGES
    assert h["pages"]["median"] >= S.MIN_MEDIAN_PAGES
    assert h["papers_with_appendix_floats_share"] > 0.3
    # an appendix float sits after the bibliography
    for p in gt.papers:
        doc = pymupdf.open(v3_build / "corpus" / p.pdf)
        refs_page = next(i for i, page in enumerate(doc, start=1) if "References" in page.get_text())
        app = [f for f in p.figures if any(f"Figure {f.n}" in x for s in p.sections if s.number[0].isalpha()
                                           for x in s.paragraphs)
               and not any(f"Figure {f.n}" in x for s in p.sections if s.number[0].isdigit() for x in s.paragraphs)]
        assert all(f.page is not None and f.page >= refs_page for f in app), p.id
    m = h["raster_ppi_measured_in_pdfs"]
    assert m["images"] > 50 and 80 <= m["min"] and m["max"] <= 330 and m["median"] >= 120


def _figure_on_page(doc: pymupdf.Document, f: FigureGT) -> tuple[int, int, int]:
    """(images, vector paths, words) inside the figure's body (the box above its caption)."""
    page = doc[f.page - 1]
    box = pymupdf.Rect(f.bbox)
    cap = [pymupdf.Rect(r) for r in page.search_for(f"Figure {f.n}:") if box.contains(pymupdf.Rect(r))]
    body = pymupdf.Rect(box.x0, box.y0, box.x1, max(r.y0 for r in cap) - 1)
    images = sum(pymupdf.Rect(i["bbox"]).intersects(body) for i in page.get_image_info())
    paths = sum(body.contains(pymupdf.Rect(d["rect"])) for d in page.get_drawings())
    words = [w for w in page.get_text("words", clip=body) if not w[4].startswith("Figure")]
    return images, paths, len(words)


def test_ground_truth_says_what_each_figure_drawing_encodes(v3_build: Path) -> None:
    """Raster: an image and no text; exact vector: paths and text, no image; vector with rasterised marks:
    an image for the marks inside vector text (tick labels)."""
    gt = load_ground_truth(v3_build)
    seen = set()
    for p in gt.papers:
        doc = pymupdf.open(v3_build / "corpus" / p.pdf)
        for f in p.figures:
            if f.kind in ("image_grid", "diagram"):
                continue
            images, paths, words = _figure_on_page(doc, f)
            if f.visual == "raster":
                assert images >= 1 and words == 0, (p.id, f.n)
                seen.add("raster")
            elif f.vector_exact:
                assert images == 0 and paths > 5 and words > 3, (p.id, f.n, images, paths, words)
                seen.add("exact")
            else:
                assert images >= 1 and words > 3, (p.id, f.n)
                seen.add("marks as image")
    assert seen == {"raster", "exact", "marks as image"}


def test_the_v3_pages_in_episodes_readme_read_like_the_real_papers_beside_them(v3_build: Path, tmp_path: Path) -> None:
    """episodes/v3-pages.png: four pages of the small v3 corpus above four pages of the real papers in
    ../shared/realpdfs. Each v3 page shows what its label says, reads like the real pages (page size, body
    type size, margins, words on a full page of text), and the committed PNG is these eight pages as
    bench/v3_pages.py draws them now (so it cannot go stale when the generator changes)."""
    import numpy as np

    from bench import v3_pages as V

    if not (V.REAL_DEFAULT / "ground_truth.json").is_file():
        pytest.skip(f"the real papers are not in {V.REAL_DEFAULT} (EPI_REAL_PDFS names them elsewhere)")
    gt = load_ground_truth(v3_build)
    by_pdf = {p.pdf: p for p in gt.papers}
    picked = V.pick_v3_pages(gt)
    ours = [(v3_build / "corpus" / pdf, k, label) for pdf, k, label in picked]
    theirs = V.pick_real_pages(V.REAL_DEFAULT)
    assert len(ours) == len(theirs) == 4
    mine = [V.page_metrics(path, k) for path, k, _ in ours]
    real = [V.page_metrics(path, k) for path, k, _ in theirs]
    (first, k1), (rich, k2), (busy, k3), (app, k4) = [(by_pdf[pdf], k) for pdf, k, _ in picked]
    # what each label says
    assert first.layout == "two_column" and k1 == 1 and mine[0]["two_column_lines"] >= 0.8
    assert any(f.kind in ("panels", "heatmap") and f.page == k2 for f in rich.figures)
    assert sum(f.page == k3 for f in busy.figures) >= 2
    assert k4 == app.pages and any(f.page == k4 for f in app.figures)
    assert all(m["images"] + m["drawings"] > 0 for m in mine[1:])  # the figures' ink is on those pages
    # like the real pages: letter beside A4, body type within a point, side margins, a first page's words
    real_body = {m["body_pt"] for m in real}
    lo_margin = min(min(m["left_margin"], m["right_margin"]) for m in real)
    hi_margin = max(max(m["left_margin"], m["right_margin"]) for m in real)
    for m, (_, _, label) in zip(mine, ours):
        assert abs(m["width"] - real[0]["width"]) <= 0.05 * real[0]["width"], label
        if m["words"] >= 150:  # a page of text (a last page may hold one figure and its caption)
            assert min(real_body) - 1 <= m["body_pt"] <= max(real_body) + 1, (label, m, real_body)
        assert 0.5 * lo_margin <= m["left_margin"] <= 1.5 * hi_margin, (label, m)
        assert 0.5 * lo_margin <= m["right_margin"] <= 1.5 * hi_margin, (label, m)
    assert 0.6 <= mine[0]["words"] / real[0]["words"] <= 1.6, (mine[0], real[0])
    # the committed figure is these eight pages
    out = tmp_path / "pages.png"
    V.compose([ours, theirs], out)
    made, committed = pymupdf.Pixmap(str(out)), pymupdf.Pixmap(str(V.ROOT / "episodes" / "v3-pages.png"))
    assert (made.width, made.height, made.n) == (committed.width, committed.height, committed.n)
    diff = np.abs(np.frombuffer(made.samples, np.uint8).astype(int) - np.frombuffer(committed.samples, np.uint8))
    assert diff.mean() < 0.5, f"episodes/v3-pages.png is stale (mean pixel difference {diff.mean():.2f}); run bench/v3_pages.py"
    assert "](v3-pages.png)" in (V.ROOT / "episodes" / "README.md").read_text(encoding="utf-8")


def test_too_small_a_corpus_is_refused_before_anything_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(tmp_path / "build"))
    r = CliRunner().invoke(app, ["sandbox", "build", "--corpus", "v3", "--papers", "5"])
    # a UserError: `epi` prints its one line and exits 2
    assert isinstance(r.exception, UserError) and "--papers: corpus v3 needs at least 24 papers" in str(r.exception)
    assert not (tmp_path / "build").exists()  # v3 is the default: it would have been written there


def test_v3_is_the_default_and_the_frozen_corpora_live_beside_it() -> None:
    from sandbox import paths
    from sandbox.corpus.versions import DEFAULT_CORPUS

    v = corpus_version("v3")
    assert DEFAULT_CORPUS == "v3" and v.default_dir() == paths.sandbox_dir()
    assert corpus_version("v2").default_dir().name.endswith("-v2") and corpus_version("v1").default_dir().name.endswith("-v1")
    assert v.generator_version == "corpus-3.0"


@pytest.mark.parametrize("name, folder", [("v1", "build-v1"), pytest.param("v2", "build-v2", marks=pytest.mark.slow)])
def test_legacy_plans_are_unchanged_by_the_v3_model_fields(name: str, folder: str) -> None:
    """The corpus-v3 fields of the shared model are left out of v1's and v2's JSON: their planned ground
    truth hashes to what the built legacy sandbox recorded."""
    import json

    stamp = _MAIN_SANDBOX / folder / "build.json"
    if not stamp.is_file():
        pytest.skip(f"{stamp} not built")
    s = json.loads(stamp.read_text())
    if not s.get("plan_sha256"):
        pytest.skip("stamp without a plan hash")
    assert ground_truth_hash(corpus_version(name).plan(s["seed"], s["papers"])) == s["plan_sha256"]
