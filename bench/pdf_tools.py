"""Benchmark the PDF tools against PyMuPDF baselines measured in the same run.

Reports, per paper and in total: pdf_extract on a cold cache vs plain `page.get_text()` over all pages
(the floor) and vs `pymupdf4llm.to_markdown` (what a user would pick instead; target: ours >= 5x
faster); figure_extract and table_extract on a warm cache (target < 0.5 s each); peak RSS (< 1.5 GB).
The folder of PDFs is a user's (untrusted), so each cold pdf_extract parses in a worker process under the PDF
limits, and the first one also starts the zygote (about 0.5 s of CPU); bench/pdf_limits.py sets that side by
side with the in-process parse of the commit before the limits.

    .venv/bin/python bench/pdf_tools.py [--corpus DIR] [--sample N]
"""
from __future__ import annotations

import argparse
import asyncio
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pymupdf  # noqa: E402

from tools import PaperMeta, PaperNotFound, SearchHit, World, get_tool  # noqa: E402

REAL = Path(__file__).resolve().parents[1].parent / "shared" / "realpdfs"


class FolderWorld(World):
    def __init__(self, files: dict[str, Path], cache_dir: Path):
        super().__init__(cache_dir)
        self.files = files

    async def search(self, query: str, k: int) -> list[SearchHit]:
        return []

    async def resolve(self, ref: str) -> PaperMeta:
        if ref not in self.files:
            raise PaperNotFound(ref)
        return PaperMeta(id=ref, title=ref)

    async def pdf_bytes(self, paper: PaperMeta) -> bytes:
        return self.files[paper.id].read_bytes()


def _timed(fn, *args, **kw) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn(*args, **kw)
    return time.perf_counter() - t, out


def floor_get_text(path: Path) -> str:
    doc = pymupdf.open(path)
    text = "".join(p.get_text() for p in doc)
    doc.close()
    return text


def to_markdown(path: Path) -> str:
    import pymupdf4llm

    return pymupdf4llm.to_markdown(str(path), show_progress=False)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def bench(files: dict[str, Path], skip_llm: bool) -> None:
    cache = Path(tempfile.mkdtemp(prefix="epi-pdf-bench-"))
    world = FolderWorld(files, cache)
    pdf_extract, figure_extract, table_extract = (get_tool(n) for n in ("pdf_extract", "figure_extract", "table_extract"))
    rows = []
    fig_times: list[float] = []
    tab_times: list[float] = []
    for pid, path in files.items():
        t_floor, _ = _timed(floor_get_text, path)
        t0 = time.perf_counter()
        res = await pdf_extract(world, {"paper": pid})
        t_ours = time.perf_counter() - t0
        assert not res.is_error, res.error
        t_llm = float("nan") if skip_llm else _timed(to_markdown, path)[0]
        for f in res.data["figures"]:
            t0 = time.perf_counter()
            r = await figure_extract(world, {"paper": pid, "figure": f["n"]})
            fig_times.append(time.perf_counter() - t0)
            assert not r.is_error, r.error
        for t in res.data["tables"]:
            t0 = time.perf_counter()
            r = await table_extract(world, {"paper": pid, "table": t["n"]})
            tab_times.append(time.perf_counter() - t0)
            assert not r.is_error, r.error
        rows.append((pid, res.data["pages"], t_floor, t_ours, t_llm))
    shutil.rmtree(cache, ignore_errors=True)

    print(f"{'paper':<24} {'pages':>5} {'get_text s':>10} {'ours s':>8} {'to_md s':>8} {'ours/floor':>10} {'to_md/ours':>10}")
    for pid, pages, fl, ours, llm in rows:
        print(f"{pid[:24]:<24} {pages:>5} {fl:>10.3f} {ours:>8.3f} {llm:>8.2f} {ours / fl:>10.1f} {llm / ours:>10.1f}")
    fl, ours, llm = (sum(r[i] for r in rows) for i in (2, 3, 4))
    print(f"{'TOTAL':<24} {sum(r[1] for r in rows):>5} {fl:>10.3f} {ours:>8.3f} {llm:>8.2f} {ours / fl:>10.1f} {llm / ours:>10.1f}"
          f"   (target to_md/ours >= 5)")
    for name, ts in (("figure_extract", fig_times), ("table_extract", tab_times)):
        if ts:
            ts.sort()
            print(f"{name:<15} warm cache: n={len(ts)} median {ts[len(ts) // 2] * 1000:.0f} ms, "
                  f"max {ts[-1] * 1000:.0f} ms (target < 500 ms)")
    print(f"peak RSS: {peak_rss_mb():.0f} MB (target < 1500 MB)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, help="folder of generated corpus PDFs to sample as well")
    ap.add_argument("--sample", type=int, default=4, help="how many corpus PDFs to add")
    ap.add_argument("--skip-to-markdown", action="store_true", help="skip the slow pymupdf4llm baseline")
    args = ap.parse_args()
    files = {p.stem: p for p in sorted(REAL.glob("*.pdf"))}
    if args.corpus:
        for p in sorted(args.corpus.glob("*.pdf"))[: args.sample]:
            files[f"corpus:{p.stem}"] = p
    asyncio.run(bench(files, args.skip_to_markdown))


if __name__ == "__main__":
    main()
