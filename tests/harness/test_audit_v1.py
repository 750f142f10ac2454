"""The audit on the frozen sandbox-v1 benchmark reproduces the flaws issue 13 measured, and fails."""
from __future__ import annotations

import asyncio

import pytest

from harness.audit import AuditReport, PlottedData, audit_episodes, render_text
from harness.episodes_io import load_episodes
from sandbox import paths

pytestmark = pytest.mark.slow

V1 = paths.REPO_DIR / "episodes" / "sandbox-v1.jsonl"


def _v1_root():  # noqa: ANN202
    """Corpus v1 lives beside the default (v2) sandbox: `epi sandbox build --corpus v1` (sandbox/build-v1)."""
    from sandbox.corpus.versions import corpus_version

    return corpus_version("v1").default_dir()


def _v1_corpus_built() -> bool:
    catalog = _v1_root() / "catalog.json"
    if not catalog.is_file():
        return False
    from sandbox.corpus.model import Catalog

    return Catalog.model_validate_json(catalog.read_bytes()).generator_version.startswith("corpus-1")


@pytest.fixture(scope="module")
def report() -> AuditReport:
    if not _v1_corpus_built():
        pytest.skip("the v1 sandbox corpus is not built (run `epi sandbox build --corpus v1`)")
    from sandbox.world import SandboxWorld

    world = SandboxWorld(_v1_root())
    eps = load_episodes(V1, catalog=world.catalog)
    plotted = PlottedData.model_validate_json((_v1_root() / "ground_truth.json").read_bytes())
    papers = {p.id: p.area for p in world.catalog.papers}
    return asyncio.run(audit_episodes(eps, world, corpus=str(world.root), papers=papers, plotted=plotted))


def test_v1_fails_and_names_its_problems(report):
    assert not report.passed
    text = render_text(report)
    assert text.splitlines()[-1].startswith("FAIL: ")
    for title in ("figure values printed in text", "cue pasted verbatim ranks the target first", "unused papers",
                  "best answer-free prior against chance", "duplicate turns", "ambiguous series"):
        assert title in text.splitlines()[-1], title


def test_v1_figures_match_the_issue(report):
    fig = report.check("figure_values_in_text")
    # issue 13: 86 of 156 (55%) on a row or sentence naming the method; 87 while pdf_rag's first line, which repeats
    # the audit's own question, counted as the paper's text
    assert (fig.count, fig.total) == (86, 156)
    assert fig.breakdown[0].count >= 70  # most of them on the series' own table row
    cue = report.check("cue_paste_top1")
    # issue 13: 243 of 306 with the v1 search engine; a new engine may change it, v1 must still fail
    assert cue.total == 306 and cue.status == "fail"
    dup = report.check("duplicate_turns")
    assert sorted(f.episode for f in dup.findings) == ["sbx-006", "sbx-024", "sbx-063", "sbx-086"]
    unused = report.check("unused_papers")
    assert len({f.episode for f in unused.findings}) == 37  # issue 13: 37 of 110 episodes
    finals = report.check("finals_without_figure")
    assert (finals.count, finals.total) == (29, 110)  # issue 13: 29 of 110 finals use tables only
    prior = report.check("answer_free_prior")
    own = next(b for b in prior.breakdown if b.label.startswith("the paper's own method:"))
    assert prior.status == "fail" and own.count / own.total > 0.40  # issue 13: 52% where chance is 35%
    recurring = report.check("recurring_table_values")
    assert (recurring.count, recurring.total) == (141, 202)  # issue 13: 141 of 202
    amb = report.check("ambiguous_series")
    assert any(f.episode == "sbx-091" and "P003 figure:3" in f.message for f in amb.findings)  # P003 Fig. 3


def test_v1_checks_needing_annotations_say_not_checked(report):
    for check_id in ("vacuous_conditions", "mixed_settings"):
        c = report.check(check_id)
        assert c.status == "not checked" and c.not_checked > 0
