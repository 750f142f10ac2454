"""Concurrency as a user measures it from outside: `epi run -j 16` against `-j 1`, whole processes (issue 29 item 8).

Workload: 16 episodes of the default benchmark (`epi run`'s default episode file and corpus), `--max-steps 1`,
the openai agent against `epi sandbox model-server` in its own process, answering every request after 0.2 s
(a search, then the answer: the loop of sandbox/model_server.py). Each figure is a fresh `epi run` process
timed from spawn to exit: start-up, the episodes, scoring, report and plots included. The runs alternate
(-j 1, -j 16, for each code tree in turn) and each figure is the median of --repeat (5) runs.

`--baseline COMMIT|FOLDER` runs an older tree (extracted with `git archive`) alternately with this one, so both
see the same machine load; `tail` is the time from the last reply the server sent to the process's exit (what
the run does after its last episode: scoring, report, plots, exit). The machine's load average is printed at the
start and the end: other processes slow -j 16 (CPU-bound at the end) more than -j 1 (waiting on the server).

    .venv/bin/python bench/concurrency.py [--repeat 5] [--baseline 2b832dc|FOLDER|none]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BASELINE = "2b832dc"  # main before scoring and plotting left the critical path (issue 29 item 8)
DELAY_S = 0.2
EPISODES = 16
KEY_ENV = "EPI_BENCH_KEY"


@dataclass
class Measured:
    wall_s: float
    cpu_s: float
    requests: int
    first_s: float  # spawn -> first chat request received
    tail_s: float  # last reply sent -> process exit


def start_server(tmp: Path) -> tuple[subprocess.Popen[str], str, Path]:
    """`epi sandbox model-server` on a free port, logging each request (with its time) to a file."""
    script, log = tmp / "script.json", tmp / "requests.jsonl"
    script.write_text(json.dumps({"loop": {"tool": "web_search", "calls": 5, "arguments": {"query": "{question} ({n})"},
                                           "content": "Final answer: 42", "delay_s": DELAY_S}}))
    proc = subprocess.Popen([sys.executable, "-m", "harness", "sandbox", "model-server", "--script", str(script), "--port", "0",
                             "--log", str(log)], cwd=REPO, env=env(REPO), stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # "scripted model server: http://127.0.0.1:PORT/v1  (...)"
    url = next((w for w in line.split() if w.startswith("http://")), None)
    if url is None:
        proc.kill()
        raise SystemExit(f"the model server did not start: {line!r}")
    return proc, url, log


def env(root: Path) -> dict[str, str]:
    e = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false", PYTHONPATH=str(root))
    e.setdefault("EPI_SANDBOX_DIR", str((REPO / "sandbox" / "build").resolve()))
    e[KEY_ENV] = "not-a-real-key"
    e.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's Python caches bytecode; compiling each start is not start-up
    return e


def requests_since(log: Path, after: float) -> tuple[int, float, float]:
    """Chat requests logged since `after`: how many, when the first came, when the server answered the last."""
    stamps = []
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if rec.get("path", "").endswith("/chat/completions") and rec.get("ts", 0) >= after:
            stamps.append(rec["ts"])
    if not stamps:
        return 0, float("nan"), float("nan")
    return len(stamps), min(stamps), max(stamps) + DELAY_S


def run(root: Path, url: str, log: Path, results: Path, run_id: str, conc: int) -> Measured:
    cmd = [sys.executable, "-m", "harness", "run", "--agent", "openai", "--model", "scripted", "--base-url", url,
           "--api-key-env", KEY_ENV, "--limit", str(EPISODES), "--max-steps", "1", "-j", str(conc),
           "--run-id", run_id, "--results", str(results), "--quiet"]
    t0, wall0 = time.time(), time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=root, env=env(root), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall, end = time.perf_counter() - wall0, time.time()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{root}: command failed: {' '.join(cmd)}\n{err.decode(errors='replace')[-3000:]}")
    if not (results / run_id / "scores.json").is_file():
        raise SystemExit(f"{root}: the run wrote no scores.json: scoring must be part of what is timed")
    n, first, last = requests_since(log, t0)
    return Measured(wall, usage.ru_utime + usage.ru_stime, n, first - t0, end - last)


def baseline_tree(commit: str, tmp: Path) -> Path | None:
    if Path(commit).is_dir():
        return Path(commit).resolve()
    root = tmp / f"baseline-{commit}"
    root.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", commit], capture_output=True)
    if archive.returncode != 0:
        raise SystemExit(f"baseline {commit}: git archive failed: {archive.stderr.decode(errors='replace').strip()}")
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
    return root


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per tree and concurrency (the median is shown)")
    ap.add_argument("--baseline", default=BASELINE, help="commit or code folder run alternately with this tree, or 'none'")
    args = ap.parse_args()
    load0 = os.getloadavg()
    print(f"{os.cpu_count()} cores, load average {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} (1, 5, 15 min) at the start")
    with tempfile.TemporaryDirectory(prefix="epi-concurrency-") as d:
        tmp = Path(d)
        trees = {"this tree": REPO}
        if args.baseline != "none":
            trees = {f"baseline {args.baseline}": baseline_tree(args.baseline, tmp), **trees}
        server, url, log = start_server(tmp)
        got: dict[tuple[str, int], list[Measured]] = {(t, j): [] for t in trees for j in (1, 16)}
        try:
            for i in range(args.repeat):
                for conc in (1, 16):
                    for name, root in trees.items():
                        m = run(root, url, log, tmp / "results", f"{name.split()[0]}-j{conc}-{i}", conc)
                        got[(name, conc)].append(m)
                        print(f"  run {i + 1}/{args.repeat} {name:<18} -j {conc:<2}  {m.wall_s:6.2f} s wall  {m.cpu_s:5.2f} s CPU  "
                              f"{m.requests:3d} requests  first {m.first_s:5.2f} s  tail {m.tail_s:5.2f} s  (load {os.getloadavg()[0]:.2f})", flush=True)
        finally:
            server.terminate()
            server.wait(timeout=10)
    load1 = os.getloadavg()
    print(f"== {EPISODES} episodes of the default benchmark, --max-steps 1, model server answering after {DELAY_S} s; "
          f"median of {args.repeat} whole processes each ==")
    print(f"{'':<22} {'-j 1 wall s':>11} {'-j 16 wall s':>12} {'1st request s':>13} {'-j 16 tail s':>12} {'-j 16 CPU s':>11} {'ratio':>7}")
    for name in trees:
        w1 = statistics.median(m.wall_s for m in got[(name, 1)])
        w16 = statistics.median(m.wall_s for m in got[(name, 16)])
        tail = statistics.median(m.tail_s for m in got[(name, 16)])
        first = statistics.median(m.first_s for m in got[(name, 16)])
        cpu = statistics.median(m.cpu_s for m in got[(name, 16)])
        print(f"{name:<22} {w1:>11.2f} {w16:>12.2f} {first:>13.2f} {tail:>12.2f} {cpu:>11.2f} {w1 / w16:>6.2f}x  (target >= 6x)")
    print(f"load average {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} at the end (the ratio shrinks when the cores are busy)")


if __name__ == "__main__":
    main()
