"""epi against Inspect AI on the same scripted model server, whole processes side by side (issue 15).

Workload: the first 20 episodes of sandbox-v1 on its own corpus (sandbox/build-v1, `make sandbox-v1`). The server (sandbox/model_server.py, in this process)
calls web_search five times per question, then answers; turns without tools get the answer at once.
epi runs `epi run --agent openai` with its real tools; Inspect AI runs bench/inspect_task.py (the same
turns, the same five tool names as no-ops returning a text as long as a search result), in its own
virtual environment under the cache folder (made on first use; skipped with a message when it cannot
be installed). Every figure is a fresh process, start-up included, timed from spawn to exit.

1. Per model request (whole-process wall time / requests the server received), concurrency 1 and
   16: Inspect over epi, median of --repeat runs each, run alternately (target >= 1.5x).
2. Trace bytes: the run's traces (JSONL and image files) against the same run by the baseline
   commit's code (extracted with `git archive`, same virtual environment), and bytes per model_call
   line by position in the episode: flat means the trace grows linearly (target: at most a fifth).
3. Concurrency: measured by bench/concurrency.py (the default benchmark, `epi sandbox model-server` in its own
   process, median of 5 alternating runs, against a baseline commit), not here.
4. Peak memory (RSS, from wait4) of every epi run (target < 500 MB).

    .venv/bin/python bench/vs_inspect.py [--repeat 2] [--episodes 20] [--baseline f6b584d|FOLDER|none]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "bench")]

from _baseline import baseline_sandbox, corpus_v1  # noqa: E402
from _inspect_env import INSPECT_VERSION, inspect_command  # noqa: E402
from _trace_bytes import TraceBytes, trace_bytes  # noqa: E402
from sandbox.model_server import Script, ScriptedModelServer, ToolLoop  # noqa: E402

EPISODES = REPO / "episodes" / "sandbox-v1.jsonl"
BASELINE = "f6b584d"  # main before trace v3 and the prebuilt request bodies (fast start-up already in)
KEY_ENV = "EPI_BENCH_KEY"


@dataclass
class Measured:
    """One child process: wall and CPU seconds, peak RSS, chat requests served, time to the first one."""

    wall_s: float
    cpu_s: float
    peak_mb: float
    requests: int
    first_request_s: float

    @property
    def ms_per_request(self) -> float:
        return 1000 * self.wall_s / max(1, self.requests)


def start_server(delay_s: float = 0.0) -> ScriptedModelServer:
    # five different queries per question, each about as long as a model's (the question's first 80 characters)
    loop = ToolLoop(tool="web_search", calls=5, arguments={"query": "{question} ({n})"}, content="Final answer: 42",
                    delay_s=delay_s)
    return ScriptedModelServer(Script(loop=loop)).start()


def measure(cmd: list[str], env: dict[str, str], server: ScriptedModelServer, cwd: Path = REPO) -> Measured:
    """Run one child to its end; its own CPU and peak memory come from wait4."""
    with server._lock:
        server.requests = []  # keep the server's memory flat across runs
    t0, wall0 = time.time(), time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - wall0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{err.decode(errors='replace')[-3000:]}")
    chats = server.chat_requests
    first = (chats[0].ts - t0) if chats else float("nan")
    return Measured(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, len(chats), first)


def epi_env(root: Path) -> dict[str, str]:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               PYTHONPATH=str(root), EPI_SANDBOX_DIR=str(corpus_v1()))
    env[KEY_ENV] = "not-a-real-key"
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's Python caches bytecode; compiling each start is not start-up
    return env


def epi_cmd(server: ScriptedModelServer, results: Path, run_id: str, n: int, conc: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "harness", "run", "--agent", "openai", "--model", "scripted", "--base-url",
            server.base_url, "--api-key-env", KEY_ENV, "--episodes", str(EPISODES), "--limit", str(n), "-j", str(conc),
            "--run-id", run_id, "--results", str(results), "--quiet", *extra]


def inspect_run(inspect: list[str], server: ScriptedModelServer, logs: Path, n: int, conc: int) -> Measured:
    cmd = inspect + ["eval", "inspect_task.py", "-T", f"episodes={EPISODES}", "-T", f"limit={n}",
                     "--model", "openai-api/scripted/scripted", "--max-samples", str(conc), "--max-connections", str(conc),
                     "--log-dir", str(logs), "--display", "none", "--no-score"]
    env = dict(os.environ, SCRIPTED_BASE_URL=server.base_url, SCRIPTED_API_KEY="not-a-real-key", INSPECT_LOG_LEVEL="error")
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as for epi
    return measure(cmd, env, server, cwd=REPO / "bench")  # Inspect takes a task file relative to where it runs


def baseline_tree(commit: str, tmp: Path) -> Path | None:
    """The baseline commit's code, extracted with `git archive` (None, with a message, if it cannot be);
    a folder given instead is used as it is."""
    if Path(commit).is_dir():
        return Path(commit).resolve()
    root = tmp / f"baseline-{commit}"
    root.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", commit], capture_output=True)
    if archive.returncode != 0:
        print(f"(baseline {commit} skipped: git archive failed: {archive.stderr.decode(errors='replace').strip()})")
        return None
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
    return root


def row(label: str, m: Measured) -> str:
    return (f"{label:<22} {m.requests:>8} {m.wall_s:>8.1f} {m.ms_per_request:>10.1f} {m.first_request_s:>9.2f} "
            f"{m.cpu_s:>7.1f} {m.peak_mb:>8.0f}")


HEADER = f"{'':<22} {'requests':>8} {'wall s':>8} {'ms/request':>10} {'1st req s':>9} {'CPU s':>7} {'peak MB':>8}"


def per_request(args: argparse.Namespace, tmp: Path, inspect: list[str] | None, peaks: list[float]) -> Path:
    """Section 1; returns the folder of epi's concurrency-1 run (for the trace section)."""
    print(f"== 1. per model request: {args.episodes} episodes of sandbox-v1, web_search x5 per question, "
          f"whole process, start-up included ==")
    server = start_server()
    first_run = tmp / "epi" / "epi-c1-0"
    try:
        for conc in (1, 16):
            epi_runs, insp_runs = [], []
            print(f"-- concurrency {conc}\n{HEADER}")
            for i in range(args.repeat):
                m = measure(epi_cmd(server, tmp / "epi", f"epi-c{conc}-{i}", args.episodes, conc), epi_env(REPO), server)
                epi_runs.append(m)
                peaks.append(m.peak_mb)
                print(row(f"epi (run {i + 1})", m), flush=True)
                if inspect is not None:
                    m = inspect_run(inspect, server, tmp / "inspect-logs", args.episodes, conc)
                    insp_runs.append(m)
                    print(row(f"Inspect AI (run {i + 1})", m), flush=True)
            e = statistics.median(m.ms_per_request for m in epi_runs)
            if insp_runs:
                s = statistics.median(m.ms_per_request for m in insp_runs)
                print(f"concurrency {conc}: Inspect {s:.1f} ms / epi {e:.1f} ms per request = {s / e:.2f}x  (target >= 1.5x)")
            else:
                print(f"concurrency {conc}: epi {e:.1f} ms per request (Inspect AI not available)")
    finally:
        server.stop()
    return first_run


def traces(args: argparse.Namespace, tmp: Path, epi_run: Path) -> None:
    print("== 2. trace bytes: this code against the baseline's, same workload ==")
    now = trace_bytes(epi_run)
    before: TraceBytes | None = None
    if args.baseline != "none":
        root = baseline_tree(args.baseline, tmp)
        sandbox = baseline_sandbox(root, tmp, epi_env(root)) if root is not None else None
        if root is not None and sandbox is not None:
            server = start_server()
            try:
                env = {**epi_env(root), "EPI_SANDBOX_DIR": str(sandbox)}
                m = measure(epi_cmd(server, tmp / "base", "baseline", args.episodes, 1), env, server, cwd=root)
            finally:
                server.stop()
            print(f"(baseline {args.baseline} run: {m.requests} requests, {m.ms_per_request:.1f} ms per request, "
                  f"peak {m.peak_mb:.0f} MB)")
            before = trace_bytes(tmp / "base" / "baseline")
    print(f"{'':<24} {'total bytes':>12} {'model calls':>11} {'bytes/call':>10}")
    for label, tb in (("this code", now), (f"baseline {args.baseline}", before)):
        if tb is not None:
            print(f"{label:<24} {tb.total:>12,} {tb.calls:>11} {tb.total // max(1, tb.calls):>10,}")
    if before is not None and before.calls != now.calls:
        print(f"trace bytes: not compared: the baseline made {before.calls} model calls and this code {now.calls}, "
              f"so the two runs did not do the same work (see the baseline's traces for its errors)")
        before = None
    if before is not None:
        print(f"trace bytes: {now.total / before.total:.3f} of the baseline's = {before.total / now.total:.1f}x smaller  "
              f"(target <= 0.2)")
    print("bytes per model_call line by its position in the episode (mean):")
    print(f"{'calls':<10} {'this code':>10}" + (f" {'baseline':>10}" if before else ""))
    for lo, hi in TraceBytes.BUCKETS:
        a = now.mean_call_bytes(lo, hi)
        b = before.mean_call_bytes(lo, hi) if before else None
        if a is None and b is None:
            continue
        print(f"{f'{lo}-{hi}':<10} {a or 0:>10,.0f}" + (f" {b or 0:>10,.0f}" if before else ""))
    first, last = now.mean_call_bytes(*TraceBytes.BUCKETS[0]), now.last_bucket_mean()
    if first and last:
        print(f"this code: last bucket / first = {last / first:.2f} (flat = about 1)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=2, help="runs per tool and concurrency (median)")
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--baseline", default=BASELINE, help="commit (or code folder) whose traces are compared, or 'none'")
    args = ap.parse_args()
    inspect = inspect_command(INSPECT_VERSION)
    peaks: list[float] = []
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start (other processes slow both sides alike; "
          f"bench/concurrency.py measures -j 16 against -j 1)")
    with tempfile.TemporaryDirectory(prefix="epi-vs-inspect-") as d:
        tmp = Path(d)
        epi_run = per_request(args, tmp, inspect, peaks)
        traces(args, tmp, epi_run)
        shutil.rmtree(tmp / "inspect-logs", ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    print("== 4. peak memory of the epi runs ==")
    print(f"peak RSS: max {max(peaks):.0f} MB, median {statistics.median(peaks):.0f} MB over {len(peaks)} runs  (target < 500 MB)")


if __name__ == "__main__":
    main()
