"""What each turn of an episode reads, for bench/episode_validity.py: from the `reads`/`derivation`
annotations when the file has them (sandbox-v2), else parsed from sandbox-v1's question templates and
looked up in the ground truth."""
from __future__ import annotations

import re
from dataclasses import dataclass

from harness.episode import Episode
from sandbox.corpus.model import FigureGT, GroundTruth, PaperGT

READ_TABLE = re.compile(r'In Table (\d+), what value(?: \((.*?)\))? is reported for the \w+ "(.+?)" in the column "(.+?)"\?')
READ_BAR = re.compile(r'Figure (\d+) is a bar chart\. What is the height of the "(.+?)" bar at "(.+?)" \((.*?)\)\?')
READ_LINE = re.compile(r'Figure (\d+) plots (.+?) against (.+?)\. What is the .+? of the series "(.+?)" at .+? = (\S+)\? Read')
TURN = r"of the paper from turn (\d+)"
X = r'("[^"]+"|[^\s;?,]+)'
PHRASES = [
    ("table", re.compile(r'the "([^"]+)" value of "([^"]+)" in Table (\d+) ' + TURN)),
    ("bar", re.compile(r'the height of the "([^"]+)" bar at "([^"]+)" in Figure (\d+) ' + TURN)),
    ("line", re.compile(r'the ([^";]+?) of "([^"]+?)" at ([^";=]+?) = ' + X + r' in Figure (\d+) ' + TURN)),
]


@dataclass
class Read:
    paper: str
    unit: str
    series: str | None
    value: float | str | None
    tolerance: float
    column: str | None = None
    dataset: str | None = None
    metric: str | None = None
    x: float | None = None
    x_label: str | None = None


@dataclass
class FinalReads:
    operands: list[Read]
    conditions: list[set[str]] | None = None


def _paper(gt: GroundTruth, pid: str) -> PaperGT:
    return next(p for p in gt.papers if p.id == pid)


def _figure(p: PaperGT, n: int) -> FigureGT:
    return next(f for f in p.figures if f.n == n)


def _caption_dataset(p: PaperGT, fig: FigureGT) -> str | None:
    return next((d for d in sorted(p.datasets, key=len, reverse=True) if f" on {d} " in fig.caption), None)


def _fmt(x: object) -> str:
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


def _point(p: PaperGT, n: int, series: str, x: str) -> float:
    f = _figure(p, n)
    s = next(s for s in f.series if s.label == series)
    return float(s.y[[_fmt(v) for v in s.x].index(x.strip('"'))])


def _cell(p: PaperGT, n: int, row: str, col: str) -> float:
    t = next(t for t in p.tables if t.n == n)
    r = next(r for r in t.rows if r[0] == row)
    return float(r[t.columns.index(col)].replace("*", ""))


def _from_annotation(ep: Episode, i: int) -> Read | None:
    t = ep.turns[i]
    if not t.reads:
        return None
    r = t.reads[0]
    return Read(r.paper, r.unit, r.series, r.value, t.answer.tolerance or 0.0, r.column, r.dataset, r.metric, r.x, r.x_label)


def turn_read(ep: Episode, i: int, gt: GroundTruth) -> Read | None:
    """The value a reading turn asks for, or None when it asks none (a choice, a name)."""
    t = ep.turns[i]
    if t.reads or ep.turns[-1].reads:
        return _from_annotation(ep, i)
    if not t.evidence:
        return None
    p = _paper(gt, t.evidence[0].paper)
    tol = t.answer.tolerance or 0.0
    if m := READ_TABLE.search(t.question):
        n, metric, row, col = m.groups()
        return Read(p.id, f"table:{n}", row, t.answer.value, tol, col, col if col in p.datasets else None, metric or col)
    if m := READ_BAR.search(t.question):
        n, series, cat, metric = m.groups()
        return Read(p.id, f"figure:{n}", series, t.answer.value, tol, None, cat, metric)
    if m := READ_LINE.search(t.question):
        n, metric, x_label, series, x = m.groups()
        fig = _figure(p, int(n))
        return Read(p.id, f"figure:{n}", series, t.answer.value, tol, None, _caption_dataset(p, fig), metric,
                    float(x), x_label)
    return None


def _phrase_reads(ep: Episode, text: str, gt: GroundTruth) -> list[Read]:
    found: list[tuple[int, Read]] = []
    for kind, pat in PHRASES:
        for m in pat.finditer(text):
            if kind == "table":
                col, row, n, k = m.groups()
                p = _paper(gt, ep.turns[int(k) - 1].evidence[0].paper)
                found.append((m.start(), Read(p.id, f"table:{n}", row, _cell(p, int(n), row, col), 0.005, col,
                                              col if col in p.datasets else None, col)))
            elif kind == "bar":
                series, cat, n, k = m.groups()
                p = _paper(gt, ep.turns[int(k) - 1].evidence[0].paper)
                found.append((m.start(), Read(p.id, f"figure:{n}", series, _point(p, int(n), series, cat), 0.0, None,
                                              cat, _figure(p, int(n)).y_label)))
            else:
                metric, series, x_label, x, n, k = m.groups()
                p = _paper(gt, ep.turns[int(k) - 1].evidence[0].paper)
                fig = _figure(p, int(n))
                found.append((m.start(), Read(p.id, f"figure:{n}", series, _point(p, int(n), series, x), 0.0, None,
                                              _caption_dataset(p, fig), metric, float(x.strip('"')), x_label)))
    return [r for _, r in sorted(found, key=lambda t: t[0])]


_GROUP = re.compile(r"Consider every (?:\w+ listed in|series in) (Table|Figure) (\d+) " + TURN)
_COND_TABLE = re.compile(r'a "(.+?)" value (higher|lower) than (.+?)(?:, and also a "(.+?)" value greater than ([\d.]+))?[?.] ')
_COND_FIG = re.compile(r"a value at (.+?) = " + X + r" (higher|lower) than (.+?)(?:, and also a value at .+? = " + X
                       + r" greater than ([\d.]+))?[?.] ")


def _v1_constraint(ep: Episode, q: str, gt: GroundTruth) -> FinalReads | None:
    g = _GROUP.search(q)
    if not g:
        return None
    kind, n, k = g.group(1), int(g.group(2)), int(g.group(3))
    p = _paper(gt, ep.turns[k - 1].evidence[0].paper)
    if kind == "Table":
        m = _COND_TABLE.search(q)
        if not m:
            return None
        col, word, ref_text, col2, t2 = m.groups()
        t = next(t for t in p.tables if t.n == n)
        first = {r[0]: float(r[t.columns.index(col)]) for r in t.rows}
        second = {r[0]: float(r[t.columns.index(col2)]) for r in t.rows} if col2 else None
        group = Read(p.id, f"table:{n}", None, None, 0.0, col, col if col in p.datasets else None, col)
    else:
        m = _COND_FIG.search(q)
        if not m:
            return None
        x_label, x, word, ref_text, x2, t2 = m.groups()
        f = _figure(p, n)

        def at(xv: str) -> dict[str, float]:
            xv = xv.strip('"')
            return {s.label: float(s.y[[_fmt(v) for v in s.x].index(xv)]) for s in f.series if xv in [_fmt(v) for v in s.x]}
        first, second = at(x), (at(x2) if x2 else None)
        bar = f.kind == "bar"
        group = Read(p.id, f"figure:{n}", None, None, 0.0, None, x.strip('"') if bar else _caption_dataset(p, f),
                     f.y_label, None if bar else float(x.strip('"')), None if bar else x_label)
    refs = _phrase_reads(ep, ref_text + " ", gt)
    if not refs:
        return None
    ref = float(refs[0].value)  # type: ignore[arg-type]
    cond1 = {c for c, v in first.items() if (v > ref if word == "higher" else v < ref)}
    conds = [cond1]
    if second is not None and t2:
        conds.append({c for c, v in second.items() if v > float(t2)})
    return FinalReads([group, refs[0]], conds)


def final_reads(ep: Episode, gt: GroundTruth) -> FinalReads | None:
    """The operands of the final turn (and, for constraints, each condition's passing candidates)."""
    final = ep.turns[-1]
    if final.reads:
        conds = None
        if final.derivation and final.derivation.conditions:
            conds = [set(c.passes) for c in final.derivation.conditions]
        ops = [Read(r.paper, r.unit, r.series, r.value, 0.0, r.column, r.dataset, r.metric, r.x, r.x_label)
               for r in final.reads]
        return FinalReads(ops, conds)
    q = final.question
    if q.startswith("Consider every"):
        return _v1_constraint(ep, q, gt)
    reads = _phrase_reads(ep, q, gt)
    if not reads and final.answer.choices:
        reads = _phrase_reads(ep, " ".join(final.answer.choices.values()), gt)
    return FinalReads(reads) if reads else None
