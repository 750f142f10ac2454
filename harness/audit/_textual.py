"""Checks that read the papers through the tools: figure values a reader finds printed as text, table
values that another paper prints for the same row and column, and series a question cannot pin down.
"""
from __future__ import annotations

from harness.episode import Episode

from ._items import AskedValue, asked_values
from ._model import Breakdown, CheckResult, Finding, pct, rate_shown
from ._texts import PaperReader, TextLine, matches_value, names, numbers

MAX_FIGURE_IN_TEXT = 2.0  # % of figure values (issue 13)


def _column_index(line: TextLine, column: str | None) -> int | None:
    if not column or not line.header:
        return None
    for i, h in enumerate(line.header):
        if h and names(h, column) and names(column, h):
            return i
    return None


def printed_on(line: TextLine, item: AskedValue, name: str) -> bool:
    """`line` names `name` and prints the value. On a table row, when the value's column or dataset is
    known, only that column's cell counts (a table without that column does not print the value), so a
    cell of another dataset that happens to lie within the tolerance is no evidence."""
    if not names(line.text, name):
        return False
    text = line.text
    if line.is_row:
        setting = item.column or item.dataset
        idx = _column_index(line, setting)
        if idx is not None and idx < len(line.cells):
            text = line.cells[idx]
        elif setting is not None:
            return False
        else:
            text = " ".join(c for c in line.cells if not names(c, name))
    return any(matches_value(p, item.value, item.tolerance) for p in numbers(text))


async def where_printed(reader: PaperReader, item: AskedValue) -> TextLine | None:
    """The first table row, sentence, caption or pdf_rag passage of the paper that gives the value away."""
    if not item.series:
        return None
    paper = await reader.paper(item.paper)
    for line in paper.lines:
        if printed_on(line, item, item.series):
            return line
    for line in await reader.passages(item.paper):
        if printed_on(line, item, item.series):
            return line
    return None


async def figure_values_in_text(episodes: list[Episode], reader: PaperReader) -> CheckResult:
    """Figure values that text already prints on a row or sentence naming the same series."""
    items = [a for ep in episodes for a in asked_values(ep) if a.kind == "figure"]
    findings: list[Finding] = []
    by_source = {"table": 0, "text": 0}
    unnamed = 0
    for item in items:
        if not item.series:
            unnamed += 1
            continue
        line = await where_printed(reader, item)
        if line is None:
            continue
        src = "table" if line.is_row else "text"
        by_source[src] += 1
        findings.append(Finding(episode=item.episode, turn=item.turn, message=(
            f"{item.paper} {item.unit} {item.series!r} = {item.value:g} is printed in {line.where}: {line.text[:140]!r}")))
    total = len(items) - unnamed
    share = pct(len(findings), total)
    return CheckResult(
        id="figure_values_in_text", title="figure values printed in text", count=len(findings), total=total, value=share,
        shown=rate_shown(len(findings), total), threshold=f"<= {MAX_FIGURE_IN_TEXT:g}%",
        status="not checked" if total == 0 else ("fail" if share > MAX_FIGURE_IN_TEXT else "pass"),
        not_checked=unnamed, not_checked_why="figure values whose series is neither annotated nor quoted" if unnamed else None,
        breakdown=[Breakdown(label="on a table row", count=by_source["table"], total=total),
                   Breakdown(label="in a sentence (body, caption, nearby text, pdf_rag)", count=by_source["text"], total=total)],
        findings=findings)


async def recurring_table_values(episodes: list[Episode], reader: PaperReader, areas: dict[str, str | None]) -> CheckResult:
    """Table values another paper (of the same area, when areas are known) prints for the same row and
    column: an agent on the wrong paper still scores right."""
    items = [a for ep in episodes for a in asked_values(ep) if a.kind == "table" and a.series and a.column]
    findings = []
    for item in items:
        own_area = areas.get(item.paper)
        for other, area in areas.items():
            if other == item.paper or (own_area is not None and area != own_area):
                continue
            pt = await reader.paper(other, figures=False)
            hit = next((ln for ln in pt.lines if ln.is_row and _row_has(ln, item)), None)
            if hit is not None:
                findings.append(Finding(episode=item.episode, turn=item.turn, message=(
                    f"{item.paper} {item.unit} {item.series!r}/{item.column!r} = {item.value:g} is also in {other} {hit.where}")))
                break
    return CheckResult(id="recurring_table_values", title="table values another paper prints for the same row and column",
                       count=len(findings), total=len(items), value=pct(len(findings), len(items)),
                       shown=rate_shown(len(findings), len(items)), threshold=None, status="report", findings=findings)


def _row_has(line: TextLine, item: AskedValue) -> bool:
    label = " ".join(c for c in line.cells[:1])
    if not item.series or not (names(label, item.series) and names(item.series, label)):
        return False
    idx = _column_index(line, item.column)
    if idx is None or idx >= len(line.cells):
        return False
    return any(abs(p.value - item.value) <= max(item.tolerance or 0.0, 1e-9) for p in numbers(line.cells[idx]))
