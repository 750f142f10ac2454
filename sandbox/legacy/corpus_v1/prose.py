"""Write the text of a planned paper: abstract, numbered sections with citations and float references.

Citations are written as placeholders while the text is drafted and numbered afterwards in order of
first appearance, as in a numeric bibliography style; the paper's `references` list follows that order.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from sandbox.corpus.model import PaperGT, SectionGT

from . import prose_bank as B
from .vocab import Area

_CITE_RE = re.compile(r"⟦([^⟧]+)⟧")


def short_authors(authors: list[str]) -> str:
    """'A. Okafor, B. Lin, et al.' style author list."""
    def initial(name: str) -> str:
        given, _, family = name.rpartition(" ")
        return f"{given[0]}. {family}" if given else name
    names = [initial(a) for a in authors]
    if len(names) > 3:
        return f"{names[0]}, {names[1]}, et al."
    if len(names) == 1:
        return names[0] + "."
    return ", ".join(names[:-1]) + f", and {names[-1]}."


def reference_string(p: PaperGT) -> str:
    """How another paper lists `p` in its bibliography."""
    return f"{short_authors(p.authors)} {p.title}. In {p.venue}, {p.year}."


def technique_of(p: PaperGT) -> tuple[str, str]:
    """(technique, problem) recovered from a generated title 'Method: Technique for Problem'."""
    rest = p.title.split(": ", 1)[1]
    tech, _, prob = rest.partition(" for ")
    return tech.lower(), prob.lower()


@dataclass
class PaperContext:
    """Everything the writer needs about one paper and the papers it cites."""

    paper: PaperGT
    area: Area
    cited_same: list[PaperGT]
    cited_cross: list[PaperGT]
    rng: random.Random
    slots: dict[str, str] = field(default_factory=dict)

    reference_string = staticmethod(reference_string)

    def pick(self, bank: tuple[str, ...], k: int) -> list[str]:
        """k templates of a bank, kept in the bank's order so the argument flows."""
        idx = sorted(self.rng.sample(range(len(bank)), min(k, len(bank))))
        return [bank[i] for i in idx]

    def fill(self, template: str, **extra: str) -> str:
        return template.format(**{**self.slots, **extra})


def _cite(papers: list[PaperGT]) -> str:
    return "⟦" + ",".join(p.id for p in papers) + "⟧"


def _slots(ctx: PaperContext) -> dict[str, str]:
    p = ctx.paper
    tech, prob = technique_of(p)
    comps = ctx.rng.sample(list(ctx.area.components), 3)
    ds = p.datasets
    dslist = ", ".join(ds[:-1]) + f" and {ds[-1]}" if len(ds) > 1 else ds[0]
    metric = next(d.metric for d in ctx.area.datasets if d.name == ds[0])
    return {"method": p.method, "task": p.task, "Task": p.task[0].upper() + p.task[1:], "technique": tech,
            "problem": prob, "comp1": comps[0], "comp2": comps[1], "comp3": comps[2], "ds1": ds[0],
            "ds2": ds[-1], "dslist": dslist, "metric": metric, "area": p.area}


def _paragraph(ctx: PaperContext, templates: list[str], **extra: str) -> str:
    return " ".join(ctx.fill(t, **extra) for t in templates)


def _intro(ctx: PaperContext) -> list[str]:
    rng, p = ctx.rng, ctx.paper
    paras = [_paragraph(ctx, ctx.pick(B.CONTEXT, rng.randint(4, 6)))]
    if ctx.cited_same:
        first = ctx.cited_same[-1]
        limits = []
        for t in ctx.pick(B.LIMITS, rng.randint(3, 5)):
            group = rng.sample(ctx.cited_same, min(len(ctx.cited_same), rng.randint(1, 3)))
            limits.append(ctx.fill(t, cite=_cite(group), cm1=first.method, cite1=_cite([first])))
        paras.append(" ".join(limits))
    approach = ctx.pick(B.APPROACH, rng.randint(4, 6))
    approach.sort(key=lambda t: not t.startswith("In this paper"))
    text = _paragraph(ctx, approach)
    if p.figures:
        text += f" Figure 1 gives a first look at how {p.method} compares with prior methods."
    paras.append(text)
    paras.append(ctx.fill(rng.choice(B.CONTRIB)))
    return paras


def _related(ctx: PaperContext) -> list[str]:
    rng = ctx.rng
    heads = rng.sample(B.RELATED_HEADS, 2)
    groups = [ctx.cited_same[0::2], ctx.cited_same[1::2]]
    paras = []
    for head, group in zip(heads, groups):
        sents = [ctx.fill(head)] + [ctx.fill(t) for t in ctx.pick(B.RELATED_GENERAL, rng.randint(1, 2))]
        for q in group:
            ctech, cprob = technique_of(q)
            sents.append(ctx.fill(rng.choice(B.RELATED), cm=q.method, cite=_cite([q]), ctech=ctech, cprob=cprob))
        paras.append(" ".join(sents))
    for q in ctx.cited_cross:
        ctech, _ = technique_of(q)
        paras[-1] += " " + ctx.fill(rng.choice(B.CROSS), cm=q.method, cite=_cite([q]), ctech=ctech, carea=q.area)
    paras.append(ctx.fill(rng.choice(B.RELATED_CLOSE)))
    return paras


def _experiments(ctx: PaperContext) -> list[SectionGT]:
    rng, p = ctx.rng, ctx.paper
    epochs, batch = rng.choice((100, 200, 300)), rng.choice((128, 256, 512))
    setup = _paragraph(ctx, ctx.pick(B.SETUP, rng.randint(4, 6)))
    setup += f" We train for {epochs} epochs with a batch size of {batch}."
    subs = [SectionGT(number="4.1", title="Experimental setup", paragraphs=[setup])]
    main = p.tables[0]
    own = main.rows[-1]
    results = [ctx.fill(t, table_ref="Table 1", cm1=(main.rows[-2][0] if len(main.rows) > 1 else "the baseline"))
               for t in ctx.pick(B.RESULTS, rng.randint(4, 5))]
    results.sort(key=lambda s: "Table 1" not in s)
    if "Table 1" not in results[0]:
        results.insert(0, f"Table 1 compares {p.method} with prior methods.")
    results.insert(1, f"On {main.columns[1]}, {p.method} reaches {own[1]} ({ctx.slots['metric']}).")
    subs.append(SectionGT(number="4.2", title="Main results", paragraphs=[" ".join(results)]))
    if p.figures:
        paras = []
        for f in p.figures:
            fds = f.series[0].x[0] if f.kind == "bar" else _dataset_from_caption(f.caption, p.datasets)
            talk = B.FIGURE_TALK[f.kind]
            sents = [talk[0]] + rng.sample(talk[1:], min(2, len(talk) - 1))
            paras.append(" ".join(ctx.fill(s, fig_ref=f"Figure {f.n}", ylabel=f.y_label, xlabel=f.x_label.lower(),
                                           fds=str(fds)) for s in sents))
        paras.append(_paragraph(ctx, ctx.pick(B.DISCUSSION, rng.randint(4, 6))))
        subs.append(SectionGT(number=f"4.{len(subs) + 1}", title="Analysis", paragraphs=paras))
    for t in p.tables[1:]:
        bank, title = (B.ABLATION, "Ablation study") if t.columns[0] == "Variant" else (B.EFFICIENCY, "Efficiency")
        sents = [bank[0]] + ctx.pick(bank[1:], rng.randint(2, 4))
        subs.append(SectionGT(number=f"4.{len(subs) + 1}", title=title,
                              paragraphs=[_paragraph(ctx, sents, table_ref=f"Table {t.n}")]))
    return subs


def _dataset_from_caption(caption: str, datasets: list[str]) -> str:
    return next((d for d in sorted(datasets, key=len, reverse=True) if f" on {d} " in caption), datasets[0])


def number_citations(p: PaperGT, sections: list[SectionGT]) -> None:
    """Replace ⟦paper ids⟧ markers by [n] in order of first citation; that order is the reference list."""
    order: list[str] = []

    def repl(m: re.Match[str]) -> str:
        nums = []
        for pid in m.group(1).split(","):
            if pid not in order:
                order.append(pid)
            nums.append(order.index(pid) + 1)
        return "[" + ", ".join(str(n) for n in sorted(nums)) + "]"

    for s in sections:
        s.paragraphs = [_CITE_RE.sub(repl, t) for t in s.paragraphs]
    p.references = order


def write_paper_text(ctx: PaperContext) -> None:
    """Fill the paper's abstract, sections and citation-ordered references."""
    ctx.slots = _slots(ctx)
    p, rng = ctx.paper, ctx.rng
    p.abstract = _paragraph(ctx, [
        *ctx.pick(B.CONTEXT, 2),
        "We present {method}, an approach to {task} based on {technique}.",
        rng.choice(B.APPROACH[1:4]),
        "Experiments on {dslist} show that {method} improves over strong baselines while adding little computational cost.",
    ])
    method_paras = [_paragraph(ctx, ctx.pick(B.METHOD_OVERVIEW, rng.randint(4, 6))),
                    _paragraph(ctx, ctx.pick(B.METHOD_DETAIL, rng.randint(4, 6))),
                    _paragraph(ctx, ctx.pick(B.COMPLEXITY, rng.randint(3, 5))),
                    _paragraph(ctx, ctx.pick(B.OBJECTIVE, rng.randint(3, 5))),
                    _paragraph(ctx, ctx.pick(B.IMPLEMENTATION, rng.randint(4, 6)))]
    sections = [
        SectionGT(number="1", title="Introduction", paragraphs=_intro(ctx)),
        SectionGT(number="2", title="Related Work", paragraphs=_related(ctx)),
        SectionGT(number="3", title="Method", paragraphs=[]),
        SectionGT(number="3.1", title="Overview", paragraphs=method_paras[:1]),
        SectionGT(number="3.2", title=ctx.fill("The {comp1}"),
                  paragraphs=method_paras[1:3]),
        SectionGT(number="3.3", title="Training objective", paragraphs=method_paras[3:4]),
        SectionGT(number="3.4", title="Implementation details", paragraphs=method_paras[4:]),
        SectionGT(number="4", title="Experiments", paragraphs=[]),
        *_experiments(ctx),
        SectionGT(number="5", title="Conclusion", paragraphs=[_paragraph(ctx, ctx.pick(B.CONCLUSION, rng.randint(4, 5)))]),
    ]
    number_citations(p, sections)
    p.sections = sections
