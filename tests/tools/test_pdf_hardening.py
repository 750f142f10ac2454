"""Real-paper failure modes of the PDF parser, each on a small synthetic PDF drawn with PyMuPDF.

Wrapped table cells, stacked and spanning headers, ruled grids, IEEE/ACM caption styles
("TABLE IV", "Fig. 3."), supplementary and continued floats, and page-1 headings next to the abstract.
"""
from __future__ import annotations

from tools.pdf import extract_table, parse_pdf

from .pdf_synth import Page, new_doc, to_bytes


def _table_page(pg: Page, rows: list[tuple[list[str], list[str]]], inner_rules: bool) -> None:
    """Body text, a captioned two-column table whose cells wrap over several lines, body text."""
    y = pg.paragraph(80, 6)
    pg.text(72, y + 4, "Table 1: Methods and what they do.", 9)
    y += 16
    pg.rule(72, 540, y, 0.8)
    y += 12
    pg.text(76, y, "Method", 9, True)
    pg.text(220, y, "Description", 9, True)
    y += 4
    pg.rule(72, 540, y)
    y += 12
    for left, right in rows:
        for i in range(max(len(left), len(right))):
            if i < len(left):
                pg.text(76, y, left[i], 9)
            if i < len(right):
                pg.text(220, y, right[i], 9)
            y += 11
        if inner_rules:
            y -= 7
            pg.rule(72, 540, y)
            y += 12
    if not inner_rules:
        y -= 7
        pg.rule(72, 540, y, 0.8)
    pg.paragraph(y + 20, 6)


WRAPPED = [
    (["BM25 sparse", "retrieval baseline"], ["scores each document by the overlap of its",
                                              "terms with the query, weighted by rarity."]),
    (["Dense dual", "encoder"], ["embeds queries and documents separately and", "ranks them by the inner product of",
                                 "their vectors."]),
]


def test_wrapped_cells_between_row_rules_make_one_row_each() -> None:
    doc = new_doc()
    _table_page(Page(doc), WRAPPED, inner_rules=True)
    data = to_bytes(doc)
    rows = extract_table(data, parse_pdf(data).table(1)).rows
    assert rows == [
        ["Method", "Description"],
        ["BM25 sparse retrieval baseline",
         "scores each document by the overlap of its terms with the query, weighted by rarity."],
        ["Dense dual encoder", "embeds queries and documents separately and ranks them by the inner product of "
                               "their vectors."],
    ]


def test_wrapped_cells_without_row_rules_join_their_continuation_lines() -> None:
    rows_in = [(["BM25"], ["scores each document by the overlap of its", "terms with the query."]),
               (["Dense"], ["embeds queries and documents sepa-", "rately, then ranks them."]),
               (["Hybrid"], ["Fuses both rankings."])]
    doc = new_doc()
    _table_page(Page(doc), rows_in, inner_rules=False)
    data = to_bytes(doc)
    rows = extract_table(data, parse_pdf(data).table(1)).rows
    assert rows == [
        ["Method", "Description"],
        ["BM25", "scores each document by the overlap of its terms with the query."],
        ["Dense", "embeds queries and documents separately, then ranks them."],
        ["Hybrid", "Fuses both rankings."],
    ]


def test_stacked_and_spanning_header_lines_fold_into_one_header_row() -> None:
    doc = new_doc()
    pg = Page(doc)
    y = pg.paragraph(80, 6)
    pg.text(72, y + 4, "Table 1: Retrieval results.", 9)
    y += 16
    pg.rule(72, 400, y, 0.8)
    cols = [200, 260, 330]  # left edges of nDCG, P@1, Avg.
    pg.text(222, y + 12, "Retrieval", 9)  # centred over nDCG and P@1, \cmidrule below it
    pg.rule(198, 300, y + 15)
    pg.text(330, y + 18, "Avg.", 9)  # one header line lower: stacked, not a row of its own
    pg.text(76, y + 26, "Model", 9)
    pg.text(cols[0], y + 26, "nDCG", 9)
    pg.text(cols[1], y + 26, "P@1", 9)
    y += 30
    pg.rule(72, 400, y)
    y += 12
    for name, vals in (("BM25", ("41.2", "30.1", "35.6")), ("SPECTER", ("53.9", "20.0", "37.0")),
                       ("Ours", ("55.0", "22.4", "38.7"))):
        pg.text(76, y, name, 9)
        for x, v in zip(cols, vals):
            pg.text(x, y, v, 9)
        y += 12
    pg.rule(72, 400, y - 7, 0.8)
    pg.paragraph(y + 20, 6)
    data = to_bytes(doc)
    rows = extract_table(data, parse_pdf(data).table(1)).rows
    assert rows[0] == ["Model", "Retrieval nDCG", "Retrieval P@1", "Avg."]
    assert rows[1:] == [["BM25", "41.2", "30.1", "35.6"], ["SPECTER", "53.9", "20.0", "37.0"],
                        ["Ours", "55.0", "22.4", "38.7"]]


def test_grid_table_with_full_ruling_goes_through_find_tables() -> None:
    doc = new_doc()
    pg = Page(doc)
    y = pg.paragraph(80, 6)
    pg.text(72, y + 4, "Table 1: Dataset sizes.", 9)
    top = y + 14
    xs = [72, 200, 320, 440]
    cells = [["Dataset", "Train", "Test"], ["SciDocs", "25,000", "1,000"], ["TREC-COVID", "171,332", "50"],
             ["NFCorpus", "3,633", "323"]]
    for i, row in enumerate(cells):
        for x, text in zip(xs, row):
            pg.text(x + 4, top + 14 + 18 * i, text, 9)
    for i in range(len(cells) + 1):
        pg.rule(xs[0], xs[-1], top + 18 * i)
    for x in xs:
        pg.vrule(x, top, top + 18 * len(cells))
    pg.paragraph(top + 18 * len(cells) + 30, 6)
    data = to_bytes(doc)
    result = extract_table(data, parse_pdf(data).table(1))
    assert result.method == "lines"
    assert result.rows == cells


def test_ieee_acm_caption_styles() -> None:
    doc = new_doc()
    pg = Page(doc)
    y = pg.paragraph(80, 5)
    pg.text(286, y + 6, "TABLE IV", 8)  # IEEE: roman number on its own line, the caption text below it
    pg.text(230, y + 16, "COMPARISON OF THE THREE SYSTEMS", 8)
    y += 32
    for i, (a, b) in enumerate((("System", "F1"), ("Ours", "81.2"), ("Base", "77.0"))):
        pg.text(200, y + 12 * i, a, 9)
        pg.text(360, y + 12 * i, b, 9)
    y = pg.paragraph(y + 50, 5)
    pg.page.draw_rect((150, y, 450, y + 90), color=(0, 0, 0), fill=(0.8, 0.8, 0.9))
    pg.text(72, y + 104, "Fig. 3. Accuracy of the three systems over training steps.", 9)
    y = pg.paragraph(y + 130, 3)
    pg.page.draw_rect((150, y, 450, y + 80), color=(0, 0, 0), fill=(0.9, 0.8, 0.8))
    pg.text(72, y + 94, "Figure S2: Supplementary plot of the same runs.", 9)
    pg.paragraph(y + 120, 3)
    pg2 = Page(doc)
    y = pg2.paragraph(80, 5)
    pg2.page.draw_rect((150, y, 450, y + 90), color=(0, 0, 0), fill=(0.8, 0.9, 0.8))
    pg2.text(72, y + 104, "Fig. 2: Architecture of the system.", 9)
    y = pg2.paragraph(y + 130, 4)
    pg2.text(72, y, "TABLE IV (continued)", 8)
    for i, (a, b) in enumerate((("System", "F1"), ("Large", "83.0"))):
        pg2.text(200, y + 14 + 12 * i, a, 9)
        pg2.text(360, y + 14 + 12 * i, b, 9)
    pg2.paragraph(y + 60, 4)
    data = to_bytes(doc)
    parsed = parse_pdf(data)
    assert [(t.n, t.page) for t in parsed.tables] == [(4, 1)]
    assert parsed.tables[0].caption == "TABLE IV COMPARISON OF THE THREE SYSTEMS"
    assert [(f.n, f.page) for f in parsed.figures] == [(2, 2), (3, 1)]
    assert parsed.figure(3).caption.startswith("Fig. 3. Accuracy")
    assert parsed.figure(2).caption == "Fig. 2: Architecture of the system."
    assert parsed.figure(3).bbox is not None and parsed.figure(3).bbox[1] < parsed.figure(3).caption_bbox[1] - 80
    assert "Supplementary plot" in parsed.markdown  # Figure S2 is text, not a clash with Figure 2
    rows = extract_table(data, parsed.table(4)).rows
    assert rows == [["System", "F1"], ["Ours", "81.2"], ["Base", "77.0"]]


def test_small_caps_captions_are_found() -> None:
    doc = new_doc()
    pg = Page(doc)
    y = pg.paragraph(80, 5)
    pg.page.draw_rect((150, y, 450, y + 90), color=(0, 0, 0), fill=(0.8, 0.8, 0.9))
    pg.text(72, y + 104, "F", 9)  # small caps: a capital, then smaller capitals
    pg.text(78.5, y + 104, "IGURE 1: ", 7)
    pg.text(116, y + 104, "Loss over time.", 9)
    y = pg.paragraph(y + 130, 4)
    pg.text(72, y, "table 2: precision of the systems.", 8)  # small-caps font whose glyphs are lowercase
    for i, (a, b) in enumerate((("System", "P"), ("Ours", "0.91"), ("Base", "0.85"))):
        pg.text(200, y + 14 + 12 * i, a, 9)
        pg.text(360, y + 14 + 12 * i, b, 9)
    pg.paragraph(y + 70, 4)
    data = to_bytes(doc)
    parsed = parse_pdf(data)
    assert [f.n for f in parsed.figures] == [1] and "Loss over time" in parsed.figure(1).caption
    assert [t.n for t in parsed.tables] == [2]


def _front_page(abstract_run_in: bool) -> bytes:
    doc = new_doc()
    pg = Page(doc)
    pg.text(120, 90, "Ranking Scientific Papers With Care", 16, True)
    pg.text(200, 120, "Jane Doe and Max Roe", 11, True)
    pg.text(190, 134, "University of Somewhere", 10)
    y = 170
    if abstract_run_in:  # LNCS: "Abstract." run in, in a smaller font than the body
        pg.text(90, y, "Abstract. We rank papers by their content and their citations, in one model", 9)
    else:
        pg.text(90, y, "Abstract", 11, True)
        y += 14
        pg.text(90, y, "We rank papers by their content and their citations, in one model that", 9)
    pg.text(90, y + 11, "learns from both signals and is evaluated on seven benchmark tasks.", 9)
    pg.text(72, y + 40, "1 Introduction", 12, True)
    y = pg.paragraph(y + 58, 6)
    pg.text(72, y + 6, "2 Related Work", 12, True)
    pg.paragraph(y + 24, 8)
    Page(doc).paragraph(72, 50)  # a full page of body text: the text area starts at the top margin
    return to_bytes(doc)


def test_page_one_abstract_and_introduction_are_sections_not_author_lines() -> None:
    for run_in in (True, False):
        parsed = parse_pdf(_front_page(run_in))
        titles = [s.title for s in parsed.sections]
        assert parsed.title == "Ranking Scientific Papers With Care"
        want = ["1 Introduction", "2 Related Work"] if run_in else ["Abstract", "1 Introduction", "2 Related Work"]
        assert titles == want, (run_in, titles)
        assert "## 1 Introduction" in parsed.markdown
