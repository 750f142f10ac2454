"""Benchmark: build the full sandbox corpus into a temporary folder and report time, CPU and size.

A fresh machine's `make run` builds corpus v2 once, so its build must stay well inside the 10-minute
budget on 2 cores. Printed side by side: plan only; render (parallel worker processes) with wall and CPU
seconds; the search index; a second build (nothing to do); a forced rebuild served from the render
cache (the baseline a content cache saves against); and, since the machine may be shared, the CPU
seconds spread over the cores where the work is parallel (rendering), which is what an otherwise
idle 2-core machine would wait.

    .venv/bin/python bench/corpus_build.py [--corpus v2] [--papers 480] [--seed 7] [--workers 2]
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from sandbox.corpus.build import build_corpus, build_index, load_catalog  # noqa: E402
from sandbox.corpus.versions import DEFAULT_CORPUS, corpus_version  # noqa: E402


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the render workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _timed(fn):  # noqa: ANN001, ANN202
    w, c = time.perf_counter(), _cpu()
    out = fn()
    return out, time.perf_counter() - w, _cpu() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=DEFAULT_CORPUS)
    ap.add_argument("--papers", type=int, default=None)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2, help="render processes (the 2-core budget)")
    args = ap.parse_args()
    version = corpus_version(args.corpus)
    n = args.papers or version.default_papers
    with tempfile.TemporaryDirectory(prefix="epi-corpus-bench-") as tmp:
        root = Path(tmp)
        _, w_plan, c_plan = _timed(lambda: version.plan(args.seed, n))
        result, w_render, c_render = _timed(lambda: build_corpus(
            root, seed=args.seed, n_papers=n, with_index=False, workers=args.workers, corpus=args.corpus))
        catalog = load_catalog(root)
        assert catalog is not None
        _, w_index, c_index = _timed(lambda: build_index(catalog, root / "index", root))
        size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
        again, w_noop, _ = _timed(lambda: build_corpus(root, seed=args.seed, n_papers=n, corpus=args.corpus))
        cached, w_cached, c_cached = _timed(lambda: build_corpus(
            root, seed=args.seed, n_papers=n, with_index=False, force=True, workers=args.workers, corpus=args.corpus))
    total_w, total_c = w_render + w_index, c_render + c_index
    cores = min(args.workers, os.cpu_count() or 1)
    print(f"corpus {args.corpus} ({version.generator_version}), {result.papers} papers, {result.pages} pages, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"total size        {size / 1e6:.1f} MB (PDFs {result.bytes / 1e6:.1f} MB)")
    print(f"plan only         {w_plan:6.1f} s wall  {c_plan:6.1f} s CPU")
    print(f"render + write    {w_render:6.1f} s wall  {c_render:6.1f} s CPU  ({c_render / result.papers:.2f} s CPU per paper, "
          f"{args.workers} workers)")
    print(f"search index      {w_index:6.1f} s wall  {c_index:6.1f} s CPU  ({c_index / total_c:.0%} of the build's CPU)")
    idle = c_plan + c_render / cores + c_index  # rendering runs in parallel, the index in one process
    print(f"fresh build       {total_w:6.1f} s wall  {total_c:6.1f} s CPU  -> about {idle:.0f} s on an idle "
          f"{cores}-core machine (render CPU / {cores} + index CPU)")
    print(f"second build      {w_noop * 1000:6.0f} ms, up to date: {again.up_to_date}")
    print(f"forced rebuild    {w_cached:6.1f} s wall  {c_cached:6.1f} s CPU, {cached.rendered} papers re-rendered "
          f"(render cache: {c_render / max(c_cached, 1e-6):.1f}x less CPU than rendering)")


if __name__ == "__main__":
    main()
