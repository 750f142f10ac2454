"""A run loads the search index, the embedder and the scorer's libraries in a background thread while its
episodes wait on the model (harness.preload). What a user gets must not change: the same search hits,
and the same report and plots as scoring the run again in a fresh process that loads them lazily."""
from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

from harness.preload import Preloader
from harness.plot_worker import wait_for_plots
from sandbox.world import SandboxWorld
from tests.harness.test_run_cli import epi

REPO = Path(__file__).resolve().parents[2]


def test_a_failing_load_is_dropped_and_the_later_loads_still_run():
    done: list[str] = []

    def broken() -> None:
        raise OSError("index folder vanished")

    pre = Preloader()
    pre.add(broken)
    pre.add(done.append, "scoring")
    pre.start().wait()
    assert done == ["scoring"]


def test_while_loading_the_event_loop_gets_the_gil_back_sooner_and_the_setting_is_restored_after():
    before = sys.getswitchinterval()
    seen: list[float] = []
    pre = Preloader()
    pre.add(lambda: seen.append(sys.getswitchinterval()))
    pre.start().wait()
    assert seen == [min(before, 0.001)] and sys.getswitchinterval() == before


def test_the_world_preloads_the_index_only_for_web_search_and_searches_the_same(tiny_sandbox):
    idle = SandboxWorld(tiny_sandbox)
    idle.preload(["pdf_extract", "table_extract"])
    assert idle._index is None  # no tool needs it: nothing loaded

    warm = SandboxWorld(tiny_sandbox)
    warm.preload(["web_search", "pdf_extract"])
    index = warm._index
    assert index is not None
    cold = SandboxWorld(tiny_sandbox)
    for query in ("label propagation on graphs", "image classification accuracy", "P003"):
        assert asyncio.run(warm.search(query, 5)) == asyncio.run(cold.search(query, 5))
    assert warm._index is index  # the search used the preloaded index, not a second copy


def test_a_run_writes_the_report_and_plots_that_scoring_it_afresh_writes(tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                                        monkeypatch):
    # one step per turn: the heuristic fails some episodes, so the failure plot is drawn as well
    code, out = epi(["run", "--agent", "heuristic", "--episodes", str(tiny_episodes), "--results", str(tmp_path),
                     "--run-id", "h", "--max-steps", "1", "-q"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    run = tmp_path / "h"
    assert "plots/failure_types.png" in (run / "report.md").read_text()  # named by the report before they are drawn
    assert wait_for_plots(run)  # drawn by the run's plot worker, after the run printed its scores
    assert not (run / "plots" / ".drawing").exists()
    plots = sorted(p.name for p in (run / "plots").glob("*.png"))
    assert "failure_types.png" in plots and "cost_per_episode.png" in plots
    kept = tmp_path / "as-run"
    shutil.copytree(run, kept)

    env = dict(os.environ, PYTHONPATH=str(REPO), EPI_SANDBOX_DIR=str(tiny_sandbox))
    rescored = subprocess.run([sys.executable, "-m", "harness", "score", str(run)], capture_output=True, text=True,
                              env=env, cwd=REPO, timeout=300)
    assert rescored.returncode == 0, rescored.stderr[-2000:]
    for name in plots:
        assert (run / "plots" / name).read_bytes() == (kept / "plots" / name).read_bytes(), name

    def report(folder: Path) -> list[str]:  # the time of scoring is the one line that may differ
        return [ln for ln in (folder / "report.md").read_text().splitlines() if not ln.startswith("- scored at")]

    assert report(run) == report(kept)
    assert (run / "episode_scores.jsonl").read_text() == (kept / "episode_scores.jsonl").read_text()
