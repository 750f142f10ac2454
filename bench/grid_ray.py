"""The same ablation grid with the local executor and on a local Ray cluster, wall time side by side.

The grid is `epi ablate` (budgets x removed tools x epochs) over the sandbox benchmark. The Ray
cluster is started here with `ray start --head` on loopback (two CPUs, this machine's size) and
stopped at the end; its start-up is timed apart from the grid. Memory: peak resident memory of the
processes doing the work (the epi process locally; the epi driver plus the Ray workers on Ray), and
what the idle cluster itself holds. The scores of both grids are compared, per run and epoch.

    .venv/bin/python bench/grid_ray.py [--agent heuristic] [--limit 8] [--epochs 2] [--workers 2]
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from harness.rundir import RunDir  # noqa: E402

KEYS = ("esr", "acc_final", "acc_pre", "ec", "mg", "max_steps_rate", "tool_calls")


class PeakMemory:
    """Samples the summed resident memory of a set of processes (re-found each time) every 0.2 s."""

    def __init__(self, find: callable):
        self.find, self.peak, self._stop = find, 0, threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            total = 0
            try:
                procs = self.find()
            except psutil.Error:  # a process ended while being looked at: sample again
                procs = []
            for p in procs:
                try:
                    total += p.memory_info().rss
                except psutil.Error:
                    continue
            self.peak = max(self.peak, total)
            time.sleep(0.2)

    def __enter__(self) -> "PeakMemory":
        self._t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._t.join()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_cluster(env: dict[str, str], cpus: int, temp: Path) -> tuple[subprocess.Popen, str, float]:
    port = free_port()
    t0 = time.perf_counter()
    head = subprocess.Popen(
        [str(Path(sys.executable).with_name("ray")), "start", "--head", "--block", f"--port={port}",
         f"--num-cpus={cpus}", "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    while True:
        if head.poll() is not None:
            raise SystemExit("ray start --head exited early")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            time.sleep(0.3)
    time.sleep(2)
    return head, f"127.0.0.1:{port}", time.perf_counter() - t0


def tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def workers(pid: int) -> list[psutil.Process]:
    """The episode workers under a Ray head."""
    out = []
    for p in tree(pid):
        try:
            if " ".join(p.cmdline()).startswith("ray::_EpisodeWorker"):
                out.append(p)
        except psutil.Error:
            continue
    return out


def run_grid(args: argparse.Namespace, results: Path, name: str, env: dict[str, str], extra: list[str],
             also: callable = lambda: []) -> tuple[float, int]:
    cmd = [sys.executable, "-m", "harness", "ablate", "--agent", args.agent, "--max-steps", args.budgets,
           "--disable-tool", args.remove, "--epochs", str(args.epochs), "--limit", str(args.limit),
           "--concurrency", str(args.concurrency), "--results", str(results), "--name", name, "--json", *extra]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    with PeakMemory(lambda: [*tree(proc.pid), *also()]) as mem:
        out, err = proc.communicate()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{name} grid failed:\n{err[-3000:]}")
    return wall, mem.peak


def epoch_scores(run: Path, epoch: int, scratch: Path) -> dict:
    from harness.scoring import score_run

    view = scratch / f"{run.parent.name}-{run.name}-{epoch}"
    view.mkdir(parents=True)
    shutil.copy(run / "run.json", view / "run.json")
    (view / "traces").symlink_to(RunDir(run).epoch_dir(epoch).resolve(), target_is_directory=True)
    s = score_run(view, write=False).model_dump(mode="json")["all"]
    return {k: s[k] for k in KEYS}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", default="heuristic")
    ap.add_argument("--limit", type=int, default=8, help="episodes of the sandbox benchmark")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--budgets", default="5,10")
    ap.add_argument("--remove", default="none,pdf_rag")
    ap.add_argument("--workers", type=int, default=2, help="Ray CPUs (one worker each)")
    ap.add_argument("--concurrency", type=int, default=4, help="episodes at once (local: in total; Ray: per worker)")
    args = ap.parse_args()
    n_configs = len(args.budgets.split(",")) * len(args.remove.split(","))
    jobs = n_configs * args.epochs * args.limit

    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
           "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16), "HF_HUB_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false"}
    env.pop("RAY_ADDRESS", None)
    results = Path(tempfile.mkdtemp(prefix="epi-grid-bench-"))
    temp = Path(f"/tmp/epi-ray-bench-{os.getpid()}")
    print(f"grid: {args.agent}, {n_configs} configs x {args.epochs} epochs x {args.limit} episodes = {jobs} jobs; "
          f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    local_wall, local_mem = run_grid(args, results, "local", env, [])
    head, address, start_s = start_cluster(env, args.workers, temp)
    try:
        idle = sum(p.memory_info().rss for p in tree(head.pid))
        ray_wall, ray_mem = run_grid(
            args, results, "ray", env, ["--executor", "ray", "--ray-address", address],
            also=lambda: workers(head.pid),
        )
    finally:
        head.send_signal(signal.SIGTERM)
        head.wait(timeout=120)
        shutil.rmtree(temp, ignore_errors=True)

    mb = 1 / 2**20
    print(f"{'':28}{'wall s':>9}{'jobs/s':>9}{'peak RSS MB':>13}")
    print(f"{'local (asyncio)':28}{local_wall:9.1f}{jobs / local_wall:9.2f}{local_mem * mb:13.0f}")
    print(f"{f'ray ({args.workers} workers)':28}{ray_wall:9.1f}{jobs / ray_wall:9.2f}{ray_mem * mb:13.0f}")
    print(f"{'ray / local':28}{ray_wall / local_wall:9.2f}{'':9}{ray_mem / local_mem:13.2f}")
    print(f"ray cluster: start-up {start_s:.1f} s (not in the grid's wall time), idle cluster {idle * mb:.0f} MB")

    scratch = results / "views"
    runs = sorted(p.name for p in (results / "local").iterdir() if (p / "run.json").is_file())
    same = all(epoch_scores(results / "local" / r, k, scratch) == epoch_scores(results / "ray" / r, k, scratch)
               for r in runs for k in range(1, args.epochs + 1))
    print(f"scores per run and epoch identical on both executors: {same}")
    print(json.dumps({"jobs": jobs, "local_s": round(local_wall, 2), "ray_s": round(ray_wall, 2),
                      "ray_start_s": round(start_s, 2), "local_peak_mb": round(local_mem * mb),
                      "ray_peak_mb": round(ray_mem * mb), "idle_cluster_mb": round(idle * mb), "same_scores": same}))
    shutil.rmtree(results, ignore_errors=True)


if __name__ == "__main__":
    main()
