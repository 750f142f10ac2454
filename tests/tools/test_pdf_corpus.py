"""The PDF parser against the generated corpus's ground truth (page, box, cells), on a sample of papers.

Skipped, with the reason shown, when the sandbox corpus has not been built (`epi sandbox build`).
"""
from __future__ import annotations

import pytest

from sandbox import paths
from sandbox.corpus.model import GroundTruth
from tools.pdf import extract_table, parse_pdf

SAMPLE = 6


def _papers():
    gt_path = paths.ground_truth_path()
    if not gt_path.is_file():
        return []
    gt = GroundTruth.model_validate_json(gt_path.read_text(encoding="utf-8"))
    # a sample covering both layouts
    one = [p for p in gt.papers if p.layout == "one_column"][: SAMPLE // 2]
    two = [p for p in gt.papers if p.layout == "two_column"][: SAMPLE - len(one)]
    return one + two


PAPERS = _papers()
pytestmark = pytest.mark.skipif(
    not PAPERS, reason=f"sandbox corpus not built at {paths.ground_truth_path()} (run `epi sandbox build`)")


def _near(a, b, tol: float = 15.0) -> bool:
    return max(abs(x - y) for x, y in zip(a, b)) <= tol


@pytest.mark.parametrize("paper", PAPERS, ids=[p.id for p in PAPERS])
def test_corpus_floats_pages_boxes_and_cells(paper) -> None:
    pdf = paths.corpus_dir() / paper.pdf.split("/")[-1]
    if not pdf.is_file():
        pdf = paths.sandbox_dir() / paper.pdf
    data = pdf.read_bytes()
    parsed = parse_pdf(data)
    assert parsed.two_column == (paper.layout == "two_column")
    assert [f.n for f in parsed.figures] == [f.n for f in paper.figures]
    assert [t.n for t in parsed.tables] == [t.n for t in paper.tables]
    for f in paper.figures:
        got = parsed.figure(f.n)
        assert got.page == f.page and got.caption.startswith(f.caption[:40])
        assert got.bbox is not None and _near(got.bbox, f.bbox), (f.n, got.bbox, f.bbox)
    for t in paper.tables:
        got = parsed.table(t.n)
        assert got.page == t.page
        rows = extract_table(data, got).rows
        assert rows[0] == t.columns and rows[1:] == t.rows, (t.n, rows)
