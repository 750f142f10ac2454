"""Benchmark: build the full sandbox corpus into a temporary folder and report time and size.

Prints build time, papers, pages, total MB, seconds per paper, and the share of the time spent on the
search index (measured in the same run: a build without the index is the baseline).

    .venv/bin/python bench/corpus_build.py [--papers 96] [--seed 7]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from sandbox.corpus.build import build_corpus, build_index, load_catalog  # noqa: E402
from sandbox.corpus.plan import DEFAULT_PAPERS, plan_corpus  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=DEFAULT_PAPERS)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="epi-corpus-bench-") as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        plan_corpus(args.seed, args.papers)
        t_plan = time.perf_counter() - t0
        t0 = time.perf_counter()
        result = build_corpus(root, seed=args.seed, n_papers=args.papers, with_index=False)
        t_render = time.perf_counter() - t0
        catalog = load_catalog(root)
        assert catalog is not None
        t0 = time.perf_counter()
        build_index(catalog, root / "index")
        t_index = time.perf_counter() - t0
        size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
        t0 = time.perf_counter()
        again = build_corpus(root, seed=args.seed, n_papers=args.papers)
        t_noop = time.perf_counter() - t0
    total = t_render + t_index
    print(f"papers            {result.papers}")
    print(f"pages             {result.pages}")
    print(f"total size        {size / 1e6:.1f} MB (PDFs {result.bytes / 1e6:.1f} MB)")
    print(f"plan only         {t_plan:.2f} s")
    print(f"render + write    {t_render:.1f} s ({t_render / result.papers:.2f} s per paper, {os.cpu_count()} cores)")
    print(f"search index      {t_index:.1f} s ({t_index / total:.0%} of the build)")
    print(f"build time        {total:.1f} s ({total / result.papers:.2f} s per paper)")
    print(f"second build      {t_noop * 1000:.0f} ms, up to date: {again.up_to_date} "
          f"({total / max(t_noop, 1e-6):.0f}x faster than building)")


if __name__ == "__main__":
    main()
