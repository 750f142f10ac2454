"""Benchmark: build the full sandbox corpus into a temporary folder and report time, CPU and size.

A fresh machine's `make run` builds corpus v2 once, so its build must stay well inside the 10-minute
budget on 2 cores. Printed side by side: plan only; the fresh build as `make sandbox` runs it (worker
processes render each paper, read its text and embed its search document; the main process plans,
checks, writes and builds BM25), with its CPU split between workers and main process; the index read and
embedded serially after rendering (how builds did it before, the baseline); a second build (nothing to
do); a forced rebuild served from the render cache. Since the machine may be shared, the estimate for an
otherwise idle 2-core machine is main-process CPU plus worker CPU over the cores.

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


def _split() -> tuple[float, float]:
    """(CPU seconds of this process, of its finished children)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


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
    cores = min(args.workers, os.cpu_count() or 1)
    with tempfile.TemporaryDirectory(prefix="epi-corpus-bench-") as tmp:
        root = Path(tmp)
        _, w_plan, c_plan = _timed(lambda: version.plan(args.seed, n))
        # what `make sandbox` does: render in worker processes, which also read each paper's text and embed its
        # search document; then the index (BM25 and the vectors the workers made) in this process
        (me0, kids0), w0 = _split(), time.perf_counter()
        result = build_corpus(root, seed=args.seed, n_papers=n, workers=args.workers, corpus=args.corpus)
        (me1, kids1), w_build = _split(), time.perf_counter() - w0
        c_main, c_workers = me1 - me0, kids1 - kids0
        size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
        # the baseline: the same index built the old way, every PDF read and embedded in this one process
        catalog = load_catalog(root)
        assert catalog is not None
        _, w_index, c_index = _timed(lambda: build_index(catalog, root / "index-serial", root))
        again, w_noop, _ = _timed(lambda: build_corpus(root, seed=args.seed, n_papers=n, corpus=args.corpus))
        cached, w_cached, c_cached = _timed(lambda: build_corpus(
            root, seed=args.seed, n_papers=n, force=True, workers=args.workers, corpus=args.corpus))
    idle = c_main + c_workers / cores  # the workers run in parallel, the rest of the build in this process
    # before: the workers only rendered (their CPU less about what the serial index costs) and the index was read
    # and embedded after them in this process
    before = c_main + max(0.0, c_workers - c_index) / cores + c_index
    print(f"corpus {args.corpus} ({version.generator_version}), {result.papers} papers, {result.pages} pages, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"total size        {size / 1e6:.1f} MB (PDFs {result.bytes / 1e6:.1f} MB)")
    print(f"plan only         {w_plan:6.1f} s wall  {c_plan:6.1f} s CPU")
    print(f"fresh build       {w_build:6.1f} s wall  {c_main + c_workers:6.1f} s CPU: {c_workers:.1f} s in {args.workers} "
          f"workers (render, page text, embedding; {c_workers / result.papers:.2f} s per paper), {c_main:.1f} s in the "
          f"main process (plan, checks, writing, BM25)")
    print(f"  -> about {idle:.0f} s on an idle {cores}-core machine (main CPU + worker CPU / {cores}); budget of make run "
          f"600 s, install and agent runs included")
    print(f"index read and embedded serially (the build before issue 26's speed-up): {w_index:.1f} s wall, {c_index:.1f} s "
          f"CPU -> that build about {before:.0f} s idle; now {idle:.0f} s ({before / max(idle, 1e-6):.2f}x)")
    print(f"second build      {w_noop * 1000:6.0f} ms, up to date: {again.up_to_date}")
    print(f"forced rebuild    {w_cached:6.1f} s wall  {c_cached:6.1f} s CPU, {cached.rendered} papers re-rendered "
          f"(render cache, index parts included: {(c_main + c_workers) / max(c_cached, 1e-6):.1f}x less CPU than a fresh build)")


if __name__ == "__main__":
    main()
