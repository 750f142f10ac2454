"""How the audit decides that text prints a figure value: the series named on the line, the value within
the turn's tolerance or the printed rounding, and on a table row only the cell of the value's setting."""
from harness.audit._items import AskedValue
from harness.audit._textual import printed_on
from harness.audit._texts import TextLine, matches_value, names, numbers

ROW = TextLine("table:1", "Ours | 71.5 | 80.2", ("Ours", "71.5", "80.2"), ("Method", "ImageNet-1K", "CIFAR-100"))


def _item(value: float, tol: float | None = 0.5, dataset: str | None = None) -> AskedValue:
    return AskedValue("e1", 1, "P001", "figure:1", value, tol, "Ours", dataset=dataset)


def test_a_row_counts_only_in_the_column_of_the_value_setting_when_known():
    assert printed_on(ROW, _item(71.3, dataset="ImageNet-1K"), "Ours")
    assert not printed_on(ROW, _item(71.3, dataset="CIFAR-100"), "Ours")  # 71.5 is another dataset's value
    assert not printed_on(ROW, _item(71.3, dataset="Places365"), "Ours")  # the table has no such column
    assert printed_on(ROW, _item(71.3), "Ours")  # setting unknown: any cell of the series' row
    assert not printed_on(ROW, _item(71.3), "Baseline")  # the row must name the series


def test_value_matches_within_tolerance_or_the_printed_rounding():
    (p,) = numbers("reaches 85 at the end")
    assert matches_value(p, 85.4, None) and not matches_value(p, 85.6, None)  # "85" stands for 84.5..85.5
    (q,) = numbers("reaches 85.14")
    assert matches_value(q, 85.0, 0.25) and not matches_value(q, 85.0, 0.1)


def test_numbers_and_names_ignore_labels_and_parts_of_words():
    assert [n.value for n in numbers("Figure 2 (page 3, section 4.2) on CIFAR-100: top-1 of 71.2 and \u22120.5 [4]")] == [71.2, -0.5]
    # citation lists are labels too (corpus v3 cites "[3, 6]"), not a 6 that could stand for a plotted 6.37
    assert [n.value for n in numbers("CTC models such as Xansami and Xanden [3, 6] and [2\u20135], at 6.4")] == [6.4]
    assert names("TavquinGNN is best", "TavquinGNN") and not names("TavquinGNN-L is best", "TavquinGNN")


def test_the_audit_reads_figures_as_figure_extract_shows_them_without_rendering(tiny_sandbox):
    """The audit's figure read is figure_extract's text, data and provenance, nothing rendered; a bad figure
    number is the same error result."""
    import asyncio

    from harness.audit._texts import PaperReader
    from sandbox.world import SandboxWorld
    from tools import get_tool

    world = SandboxWorld(tiny_sandbox)
    paper = sorted(p.stem for p in (tiny_sandbox / "corpus").glob("*.pdf"))[0]

    async def both(figure: int):
        return (await get_tool("figure_extract")(world, {"paper": paper, "figure": figure}),
                await PaperReader(world).call("figure_extract", {"paper": paper, "figure": figure}, image=False))

    full, text_only = asyncio.run(both(1))
    assert full.images and not text_only.images and not full.is_error
    assert (text_only.text, text_only.data, text_only.provenance) == (full.text, full.data, full.provenance)
    full, text_only = asyncio.run(both(99))
    assert full.is_error and (text_only.error, text_only.error_kind) == (full.error, full.error_kind)


def test_the_audit_scans_every_passage_pdf_rag_could_show(tiny_sandbox):
    """Whatever pdf_rag returns for a query, the audit's passages hold each of its sentences (pdf_rag may cut a
    long passage; the audit reads them whole), and no query is echoed into them."""
    import asyncio

    from harness.audit._texts import PaperReader, sentences
    from sandbox.world import SandboxWorld
    from tools import get_tool

    world = SandboxWorld(tiny_sandbox)
    paper = sorted(p.stem for p in (tiny_sandbox / "corpus").glob("*.pdf"))[0]
    reader = PaperReader(world)
    scanned = {ln.text for ln in asyncio.run(reader.passages(paper))}
    assert scanned and not any("dimension = 64" in t for t in scanned)
    for query in ("results on the main benchmark", "training setup and hyperparameters", "dimension = 64"):
        res = asyncio.run(get_tool("pdf_rag")(world, {"paper": paper, "query": query, "k": 20}))
        assert not res.is_error, res.error
        for span in res.data["spans"]:
            if len(span["text"]) < 1400:  # pdf_rag cuts longer passages at SPAN_CHARS
                assert {ln.text for ln in sentences(span["text"], "pdf_rag")} <= scanned
    assert asyncio.run(reader.passages("no-such-paper")) == []
