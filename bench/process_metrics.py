"""What the process metrics (issue 17) add to scoring, measured side by side on the same folded traces.

Baseline: `score_episode` with the process metrics switched off (the EpiBench metrics alone). Then the
same with them on, and the process metrics alone. Traces come from a run directory given as the first
argument, else the heuristic is run on the first 30 episodes of the default benchmark into a temp folder.
Prints seconds and the ratio against the baseline (target: the process metrics under 2x the baseline,
a few ms per episode; plots and the report cost more than either).
"""
from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.episodes_io import load_episodes  # noqa: E402
from harness.rundir import RunDir  # noqa: E402
from harness.scoring import metrics  # noqa: E402
from harness.scoring.facts import read_episode_fold  # noqa: E402
from harness.scoring.process import process_of  # noqa: E402
from harness.scoring.run import load_run_config  # noqa: E402
from harness.settings import RunSettings  # noqa: E402


def heuristic_run(out: Path, n: int = 30) -> Path:
    from harness.agent import AgentConfig
    from harness.runner import run_episodes
    from sandbox.world import SandboxWorld

    settings = RunSettings(agent="heuristic", results=out, run_id="bench-process", limit=n, score=False,
                           agent_config=AgentConfig())
    return Path(asyncio.run(run_episodes(settings, world=SandboxWorld())).run_dir)


def best_of(fn, repeat: int = 3) -> float:  # noqa: ANN001
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(sys.argv[1]) if len(sys.argv) > 1 else heuristic_run(Path(tmp))
        rd = RunDir(run)
        cfg = load_run_config(rd)
        path = cfg.get("episodes_path") or (cfg.get("settings") or {}).get("episodes")
        episodes = {e.id: e for e in load_episodes(Path(path)).episodes}
        folds = [(episodes[i], read_episode_fold(rd, i)) for i in rd.iter_trace_ids() if i in episodes]
        process_of(*folds[0])  # warm the imports (pint, regexes) outside the timings

        real = metrics.process_of
        metrics.process_of = lambda episode, fold: None  # type: ignore[assignment]
        base = best_of(lambda: [metrics.score_episode(e, f) for e, f in folds])
        metrics.process_of = real
        with_process = best_of(lambda: [metrics.score_episode(e, f) for e, f in folds])
        alone = best_of(lambda: [process_of(e, f) for e, f in folds])
    n = len(folds)
    print(f"{n} episodes of {run}")
    print(f"scoring without process metrics (baseline): {base:.3f} s  ({1000 * base / n:.1f} ms/episode)")
    print(f"scoring with process metrics:               {with_process:.3f} s  ratio {with_process / base:.2f}x")
    print(f"process metrics alone:                      {alone:.3f} s  ratio {alone / base:.2f}x of the baseline")


if __name__ == "__main__":
    main()
