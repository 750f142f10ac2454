"""Text-derived guesses for the text-only adversary: what a figure question asks, the text lines a paper
showed in memory (table rows, sentences, captions, passages), and the number or option they favour.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from statistics import mean

from harness.agent import Observation

from ._reading import letter_for, norm

_SPLIT = re.compile(r"(?<=[.!?;])\s+(?=[A-Z(\"'])|\n+")
# labels whose numbers are no measurements: "Figure 2", "(page 4", "section 4.3", "Part 1 of 2", "[3]"
_NOT_VALUES = re.compile(r"\b(?:Fig(?:ure)?s?|Tab(?:le)?s?|pages?|sec(?:tion)?s?)\.?\s*\d+(?:\.\d+)*[a-z]?"
                         r"|\bPart \d+ of \d+|\[\d+\]", re.I)
_NUM = re.compile(r"(?<![\w.])(?<!\w-)[-\u2212]?\d+(?:\.\d+)?(?!\w|\.\d)")
_QUOTED = re.compile(r'"([^"]+)"')
_FIG = re.compile(r"\bFigure (\d+)")
_AT_X = re.compile(r"\bat\s+([^=?\"]{1,60}?)\s*=\s*(-?\d+(?:\.\d+)?)")
_AT_CAT = re.compile(r'\bat\s+(?:[^=?"]{1,40}=\s*)?"([^"]+)"')
_HIGH = re.compile(r"\b(highest|largest|best|above|outperform\w*|leads?|top|exceeds?|higher|better|wins?)\b", re.I)
_LOW = re.compile(r"\b(lowest|smallest|worst|below|lags?|trails?|lower|weakest)\b", re.I)


@dataclass(frozen=True)
class FigureAsk:
    """What a figure question names: the figure, the series, the x setting or bar category, the direction."""

    figure: int
    series: str | None
    x: float | None = None
    x_text: str | None = None
    category: str | None = None
    highest: bool | None = None


def parse_figure_ask(question: str) -> FigureAsk | None:
    fig = _FIG.search(question)
    if fig is None:
        return None
    quoted = _QUOTED.findall(question)
    mx = _AT_X.search(question)
    mc = _AT_CAT.search(question)
    series = None
    category = mc.group(1) if mc and mx is None else None
    for q in quoted:
        if q != category:
            series = q
            break
    low = re.search(r"\b(lowest|smallest)\b", question)
    high = re.search(r"\b(highest|largest)\b", question)
    return FigureAsk(figure=int(fig.group(1)), series=series, x=float(mx.group(2)) if mx else None,
                     x_text=mx.group(2) if mx else None, category=category,
                     highest=True if high else (False if low else None))


@dataclass(frozen=True)
class Line:
    where: str  # "table:N", "table:N text", "figure:N", "text", "pdf_rag"
    text: str
    cells: tuple[str, ...] = ()
    header: tuple[str, ...] = ()


def numbers(text: str) -> list[float]:
    return [float(m.replace("\u2212", "-")) for m in _NUM.findall(_NOT_VALUES.sub(" ", text.replace(",", "")))]


def names(text: str, name: str | None) -> bool:
    want = norm(name or "")
    return bool(want) and re.search(rf"(?<!\w){re.escape(want)}(?!\w)", norm(text)) is not None


def _sentences(text: str, where: str) -> list[Line]:
    return [Line(where, s.strip(" |#*-")) for s in _SPLIT.split(text) if s.strip(" |#*-")]


def paper_lines(memory: list[Observation], paper: str) -> list[Line]:
    """Every text line the tools showed about `paper` in this episode; images are ignored."""
    out: list[Line] = []
    for obs in memory:
        if obs.error or not (any(p.paper == paper for p in obs.provenance) or obs.args.get("paper") == paper):
            continue
        data = obs.data or {}
        if obs.tool == "table_extract":
            rows = data.get("rows") or []
            n = data.get("n")
            header = tuple(c.strip() for c in rows[0]) if rows else ()
            out += [Line(f"table:{n}", " | ".join(c for c in r if c), tuple(c.strip() for c in r), header) for r in rows[1:]]
            if "Text that mentions it:" in obs.text:
                out += _sentences(obs.text.split("Text that mentions it:", 1)[1], f"table:{n} text")
        elif obs.tool == "figure_extract":
            out += _sentences(obs.text, f"figure:{data.get('n')}")
        elif obs.tool in ("pdf_extract", "pdf_rag"):
            out += _sentences(obs.text, "text" if obs.tool == "pdf_extract" else "pdf_rag")
    return out


def _row_label(line: Line) -> str:
    cells = [c for c in line.cells if c]
    i = 0
    while i < len(cells) and not numbers(cells[i]):
        i += 1
    return " ".join(cells[:i]) or (cells[0] if cells else "")


def _column(line: Line, name: str | None) -> int | None:
    if not name:
        return None
    for i, h in enumerate(line.header):
        if h and norm(h) == norm(name):
            return i
    for i, h in enumerate(line.header):
        if h and (names(h, name) or names(name, h)):
            return i
    return None


def _figure_datasets(lines: list[Line], figure: int, headers: tuple[str, ...]) -> list[str]:
    """Table columns that the figure's caption or nearby text names (the setting the figure shows)."""
    text = " ".join(ln.text for ln in lines if ln.where == f"figure:{figure}")
    return [h for h in headers[1:] if h and names(text, h)]


def row_value(line: Line, column: str | None) -> float | None:
    idx = _column(line, column)
    if idx is not None and idx < len(line.cells):
        found = numbers(line.cells[idx])
        if found:
            return found[0]
    values = [v for c in line.cells[1:] for v in numbers(c)]
    return values[0] if values else None


def guess_figure_value(ask: FigureAsk, lines: list[Line]) -> float | None:
    """The number the text gives for the asked series and setting, best evidence first."""
    skip = {ask.x} if ask.x is not None else set()
    prose = [ln for ln in lines if not ln.cells and names(ln.text, ask.series)]
    # 1. a sentence that names the series at the asked x ("at 400 epochs X reaches 85.1")
    for ln in prose:
        if ask.x is not None and any(abs(v - ask.x) < 1e-9 for v in numbers(ln.text)):
            found = [v for v in numbers(ln.text) if v not in skip]
            if found:
                return found[0]
    # 2. the series' table row, in the column of the bar category or of the setting the figure shows
    rows = [ln for ln in lines if ln.cells and ask.series and norm(_row_label(ln)) == norm(ask.series)]
    if not rows:
        rows = [ln for ln in lines if ln.cells and names(_row_label(ln), ask.series)]
    for exact in (True, False):
        for ln in rows:
            column = ask.category or next(iter(_figure_datasets(lines, ask.figure, ln.header)), None)
            if exact and (column is None or _column(ln, column) is None):
                continue
            v = row_value(ln, column)
            if v is not None:
                return v
    # 3. a sentence that names the series and the bar's category
    for ln in prose:
        if ask.category and names(ln.text, ask.category):
            found = [v for v in numbers(ln.text) if v not in skip]
            if found:
                return found[0]
    # 4. any number next to the series' name
    for ln in prose:
        found = [v for v in numbers(ln.text) if v not in skip]
        if found:
            return found[0]
    # 5. the middle of the numbers printed around the figure
    near = [v for ln in lines if ln.where == f"figure:{ask.figure}" for v in numbers(ln.text) if v not in skip]
    return mean(near) if near else None


def guess_choice(choices: dict[str, str], question: str, lines: list[Line], *, rows_column: tuple | None = None,
                 own_method: str | None = None, ask: FigureAsk | None = None) -> str | None:
    """The option the text favours: a ranking in a table column, a sentence that ranks an option, the
    paper's own method (papers claim to win), else the first option."""
    if not choices:
        return None
    highest = not re.search(r"\b(lowest|smallest|worst)\b", question)
    letters = sorted(choices)
    if rows_column is not None:
        rows, column = rows_column
        table = [Line("table", "", tuple(c.strip() for c in r), tuple(c.strip() for c in rows[0])) for r in rows[1:]]
        values = {k: v for k in letters for ln in table
                  if norm(_row_label(ln)) == norm(choices[k]) and (v := row_value(ln, column)) is not None}
        if values:
            return (max if highest else min)(values, key=lambda k: values[k])
    if ask is not None:
        figure_text = [ln for ln in lines if not ln.cells and (ln.where == f"figure:{ask.figure}" or ln.where == "pdf_rag")]
        for ln in figure_text:
            named = [k for k in letters if names(ln.text, choices[k])]
            if len(named) >= 1 and (_HIGH.search(ln.text) if highest else _LOW.search(ln.text)):
                return named[0]
        # values of each option's table row in the setting the figure shows
        values: dict[str, float] = {}
        for k in letters:
            for ln in lines:
                if ln.cells and norm(_row_label(ln)) == norm(choices[k]):
                    col = ask.category or next(iter(_figure_datasets(lines, ask.figure, ln.header)), None)
                    v = row_value(ln, col)
                    if v is not None:
                        values[k] = v
                        break
        if len(values) == len(letters):
            return (max if highest else min)(values, key=lambda k: values[k])
    if own_method:
        pick = letter_for(choices, own_method)
        if pick is not None and highest:
            return pick
    return letters[0]
