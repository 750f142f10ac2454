"""Float detection where page layout trips the parser, each on a small synthetic PDF drawn with PyMuPDF
and on the generated corpus paper that showed it:

- a PyMuPDF text block straddling the column gutter (a left-column caption merged with a right-column
  reference at the same height, P027),
- a caption set below the last body line of the document (P045),
- a table under its caption stacked on a figure over its own caption (P032, P065),
- clipped vector paths (matplotlib hatch tiles) whose raw boxes reach far outside the chart,
- a stray line of running text next to a float (a carried-over paragraph end; a line over a chart).
"""
from __future__ import annotations

import pymupdf
import pytest

from tools.pdf import extract_table, parse_pdf

from .pdf_synth import Page, new_doc, to_bytes

WORDS = ("We study how retrieval models rank scientific documents under realistic conditions and report the "
         "effect of each component").split()


def _column_text(page: pymupdf.Page, x: float, y: float, lines: int, size: float = 9) -> float:
    """Body lines of a 242pt column from baseline y (each column's text differs); returns the next baseline."""
    start = int(x + y + page.number * 5)
    for i in range(lines):
        words = (WORDS * 40)[start + i * 7:start + (i + 1) * 7]
        page.insert_text((x, y), " ".join(words), fontsize=size, fontname="helv")
        y += size * 1.2
    return y


def _two_column_doc() -> pymupdf.Document:
    """Page 1 full of column text down to y ~ 720; page 2 with its columns ending at y ~ 560."""
    doc = new_doc()
    for lines in (61, 46):
        page = doc.new_page(width=612, height=792)
        _column_text(page, 54, 70, lines)
        _column_text(page, 316, 70, lines)
    return doc


def test_block_straddling_the_gutter_is_split_and_its_caption_found() -> None:
    doc = _two_column_doc()
    page = doc[1]
    # the right column's reference first, then the left column's caption at interleaved heights:
    # PyMuPDF puts all five lines into one block spanning both columns
    page.insert_text((316, 606), "[1] L. Rossi, F. Mensah, et al. HalsaSiam: Clustered", fontsize=8.5, fontname="helv")
    page.insert_text((316, 616), "Token Distillation for Masked Image Modeling.", fontsize=8.5, fontname="helv")
    page.insert_text((54, 611), "Table 1:", fontsize=9, fontname="hebo")
    page.insert_text((92, 611), "Comparison of our method with prior node", fontsize=9, fontname="helv")
    page.insert_text((54, 622), "classification methods on Cora (accuracy). Best", fontsize=9, fontname="helv")
    page.insert_text((54, 633), "results are in bold.", fontsize=9, fontname="helv")
    page.draw_line((80, 642), (270, 642), width=0.8)
    page.insert_text((84, 652), "Method", fontsize=8, fontname="helv")
    page.insert_text((220, 652), "Cora", fontsize=8, fontname="helv")
    page.draw_line((80, 656), (270, 656), width=0.5)
    page.insert_text((84, 666), "GCN", fontsize=8, fontname="helv")
    page.insert_text((220, 666), "81.5", fontsize=8, fontname="helv")
    page.insert_text((84, 677), "Ours", fontsize=8, fontname="helv")
    page.insert_text((220, 677), "83.2", fontsize=8, fontname="helv")
    page.draw_line((80, 681), (270, 681), width=0.8)
    data = to_bytes(doc)
    blocks = pymupdf.open(stream=data)[1].get_text("dict")["blocks"]
    assert any(b["bbox"][0] < 100 and b["bbox"][2] > 400 and b["bbox"][1] > 590 for b in blocks)  # the trap is set
    parsed = parse_pdf(data)
    assert parsed.two_column
    table = parsed.table(1)
    assert table is not None and table.page == 2
    assert table.caption == "Table 1: Comparison of our method with prior node classification methods on Cora " \
                            "(accuracy). Best results are in bold."
    assert table.caption_bbox[2] < 306  # the caption stays in the left column
    assert extract_table(data, table).rows == [["Method", "Cora"], ["GCN", "81.5"], ["Ours", "83.2"]]
    assert "[1] L. Rossi" in parsed.markdown and "Rossi" not in table.caption


def test_full_width_lines_stay_whole_in_a_two_column_paper() -> None:
    doc = _two_column_doc()
    page = doc[1]
    page.insert_text((316, 606), "[1] L. Rossi, F. Mensah, et al. HalsaSiam: Clustered", fontsize=8.5, fontname="helv")
    page.insert_text((316, 616), "Token Distillation for Masked Image Modeling.", fontsize=8.5, fontname="helv")
    page.insert_text((54, 611), "and the ablation confirms that each component helps", fontsize=9, fontname="helv")
    page.insert_text((54, 622), "on every collection we tried.", fontsize=9, fontname="helv")
    page.insert_text((54, 634), "Figure 1: Accuracy of every method on the four benchmark collections with "
                                "standard errors over five seeds.", fontsize=9, fontname="helv")
    page.draw_rect((100, 645, 500, 720), width=0.8)
    page.draw_line((120, 710), (480, 660), width=1)
    data = to_bytes(doc)
    blocks = pymupdf.open(stream=data)[1].get_text("dict")["blocks"]
    assert any(len(b["lines"]) == 5 and b["bbox"][1] > 590 for b in blocks)  # one block: left, right, full width
    parsed = parse_pdf(data)
    fig = parsed.figure(1)
    assert fig is not None and fig.caption.endswith("standard errors over five seeds.")
    assert fig.caption_bbox[0] < 100 and fig.caption_bbox[2] > 450 and fig.caption_bbox[1] > 620
    assert fig.bbox is not None and fig.bbox[3] >= 719
    assert "each component helps on every collection we tried." in parsed.markdown
    assert "HalsaSiam: Clustered Token Distillation" in parsed.markdown


def _one_column_text(page: pymupdf.Page, y: float, lines: int, size: float = 10.5) -> float:
    """Body lines 90..522 from baseline y (different words on every page); returns the next baseline."""
    start = int(y + page.number * 7)
    for i in range(lines):
        page.insert_text((90, y), " ".join((WORDS * 40)[start + i * 12:start + (i + 1) * 12]), fontsize=size,
                         fontname="helv")
        y += size * 1.25
    return y - size


def _one_column_pages(doc: pymupdf.Document, n: int) -> None:
    for _ in range(n):
        _one_column_text(Page(doc).page, 82, 48)  # body lines end at y ~ 700


def test_caption_below_the_last_body_line_is_found() -> None:
    doc = new_doc()
    pg = Page(doc)
    y = _one_column_text(pg.page, 82, 30) + 10
    pg.page.draw_rect((120, y, 490, 700), width=0.8)  # a line chart under the text
    pg.page.draw_polyline([(130, 690), (250, 640), (370, 610), (480, y + 10)], width=1.2)
    pg.text(90, 721, "Figure 1:", 10.5, bold=True)
    pg.text(140, 721, "Effect of the training iterations (k) on FID on FFHQ 256.", 10.5)
    _one_column_pages(doc, 4)  # enough body lines that the caption is an outlier of the text area
    parsed = parse_pdf(to_bytes(doc))
    fig = parsed.figure(1)
    assert fig is not None and fig.page == 1
    assert fig.caption.startswith("Figure 1: Effect of the training iterations (k)")
    assert fig.bbox is not None and fig.bbox[1] == pytest.approx(y, abs=3) and fig.bbox[3] >= 721


def test_table_above_a_figure_each_gets_its_own_body() -> None:
    doc = new_doc()
    pg = Page(doc)
    y = pg.paragraph(82, 4)
    pg.text(90, y + 4, "Table 1: Accuracy of each method.", 9)
    top = y + 14
    pg.rule(120, 490, top, 0.8)
    pg.text(124, top + 10, "Method", 9)
    pg.text(400, top + 10, "Accuracy", 9)
    pg.rule(120, 490, top + 14)
    for i, (m, v) in enumerate([("BM25", "61.2"), ("Dense", "70.4"), ("Hybrid", "72.9")]):
        pg.text(124, top + 26 + 11 * i, m, 9)
        pg.text(400, top + 26 + 11 * i, v, 9)
    table_bottom = top + 26 + 11 * 2 + 4
    pg.rule(120, 490, table_bottom, 0.8)
    chart_top = table_bottom + 14
    pg.text(250, chart_top + 8, "Accuracy over epochs", 9)  # chart title above the axes
    pg.page.draw_rect((140, chart_top + 16, 480, chart_top + 150), width=0.8)
    pg.page.draw_polyline([(150, chart_top + 140), (300, chart_top + 60), (470, chart_top + 30)], width=1.2)
    for k, label in enumerate(["0", "10", "20", "30"]):
        pg.text(140 + 110 * k, chart_top + 162, label, 8)
    pg.text(90, chart_top + 182, "Figure 1: Accuracy of the hybrid model while training.", 9)
    pg.paragraph(chart_top + 204, 4)
    data = to_bytes(doc)
    parsed = parse_pdf(data)
    table, fig = parsed.table(1), parsed.figure(1)
    assert table is not None and fig is not None and table.bbox is not None and fig.bbox is not None
    assert table.bbox[3] <= table_bottom + 2, table.bbox
    assert chart_top - 2 <= fig.bbox[1] <= chart_top + 3, fig.bbox  # the chart title stays in the figure
    assert extract_table(data, table).rows == [["Method", "Accuracy"], ["BM25", "61.2"], ["Dense", "70.4"],
                                               ["Hybrid", "72.9"]]


def _hatched_bar(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    """A bar at x 200..260, y 480..560 filled with a tiling pattern (as matplotlib draws hatches); the
    pattern tile is 288pt tall, so its raw box reaches from y ~ 284 down to the bar."""
    pattern = doc.get_new_xref()
    doc.update_object(pattern, "<< /Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 72 72] "
                               "/XStep 72 /YStep 72 /Resources << >> /Matrix [4 0 0 4 180 220] >>")
    doc.update_stream(pattern, b"0 0 1 RG 0.3 w 0 0 m 72 72 l S")
    page.clean_contents()
    doc.xref_set_key(page.xref, "Resources/Pattern", f"<< /P1 {pattern} 0 R >>")
    xref = page.get_contents()[0]
    doc.update_stream(xref, page.read_contents() + b"\nq 200 232 60 80 re W n /Pattern cs /P1 scn 200 232 60 80 re f Q")


def test_clipped_pattern_tiles_count_only_where_they_show() -> None:
    doc = new_doc()
    pg = Page(doc)
    y = _one_column_text(pg.page, 82, 20)  # body text down to y ~ 340
    pg.page.draw_rect((150, 400, 450, 560), width=0.8)
    pg.text(90, 580, "Figure 1: Bars drawn with a hatch pattern.", 9)
    _one_column_text(pg.page, 610, 8)
    _hatched_bar(doc, pg.page)
    data = to_bytes(doc)
    tiles = [box for kind, box in pymupdf.open(stream=data)[0].get_bboxlog() if kind == "stroke-path"]
    assert any(box[1] < y for box in tiles)  # the trap is set: the raw tile box reaches into the text
    fig = parse_pdf(data).figure(1)
    assert fig is not None and fig.bbox is not None
    assert fig.bbox[1] >= 398, fig.bbox


def test_stray_body_line_is_not_part_of_a_float() -> None:
    doc = new_doc()
    pg = Page(doc)
    pg.text(90, 84, "in the results.", 10.5)  # a paragraph's last line carried over from the previous page
    pg.page.draw_rect((150, 100, 450, 230), width=0.8)
    pg.page.draw_polyline([(160, 220), (300, 150), (440, 110)], width=1.2)
    pg.text(90, 250, "Figure 1: Recall at ten for each collection.", 9)
    y = _one_column_text(pg.page, 280, 6)
    pg.text(90, y + 20, "Table 1: Cost of each method.", 9)
    pg.rule(90, 522, y + 28, 0.8)
    pg.text(94, y + 38, "Method", 9)
    pg.text(400, y + 38, "Seconds", 9)
    pg.rule(90, 522, y + 42)
    pg.text(94, y + 54, "BM25", 9)
    pg.text(400, y + 54, "0.8", 9)
    pg.text(94, y + 65, "Dense", 9)
    pg.text(400, y + 65, "2.5", 9)
    pg.rule(90, 522, y + 69, 0.8)
    pg.text(90, y + 90, "marginally.", 10.5)  # a one-line block under the table
    _one_column_text(pg.page, y + 120, 6)
    _one_column_pages(doc, 2)
    data = to_bytes(doc)
    parsed = parse_pdf(data)
    fig, table = parsed.figure(1), parsed.table(1)
    assert fig is not None and fig.bbox is not None and fig.bbox[1] >= 98, fig.bbox
    assert table is not None and table.bbox is not None and table.bbox[3] <= y + 71, (table.bbox, y)
    assert extract_table(data, table).rows == [["Method", "Seconds"], ["BM25", "0.8"], ["Dense", "2.5"]]


def _corpus_paper(pid: str):
    """A paper of corpus v1 (these layouts were found there), built beside the default sandbox (sandbox/build-v1)."""
    from sandbox.corpus.model import GroundTruth
    from sandbox.corpus.versions import corpus_version

    root = corpus_version("v1").default_dir()
    gt_path = root / "ground_truth.json"
    if not gt_path.is_file():
        pytest.skip(f"corpus v1 not built at {gt_path} (run `epi sandbox build --corpus v1`)")
    gt = GroundTruth.model_validate_json(gt_path.read_text(encoding="utf-8"))
    paper = next((p for p in gt.papers if p.id == pid), None)
    if paper is None:
        pytest.skip(f"the built corpus has no paper {pid}")
    return paper, (root / "corpus" / paper.pdf.split("/")[-1]).read_bytes()


def _plain(cell: str) -> str:
    return cell.replace("**", "").strip()


@pytest.mark.parametrize(("pid", "table_n"), [("P027", 1), ("P032", 1), ("P065", 2)])
def test_corpus_tables_next_to_gutter_blocks_and_figures(pid: str, table_n: int) -> None:
    paper, data = _corpus_paper(pid)
    want = next(t for t in paper.tables if t.n == table_n)
    got = parse_pdf(data).table(table_n)
    assert got is not None and got.page == want.page
    rows = [[_plain(c) for c in r] for r in extract_table(data, got).rows]
    assert rows == [[_plain(c) for c in want.columns]] + [[_plain(c) for c in r] for r in want.rows]


@pytest.mark.parametrize(("pid", "figure_n"), [("P045", 1), ("P007", 1), ("P032", 3), ("P006", 2)])
def test_corpus_figures_stay_in_their_slot(pid: str, figure_n: int) -> None:
    paper, data = _corpus_paper(pid)
    want = next(f for f in paper.figures if f.n == figure_n)
    got = parse_pdf(data).figure(figure_n)
    assert got is not None and got.page == want.page and got.bbox is not None and want.bbox is not None
    assert abs(got.bbox[1] - want.bbox[1]) <= 5 and abs(got.bbox[3] - want.bbox[3]) <= 5, (got.bbox, want.bbox)
    assert got.bbox[0] >= want.bbox[0] - 5 and got.bbox[2] <= want.bbox[2] + 5, (got.bbox, want.bbox)
