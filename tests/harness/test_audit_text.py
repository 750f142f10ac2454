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
    assert names("TavquinGNN is best", "TavquinGNN") and not names("TavquinGNN-L is best", "TavquinGNN")
