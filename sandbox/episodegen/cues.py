"""Seed cues of benchmark v3: each names one paper, and finding it takes reading or rewording.

Turn 1: a title; a citation (first author, venue, year); an indirect hint built from the ground truth's facts
(the task, year, venue and datasets; never the title's wording); or an image of one of the paper's figures
whose legend singles it out. Later turns follow the evidence: the reference numbered [i] in an earlier paper,
the paper behind a baseline of an earlier paper's main table, or a paper citing an earlier one. Every cue is
unique on the facts it states, and with a probe its query is run through the search engine.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from .model import DraftStep
from .probe import Probe
from .facts import V3Facts


@dataclass
class Cue:
    text: str
    target: str
    kind: str  # title | citation | hint | image | ref | baseline | citing
    steps: list[DraftStep]  # the checklist up to (not including) the read of the target's unit
    resolve: list[tuple[str, str]] = field(default_factory=list)  # units read to resolve the cue
    image: str | None = None
    figure: int | None = None  # the figure an image cue shows


def _search(query: str, rank: int | None = 1) -> DraftStep:
    """web_search asking for as many results as it takes to reach the target (5, the default, 10 or 20)."""
    k = next(k for k in (5, 10, 20) if (rank or 1) <= k)
    return DraftStep(tool="web_search", args={"query": query} if k == 5 else {"query": query, "k": k})


def title_cue(f: V3Facts, pid: str, probe: Probe) -> Cue | None:
    title = f.papers[pid].title
    text = f'The paper titled "{title}".'
    rank = probe.rank(text, pid)
    if sum(q.title == title for q in f.papers.values()) != 1 or rank is None:
        return None
    return Cue(text, pid, "title", [_search(text, rank)])


def citation_cue(f: V3Facts, pid: str, probe: Probe) -> Cue | None:
    p = f.papers[pid]
    key = (f.surname(pid), p.venue, p.year, p.area)
    if [q for q in f.ids if (f.surname(q), f.papers[q].venue, f.papers[q].year, f.papers[q].area) == key] != [pid]:
        return None
    text = f"{key[0]} et al. ({p.venue} {p.year}), a paper on {p.task}."
    query = f"{key[0]} {p.task} {p.venue} {p.year}"
    rank = probe.rank(query, pid)
    if rank is None:
        return None
    return Cue(text, pid, "citation", [_search(query, rank)])


def hint_cue(f: V3Facts, pid: str, rng: random.Random, probe: Probe) -> Cue | None:
    """A description from the paper's facts (task, year, venue, datasets) that fits it alone."""
    p = f.papers[pid]
    if len(p.datasets) < 2:
        return None
    d1, d2 = rng.sample(p.datasets, 2)
    every = tuple(p.datasets)
    listed = ", ".join(every[:-1]) + f" and {every[-1]}"
    variants = [
        ((p.year, None, (d1, d2)), f"A {p.year} paper on {p.task} that reports results on both {d1} and {d2}."),
        ((p.year, p.venue, (d1,)), f"A {p.task} paper from {p.venue} {p.year} with results on {d1}."),
        ((None, p.venue, (d1, d2)), f"Work on {p.task} published at {p.venue}, evaluated on {d1} and {d2}."),
        ((p.year, p.venue, ()), f"A {p.venue} {p.year} paper on {p.task}."),
        ((p.year, p.venue, (d1, d2)), f"A {p.venue} {p.year} paper on {p.task} with results on {d1} and {d2}."),
        ((None, None, every), f"A paper on {p.task} whose experiments cover exactly {listed}."),
        ((p.year, None, every), f"A {p.year} {p.task} paper evaluated on exactly {listed}."),
    ]
    rng.shuffle(variants)
    for (year, venue, dsets), text in variants:
        exact = dsets == every and venue is None
        fits = [q for q in f.ids if f.papers[q].task == p.task and (year is None or f.papers[q].year == year)
                and (venue is None or f.papers[q].venue == venue)
                and (set(dsets) == set(f.papers[q].datasets) if exact else set(dsets) <= set(f.papers[q].datasets))]
        if fits != [pid]:
            continue
        query = " ".join([p.task, *dsets, venue or "", str(year) if year else ""]).split()
        query_text = " ".join(query)
        rank = probe.rank(query_text, pid)
        if rank is None:
            continue
        return Cue(text, pid, "hint", [_search(query_text, rank)])
    return None


def legend_singles_out(f: V3Facts, pid: str, labels: list[str]) -> bool:
    """Does a legend naming these methods single out paper `pid`? Its own method is named and belongs to it alone,
    and no other paper whose method is in the legend could have drawn it (a paper compares with what it cites)."""
    method = f.papers[pid].method
    if not method or method not in labels:
        return False
    named = [q for q in f.ids if method in f.papers[q].title or f.papers[q].method == method]
    if named != [pid]:
        return False
    in_legend = [f.by_method[lb] for lb in labels if lb in f.by_method]
    could_draw = [q for q in in_legend if all(o == q or o in f.cites[q] for o in in_legend)]
    return could_draw == [pid]


def image_cue(f: V3Facts, pid: str, image_path: str, rng: random.Random, probe: Probe,
              avoid_figure: int | None) -> Cue | None:
    """A chart of the paper whose legend names its method (and that method singles the paper out); searched by
    the method name read off the legend."""
    p = f.papers[pid]
    figs = [g for g in p.figures if g.n != avoid_figure and g.kind in ("line", "bar", "scatter") and not g.panels
            and legend_singles_out(f, pid, [s.label for s in g.series])]
    rng.shuffle(figs)
    for fig in figs:
        if fig.bbox is not None and not probe.figure_whole(pid, fig.n, fig.bbox):
            continue
        rank = probe.rank(p.method, pid)
        if rank is None:
            continue
        text = f"A figure from a {p.year} paper on {p.task}."
        return Cue(text, pid, "image", [_search(p.method, rank)], image=image_path, figure=fig.n)
    return None


def ref_cue(f: V3Facts, src: str, src_turn: int, pid: str, probe: Probe) -> Cue | None:
    """'The paper cited as [7] in the paper you found in turn 1': read the reference list, search the title."""
    if pid not in f.cites[src]:
        return None
    i = f.reference_number(src, pid)
    title = f.papers[pid].title
    part = probe.reference_part(src, i, title)
    rank = probe.rank(title, pid)
    if part is None or rank is None:
        return None
    read = {"paper": src} if part == 1 else {"paper": src, "part": part}
    text = f"The paper cited as [{i}] in the paper you found in turn {src_turn}."
    return Cue(text, pid, "ref", [DraftStep(tool="pdf_extract", args=read), _search(title, rank)], [(src, "text")])


def baseline_cue(f: V3Facts, src: str, src_turn: int, pid: str, rng: random.Random, probe: Probe) -> Cue | None:
    """The paper behind a baseline of an earlier paper's main table: the strongest baseline on a column."""
    method = f.papers[pid].method
    t = f.main_table(src)
    if t is None or not method:
        return None
    rows = [r for r in t.rows if not f.is_own(src, r[0])]
    rank = probe.rank(method, pid)
    if method not in [r[0] for r in rows] or rank is None:
        return None
    options = []
    for c, col in enumerate(t.columns[1:], start=1):
        if col not in f.papers[src].datasets:
            continue
        vals = sorted(((float(r[c]), r[0]) for r in rows), reverse=t.higher_is_better)
        if vals[0][1] == method and abs(vals[0][0] - vals[1][0]) >= 0.05:
            options.append(f"The paper that introduced the strongest baseline on {col} in Table {t.n} of the paper you "
                           f"found in turn {src_turn} (the paper's own method does not count).")
    if not options:
        return None
    text = rng.choice(options)
    steps = [DraftStep(tool="table_extract", args={"paper": src, "table": t.n}), _search(method, rank)]
    return Cue(text, pid, "baseline", steps, [(src, f"table:{t.n}")])


def citing_cue(f: V3Facts, src: str, src_turn: int, pid: str, probe: Probe) -> Cue | None:
    """'A paper presented at ICLR 2022 that cites the paper you found in turn 1': unique among its citers."""
    if pid not in f.cited_by[src] or not f.papers[src].method:
        return None
    p = f.papers[pid]
    if [q for q in f.cited_by[src] if (f.papers[q].venue, f.papers[q].year) == (p.venue, p.year)] != [pid]:
        return None
    query = f"{f.papers[src].method} {p.venue} {p.year}"
    rank = probe.rank(query, pid)
    if rank is None:
        return None
    text = f"A paper presented at {p.venue} {p.year} that cites the paper you found in turn {src_turn}."
    return Cue(text, pid, "citing", [_search(query, rank)])


__all__ = ["Cue", "title_cue", "citation_cue", "hint_cue", "image_cue", "ref_cue", "baseline_cue", "citing_cue"]
