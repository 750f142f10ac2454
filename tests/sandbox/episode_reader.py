"""Re-derive generated answers from the question text and the ground truth, independently of the generator.

A test reads each question as an agent with perfect perception would: it finds the table cell or the
plotted point the question names and recomputes the gold answer (values, sums, sets, choices).
"""
from __future__ import annotations

import re

from harness.episode import Episode
from sandbox.corpus.model import GroundTruth, PaperGT

TURN_REF = r"of the paper from turn (\d+)"
TABLE_PHRASE = re.compile(r'the "(.+?)" value of "(.+?)" in Table (\d+) ' + TURN_REF)
BAR_PHRASE = re.compile(r'the height of the "(.+?)" bar at "(.+?)" in Figure (\d+) ' + TURN_REF)
X = r'("[^"]+"|\S+)'
LINE_PHRASE = re.compile(r'the .+? of "(.+?)" at .+? = ' + X + r' in Figure (\d+) ' + TURN_REF)
READ_TABLE = re.compile(r'In Table (\d+), what value(?: \(.*\))? is reported for the \w+ "(.+?)" in the column "(.+?)"\?')
READ_BAR = re.compile(r'Figure (\d+) is a bar chart\. What is the height of the "(.+?)" bar at "(.+?)" \(.*\)\?')
READ_LINE = re.compile(r'Figure (\d+) plots .+ against .+?\. What is the .+ of the series "(.+?)" at .+ = ' + X + r'\? Read')


def fmt_x(x: float | str) -> str:
    if isinstance(x, str):
        return x
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def table_value(p: PaperGT, n: int, row: str, col: str) -> float:
    t = next(t for t in p.tables if t.n == n)
    r = next(r for r in t.rows if r[0] == row)
    return float(r[t.columns.index(col)])


def figure_value(p: PaperGT, n: int, series: str, x: str) -> float:
    x = x.strip('"')
    f = next(f for f in p.figures if f.n == n)
    assert not f.values_in_text, f"{p.id} figure {n} prints its values in the text"
    s = next(s for s in f.series if s.label == series)
    xs = [fmt_x(v) for v in s.x]
    assert xs.count(x) == 1, f"{p.id} figure {n} {series}: x={x} is not one plotted point"
    return s.y[xs.index(x)]


class EpisodeReader:
    """Resolves the phrases of one episode against the ground truth."""

    def __init__(self, gt: GroundTruth, ep: Episode):
        self.papers = {p.id: p for p in gt.papers}
        self.ep = ep

    def paper_of_turn(self, k: int) -> PaperGT:
        ev = self.ep.turns[k - 1].evidence
        assert len({e.paper for e in ev}) == 1
        return self.papers[ev[0].paper]

    def phrase_value(self, text: str) -> float:
        if m := TABLE_PHRASE.fullmatch(text):
            col, row, n, k = m.groups()
            return table_value(self.paper_of_turn(int(k)), int(n), row, col)
        if m := BAR_PHRASE.fullmatch(text):
            series, x, n, k = m.groups()
            return figure_value(self.paper_of_turn(int(k)), int(n), series, x)
        if m := LINE_PHRASE.fullmatch(text):
            series, x, n, k = m.groups()
            return figure_value(self.paper_of_turn(int(k)), int(n), series, x)
        raise AssertionError(f"cannot resolve phrase {text!r}")

    def reading_value(self, turn_index: int) -> float | None:
        """The value a reading question asks for, from the ground truth (None if it asks no value)."""
        t = self.ep.turns[turn_index]
        p = self.papers[t.evidence[0].paper]
        if m := READ_TABLE.search(t.question):
            n, row, col = m.groups()
            return table_value(p, int(n), row, col)
        if m := READ_BAR.search(t.question):
            n, series, x = m.groups()
            return figure_value(p, int(n), series, x)
        if m := READ_LINE.search(t.question):
            n, series, x = m.groups()
            return figure_value(p, int(n), series, x)
        return None

    def candidates(self, question: str) -> tuple[dict[str, float], dict[str, float] | None, str, float, float | None]:
        """For a constraint question: candidate -> value, candidate -> second value, direction, reference, threshold."""
        tm = re.search(r'Consider every \w+ listed in Table (\d+) ' + TURN_REF + r'\. .*? a "(.+?)" value (higher|lower) than '
                       r'(the .+? ' + TURN_REF + r')(?:, and also a "(.+?)" value greater than ([\d.]+))?[?.]', question)
        if tm:
            n, k, col, word, ref, _, col2, t2 = tm.groups()
            t = next(t for t in self.paper_of_turn(int(k)).tables if t.n == int(n))
            first = {r[0]: float(r[t.columns.index(col)]) for r in t.rows}
            second = {r[0]: float(r[t.columns.index(col2)]) for r in t.rows} if col2 else None
            return first, second, word, self.phrase_value(ref), float(t2) if t2 else None
        fm = re.search(r'Consider every series in Figure (\d+) ' + TURN_REF + r'\. .*? a value at .+? = ' + X + r' (higher|lower) than '
                       r'(the .+? ' + TURN_REF + r')(?:, and also a value at .+? = ' + X + r' greater than ([\d.]+))?[?.]', question)
        assert fm, f"cannot parse constraint question {question!r}"
        n, k, x, word, ref, _, x2, t2 = fm.groups()
        f = next(f for f in self.paper_of_turn(int(k)).figures if f.n == int(n))

        def at(x_value: str) -> dict[str, float]:
            x_value = x_value.strip('"')
            return {s.label: s.y[[fmt_x(v) for v in s.x].index(x_value)] for s in f.series
                    if x_value in [fmt_x(v) for v in s.x]}
        return at(x), (at(x2) if x2 else None), word, self.phrase_value(ref), float(t2) if t2 else None

    def ranking_label(self, turn_index: int) -> str:
        """The row or series a ranking question asks for, with its runner-up check left to the caller."""
        t = self.ep.turns[turn_index]
        p = self.papers[t.evidence[0].paper]
        if m := re.search(r'In Table (\d+), which \w+ has the (highest|lowest) value in the column "(.+?)"\?', t.question):
            n, word, col = m.groups()
            tab = next(x for x in p.tables if x.n == int(n))
            values = {r[0]: float(r[tab.columns.index(col)]) for r in tab.rows}
        else:
            m = re.search(r"In Figure (\d+), which series has the (highest|lowest) .+ at .+? = " + X + r"\? Read", t.question)
            assert m, t.question
            n, word, x = m.groups()
            fig = next(f for f in p.figures if f.n == int(n))
            x = x.strip('"')
            values = {s.label: s.y[[fmt_x(v) for v in s.x].index(x)] for s in fig.series if x in [fmt_x(v) for v in s.x]}
        best = (max if word == "highest" else min)(values, key=values.get)
        assert sorted(values.values()).count(values[best]) == 1, t.question
        return best
