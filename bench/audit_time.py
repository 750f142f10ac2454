"""Benchmark: the whole `epi episodes audit` (as `make test` runs it, learned adversaries included) on a cold cache
and again warm, against the audit without the learned adversaries (`--no-learned`, the audit before issue 25) run
the same way, side by side. Wall and CPU seconds of each run, since the machine may be shared: CPU seconds are
what an otherwise idle 2-core machine would wait (the audit runs on one core).

Cold = a fresh EPI_CACHE_DIR: every PDF parsed and the second benchmark planned and generated (the audit embeds
no paper: it scans every passage pdf_rag could show, and reads figures without rendering them). Warm = the same cache again. Targets (issue 25): <= 10 min cold, <= 2 min warm.

    .venv/bin/python bench/audit_time.py [FILE] [--sandbox DIR]

FILE defaults to the default benchmark of `epi run` (what `make test` audits); README's figures name their file.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGETS = {"cold": 600.0, "warm": 120.0}


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(args: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """Wall and CPU seconds, exit code and last line of one audit."""
    w, c = time.perf_counter(), _children_cpu()
    done = subprocess.run([sys.executable, "-m", "harness", "episodes", "audit", *args], env=env, cwd=REPO,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True)
    last = (done.stdout.strip().splitlines() or [done.stderr.strip()[-200:]])[-1]
    return time.perf_counter() - w, _children_cpu() - c, done.returncode, last


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default=None, help="episode file (default: the default benchmark, as make test audits it)")
    ap.add_argument("--sandbox", default=None, help="corpus folder (default: the built sandbox / EPI_SANDBOX_DIR)")
    ap.add_argument("--no-baseline", action="store_true", help="time the whole audit only")
    opts = ap.parse_args()
    base = ([opts.file] if opts.file else []) + (["--sandbox", opts.sandbox] if opts.sandbox else [])
    print(f"audit of {opts.file or 'the default benchmark of epi run'}", flush=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": str(REPO)}
    rows = []
    runs = [("audit without the learned adversaries (baseline)", ["--no-learned"]),
            ("whole audit (as make test runs it)", [])]
    for name, extra in runs[1:] if opts.no_baseline else runs:
        with tempfile.TemporaryDirectory(prefix="epi-audit-bench-") as cache:
            e = {**env, "EPI_CACHE_DIR": cache}
            for phase in ("cold", "warm"):
                wall, cpu, code, last = run(base + extra, e)
                rows.append((name, phase, wall, cpu, code, last))
                print(f"{name:50} {phase:5} wall {wall:7.1f} s  cpu {cpu:7.1f} s  exit {code}  {last[:90]}", flush=True)
    print()
    by = {(n, p): (w, c) for n, p, w, c, _, _ in rows}
    names = list(dict.fromkeys(n for n, *_ in rows))
    if len(names) < 2:
        for phase in ("cold", "warm"):
            w, c = by[(names[0], phase)]
            print(f"{phase}: whole audit {w:.1f} s wall / {c:.1f} s CPU; target <= {TARGETS[phase]:.0f} s: "
                  f"{'within' if c <= TARGETS[phase] else 'OVER'}")
        return
    for phase in ("cold", "warm"):
        (bw, bc), (ww, wc) = by[(names[0], phase)], by[(names[1], phase)]
        ok = "within" if wc <= TARGETS[phase] else "OVER"
        print(f"{phase}: whole audit {ww:.1f} s wall / {wc:.1f} s CPU = {wc / bc if bc else float('nan'):.2f}x the baseline's "
              f"CPU ({bc:.1f} s); target <= {TARGETS[phase]:.0f} s: {ok}")


if __name__ == "__main__":
    main()
