"""Check the PDF parser against the whole generated corpus's answer key and print every mismatch.

For each paper of `sandbox/build/ground_truth.json`: every figure and table is found on its page,
figure boxes agree with the slot it was drawn in (same top and bottom, inside the slot), and
table_extract's rows equal the answer key's header + body rows (bold markers stripped).

    .venv/bin/python bench/pdf_corpus_check.py [--only P027,P045]
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandbox import paths  # noqa: E402
from sandbox.corpus.model import GroundTruth, PaperGT  # noqa: E402
from tools.pdf import extract_table, parse_pdf  # noqa: E402


def _plain(cell: str) -> str:
    return re.sub(r"\*\*(.*?)\*\*", r"\1", cell).strip()


def _inside(a, b, tol: float = 5.0) -> bool:
    return a[0] >= b[0] - tol and a[1] >= b[1] - tol and a[2] <= b[2] + tol and a[3] <= b[3] + tol


def check_paper(paper: PaperGT, pdf: Path) -> list[str]:
    """Mismatches between the parse of one corpus PDF and its answer key, as readable lines."""
    data = pdf.read_bytes()
    parsed = parse_pdf(data)
    out: list[str] = []
    if parsed.two_column != (paper.layout == "two_column"):
        out.append(f"layout: two_column={parsed.two_column}, key says {paper.layout}")
    for f in paper.figures:
        got = parsed.figure(f.n)
        if got is None:
            out.append(f"figure {f.n}: not found (key: page {f.page})")
            continue
        if got.page != f.page:
            out.append(f"figure {f.n}: page {got.page}, key page {f.page}")
        elif got.bbox is None:
            out.append(f"figure {f.n}: no body box")
        elif f.bbox and not (_inside(got.bbox, f.bbox, 8) and abs(got.bbox[1] - f.bbox[1]) <= 15
                             and abs(got.bbox[3] - f.bbox[3]) <= 15):
            out.append(f"figure {f.n}: box {got.bbox}, key {tuple(round(v, 1) for v in f.bbox)}")
    for t in paper.tables:
        got = parsed.table(t.n)
        if got is None:
            out.append(f"table {t.n}: not found (key: page {t.page})")
            continue
        if got.page != t.page:
            out.append(f"table {t.n}: page {got.page}, key page {t.page}")
            continue
        rows = extract_table(data, got).rows
        want = [[_plain(c) for c in t.columns]] + [[_plain(c) for c in r] for r in t.rows]
        have = [[_plain(c) for c in r] for r in rows]
        if have != want:
            bad = next((i for i, (a, b) in enumerate(zip(have, want)) if a != b), min(len(have), len(want)))
            out.append(f"table {t.n}: rows differ at row {bad}: got {have[bad] if bad < len(have) else None}, "
                       f"key {want[bad] if bad < len(want) else None} ({len(have)} vs {len(want)} rows)")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated paper ids")
    args = ap.parse_args()
    gt_path = paths.ground_truth_path()
    if not gt_path.is_file():
        print(f"no corpus at {gt_path}: run `epi sandbox build`")
        return 2
    gt = GroundTruth.model_validate_json(gt_path.read_text(encoding="utf-8"))
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    t0 = time.perf_counter()
    n_papers = n_floats = n_bad = 0
    for paper in gt.papers:
        if only and paper.id not in only:
            continue
        pdf = paths.corpus_dir() / Path(paper.pdf).name
        n_papers += 1
        n_floats += len(paper.figures) + len(paper.tables)
        for line in check_paper(paper, pdf):
            n_bad += 1
            print(f"{paper.id} ({paper.layout}): {line}")
    dt = time.perf_counter() - t0
    print(f"{n_papers} papers, {n_floats} floats, {n_bad} mismatches, {dt:.1f} s")
    return 1 if n_bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
