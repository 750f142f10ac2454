"""Write the text of a corpus-v2 paper from its planned tables and figures.

Results are stated only through the claim templates of `claims.py`, chosen from the data, so every
claim is true and checkable. Figure paragraphs say what is plotted (dataset, setting, grid, compared
methods) and never a plotted value. Citations are numbered in order of first appearance.
"""
from __future__ import annotations

import random

from sandbox.corpus.model import FigureGT, PaperGT, SectionGT, TableGT

from ..corpus_v1 import prose_bank as B1
from ..corpus_v1.prose import number_citations, technique_of
from . import claims as C
from .vocab import Area

# The neutral sentences of corpus v1's bank, minus those asserting results no table or figure shows.
_UNSHOWN = ("less accurate", "no further gain")
COMPLEXITY = tuple(s for s in B1.COMPLEXITY if not any(u in s for u in _UNSHOWN))
IMPLEMENTATION = tuple(s for s in B1.IMPLEMENTATION if not any(u in s for u in _UNSHOWN))

RELATED = (
    "{cm} {cite} introduced {ctech} for {cprob}.",
    "Building on this, {cm} {cite} studied {ctech} in the context of {cprob}.",
    "{cm} {cite} proposed {ctech}, a common point of comparison for {cprob}.",
    "The closest work to ours is {cm} {cite}, which also relies on {ctech} but keeps the {comp1} fixed.",
    "{cm} {cite} revisited {ctech} and analysed its training dynamics.",
    "A different direction is taken by {cm} {cite}, who focus on {cprob}.",
)
CROSS = "Beyond {task}, {cm} {cite} applies {ctech} to {carea}, and we borrow its training schedule."
LIMITS = (
    "Early approaches {cite} relied on hand-designed components that limit their flexibility.",
    "Methods in the line of {cm} {cite} treat the {comp1} as a fixed module.",
    "Several works {cite} tune their schedules separately for every benchmark.",
    "Other studies {cite} identify the {comp2} as a source of instability during training.",
)
DISCUSSION = (
    "The sweeps isolate one factor at a time; interactions between the budget and the {comp1} are not studied here.",
    "All sweep points use the same data order and augmentation, so differences between curves reflect the methods.",
    "Re-training every baseline costs compute, but it removes differences in recipe from the comparison.",
    "We report single runs for the sweeps and averages of three seeds for the tables.",
    "A broader evaluation on other {task} benchmarks is a natural next step.",
    "The {comp2} adds a hyper-parameter, which we kept fixed across all experiments.",
    "Qualitative inspection of failure cases shows errors concentrated on rare categories.",
)
SETUP = (
    "We evaluate on {dslist}, following the standard splits and evaluation protocols, and report {metric}.",
    "Unless stated otherwise, all models are {standard}.",
    "We re-train every baseline with the same recipe, so the numbers in our tables are our own runs.",
    "Hyper-parameters are selected on a held-out part of the training set and kept fixed across datasets.",
    "All experiments run on eight GPUs with mixed precision.",
)


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


def _cite(ps: list[PaperGT]) -> str:
    return "⟦" + ",".join(q.id for q in ps) + "⟧"


class _Writer:
    def __init__(self, p: PaperGT, area: Area, cited: list[PaperGT], cross: list[PaperGT], rng: random.Random):
        self.p, self.area, self.cited, self.cross, self.rng = p, area, cited, cross, rng
        tech, prob = technique_of(p)
        comps = rng.sample(list(area.components), 3)
        self.slots = {"method": p.method, "task": p.task, "Task": p.task[0].upper() + p.task[1:], "technique": tech,
                      "problem": prob, "comp1": comps[0], "comp2": comps[1], "comp3": comps[2],
                      "ds1": p.datasets[0], "ds2": p.datasets[-1], "dslist": _and(p.datasets), "metric": area.metric,
                      "area": p.area, "standard": area.standard}

    def fill(self, t: str, **kw: str) -> str:
        return t.format(**{**self.slots, **kw})

    def pick(self, bank: tuple[str, ...], k: int) -> list[str]:
        idx = sorted(self.rng.sample(range(len(bank)), min(k, len(bank))))
        return [self.fill(bank[i]) for i in idx]

    # ---- claims from the data --------------------------------------------------------------
    def table_claims(self) -> tuple[list[str], str]:
        """Per-dataset result sentences for Table 1, and the abstract's summary claim."""
        t = self.p.tables[0]
        m = self.p.method
        sents, wins = [], []
        for ds in t.columns[1:]:
            c = t.columns.index(ds)
            vals = {r[0].removesuffix(" (ours)"): float(r[c]) for r in t.rows}
            ranked = sorted(vals, key=lambda k: -vals[k] if t.higher_is_better else vals[k])
            if ranked[0] == m:
                wins.append(ds)
                sents.append(C.GAIN.format(m=m, b=ranked[1], gap=abs(vals[m] - vals[ranked[1]]), ds=ds))
            else:
                sents.append(C.STRONGER.format(b=ranked[0], m=m, ds=ds))
        if wins:
            summary = C.BEST.format(ds=_and(wins), m=m, metric=t.metric)
        else:
            summary = f"We analyse where {m} helps and where prior methods remain preferable."
        return sents, summary

    def figure_paragraph(self, f: FigureGT) -> str:
        others = [s.label for s in f.series if s.label != "Ours"]
        if f.kind == "bar":
            text = (f"Figure {f.n} reports {f.y_label} {f.setting} on {_and([str(x) for x in f.series[0].x])} "
                    f"for Ours and {_and(others)}.")
            t = self.p.tables[0]
            worse = all((y < self._cell(t, s, str(x))) if t.higher_is_better else (y > self._cell(t, s, str(x)))
                        for s in f.series for x, y in zip(s.x, s.y))
            if worse:
                text += " " + C.SHIFT.format(n=f.n, word="lower" if t.higher_is_better else "higher")
            return text
        sweep = next(s for s in self.area.sweeps if s.x_label == f.x_label)
        text = (f"Figure {f.n} varies {sweep.phrase} on {f.dataset} and compares Ours with {_and(others)}; "
                "every point is a separate training run under the sweep protocol.")
        higher = self.area.higher_is_better
        if sweep.shape == "budget" and all(C._monotone(s.y, higher) for s in f.series):
            text += " " + C.CURVES.format(n=f.n, verb="rise" if higher else "fall", phrase=sweep.phrase)
        if sweep.shape == "depth" and all(C._monotone(s.y, not higher) for s in f.series if s.label != "Ours"):
            text += " " + C.DEEPER.format(n=f.n)
        return text

    @staticmethod
    def _cell(t: TableGT, s, ds: str) -> float:
        c = t.columns.index(ds)
        return next(float(r[c]) for r in t.rows if r[0].removesuffix(" (ours)") == (s.method or s.label))

    # ---- sections ------------------------------------------------------------------------
    def intro(self) -> list[str]:
        rng = self.rng
        paras = [" ".join(self.pick(B1.CONTEXT, rng.randint(3, 5)))]
        if self.cited:
            sents = []
            for t in rng.sample(LIMITS, rng.randint(2, 4)):
                group = rng.sample(self.cited, min(len(self.cited), rng.randint(1, 3)))
                sents.append(self.fill(t, cite=_cite(group), cm=group[0].method))
            paras.append(" ".join(sents))
        paras.append(self.fill("In this paper we introduce {method}, an approach to {task} based on {technique}. ")
                     + " ".join(self.pick(B1.APPROACH[1:3], 2)))
        paras.append(self.fill("Our contributions are as follows. First, we propose {method}, which uses {technique} "
                               "to address {problem}. Second, we study the role of the {comp1} and the {comp2}. "
                               "Third, we evaluate on {dslist} and vary the training budget in controlled sweeps."))
        return paras

    def related(self) -> list[str]:
        rng = self.rng
        heads = rng.sample(B1.RELATED_HEADS, 2)
        groups = [self.cited[0::2], self.cited[1::2]]
        paras = []
        for head, group in zip(heads, groups):
            sents = [self.fill(head)] + self.pick(B1.RELATED_GENERAL, 1)
            for q in group:
                ctech, cprob = technique_of(q)
                sents.append(self.fill(rng.choice(RELATED), cm=q.method, cite=_cite([q]), ctech=ctech, cprob=cprob))
            paras.append(" ".join(sents))
        for q in self.cross:
            paras[-1] += " " + self.fill(CROSS, cm=q.method, cite=_cite([q]), ctech=technique_of(q)[0], carea=q.area)
        paras.append(self.fill(rng.choice(B1.RELATED_CLOSE)))
        return paras

    def experiments(self, result_sents: list[str]) -> list[SectionGT]:
        p = self.p
        subs = [SectionGT(number="4.1", title="Experimental setup", paragraphs=[" ".join(self.fill(s) for s in SETUP)])]
        main = [f"Table 1 compares {p.method} with re-trained baselines on {self.slots['dslist']}."] + result_sents
        subs.append(SectionGT(number="4.2", title="Main results", paragraphs=[" ".join(main)]))
        if p.figures:
            paras = [self.figure_paragraph(f) for f in p.figures]
            subs.append(SectionGT(number=f"4.{len(subs) + 1}", title="Budget and robustness", paragraphs=paras))
        for t in p.tables[1:]:
            if t.role == "ablation":
                sents = [f"We ablate the components of {p.method} in Table {t.n}."]
                for ds in t.columns[1:]:
                    c = t.columns.index(ds)
                    vals = {r[0]: float(r[c]) for r in t.rows[1:]}
                    worst = min(vals, key=vals.get) if t.higher_is_better else max(vals, key=vals.get)
                    if worst.startswith("w/o "):
                        sents.append(C.ABLATION.format(comp=worst[4:], ds=ds))
                subs.append(SectionGT(number=f"4.{len(subs) + 1}", title="Ablation study", paragraphs=[" ".join(sents)]))
            else:
                params = {r[0].removesuffix(" (ours)"): float(r[1]) for r in t.rows}
                sents = [f"Table {t.n} lists model size, compute and throughput.",
                         C.SMALLEST.format(b=min(params, key=params.get))]
                subs.append(SectionGT(number=f"4.{len(subs) + 1}", title="Efficiency", paragraphs=[" ".join(sents)]))
        return subs


def write_paper(p: PaperGT, area: Area, cited: list[PaperGT], cross: list[PaperGT], rng: random.Random) -> None:
    """Fill the paper's abstract, sections and citation-ordered references from its tables and figures."""
    w = _Writer(p, area, cited, cross, rng)
    result_sents, summary = w.table_claims()
    p.abstract = " ".join(w.pick(B1.CONTEXT, 2) + [
        w.fill("We present {method}, an approach to {task} based on {technique}."),
        w.fill(rng.choice(B1.APPROACH[1:4])), summary,
        "We further study how the methods behave when the training budget shrinks."])
    method = [" ".join(w.pick(bank, rng.randint(3, 5))) for bank in
              (B1.METHOD_OVERVIEW, B1.METHOD_DETAIL, COMPLEXITY, B1.OBJECTIVE, IMPLEMENTATION)]
    p.sections = [
        SectionGT(number="1", title="Introduction", paragraphs=w.intro()),
        SectionGT(number="2", title="Related Work", paragraphs=w.related()),
        SectionGT(number="3", title="Method", paragraphs=[]),
        SectionGT(number="3.1", title="Overview", paragraphs=method[:1]),
        SectionGT(number="3.2", title=w.fill("The {comp1}"), paragraphs=method[1:3]),
        SectionGT(number="3.3", title="Training objective", paragraphs=method[3:4]),
        SectionGT(number="3.4", title="Implementation details", paragraphs=method[4:]),
        SectionGT(number="4", title="Experiments", paragraphs=[]),
        *w.experiments(result_sents),
        SectionGT(number="5", title="Discussion", paragraphs=[" ".join(w.pick(DISCUSSION, rng.randint(4, 6)))]),
        SectionGT(number="6", title="Conclusion", paragraphs=[w.fill(
            "We presented {method}, an approach to {task} based on {technique}, evaluated on {dslist}. "
            "Extending the budget sweeps to larger models is left for future work.")]),
    ]
    number_citations(p, p.sections)
