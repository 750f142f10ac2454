"""Issue 29 item 8: scoring and plotting off a run's critical path. A process started with the run scores each
episode as it finishes, scores the run at the end and draws the plots after it answered: `epi run` never imports
the scorer, pint or matplotlib, prints its scores and exits while the worker draws; the plots are those `epi score`
draws; a worker that cannot start or died leaves the run scoring and drawing itself, and never a wait without end.
Scores computed as episodes finish are used at the end only while their traces are unchanged."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness import plot_worker
from harness.plot_worker import MARKER, PlotWorker, WorkerScoringError, wait_for_plots
from tests.harness.test_run_cli import epi

REPO = Path(__file__).resolve().parents[2]


def test_the_run_process_never_imports_matplotlib_and_the_worker_draws(tiny_sandbox, tiny_episodes, tmp_path) -> None:
    probe = ("import sys; from harness.cli import main; sys.argv = ['epi'] + sys.argv[1:]\n"
             "import harness.scoring.metrics as m\n"  # scoring an episode in this process would fail the run
             "def boom(*a, **k):\n    raise RuntimeError('scored in the run process')\n"
             "m.score_episode = boom\n"
             "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
             "print('MPL', 'matplotlib' in sys.modules, 'PINT', 'pint' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=str(REPO), EPI_SANDBOX_DIR=str(tiny_sandbox), HF_HUB_OFFLINE="1")
    out = subprocess.run([sys.executable, "-c", probe, "run", "--agent", "heuristic", "--episodes", str(tiny_episodes),
                          "--results", str(tmp_path), "--run-id", "h", "--max-steps", "1", "-q"],
                         capture_output=True, text=True, env=env, cwd=REPO, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    # scored (units by pint), report written and plots drawn by the worker: no pint, no matplotlib in this process
    assert "MPL False PINT False" in out.stdout
    assert "failures:" in out.stdout  # the summary, from the scores the worker wrote
    run = tmp_path / "h"
    report = (run / "report.md").read_text()
    assert "plots/failure_types.png" in report and "plots/cost_per_episode.png" in report
    assert wait_for_plots(run, timeout_s=120)
    for name in ("failure_types.png", "cost_per_episode.png"):
        assert (run / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in (run / "plots").iterdir()) == ["cost_per_episode.png", "failure_types.png"]


def test_without_a_worker_the_run_draws_its_plots_itself(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch) -> None:
    def broken() -> PlotWorker:  # a worker process that dies at once (say, its imports fail)
        return PlotWorker(subprocess.Popen([sys.executable, "-c", "raise SystemExit(1)"], stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))

    monkeypatch.setattr(PlotWorker, "start", staticmethod(broken))
    code, out = epi(["run", "--agent", "heuristic", "--episodes", str(tiny_episodes), "--results", str(tmp_path),
                     "--run-id", "h", "--max-steps", "1", "-q"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    plots = tmp_path / "h" / "plots"
    assert not (plots / MARKER).exists()  # drawn before the run returned: nothing to wait for
    assert (plots / "failure_types.png").stat().st_size > 1000 and (plots / "cost_per_episode.png").is_file()


def test_a_mark_left_by_a_dead_worker_is_not_waited_on(tmp_path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / "plots").mkdir()
    (tmp_path / "plots" / MARKER).write_text(str(dead.pid))
    t0 = time.monotonic()
    assert wait_for_plots(tmp_path, timeout_s=30)
    assert time.monotonic() - t0 < 5 and not (tmp_path / "plots" / MARKER).exists()
    assert wait_for_plots(tmp_path / "absent")  # no run, no worker: nothing to wait for


def test_a_run_scoring_refuses_is_one_message_and_the_worker_goes_on(tmp_path) -> None:
    from harness.scoring import score_run
    from tests.harness.scoring_fixture import main_run

    (tmp_path / "good").mkdir()
    good = main_run(tmp_path / "good")
    score_run(good)
    for p in (good / "plots").glob("*.png"):
        p.unlink()
    bad = tmp_path / "bad"
    (bad / "plots").mkdir(parents=True)
    (bad / "scores.json").write_text(json.dumps({"not": "scores"}))
    worker = PlotWorker.start()
    assert worker is not None
    try:
        with pytest.raises(WorkerScoringError, match="is not a run directory"):
            worker.score(bad)  # no run.json: what `epi score` says, as the worker's answer
        assert worker.submit(bad / "plots") and worker.submit(good / "plots")  # plots of a bad scores.json: none
    finally:
        worker.close()
    assert wait_for_plots(bad, timeout_s=120) and wait_for_plots(good, timeout_s=120)
    assert not list((bad / "plots").glob("*.png")) and not (bad / "plots" / MARKER).exists()
    assert (good / "plots" / "cost_per_episode.png").is_file()
    assert plot_worker.READY_TIMEOUT_S >= 10


def test_scores_computed_as_episodes_finish_are_used_while_their_trace_is_unchanged(tmp_path) -> None:
    from harness.episodes_io import load_episodes
    from harness.rundir import RunDir
    from harness.scoring import score_run
    from harness.scoring.prescore import Prescored
    from harness.scoring.run import read_episode_scores
    from tests.harness.scoring_fixture import main_run

    run = main_run(tmp_path)
    cold = score_run(run)
    cold_lines = (run / "episode_scores.jsonl").read_text()
    rd = RunDir(run)
    eset = load_episodes(Path(json.loads(rd.run_json.read_text())["episodes_path"]))
    pre = Prescored()
    for ep in eset.episodes:
        pre.add(rd, ep, 1)
    assert len(pre.scores) == 4
    warm = score_run(run, prescored=pre, episode_set=eset)  # what the runner passes: the same scores, files and all
    assert warm.model_dump(exclude={"scored_at"}) == cold.model_dump(exclude={"scored_at"})
    assert (run / "episode_scores.jsonl").read_text() == cold_lines
    # used, not recomputed: a mark on the cached score shows up ...
    e1 = next(e for e in eset.episodes if e.id == "E1")
    pre.scores[("E1", 1)][1].agent = "from-the-cache"
    score_run(run, prescored=pre)
    assert {e.episode_id: e.agent for e in read_episode_scores(run)}["E1"] == "from-the-cache"
    # ... until the trace changes: then the episode is scored from the trace again
    trace = rd.trace_path("E1", 1)
    trace.write_text(trace.read_text() + "\n")
    assert pre.get(rd, e1, 1) is None
    score_run(run, prescored=pre)
    assert {e.episode_id: e.agent for e in read_episode_scores(run)}["E1"] != "from-the-cache"


def test_a_worker_that_reads_nothing_never_blocks_the_run(tmp_path, monkeypatch) -> None:
    stuck = subprocess.Popen([sys.executable, "-c", "import time; print('{\"ready\": true}', flush=True); time.sleep(120)"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    worker = PlotWorker(stuck)
    monkeypatch.setattr(plot_worker, "SEND_TIMEOUT_S", 0.5)
    try:
        t0 = time.monotonic()
        for i in range(5000):  # far more notes than a pipe holds: the ones that do not fit are dropped
            worker.finished(tmp_path, f"episode-{i}", 1)
        assert time.monotonic() - t0 < 10 and worker.alive()
        assert worker.score(tmp_path) is False  # the request cannot go in: the run scores in its own process
        assert not worker.alive()
    finally:
        worker.close()
        stuck.kill()
        stuck.wait()
