"""Benchmark the PDF limits: what the first parse of an untrusted PDF in a child process costs, side by side
with a baseline commit's code, and how fast hostile files are refused.

"Before" is the code of a baseline commit (default 740bb56, the last one before the limits), extracted with
`git archive` into a temporary folder; "after" is this checkout. Every row runs one job in a fresh process
per version (bench/_pdf_driver.py) and reports the wall and CPU seconds of that process and of every
process it started (from wait4), so the parse children are counted.

- user PDFs, cold cache: the real papers of ../shared/realpdfs and S corpus PDFs copied to a folder (a
  user's files: after the change each first parse runs in a child), pdf_extract on each, then every figure
  and table;
- the same in a second process over the same cache (the child is not started again);
- the sandbox world, cold cache: pdf_extract over N generated papers (trusted: parsed in process, as before);
- `epi sandbox build --papers B` into a temporary folder (the build never calls the PDF parser);
- hostile files: refused by "after"; "before" parses them unbounded only with --hostile-before (minutes).

    .venv/bin/python bench/pdf_limits.py [--baseline 740bb56] [--sample 6] [--papers 40] [--build 24] [--hostile-before]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.tools.pdf_hostile import flate_bomb_pdf, huge_image_pdf, lying_count_pdf  # noqa: E402

BASELINE = "740bb56"
REAL = REPO.parent / "shared" / "realpdfs"
SANDBOX = Path(os.environ.get("EPI_SANDBOX_DIR", str(REPO / "sandbox" / "build")))


def run(root: Path, cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall s, CPU s of the process and all it waited for, stdout) of one command run with `root`'s code."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": str(root), **env}
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env, cwd=root)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        text, problem = out.read().decode(), err.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed in {root}:\n{problem[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, text


def driver(root: Path, *args: str, env: dict[str, str] | None = None) -> tuple[float, float, dict]:
    wall, cpu, text = run(root, [sys.executable, str(REPO / "bench" / "_pdf_driver.py"), *args], env or {})
    return wall, cpu, json.loads(text.strip().splitlines()[-1])


def extract(ref: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref], capture_output=True, check=True).stdout
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _med(xs: list[float]) -> str:
    return f"{statistics.median(xs) * 1000:6.0f} ms" if xs else "      -"


def _first_then(xs: list[float]) -> str:
    """The first call (it starts the zygote, after the change) and the median of the others."""
    return f"first {xs[0] * 1000:5.0f} ms, then {_med(xs[1:])}" if xs else "-"


def _row(name: str, before: tuple[float, float] | None, after: tuple[float, float]) -> None:
    b = f"{before[0]:7.1f} {before[1]:7.1f}" if before else f"{'-':>7} {'-':>7}"
    ratio = f"{after[1] / before[1]:6.2f}x" if before and before[1] > 0 else "     -"
    print(f"{name:<44} {b}   {after[0]:7.1f} {after[1]:7.1f}   {ratio}")


def refusals(hostile: dict[str, bytes]) -> None:
    """How long this checkout takes to refuse each hostile file once the zygote runs (no imports counted)."""
    from tools.pdf import PdfError, PdfLimits, parse_isolated

    print("\nrefusing a hostile file, zygote running:")
    for name, data in hostile.items():
        t = time.perf_counter()
        try:
            parse_isolated(data, PdfLimits())
            what = "accepted"
        except PdfError as e:
            what = e.message
        print(f"  {name:<26} {(time.perf_counter() - t) * 1000:6.0f} ms: {what[:90]}")


def per_file(files: list[Path], repeat: int) -> None:
    """This checkout's parse of each file, in process (what the baseline did for every file) vs in a worker
    forked from a running zygote (untrusted files now), best of `repeat`; then the zygote's start alone."""
    from tools.pdf import PdfLimits, parse_isolated, parse_pdf
    from tools.pdf._isolate import _ZYGOTE

    t = time.perf_counter()
    parse_isolated(files[0].read_bytes(), PdfLimits())
    start = time.perf_counter() - t
    print(f"\nfirst parse of one file, best of {repeat} (zygote already running; starting it took {start:.2f} s "
          f"wall, once per process):")
    print(f"  {'file':<24} {'in process':>10} {'checked':>10} {'isolated':>10} {'added':>8}")
    totals = [0.0, 0.0, 0.0]
    for f in files:
        data = f.read_bytes()
        best = []
        for fn in (lambda: parse_pdf(data), lambda: parse_pdf(data, limits=PdfLimits()),
                   lambda: parse_isolated(data, PdfLimits())):
            runs = []
            for _ in range(repeat):
                t = time.perf_counter()
                fn()
                runs.append(time.perf_counter() - t)
            best.append(min(runs))
        totals = [a + b for a, b in zip(totals, best)]
        print(f"  {f.stem[:24]:<24} {best[0] * 1000:8.0f} ms {best[1] * 1000:7.0f} ms {best[2] * 1000:7.0f} ms "
              f"{(best[2] - best[0]) * 1000:5.0f} ms")
    print(f"  {'TOTAL':<24} {totals[0]:9.2f} s {totals[1]:8.2f} s {totals[2]:8.2f} s  "
          f"x{totals[2] / totals[0]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=BASELINE, help="commit measured as 'before'")
    ap.add_argument("--sample", type=int, default=6, help="corpus PDFs added to the real papers as user files")
    ap.add_argument("--papers", type=int, default=40, help="generated papers read through the sandbox world")
    ap.add_argument("--build", type=int, default=24, help="papers of the `epi sandbox build` row (0 skips it)")
    ap.add_argument("--hostile-before", action="store_true", help="also parse the hostile files with no limits")
    ap.add_argument("--repeat", type=int, default=3, help="runs per file in the per-file table (best is shown)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="epi-pdf-limits-"))
    try:
        versions = {"before": extract(args.baseline, tmp / "before"), "after": REPO}
        user = tmp / "user-pdfs"
        user.mkdir()
        for p in sorted(REAL.glob("*.pdf")) + sorted((SANDBOX / "corpus").glob("P*.pdf"))[: args.sample]:
            shutil.copy(p, user / p.name)
        print(f"before = {args.baseline}, after = this checkout; {len(list(user.glob('*.pdf')))} user PDFs, "
              f"{args.papers} sandbox papers ({SANDBOX}); seconds of the job's process and its children\n")
        print(f"{'job':<44} {'before':>15}   {'after':>15}   {'CPU':>7}")
        print(f"{'':<44} {'wall':>7} {'CPU':>7}   {'wall':>7} {'CPU':>7}   {'after/before':>7}")
        calls: dict[str, dict] = {}
        for label in ("cold", "warm"):
            res = {}
            for v, root in versions.items():
                wall, cpu, out = driver(root, "folder", str(user), str(tmp / f"cache-{v}"))
                res[v] = (wall, cpu)
                calls[f"{v} {label}"] = out
                assert not out.get("errors"), out["errors"]
            _row(f"user PDFs, all tools, {label} cache", res["before"], res["after"])
        res = {}
        for v, root in versions.items():
            wall, cpu, out = driver(root, "sandbox", str(args.papers), str(tmp / "unused"),
                                    env={"EPI_SANDBOX_DIR": str(SANDBOX), "EPI_CACHE_DIR": str(tmp / f"sbx-cache-{v}")})
            res[v] = (wall, cpu)
            calls[f"{v} sandbox"] = out
        _row(f"sandbox world, pdf_extract x{args.papers}, cold", res["before"], res["after"])
        if args.build:
            res = {}
            for v, root in versions.items():
                wall, cpu, _ = run(root, [sys.executable, "-m", "harness", "sandbox", "build", "--papers",
                                          str(args.build)], {"EPI_SANDBOX_DIR": str(tmp / f"build-{v}")})
                res[v] = (wall, cpu)
            _row(f"epi sandbox build --papers {args.build}", res["before"], res["after"])
        print("\nper call (median):" + "".join(
            f"\n  {k:<16} pdf_extract {_first_then(c.get('pdf_extract', []))}   figure_extract "
            f"{_med(c.get('figure_extract', []))}   table_extract {_med(c.get('table_extract', []))}"
            for k, c in calls.items()))
        hostile = {"lying /Count": lying_count_pdf(), "1 MB flate bomb (512 MB)": flate_bomb_pdf(512),
                   "60000x60000 image, 10 MB": huge_image_pdf()}
        print("\nhostile files (pdf_extract, then figure_extract of Figure 1 when the parse succeeds):")
        for name, data in hostile.items():
            path = tmp / "hostile.pdf"
            path.write_bytes(data)
            for v, root in versions.items():
                if v == "before" and not args.hostile_before:
                    continue
                wall, cpu, out = driver(root, "hostile", str(path), str(tmp / f"hostile-cache-{v}-{len(data)}"))
                what = (out.get("errors") or ["accepted"])[0]
                tools = ", ".join(f"{t} {sum(out[t]):.1f} s" for t in ("pdf_extract", "figure_extract") if t in out)
                print(f"  {v:<6} {name:<26} process {wall:5.1f} s wall {cpu:5.1f} s CPU; {tools}: {what[:100]}")
        per_file(sorted(user.glob("*.pdf")), args.repeat)
        refusals(hostile)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
