"""Issue 29 item 8: a run's plots are drawn by a process started with the run, off its critical path: `epi run`
never imports matplotlib, prints its scores and exits while the worker draws; the plots are those `epi score` draws;
a worker that cannot start or died leaves the run drawing them itself, and never a wait without end."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from harness.scoring import plot_worker
from harness.scoring.plot_worker import MARKER, PlotWorker, wait_for_plots
from tests.harness.test_run_cli import epi

REPO = Path(__file__).resolve().parents[2]


def test_the_run_process_never_imports_matplotlib_and_the_worker_draws(tiny_sandbox, tiny_episodes, tmp_path) -> None:
    probe = ("import sys; from harness.cli import main; sys.argv = ['epi'] + sys.argv[1:]\n"
             "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
             "print('MPL', 'matplotlib' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=str(REPO), EPI_SANDBOX_DIR=str(tiny_sandbox), HF_HUB_OFFLINE="1")
    out = subprocess.run([sys.executable, "-c", probe, "run", "--agent", "heuristic", "--episodes", str(tiny_episodes),
                          "--results", str(tmp_path), "--run-id", "h", "--max-steps", "1", "-q"],
                         capture_output=True, text=True, env=env, cwd=REPO, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "MPL False" in out.stdout  # scored, report written, summary printed: no matplotlib in this process
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


def test_a_worker_that_fails_on_one_run_draws_the_next(tmp_path) -> None:
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
        assert worker.submit(bad / "plots") and worker.submit(good / "plots")
    finally:
        worker.close()
    assert wait_for_plots(bad, timeout_s=120) and wait_for_plots(good, timeout_s=120)
    assert not list((bad / "plots").glob("*.png")) and not (bad / "plots" / MARKER).exists()
    assert (good / "plots" / "cost_per_episode.png").is_file()
    assert plot_worker.READY_TIMEOUT_S >= 10
