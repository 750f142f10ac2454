"""The PDF parser against the generated corpus's ground truth (page, box, cells), on every paper.

Skipped, with the reason shown, when the sandbox corpus has not been built (`epi sandbox build`).
The whole built corpus takes a few seconds; `bench/pdf_corpus_check.py` prints the same checks as a
list of mismatches.
"""
from __future__ import annotations

import pytest

from sandbox import paths
from sandbox.corpus.model import GroundTruth
from tools.pdf import extract_table, parse_pdf



def _papers():
    gt_path = paths.ground_truth_path()
    if not gt_path.is_file():
        return []
    return GroundTruth.model_validate_json(gt_path.read_text(encoding="utf-8")).papers


def _plain(cells: list[str]) -> list[str]:
    """Cells as the answer key prints them, without markdown bold markers."""
    return [c.replace("**", "").strip() for c in cells]


PAPERS = _papers()
pytestmark = pytest.mark.skipif(
    not PAPERS, reason=f"sandbox corpus not built at {paths.ground_truth_path()} (run `epi sandbox build`)")


def _near(a, b, tol: float = 15.0) -> bool:
    return max(abs(x - y) for x, y in zip(a, b)) <= tol


def _inside(a, b, tol: float = 5.0) -> bool:  # text boxes overshoot glyphs by their ascent
    return a[0] >= b[0] - tol and a[1] >= b[1] - tol and a[2] <= b[2] + tol and a[3] <= b[3] + tol


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
        # the ground-truth box is the slot the float was drawn in; ours is tight around what is drawn in it
        # (a centred image or a plot narrower than the slot): inside the slot, same top and bottom
        assert got.bbox is not None and _inside(got.bbox, f.bbox), (f.n, got.bbox, f.bbox)
        assert _near(got.bbox[1::2], f.bbox[1::2]), (f.n, got.bbox, f.bbox)
        assert got.bbox[2] - got.bbox[0] >= 0.6 * (f.bbox[2] - f.bbox[0]), (f.n, got.bbox, f.bbox)
    for t in paper.tables:
        got = parsed.table(t.n)
        assert got.page == t.page
        rows = extract_table(data, got).rows
        assert [_plain(r) for r in rows] == [_plain(t.columns)] + [_plain(r) for r in t.rows], (t.n, rows)
