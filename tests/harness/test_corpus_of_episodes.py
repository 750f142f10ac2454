"""`epi run` and `epi episodes audit` take the corpus an episode file was built for from its `source` fields, the
same way: the folder given (--sandbox, else EPI_SANDBOX_DIR) when it holds that corpus, else the corpus version's
own folder (<sandbox>-v1 for v1), else one line naming the corpus and the command that builds it, exit 2."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.cli import main
from sandbox import paths
from sandbox.corpus.select import CorpusMismatch, corpus_for_episodes, needed_corpus

from ..conftest import TINY_SEED

SOURCE = f"sandbox.episodegen episodegen-1 seed=1 ground_truth=corpus-1.1/seed={TINY_SEED}"


def epi(args: list[str], capsys, monkeypatch, sandbox: Path) -> tuple[int, list[str]]:
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(sandbox))
    monkeypatch.setattr(sys, "argv", ["epi", *args])
    code = 0
    try:
        main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    cap = capsys.readouterr()
    return code, [line for line in (cap.out + cap.err).splitlines() if line.strip()]


@pytest.fixture()
def sourced_episodes(tiny_episodes: Path, tmp_path: Path) -> Path:
    """The tiny episodes as the v1 generator stamps them: built over corpus-1.1 with the tiny sandbox's seed."""
    out = tmp_path / "sourced.jsonl"
    lines = [json.loads(line) for line in tiny_episodes.read_text().splitlines()]
    out.write_text("".join(json.dumps({**e, "source": SOURCE}) + "\n" for e in lines))
    return out


def _fake_corpus(folder: Path, version: str = "corpus-2.0", seed: int = 7) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "catalog.json").write_text(json.dumps({"generator_version": version, "seed": seed, "papers": []}))
    return folder


def test_needed_corpus_is_read_from_the_committed_benchmarks() -> None:
    v1 = needed_corpus(paths.REPO_DIR / "episodes" / "sandbox-v1.jsonl")
    v2 = needed_corpus(paths.REPO_DIR / "episodes" / "sandbox-v2.jsonl")
    assert (v1.generator_version, v1.seed) == ("corpus-1.1", 7)
    assert (v2.generator_version, v2.seed) == ("corpus-2.0", 7)


def test_resolution_order(sourced_episodes: Path, tiny_sandbox: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(tiny_sandbox))
    assert corpus_for_episodes(sourced_episodes, None) is None  # the default folder holds it: nothing to change
    assert corpus_for_episodes(sourced_episodes, tiny_sandbox) == tiny_sandbox
    default = _fake_corpus(tmp_path / "sb")
    (tmp_path / "sb-v1").symlink_to(tiny_sandbox)
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(default))
    assert corpus_for_episodes(sourced_episodes, None) == tmp_path / "sb-v1"  # the v1 corpus's own folder
    with pytest.raises(CorpusMismatch, match=r"corpus-1\.1/seed=11 but --sandbox .*sb holds corpus-2\.0/seed=7"):
        corpus_for_episodes(sourced_episodes, default)
    hand = tmp_path / "hand.jsonl"  # no source: the folder given judges the file, as before
    hand.write_text(sourced_episodes.read_text().replace(f', "source": "{SOURCE}"', ""))
    assert needed_corpus(hand) is None and corpus_for_episodes(hand, default) == default


@pytest.mark.parametrize("command", ["run", "audit"])
def test_a_corpus_that_does_not_match_is_one_line_with_the_build_command(
        command, sourced_episodes, tmp_path, capsys, monkeypatch) -> None:
    """Before: 'N problem(s) in episode file', one 'no paper in the catalog' line per paper reference."""
    other = _fake_corpus(tmp_path / "sb")
    results = tmp_path / "results"
    for given in ([], ["--sandbox", str(other)]):
        args = (["run", "--agent", "oracle", "--episodes", str(sourced_episodes), "--results", str(results), "-q"]
                if command == "run" else ["episodes", "audit", str(sourced_episodes), "--no-learned"]) + given
        code, lines = epi(args, capsys, monkeypatch, other)
        assert code == 2, lines
        assert len(lines) == 1, lines
        assert "corpus-1.1/seed=11" in lines[0] and f"`epi sandbox build --corpus v1 --seed {TINY_SEED}`" in lines[0]
        assert str(tmp_path / "sb-v1") in lines[0] and "no paper" not in lines[0]
    assert not results.exists(), "nothing is written before the corpus is checked"


def test_unbuilt_default_names_the_build_command(sourced_episodes, tmp_path, capsys, monkeypatch) -> None:
    code, lines = epi(["episodes", "audit", str(sourced_episodes), "--no-learned"], capsys, monkeypatch, tmp_path / "none")
    assert code == 2 and len(lines) == 1 and "is not built" in lines[0] and "--corpus v1" in lines[0], lines


def test_run_and_audit_use_the_corpus_versions_own_folder(
        sourced_episodes, tiny_sandbox, tmp_path, capsys, monkeypatch) -> None:
    default = _fake_corpus(tmp_path / "sb")
    (tmp_path / "sb-v1").symlink_to(tiny_sandbox)
    code, lines = epi(["run", "--agent", "oracle", "--episodes", str(sourced_episodes), "--results", str(tmp_path / "r"),
                       "--run-id", "v1", "-q", "--no-score"], capsys, monkeypatch, default)
    assert code == 0, lines
    run = json.loads((tmp_path / "r" / "v1" / "run.json").read_text())
    assert run["settings"]["sandbox"] == str(tmp_path / "sb-v1")  # recorded: a resume takes the same corpus
    code, lines = epi(["episodes", "audit", str(sourced_episodes), "--no-learned", "--json"], capsys, monkeypatch, default)
    assert code in (0, 1) and "no paper" not in "\n".join(lines)
    assert json.loads("\n".join(lines))["corpus"] == str(tiny_sandbox.resolve())


V1_BUILT = (paths.sandbox_dir().with_name(paths.sandbox_dir().name + "-v1") / "catalog.json").is_file()


@pytest.mark.skipif(not (V1_BUILT and paths.catalog_path().is_file()), reason="corpus v1 and the default corpus are not both built")
def test_sandbox_v1_runs_on_corpus_v1_from_the_default_setup(tmp_path, capsys, monkeypatch) -> None:
    """The issue's case: `epi run --episodes episodes/sandbox-v1.jsonl` printed 1,138 'no paper in the catalog'."""
    code, lines = epi(["run", "--agent", "oracle", "--episodes", str(paths.REPO_DIR / "episodes" / "sandbox-v1.jsonl"),
                       "--results", str(tmp_path), "--run-id", "v1", "--limit", "1", "-q", "--no-score"],
                      capsys, monkeypatch, paths.sandbox_dir())
    assert code == 0, lines[:3]
    assert json.loads((tmp_path / "v1" / "run.json").read_text())["corpus"]["version"] == "corpus-1.1"


def test_validate_checks_papers_against_the_corpus_the_file_names(
        sourced_episodes, tiny_sandbox, tmp_path, capsys, monkeypatch) -> None:
    """`epi episodes validate` takes the corpus as run and audit do (before: 'no paper in the catalog' per reference
    when the default folder held another corpus); where that corpus is not built it checks the structure and says
    which command would let it check the papers."""
    default = _fake_corpus(tmp_path / "sb")
    (tmp_path / "sb-v1").symlink_to(tiny_sandbox)
    code, lines = epi(["episodes", "validate", str(sourced_episodes)], capsys, monkeypatch, default)
    assert code == 0 and lines[-1].startswith("OK:") and str(tmp_path / "sb-v1") in lines[-1], lines[:3]
    (tmp_path / "sb-v1").unlink()
    code, lines = epi(["episodes", "validate", str(sourced_episodes)], capsys, monkeypatch, default)
    assert code == 0 and "no paper" not in "\n".join(lines), lines[:3]
    assert "structure only" in lines[-1] and f"`epi sandbox build --corpus v1 --seed {TINY_SEED}`" in lines[-1], lines


def test_the_stamps_epi_run_reads_are_each_generators_own() -> None:
    """`epi run` learns which corpus an episode file needs from GENERATOR_VERSIONS, never importing a generator
    (v2's chart module loads PyMuPDF and its layout model: seconds of every run's start-up)."""
    import subprocess

    from sandbox.corpus.versions import GENERATOR_VERSIONS, corpus_version

    assert {n: corpus_version(n).generator_version for n in GENERATOR_VERSIONS} == GENERATOR_VERSIONS
    probe = ("import sys; from pathlib import Path; from sandbox.corpus.select import build_command, NeededCorpus; "
             "print(build_command(NeededCorpus('corpus-3.0', 7))[0]); print(build_command(NeededCorpus('corpus-2.0', 7))[0]); "
             "print('pymupdf' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2]).stdout.splitlines()
    assert out == ["epi sandbox build", "epi sandbox build --corpus v2", "False"]  # v3 is the default corpus
