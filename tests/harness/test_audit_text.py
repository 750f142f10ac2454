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


def test_pdf_rag_passages_leave_out_the_query_the_tool_repeats():
    """pdf_rag's first line repeats the query; a number in the audit's own question ("at hidden dimension = 64") is
    not the paper printing a plotted 64.25."""
    import asyncio

    from harness.audit._texts import PaperReader
    from tools import ToolResult

    class Reader(PaperReader):
        async def call(self, tool, args):
            return ToolResult(text=f"Passages of P1 (A title) for {args['query']!r}:\n\n[1] (page 2)\nCallo-B trains for 3 days.")

    lines = asyncio.run(Reader(None).passages("P1", 'What is the accuracy of "Callo-B" at hidden dimension = 64?'))
    assert any("3 days" in ln.text for ln in lines) and not any("64" in ln.text for ln in lines)
    item = AskedValue("e1", 1, "P1", "figure:3", 64.25, 0.3, "Callo-B")
    assert not any(printed_on(ln, item, "Callo-B") for ln in lines)
