"""Corpus v2: deterministic, 480 papers in six areas with look-alikes, true claims, figures that report
what no text prints, drawn so no series hides another, rendered and cached by content."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pymupdf
import pytest

from sandbox.corpus.build import build_corpus, ground_truth_hash, load_ground_truth
from sandbox.corpus.model import GroundTruth
from sandbox.legacy.corpus_v2.checks import MIN_DISTRACTORS, check_plan, distractor_counts
from sandbox.legacy.corpus_v2.claims import ClaimError, check_claims
from sandbox.legacy.corpus_v2.plan import DEFAULT_PAPERS, plan_corpus
from sandbox.legacy.corpus_v2.results import MIN_SEPARATION
from sandbox.legacy.corpus_v2.vocab import AREA_BY_NAME
from sandbox.legacy.episodegen_v2.facts import V2Facts

from .v2_fixture import V2_PAPERS, V2_SEED, v2_sandbox  # noqa: F401  (session fixture)


@pytest.fixture(scope="module")
def full() -> GroundTruth:
    return plan_corpus(7, DEFAULT_PAPERS)


def test_same_seed_same_plan_and_another_seed_differs() -> None:
    a, b, c = plan_corpus(3, 64), plan_corpus(3, 64), plan_corpus(4, 64)
    assert ground_truth_hash(a) == ground_truth_hash(b) != ground_truth_hash(c)


def test_full_plan_has_400_plus_papers_in_six_areas_and_both_layouts(full: GroundTruth) -> None:
    assert len(full.papers) >= 400 and full.generator_version == "corpus-2.0"
    areas = Counter(p.area for p in full.papers)
    assert len(areas) == 6 and min(areas.values()) >= 60
    assert {p.layout for p in full.papers} == {"one_column", "two_column"}
    assert all(re.fullmatch(r"P\d{4}", p.id) for p in full.papers)  # never a corpus-v1 id (P001)
    for field in ("title", "method", "arxiv_id"):
        values = [getattr(p, field) for p in full.papers]
        assert len(set(values)) == len(values), field
    figs = [f for p in full.papers for f in p.figures]
    assert {f.kind for f in figs} == {"line", "bar"} and {f.visual for f in figs} == {"vector", "raster"}


def test_every_paper_has_three_look_alikes(full: GroundTruth) -> None:
    counts = distractor_counts(full)
    assert min(counts.values()) >= MIN_DISTRACTORS
    surnames = Counter(p.authors[0].split()[-1] for p in full.papers)
    assert sum(n >= 2 for n in surnames.values()) >= 20  # first authors publish more than once
    assert max(Counter((p.venue, p.year) for p in full.papers).values()) >= 4


def test_papers_of_an_area_share_datasets_and_sweep_grids(full: GroundTruth) -> None:
    for p in full.papers:
        area = AREA_BY_NAME[p.area]
        assert set(p.datasets) <= {d.name for d in area.datasets}
        for f in p.figures:
            if f.kind == "line":
                sweep = next(s for s in area.sweeps if s.x_label == f.x_label)
                assert all(s.x == [float(x) for x in sweep.grid] for s in f.series), (p.id, f.n)
                assert f.dataset in p.datasets


def test_every_claim_checks_and_a_false_one_fails_the_build(full: GroundTruth) -> None:
    assert sum(check_claims(p) for p in full.papers) >= 3 * len(full.papers)
    p = next(q for q in full.papers if any("obtains the best" in s for s in q.abstract.split(". ")))
    bad = p.model_copy(deep=True)
    winner = p.method
    loser = next(r[0] for r in bad.tables[0].rows if not r[0].endswith("(ours)") and " " not in r[0])
    bad.abstract = bad.abstract.replace(f", {winner} obtains the best", f", {loser} obtains the best")
    with pytest.raises(ClaimError, match="false claim"):
        check_claims(bad)
    vague = p.model_copy(deep=True)
    vague.sections[-1].paragraphs.append(f"{winner} clearly outperforms every baseline.")
    with pytest.raises(ClaimError, match="no claim template can check"):
        check_claims(vague)
    with pytest.raises(ClaimError):  # the build runs the same check on every paper before writing anything
        check_plan(GroundTruth(generator_version="x", seed=0, papers=[bad]))


def test_figures_report_settings_no_table_prints_off_any_grid_and_apart(full: GroundTruth) -> None:
    for p in full.papers:
        t = p.tables[0]
        for f in p.figures:
            ys = [y for s in f.series for y in s.y]
            span = max(ys) - min(ys)
            assert all(abs(y * 10 - round(y * 10)) > 0.004 for y in ys), (p.id, f.n)
            for j in range(len(f.series[0].y)):
                col = sorted(s.y[j] for s in f.series)
                assert all(b - a >= MIN_SEPARATION * span * 0.95 for a, b in zip(col, col[1:])), (p.id, f.n, j)
            if f.kind == "line":
                for s in f.series:
                    row = next(r for r in t.rows if r[0].removesuffix(" (ours)") == s.method)
                    ref = float(row[t.columns.index(f.dataset)])
                    assert abs(s.y[-1] - ref) > 0.02 * span, (p.id, f.n, s.label)  # a curve never ends at its table value
                    assert s.label == ("Ours" if s.method == p.method else s.method)


def test_a_built_small_corpus_is_cached_by_content_and_rebuilds_identically(v2_sandbox: Path, tmp_path: Path) -> None:  # noqa: F811
    again = build_corpus(tmp_path, seed=V2_SEED, n_papers=V2_PAPERS, corpus="v2", with_index=False, workers=1)
    assert again.rendered == V2_PAPERS
    assert (tmp_path / "ground_truth.json").read_bytes() == (v2_sandbox / "ground_truth.json").read_bytes()
    assert sorted((tmp_path / "corpus").glob("*.pdf")) and all(
        f.read_bytes() == (v2_sandbox / "corpus" / f.name).read_bytes() for f in (tmp_path / "corpus").glob("*.pdf"))
    forced = build_corpus(tmp_path, seed=V2_SEED, n_papers=V2_PAPERS, corpus="v2", with_index=False, force=True)
    assert forced.rendered == 0 and not forced.up_to_date  # every paper came from the render cache


def test_rendered_papers_have_every_float_and_no_askable_value_in_their_text(v2_sandbox: Path) -> None:  # noqa: F811
    gt = load_ground_truth(v2_sandbox)
    facts = V2Facts(gt)
    assert {p.layout for p in gt.papers} == {"one_column", "two_column"}
    checked = 0
    for p in gt.papers:
        assert 3 <= p.pages <= 6
        with pymupdf.open(v2_sandbox / "corpus" / p.pdf) as doc:
            numbers = []
            for i, page in enumerate(doc):
                figs = [pymupdf.Rect(f.bbox) for f in p.figures if f.page == i + 1]
                numbers += [float(m) for w in page.get_text("words")
                            if not any(b.intersects(pymupdf.Rect(w[:4])) for b in figs)
                            for m in re.findall(r"\d+\.\d+|\d+", w[4])]
                for f in p.figures:
                    if f.page == i + 1:
                        assert f"Figure {f.n}:" in page.get_text(clip=pymupdf.Rect(f.bbox))
        for pt in facts.points[p.id]:
            if facts.askable(pt):
                assert not any(abs(n - pt.value) <= pt.tolerance for n in numbers), (p.id, pt)
                checked += 1
    assert checked > 50
