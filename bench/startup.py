"""Start-up time and peak memory of `epi`, before and after, measured side by side in one run.

"Before" is the code of a baseline commit (default 6a041b0, the last one before the lazy imports and
the ONNX embedder), extracted with `git archive` into a temporary folder and run with the same
virtual environment, so only our code differs. Each row is a fresh process:
1. `epi --help`, with `python -c pass` as the floor no Python program beats.
2. The query embedder, load + first query: onnxruntime + tokenizers (default) against the torch +
   sentence-transformers reference (EPI_EMBED_BACKEND=torch, the code used before).
3. A small run, `epi run --agent openai` against the scripted model server (five web_search calls
   per question, then the budget fallback answers): time from spawn to the first chat request,
   whole process, peak RSS.
4. The slowest imports of `import harness.cli` (python -X importtime).

Wall times stretch with the load of this shared 2-core machine; CPU seconds (user + system of the
child, read from /proc when the server sees the first request) much less, so ratios use them.
Targets (issue 15): `epi --help` and the first model request within 1 s; a run under 500 MB.

    .venv/bin/python bench/startup.py [--repeat 3] [--episodes 4] [--baseline 6a041b0|none]
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
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "bench")]

from _baseline import baseline_sandbox, corpus_v1  # noqa: E402

BASELINE = "6a041b0"


@dataclass
class Code:
    """One version of the code to measure: where it lives and how its processes are started."""

    label: str
    root: Path
    sandbox: Path = field(default_factory=corpus_v1)  # corpus v1: the runs use sandbox-v1's paper ids

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
                   PYTHONPATH=str(self.root), EPI_BENCH_KEY="not-a-real-key", EPI_SANDBOX_DIR=str(self.sandbox))
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's Python caches bytecode; compiling each start is not start-up
        env.update(extra)
        return env

    def epi(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "harness", *args]


def run_measured(code: Code, cmd: list[str], env: dict[str, str], on_start=None) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS MB, stdout) of one child; CPU and peak come from wait4, for this child alone."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env, cwd=code.root)
        if on_start is not None:
            on_start(proc.pid)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{code.label}: {' '.join(cmd[1:5])} ... exited {proc.returncode}: {err.read().decode()[-1500:]}")
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read().decode()


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a running process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def median_of(n: int, code: Code, cmd: list[str]) -> dict[str, float]:
    """Median wall and CPU seconds and the largest peak RSS of `n` runs of `cmd`."""
    rows = [run_measured(code, cmd, code.env()) for _ in range(n)]
    return {"wall": statistics.median(r[0] for r in rows), "cpu": statistics.median(r[1] for r in rows),
            "mb": max(r[2] for r in rows)}


EMBED_PROBE = """
import json, sys, time
t = time.perf_counter()
from tools.embed import embed_query
v = embed_query("graph neural networks for molecular property prediction")
print(json.dumps({"s": time.perf_counter() - t, "torch": "torch" in sys.modules, "vec": v[0].tolist()}))
"""


def embedder_row(code: Code, backend: str, repeat: int) -> dict:
    """Load + first query of one embedder backend in fresh processes: median seconds, peak MB, the vector."""
    rows = [run_measured(code, [sys.executable, "-c", EMBED_PROBE], code.env(EPI_EMBED_BACKEND=backend))
            for _ in range(repeat)]
    infos = [json.loads(r[3].strip().splitlines()[-1]) for r in rows]
    return {"s": statistics.median(i["s"] for i in infos), "mb": max(r[2] for r in rows),
            "torch": infos[-1]["torch"], "vec": infos[-1]["vec"]}


def scripted_run(code: Code, n_episodes: int, tmp: Path, mixed: bool = False, **env: str) -> dict[str, float]:
    """One `epi run --agent openai` in a child process against a scripted server in this one.

    The server asks for web_search five times per question (then the budget fallback answers), so
    the run loads the search index and the query embedder as a real one does; `mixed` asks instead for
    web_search, pdf_extract, pdf_rag, figure_extract and table_extract on a different paper each
    question, so PDFs are parsed and chunk indexes embedded (the heavier memory profile).
    """
    from sandbox.model_server import ScriptedModelServer, load_script

    topics = ["graph neural network node classification", "speech recognition low-resource", "protein structure",
              "image segmentation benchmark", "contrastive pretraining ablation"]
    calls = []
    for i in range(4 * n_episodes):  # at most 4 turns per episode
        paper = f"P{1 + (7 * i) % 96:03d}"
        if mixed:
            calls += [("web_search", {"query": f"{topics[i % 5]} {i}"}), ("pdf_extract", {"paper": paper}),
                      ("pdf_rag", {"paper": paper, "query": topics[i % 5]}), ("figure_extract", {"paper": paper, "figure": 1}),
                      ("table_extract", {"paper": paper, "table": 1})]
        else:
            calls += [("web_search", {"query": f"{topics[(i + j) % 5]} {i}-{j}"}) for j in range(5)]
    script = {
        "responses": [{"tool_calls": [{"name": name, "arguments": args}], "match": {"tools_offered": True}}
                      for name, args in calls],
        "default": {"content": "Final answer: 1"},
    }
    tag = f"{code.label.split()[0]}-{time.time_ns()}"
    path = tmp / f"script-{tag}.json"
    path.write_text(json.dumps(script))
    server = ScriptedModelServer(load_script(path))
    first: dict[str, float] = {}
    child: dict[str, int] = {}
    record = server._record

    def record_first(req) -> None:  # noqa: ANN001  (in the server thread, as the request arrives)
        if "cpu" not in first and req.path.endswith("/chat/completions"):
            first["cpu"] = cpu_seconds(child["pid"])
        record(req)

    server._record = record_first  # type: ignore[method-assign]
    server.start()
    try:
        cmd = code.epi("run", "--agent", "openai", "--model", "scripted", "--base-url", server.base_url,
                       "--api-key-env", "EPI_BENCH_KEY", "--episodes", str(REPO / "episodes" / "sandbox-v1.jsonl"),
                       "--limit", str(n_episodes), "--max-steps", "5",
                       "--results", str(tmp / "results"), "--run-id", f"startup-{tag}", "--no-score", "-q")
        t_start = time.time()
        wall, cpu, peak, _ = run_measured(code, cmd, code.env(EPI_CACHE_DIR=str(tmp / f"cache-{tag}"), **env),
                                          on_start=lambda pid: child.update(pid=pid))
        chats = server.chat_requests
        if not chats:
            raise RuntimeError(f"{code.label}: the run made no model request")
        return {"first": chats[0].ts - t_start, "first_cpu": first["cpu"], "wall": wall, "cpu": cpu, "peak": peak,
                "requests": len(chats)}
    finally:
        server.stop()


def import_profile(code: Code, top: int) -> list[tuple[str, float]]:
    """The `top` modules with the largest cumulative import time under `import harness.cli`."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "import harness.cli"], capture_output=True,
                          text=True, env=code.env(), cwd=code.root)
    rows = []
    for line in proc.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((parts[2].strip(), int(parts[1]) / 1e6))
    rows.sort(key=lambda r: -r[1])
    return rows[:top]


def show_runs(runs: dict[str, dict[str, float]], before: Code | None) -> None:
    for label, r in runs.items():
        print(f"{label:22s} first request at {r['first']:5.2f} s wall / {r['first_cpu']:5.2f} s CPU;  whole "
              f"process {r['wall']:5.1f} s / {r['cpu']:5.1f} s CPU;  peak {r['peak']:4.0f} MB ({r['requests']} requests)")
    if before:
        b, a = runs[before.label], runs["after"]
        print(f"after vs before: first request {ratio(a['first_cpu'], b['first_cpu'])} in CPU "
              f"({ratio(a['first'], b['first'])} wall); whole process {ratio(a['cpu'], b['cpu'])} in CPU; "
              f"peak {b['peak'] / a['peak']:.1f}x less   (targets: first request <= 1 s, peak < 500 MB)")


def ratio(new: float, old: float) -> str:
    return f"{old / new:4.1f}x faster" if new <= old else f"{new / old:4.2f}x slower"


def extract_baseline(ref: str, into: Path) -> Code | None:
    """The code of commit `ref` in `into`, or None (with a message) when git cannot provide it."""
    try:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", ref], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"(no baseline: cannot extract commit {ref} with git archive: {e}; showing this code alone)")
        return None
    code = Code(f"before ({ref})", into)
    sandbox = baseline_sandbox(into, into.parent, code.env())
    if sandbox is None:
        return None
    code.sandbox = sandbox
    return code


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing row (median)")
    ap.add_argument("--episodes", type=int, default=4, help="episodes in the scripted run")
    ap.add_argument("--baseline", default=BASELINE, help="commit measured as 'before' ('none' to skip)")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; wall times stretch with load, CPU times much less")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        after = Code("after", REPO)
        (tmp / "base").mkdir()
        before = extract_baseline(args.baseline, tmp / "base") if args.baseline != "none" else None
        codes = [c for c in (before, after) if c is not None]
        for c in codes:  # the first start of a checkout writes its bytecode caches: not what users wait for each time
            run_measured(c, c.epi("--help"), c.env())

        floor = median_of(args.repeat, after, [sys.executable, "-c", "pass"])
        print("\n== epi --help (fresh process, median) ==")
        print(f"{'python -c pass (floor)':24s} {floor['wall']:5.2f} s wall  {floor['cpu']:5.2f} s CPU  {floor['mb']:5.0f} MB")
        helps = {c.label: median_of(args.repeat, c, c.epi("--help")) for c in codes}
        for label, h in helps.items():
            print(f"{'epi --help, ' + label:24s} {h['wall']:5.2f} s wall  {h['cpu']:5.2f} s CPU  {h['mb']:5.0f} MB"
                  f"   {h['cpu'] / floor['cpu']:3.0f}x the floor's CPU")
        if before:
            b, a = helps[before.label], helps["after"]
            print(f"after vs before: {ratio(a['cpu'], b['cpu'])} in CPU ({ratio(a['wall'], b['wall'])} wall), "
                  f"{b['mb'] / a['mb']:.1f}x less memory   (target <= 1 s)")

        print("\n== query embedder: load + first query (fresh process, median) ==")
        onnx, ref = embedder_row(after, "onnx", args.repeat), embedder_row(after, "torch", args.repeat)
        dot = sum(x * y for x, y in zip(onnx["vec"], ref["vec"]))
        print(f"torch + sentence-transformers (reference, as before)  {ref['s']:5.2f} s  {ref['mb']:5.0f} MB")
        print(f"onnxruntime + tokenizers (default)                    {onnx['s']:5.2f} s  {onnx['mb']:5.0f} MB")
        print(f"onnx vs torch: {ratio(onnx['s'], ref['s'])}, {ref['mb'] / onnx['mb']:.1f}x less memory; "
              f"torch imported: {onnx['torch']}; cosine between their vectors {dot:.6f}")

        print(f"\n== scripted run: epi run --agent openai, {args.episodes} episodes, web_search x5 per question ==")
        runs = {c.label: scripted_run(c, args.episodes, tmp) for c in codes}
        runs["after, torch embedder"] = scripted_run(after, args.episodes, tmp, EPI_EMBED_BACKEND="torch")
        show_runs(runs, before)
        print(f"\n== scripted run, mixed tools: web_search, pdf_extract, pdf_rag, figure_extract, table_extract per "
              f"question, a new paper each ({args.episodes} episodes) ==")
        show_runs({c.label: scripted_run(c, args.episodes, tmp, mixed=True) for c in codes}, before)

        print("\n== slowest imports under `import harness.cli` (cumulative s, one run each) ==")
        for c in codes:
            print(f"-- {c.label}")
            for name, s in import_profile(c, 6):
                print(f"{s:6.3f}  {name}")


if __name__ == "__main__":
    main()
