"""Seed cues of benchmark v2: each names one paper, and finding it takes reading or rewording.

Turn 1: a title; a citation (first author, venue, year); an indirect hint that paraphrases the
paper (none of its title or abstract wording, two or three facts combined); or an image of one of
its figures whose legend says "Ours" and names only baselines. Later turns follow the evidence:
the reference numbered [i] in an earlier paper, the paper behind a baseline of an earlier paper's
Table 1, or a paper citing an earlier one. Every cue is unique on the facts it states, and its
checklist query is run through the engine (probe) so the target is on the first page of results.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..episodegen_v1._model import DraftStep
from .facts import V2Facts
from .probe import Probe


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


def title_cue(f: V2Facts, pid: str, probe: Probe) -> Cue | None:
    title = f.papers[pid].title
    text = f'The paper titled "{title}".'
    rank = probe.rank(text, pid)
    if sum(q.title == title for q in f.papers.values()) != 1 or rank is None:
        return None
    return Cue(text, pid, "title", [_search(text, rank)])


def citation_cue(f: V2Facts, pid: str, probe: Probe) -> Cue | None:
    """'Okafor et al. (CVPR 2021), a paper on semantic segmentation.': unique on surname, venue, year and area;
    searched as surname, task, venue and year, reading as many results as it takes."""
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


def _matches(f: V2Facts, q: str, area: str, year: int | None, technique: str | None, datasets: list[str]) -> bool:
    p = f.papers[q]
    tech = p.title.split(": ", 1)[1].split(" for ")[0]
    return (p.area == area and (year is None or p.year == year) and (technique is None or tech == technique)
            and set(datasets) <= set(p.datasets))


def hint_cue(f: V2Facts, pid: str, rng: random.Random, probe: Probe) -> Cue | None:
    """A description in other words than the paper's (paraphrased task and technique) that fits it alone."""
    p = f.papers[pid]
    area = f.area(pid)
    technique = p.title.split(": ", 1)[1].split(" for ")[0]
    para = dict(area.techniques)[technique]
    d1, d2 = rng.sample(p.datasets, 2)
    variants = [
        ((p.year, technique, []), f"A {p.year} paper on {area.task_paraphrase}, whose method relies on {para}."),
        ((p.year, technique, [d1]), f"A {p.year} study on {area.task_paraphrase}: its method relies on {para}, "
                                     f"and it reports results on {d1}."),
        ((p.year, None, [d1, d2]), f"A paper on {area.task_paraphrase}, published in {p.year}, that reports results "
                                   f"on both {d1} and {d2}."),
        ((None, technique, [d1, d2]), f"Work on {area.task_paraphrase} built on {para}, with results on {d1} and {d2}."),
    ]
    rng.shuffle(variants)
    for (year, tech, dsets), text in variants:
        fits = [q for q in f.ids if _matches(f, q, p.area, year, tech, dsets)]
        if fits != [pid]:
            continue
        query = " ".join([technique if tech else "", p.task, *dsets, str(year) if year else ""]).split()
        query_text = " ".join(query)
        rank = probe.rank(query_text, pid)
        if rank is None:
            continue
        return Cue(text, pid, "hint", [_search(query_text, rank)])
    return None


def image_cue(f: V2Facts, pid: str, image_path: str, rng: random.Random, probe: Probe,
              avoid_figure: int | None) -> Cue | None:
    """A line chart of the paper (legend: 'Ours' and baselines), unique on its legend, dataset and axis
    (and the year the hint gives); searched by the baselines and the dataset it shows."""
    p = f.papers[pid]
    area = f.area(pid)
    figs = [fig for fig in p.figures if fig.kind == "line" and fig.n != avoid_figure]
    rng.shuffle(figs)
    for fig in figs:
        if not probe.figure_whole(pid, fig.n, fig.bbox):
            continue
        labels = {s.label for s in fig.series}
        same = [q for q in f.ids for g in f.papers[q].figures if g.kind == "line" and g.dataset == fig.dataset
                and g.x_label == fig.x_label and {s.label for s in g.series} == labels]
        if [q for q in same if f.papers[q].year == p.year] != [pid]:
            continue
        baselines = [s.label for s in fig.series if s.label != "Ours" and s.label in f.by_method]
        if not baselines:
            continue
        query = " ".join(baselines + [fig.dataset or "", fig.x_label.split(" (")[0], str(p.year)])
        rank = probe.rank(query, pid)
        if rank is None:
            continue
        text = f"A figure from a {p.year} paper on {area.task_paraphrase}."
        return Cue(text, pid, "image", [_search(query, rank)], image=image_path, figure=fig.n)
    return None


def ref_cue(f: V2Facts, src: str, src_turn: int, pid: str, probe: Probe) -> Cue | None:
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


def baseline_cue(f: V2Facts, src: str, src_turn: int, pid: str, rng: random.Random, probe: Probe) -> Cue | None:
    """The paper behind a baseline of an earlier paper's Table 1: the strongest on a column, or the row
    listed right above the proposed method."""
    method = f.papers[pid].method
    t = f.table(src, 1)
    rows = [r for r in t.rows if not r[0].endswith(" (ours)")]
    rank = probe.rank(method, pid)
    if method not in [r[0] for r in rows] or rank is None:
        return None
    options = []
    own_index = next(i for i, r in enumerate(t.rows) if r[0].endswith(" (ours)"))
    if own_index > 0 and t.rows[own_index - 1][0] == method:
        options.append(f"The paper that introduced the method listed directly above the proposed method in Table 1 "
                       f"of the paper you found in turn {src_turn}.")
    for c, col in enumerate(t.columns[1:], start=1):
        vals = sorted(((float(r[c]), r[0]) for r in rows), reverse=t.higher_is_better)
        if vals[0][1] == method and abs(vals[0][0] - vals[1][0]) >= 0.05:
            options.append(f"The paper that introduced the strongest baseline on {col} in Table 1 of the paper you "
                           f"found in turn {src_turn} (the paper's own method does not count).")
    if not options:
        return None
    text = rng.choice(options)
    steps = [DraftStep(tool="table_extract", args={"paper": src, "table": 1}), _search(method, rank)]
    return Cue(text, pid, "baseline", steps, [(src, "table:1")])


def citing_cue(f: V2Facts, src: str, src_turn: int, pid: str, probe: Probe) -> Cue | None:
    """'A paper presented at ICLR 2022 that cites the paper you found in turn 1': unique among its citers."""
    if pid not in f.cited_by[src]:
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
