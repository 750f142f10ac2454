"""Impossible recipes are refused before anything is written, with one line and exit code 2 (issue 26, bad input):
a corpus with too few papers for its version's rules (v1 and v2 included, which used to build them silently),
and a benchmark over too few papers or of too many episodes."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.cli import main
from sandbox.corpus.build import build_corpus
from sandbox.corpus.versions import RecipeError, corpus_version

MINIMUM = {"v1": 6, "v2": 12, "v3": 24}


def _epi(args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run `epi ARGS` in-process as the console script does: (exit code, stderr)."""
    monkeypatch.setattr(sys, "argv", ["epi", *args])
    with pytest.raises(SystemExit) as e:
        main()
    return int(e.value.code or 0), capsys.readouterr().err


@pytest.mark.parametrize("name", ["v1", "v2", "v3"])
def test_a_corpus_too_small_for_its_rules_is_one_line_and_nothing_is_written(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(tmp_path / "build"))
    code, err = _epi(["sandbox", "build", "--corpus", name, "--papers", "3"], monkeypatch, capsys)
    assert code == 2, err
    assert err.startswith(f"error: --papers: corpus {name} needs at least {MINIMUM[name]} papers (got 3)"), err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # no corpus folder, no render cache
    with pytest.raises(RecipeError, match=f"corpus {name} needs at least"):  # the Python API refuses it too
        build_corpus(tmp_path / "api", n_papers=MINIMUM[name] - 1, corpus=name, with_index=False)
    assert not (tmp_path / "api").exists()


@pytest.mark.parametrize("name", ["v1", "v2"])
def test_the_smallest_allowed_legacy_corpus_still_plans(name: str) -> None:
    """The minimum is where the rules start to hold, not above it: the frozen plans make a corpus of that size."""
    v = corpus_version(name)
    v.check_recipe(v.min_papers)
    assert len(v.plan(7, v.min_papers).papers) == v.min_papers


def _ground_truth(tmp_path: Path, corpus: str, papers: int) -> Path:
    path = tmp_path / f"gt-{corpus}-{papers}" / "ground_truth.json"
    path.parent.mkdir()
    path.write_text(corpus_version(corpus).plan(7, papers).model_dump_json(), encoding="utf-8")
    return path


@pytest.mark.parametrize(("benchmark", "papers", "count"), [
    ("v1", 3, None), ("v2", 3, None), ("v3", 24, None),  # too few papers for the benchmark
    pytest.param("v3", 144, 300, marks=pytest.mark.slow),  # more episodes than that corpus gives (30 it gives)
    ("v2", 12, 0), ("v1", 6, 100_000),  # a count no generator takes
])
def test_an_impossible_benchmark_is_one_line_and_nothing_is_written(
        benchmark: str, papers: int, count: int | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    gt = _ground_truth(tmp_path, benchmark, papers)
    out = tmp_path / "out" / "eps.jsonl"
    args = ["sandbox", "episodes", "--benchmark", benchmark, "--ground-truth", str(gt), "--out", str(out),
            "--image-share", "0"] + ([] if count is None else ["--count", str(count)])
    code, err = _epi(args, monkeypatch, capsys)
    assert code == 2, err
    assert err.startswith("error: --count:" if count in (0, 100_000) else f"error: cannot generate episodes from {gt}")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.parent.exists()


def test_the_corpus_that_cannot_give_300_episodes_gives_30() -> None:
    """The 'too many' case above is about the count: the same corpus makes a smaller benchmark."""
    from sandbox import episodegen

    assert len(episodegen.generate_episodes(corpus_version("v3").plan(7, 144), count=30, image_share=0.0)) == 30
