"""Adding a paper goes into a named corpus folder, never silently into the default one; the incremental index
searches exactly like a full rebuild of the same corpus; every run records which corpus it searched, and
`epi compare` warns when runs differ in corpus (issue 21)."""
from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.cli import main
from sandbox.corpus.build import build_index, load_catalog
from sandbox.corpus.identity import corpus_identity
from sandbox.world import SandboxWorld
from tools.search_index import HybridIndex, same_bm25

from ..fakes import folder_snapshot
from .test_world import _cli, _foreign_paper

QUERIES = ["image classification", "graph neural networks", "segmentation refinement", "pooling", "language model"]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return folder_snapshot(folder, skip=("cache",))


@pytest.fixture(scope="module")
def added(tiny_sandbox, tmp_path_factory):
    """A named corpus made from the tiny sandbox by adding one paper, and the base as it was before."""
    base = tmp_path_factory.mktemp("base") / "sandbox"
    shutil.copytree(tiny_sandbox, base, ignore=shutil.ignore_patterns("cache"))
    before = _snapshot(base)
    tmp = tmp_path_factory.mktemp("added")
    pdf, paper = _foreign_paper(tmp)
    mp = pytest.MonkeyPatch()
    try:
        mp.setenv("EPI_SANDBOX_DIR", str(base))
        mp.setattr(sys, "argv", ["epi", "sandbox", "add", str(pdf), "--sandbox", str(tmp / "mine")])
        try:
            main()
        except SystemExit as e:
            assert not e.code
    finally:
        mp.undo()
    return base, before, tmp / "mine", pdf, paper


def test_add_without_a_named_corpus_is_refused_and_changes_nothing(tiny_sandbox, tmp_path, monkeypatch, capsys):
    base = tmp_path / "sandbox"
    shutil.copytree(tiny_sandbox, base, ignore=shutil.ignore_patterns("cache"))
    pdf, _ = _foreign_paper(tmp_path)
    before = _snapshot(base)
    code, out = _cli(["sandbox", "add", str(pdf)], base, monkeypatch, capsys)
    assert code == 2 and "--sandbox DIR" in out and "never changed silently" in " ".join(out.split())
    assert "Traceback" not in out and _snapshot(base) == before


def test_the_paper_goes_into_the_named_corpus_and_the_base_is_unchanged(added):
    base, before, mine, pdf, paper = added
    assert _snapshot(base) == before
    catalog = load_catalog(mine)
    entry = catalog.get("U001")
    assert entry is not None and entry.title == paper.title and (mine / entry.pdf).read_bytes() == pdf.read_bytes()
    assert [p.id for p in catalog.papers] == [p.id for p in load_catalog(base).papers] + ["U001"]
    hit = asyncio.run(SandboxWorld(mine).search(paper.title, 3))[0]
    assert hit.paper_id == "U001"
    # identity: same build, another catalog, the added paper named
    a, b = corpus_identity(base), corpus_identity(mine)
    assert a.build_sha256 == b.build_sha256 and a.catalog_sha256 != b.catalog_sha256 and not a.same_corpus(b)
    assert [x.id for x in b.added] == ["U001"] and b.added[0].sha256 == entry.sha256 and b.name == "mine"


def test_the_incremental_index_equals_a_full_rebuild(added, tmp_path):
    _, _, mine, _, _ = added
    incremental = HybridIndex.load(mine / "index")
    build_index(load_catalog(mine), tmp_path / "full", mine)  # what `epi sandbox add` did before: everything again
    full = HybridIndex.load(tmp_path / "full")
    assert incremental.ids == full.ids and incremental.tokens == full.tokens
    assert same_bm25(incremental, full)  # every BM25 score: idf, document length and average length in it
    assert np.array_equal(incremental.vectors(), full.vectors())
    for q in QUERIES:
        for mode in ("hybrid", "bm25", "dense"):
            assert incremental.search(q, 10, mode) == full.search(q, 10, mode), (q, mode)


def test_adding_into_an_existing_named_corpus_and_the_same_pdf_twice(added, tmp_path, monkeypatch, capsys):
    base, _, mine, pdf, _ = added
    again = tmp_path / "again"
    shutil.copytree(mine, again)
    code, out = _cli(["sandbox", "add", str(pdf), "--sandbox", str(again)], base, monkeypatch, capsys)
    assert code == 0 and "already in the corpus" in out
    code, out = _cli(["sandbox", "add", str(pdf), "--sandbox", str(again), "--from", str(base)], base, monkeypatch, capsys)
    assert code == 2 and "--from only says what a new folder is made from" in " ".join(out.split())
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("x")
    code, out = _cli(["sandbox", "add", str(pdf), "--sandbox", str(tmp_path / "junk")], base, monkeypatch, capsys)
    assert code == 2 and "not a corpus folder" in out and not (tmp_path / "junk" / "catalog.json").exists()


def test_runs_record_their_corpus_and_compare_warns_when_they_differ(added, tiny_episodes, tmp_path, monkeypatch,
                                                                     capsys):
    base, _, mine, _, _ = added
    common = ["--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(tmp_path), "--limit", "1", "-q"]
    code, out = _cli(["run", *common, "--run-id", "on-base"], base, monkeypatch, capsys)
    assert code == 0, out
    code, out = _cli(["run", *common, "--run-id", "on-mine", "--sandbox", str(mine)], base, monkeypatch, capsys)
    assert code == 0, out
    a = json.loads((tmp_path / "on-base" / "run.json").read_text())["corpus"]
    b = json.loads((tmp_path / "on-mine" / "run.json").read_text())["corpus"]
    assert a == corpus_identity(base).model_dump(mode="json") and b == corpus_identity(mine).model_dump(mode="json")
    assert json.loads((tmp_path / "on-mine" / "scores.json").read_text())["corpus"]["added"][0]["id"] == "U001"
    code, out = _cli(["compare", str(tmp_path / "on-base"), str(tmp_path / "on-mine")], base, monkeypatch, capsys)
    flat = " ".join(out.split())
    assert code == 0 and "warning: these runs searched different corpora" in flat and "1 added (U001)" in flat
    code, out = _cli(["compare", str(tmp_path / "on-base"), str(tmp_path / "on-base")], base, monkeypatch, capsys)
    assert "different corpora" not in out
    # a run is taken up again only on the corpus it was made on
    code, out = _cli(["run", "--resume", "on-base", "--agent", "oracle", "--results", str(tmp_path), "--sandbox",
                      str(mine), "-q"], base, monkeypatch, capsys)
    assert code == 2 and "was made on corpus" in out and "1 added (U001)" in " ".join(out.split())
