"""Benchmark: `make run` as a new user meets it, from a fresh clone with no `../shared` beside it, phase by phase
(install into a new venv, corpus build, the runs with compare and viewer), wall and CPU seconds, against the
10-minute budget of issue 26; then, in the same clone, the three agent runs one after another (how `make run`
ran them before) against `make run`'s side-by-side runs, as a ratio.

The clone gets its own model cache (the ONNX export of the embedding model happens in it, as on a new machine)
and its own sandbox cache. pip's download cache is the machine's unless `--no-pip-cache` (a new machine has
none; the wheels come from the package registry either way). CPU seconds are the children's: on a shared
machine, CPU over the 2 cores is the floor of what an idle machine would wait.

    .venv/bin/python bench/make_run.py [--no-pip-cache] [--keep DIR] [--skip-baseline]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUDGET = 600.0


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str], cwd: Path, env: dict[str, str], log: Path) -> tuple[float, float]:
    w, c = time.perf_counter(), _cpu()
    with log.open("w") as out:
        done = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    wall, cpu = time.perf_counter() - w, _cpu() - c
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed (exit {done.returncode}); its output: {log}")
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-pip-cache", action="store_true", help="install without pip's download cache (PIP_NO_CACHE_DIR=1)")
    ap.add_argument("--keep", type=Path, default=None, help="clone into DIR/epiharness and keep it (default: a temporary folder)")
    ap.add_argument("--skip-baseline", action="store_true", help="only time make run's phases")
    args = ap.parse_args()
    top = args.keep or Path(tempfile.mkdtemp(prefix="epi-make-run-"))
    top.mkdir(parents=True, exist_ok=True)
    clone = top / "epiharness"
    if clone.exists():
        sys.exit(f"{clone} exists; name another --keep folder")
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EPI_", "VIRTUAL_ENV", "PYTHONPATH"))}
    env.update(EPI_MODEL_CACHE=str(top / "model-cache"), EPI_CACHE_DIR=str(top / "epi-cache"))
    if args.no_pip_cache:
        env["PIP_NO_CACHE_DIR"] = "1"
    logs = top / "logs"
    logs.mkdir(exist_ok=True)
    load0 = os.getloadavg()[0]
    phases = [("install", ["make", "install"]), ("corpus build", ["make", "sandbox"]),
              ("runs, compare, viewer", ["make", "run", f"RESULTS={top / 'results'}"])]
    rows = []
    for name, cmd in phases:
        rows.append((name, *timed(cmd, clone, env, logs / f"{name.split()[0]}.log")))
    total_w, total_c = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"make run from a fresh clone ({os.cpu_count()} cores, load average {load0:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after; pip cache {'off' if args.no_pip_cache else 'on'})")
    for name, w, c in rows:
        print(f"  {name:<24} {w:7.1f} s wall  {c:7.1f} s CPU")
    print(f"  {'total':<24} {total_w:7.1f} s wall  {total_c:7.1f} s CPU   budget {BUDGET:.0f} s: "
          f"{'within' if total_w <= BUDGET else 'OVER'} ({total_w / BUDGET:.2f} of it)")
    if not args.skip_baseline:
        epi = str(clone / ".venv" / "bin" / "epi")
        res = top / "results-sequential"
        env = {**env, "EPI_CACHE_DIR": str(top / "epi-cache-sequential")}  # as cold as make run's runs were
        w, c = time.perf_counter(), _cpu()
        for agent in ("oracle", "heuristic", "text-only"):
            timed([epi, "run", "--agent", agent, "--run-id", agent, "--results", str(res)], clone, env,
                  logs / f"seq-{agent}.log")
        runs = [str(res / a) for a in ("heuristic", "text-only", "oracle")]
        timed([epi, "compare", *runs, "--out", str(res / "leaderboard")], clone, env, logs / "seq-compare.log")
        timed([epi, "view", *runs], clone, env, logs / "seq-view.log")
        seq_w, seq_c = time.perf_counter() - w, _cpu() - c
        side_w = rows[2][1]
        print(f"runs one after another (before): {seq_w:7.1f} s wall  {seq_c:7.1f} s CPU; make run's side-by-side runs "
              f"{side_w:.1f} s ({seq_w / max(side_w, 1e-6):.2f}x faster; make run's figure includes its up-to-date check)")
    print(f"logs: {logs}")
    if args.keep is None:
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()
