"""Write the text of a corpus-v3 paper: abstract, a section structure of its own, appendices.

Sentences are built from templates with inline alternatives (`[a|b|c]`) and slots the paper fills
(its method, family, components, datasets, numbers of its own setup), so no sentence recurs verbatim
across many papers. Result sentences are read off the paper's own tables and figures. Every reference is
cited in a sentence that says why: compared in a table, protocol followed, component built on, a
contrast, or (for the few cross-area references) what is borrowed and because of what.
"""
from __future__ import annotations

import random
import re

from .model import FigureGT, PaperGT, SectionGT, TableGT
from .vocab import AREA_BY_NAME, Area, Family

_ALT = re.compile(r"\[([^\[\]]*\|[^\[\]]*)\]")
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
_NUMS = re.compile(r"\b\d[\d.]*(?:e-\d+)?\b")
_FLOATREF = re.compile(r"\b(Figure|Table|Section) \d+")


def _and(items: list[str]) -> str:
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


def expand(t: str, rng: random.Random) -> str:
    """Choose one of each `[a|b|c]`, innermost first, so alternatives may nest (`[x [p|q] y|z]`)."""
    while True:
        out = _ALT.sub(lambda m: rng.choice(m.group(1).split("|")), t)
        if out == t:
            return out
        t = out


def _an(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _cite(*ps: PaperGT) -> str:
    return "⟦" + ",".join(q.id for q in ps) + "⟧"


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


class Writer:
    def __init__(self, p: PaperGT, area: Area, fam: Family, planner, cited: list[PaperGT], cross: list[PaperGT],
                 rng: random.Random, tech: str, prob: str, study: bool):
        self.p, self.area, self.fam, self.pl, self.rng = p, area, fam, planner, rng
        self.cited, self.cross, self.study = cited, cross, study
        comps = rng.sample(list(area.components), 4)
        self.s = {"method": p.method or "the evaluated pipeline", "us": p.method or "this study", "a_fam": _an(fam.name), "task": area.task, "tech": tech, "prob": prob,
                  "fam": fam.name, "fams": fam.plural, "blurb": fam.blurb, "c1": comps[0], "c2": comps[1],
                  "c3": comps[2], "c4": comps[3], "metric": area.metric, "ds1": p.datasets[0], "dsN": p.datasets[-1],
                  "dslist": _and(p.datasets), "unit": area.data_unit, "inp": area.input_name, "out": area.output_name,
                  "lr": f"{rng.choice((1, 2, 3, 4, 5, 6, 8))}e-{rng.choice((3, 4, 5))}",
                  "bs": str(rng.choice((16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 2048))),
                  "gpus": str(rng.choice((1, 2, 4, 8, 16, 32, 64))), "gpu": rng.choice(("A100", "V100", "H100", "RTX 3090", "A6000", "TPU v4")),
                  "hours": str(rng.choice((6, 9, 12, 18, 20, 30, 36, 48, 60, 72, 96, 120, 150))),
                  "opt": rng.choice(("AdamW", "Adam", "SGD with momentum 0.9", "LAMB", "Adafactor")),
                  "wd": str(rng.choice((0.0, 0.01, 0.02, 0.05, 0.1, 0.3))), "seeds": str(rng.choice((3, 3, 5, 2, 4))),
                  "warm": str(rng.choice((500, 1000, 2000, 2500, 4000, 5000, 10000))),
                  "dim": str(rng.choice((128, 192, 256, 384, 512, 768, 1024))), "layers": str(rng.choice((4, 6, 8, 12, 16, 24))),
                  "lam": str(rng.choice((0.1, 0.2, 0.25, 0.5, 1.0, 2.0))), "tau": str(rng.choice((0.05, 0.07, 0.1, 0.2, 0.5)))}

    def v(self, t: str, **kw: str) -> str:
        return _cap(expand(t, self.rng).format(**{**self.s, **kw}))

    def some(self, bank: list[str], lo: int, hi: int, **kw: str) -> list[str]:
        idx = sorted(self.rng.sample(range(len(bank)), min(len(bank), self.rng.randint(lo, hi))))
        return [self.v(bank[i], **kw) for i in idx]

    # ---- facts from the data -------------------------------------------------------------
    def main(self) -> TableGT:
        return self.p.tables[0]

    def col(self, ds: str) -> dict[str, float]:
        t = self.main()
        c = t.columns.index(ds)
        return {self.pl.row_method(r[0]): float(r[c]) for r in t.rows}

    def ranked(self, ds: str) -> list[str]:
        vals = self.col(ds)
        return sorted(vals, key=lambda k: -vals[k] if self.area.higher_is_better else vals[k])

    def wins(self) -> list[str]:
        return [d for d in self.p.datasets if self.ranked(d)[0] == self.p.method]

    # ---- abstract ------------------------------------------------------------------------
    def abstract(self) -> str:
        a, p = self.area, self.p
        ctx = self.rng.choice(a.context)
        parts = [self.v("[In {task}, |For {task}, |]" + ctx + "[.|, which limits how far current {fams} can be pushed.|"
                        ", a problem that {fams} address only partly.]")]
        if self.study:
            parts.append(self.v("[We present a controlled study of|This paper revisits|We systematically compare] "
                                f"{len(self.main().rows)} methods for {{task}} under one training recipe, focusing on {{tech}}."))
            best = self.ranked(p.datasets[0])[0]
            parts.append(self.v(f"[We find that|Our experiments show that|Surprisingly,] the ranking of methods changes with "
                                "the [budget|setting|dataset], and that {best} is [the strongest|the most reliable] choice on {ds1} "
                                "[only|mainly] when [its recipe is kept|the budget is large].", best=best))
            parts.append(self.v("[We release our code and training logs.|We discuss what these findings imply for "
                                "future comparisons.|Our results call for reporting sweeps rather than single numbers.]"))
            return " ".join(parts)
        parts.append(self.v("[We introduce|We propose|This paper presents] {method}, [{a_fam}|an approach for {task}] "
                            "[that relies on|built around|based on] {tech}[ to address {prob}|]."))
        parts.append(self.v("[Its key idea is to|The main idea is to|{method} is designed to] [make the {c1} depend on "
                            "the input|replace the {c1} with a learned alternative|couple the {c1} and the {c2}]"
                            "[, which adds little cost|, at a modest increase in compute|]."))
        wins = self.wins()
        n = len(p.datasets)
        if len(wins) == n:
            parts.append(self.v("[On|Across] {dslist}, {method} [achieves the best {metric} among the compared methods|"
                                "outperforms all compared methods|sets a new state of the art]."))
        elif wins:
            parts.append(self.v(f"{{method}} [obtains the best result|is the strongest method] on {_and(wins)} and "
                                "[remains competitive|is close to the best method] elsewhere."))
        else:
            parts.append(self.v("[{method} matches strong baselines at a lower cost|{method} is competitive with prior "
                                "{fams} while being simpler|Although {method} does not top every benchmark, it offers a "
                                "better trade-off between {metric} and cost]."))
        if self.rng.random() < 0.6:
            parts.append(self.v("[We further analyse|Extensive analysis covers|We also study] {sweep_phrase}[ and the role of the {c2}|].",
                                sweep_phrase=self.sweep_phrase()))
        return " ".join(parts)

    def sweep_phrase(self) -> str:
        lines = [f for f in self.p.figures if f.kind == "line"]
        if not lines:
            return "the sensitivity to hyper-parameters"
        sw = next((s for s in self.area.sweeps if s.x_label == lines[0].x_label), None)
        return f"how performance depends on {sw.phrase}" if sw else "sensitivity to the training budget"

    # ---- sections ------------------------------------------------------------------------
    def intro(self, first_fig: FigureGT | None) -> list[str]:
        a, rng = self.area, self.rng
        p1 = [self.v("{Task} [is a core problem|remains a central problem|has seen rapid progress] [in machine learning|"
                     "for applications that process {unit}|over the last years]".replace("{Task}", _cap(a.task)) + "."),
              self.v(f"[A popular line of work uses|Much recent progress comes from|Many systems today are built on] "
                     "{fams}, [each of which|a family that] {blurb}."),
              self.v(_cap(rng.choice(a.context)) + "[.|, and this is the gap we address.|; closing this gap is the aim of this work.]")]
        p1 += self.some(["[Benchmarks such as|Results on] {dslist} [track|measure] this progress[, mostly through {metric}|].",
                         "[The cost of training|Compute for training] {fams} on {ds1} [has grown steadily|keeps rising], "
                         "[which makes careful comparisons|so that fair comparisons are] [expensive|rare].",
                         "[Practitioners|Users] [must|often have to] choose between [accuracy and speed|a larger {c1} and a faster one]."],
                        1, 2)
        paras = [" ".join(p1)]
        paras.append(" ".join(self.some([
            "[Consider|Take] {ds1}: [{a_fam}|the usual {fam}] [spends|wastes] [most of its|much of its] [compute|capacity] on "
            "[easy {unit}|{unit} it already handles well], [while|whereas] [the hard ones|the rare cases] [drive|dominate] the "
            "remaining [error|errors] in {metric}.",
            "[The {c1} is|We argue that the {c1} is] [where|the place where] [this happens|this inefficiency sits]: [it is|it "
            "stays] [fixed after training|identical for every {inp}|tuned once per benchmark].",
            "[A natural fix is to|One could] [enlarge|deepen] the {c1}, but [this|doing so] [raises|increases] [the cost|"
            "latency] [without|with little] [a matching gain|benefit] on {dsN}.",
            "[What is missing|What we lack] is [a way|a mechanism] to [adapt|tailor] the {c1} to [each {inp}|the data] "
            "[at a small cost|cheaply], [which|and this] is what {method} [provides|offers].",
            "[We find|Our analysis shows] that [the interaction between|coupling] the {c1} and the {c2} [matters more "
            "than|is more important than] [their size|either one alone] for {method}."], 3, 5)))
        if self.cited:
            q = self.cited[-1]
            first = self.cited[: min(3, len(self.cited))]
            sents = [self.v("[Prior methods|Existing methods|Recent {fams}] [have tried to|attempt to] [improve|rethink] the "
                            "{c1} {cite}[, mostly by hand design|, with mixed results|] [since {y0}|from {y0} on].",
                            cite=_cite(*first), y0=str(min(q.year for q in first))),
                     self.v("[The most recent of them|Closest to us], {cm} {cite}, [keeps the {c2} fixed|still treats the {c2} "
                            "as a separate module|needs a long training schedule].", cm=q.method or q.title.split(':')[0],
                            cite=_cite(q))]
            paras.append(" ".join(sents))
        if self.study:
            paras.append(self.v("[In this paper we ask|We ask] [whether|how much] {tech} [actually helps|matters for] {fams}. "
                                "[We re-train|We re-implement] every method [with one recipe|under one protocol] and "
                                "[vary|sweep] the settings [that papers|prior work] usually [fix|keep fixed]."))
        else:
            paras.append(" ".join([self.v("[In this paper we introduce|We introduce|This work proposes] {method}, "
                                          "[which uses|based on|relying on] {tech} [for {prob}|to improve {fams}]."),
                                   self.v("[Instead of|Rather than] [a fixed {c1}|hand-tuning the {c1}], {method} "
                                          "[learns it from data|predicts it per {inp}|conditions it on the {c2}]."),
                                   self.v("[This keeps|The design keeps] [training|inference] [cost|memory] [close to|within a "
                                          "few percent of] that of the [base model|underlying {fam}].")]))
        if first_fig is not None:
            paras[-1] += " " + self.v(f"[Figure {first_fig.n} {'gives an overview of' if first_fig.kind == 'diagram' else 'previews'} "
                                      f"{{method}}.|An overview is shown in Figure {first_fig.n}.|See Figure {first_fig.n} for "
                                      f"{'an overview' if first_fig.kind == 'diagram' else 'a summary'}.]")
        contrib = [self.v("[First|(i)] [we propose {method}|we describe {method}|a controlled comparison of {fams}], "
                          "[built on|centred on] {tech}."),
                   self.v("[Second|(ii)] we [analyse|study] [the role of the {c1} and the {c2}|when {tech} helps]."),
                   self.v(f"[Third|(iii)] we [evaluate on|report results on] {{dslist}}"
                          f"[ with {len(self.p.figures)} figures of controlled sweeps| and release code|].")]
        paras.append(" ".join(contrib))
        return paras

    def related(self) -> list[str]:
        """Every cited paper in one sentence with its reason."""
        by_fam: dict[str, list[PaperGT]] = {}
        for q in self.cited:
            by_fam.setdefault(self._fam_of(q), []).append(q)
        compared = {self.pl.row_method(r[0]) for r in self.main().rows}
        paras = []
        for fam_name, group in by_fam.items():
            named = [q.method for q in group if q.method]
            such = f" such as {_and(named[-2:])}" if named else ""
            sents = [self.v(f"[{_cap(fam_name)}{such} {{cite}} [have been studied|are studied] [widely|extensively] for "
                            f"{{task}}|Much work on {{task}} uses {fam_name}{such} {{cite}}][, and we review those closest "
                            "to {us}|; we discuss the ones {us} [is compared with|builds on]].", cite=_cite(*group),
                            us=self.p.method or "this study")]
            us = self.p.method or "this study"
            for q in group:
                cm = q.method or "the study of " + q.authors[0].split()[-1] + " et al."
                qt = re.sub(r"^(towards|learning|beyond|rethinking) ", "", q.title.split(": ")[-1].lower())
                if q.method and q.method in compared:
                    t = self.rng.choice([
                        "{cm} {cite} [studies|targets] {qt}; we compare {us} against it in Table 1 because it is [a strong|"
                        "the most recent] {qf} [we could re-train|with public code].",
                        "[We include|Table 1 includes] {cm} {cite} [as a baseline|among the baselines] [of|for] {us} since it "
                        "[shares our setting|reports results on {ds1}|is the closest {qf}].",
                        "{cm} {cite} [is the main point of comparison for|serves as a baseline for] {us} because it also "
                        "[works on|addresses] {qt}."])
                else:
                    t = self.rng.choice([
                        "[To evaluate {us} we follow|For {us} we follow|{us} is evaluated with] the [evaluation protocol|data splits] of {cm} {cite}[, so "
                        "that our numbers are comparable| to keep results comparable].",
                        "The {c3} of {us} [is adapted from|builds on|follows] {cm} {cite}, [which introduced it for|who used "
                        "it in] {qt}.",
                        "{cm} {cite} [also studies|looks at] {qt}, but unlike {us} it [keeps the {c1} fixed|"
                        "requires a second training stage|relies on extra data], [which is why|so] we [do not compare with it "
                        "directly|discuss it here only]."])
                sents.append(self.v(t, cm=cm, cite=_cite(q), qt=qt, qf=self._fam_of(q).rstrip("s"), us=us))
                if self.rng.random() < 0.5:
                    theirs = q.datasets[:2]
                    shared = [d for d in theirs if d in self.p.datasets]
                    if len(theirs) == 1:
                        also = f"which {us} {'also uses' if shared else 'does not use'}"
                    else:
                        also = (f"both of which {us} also uses" if len(shared) == 2 else
                                f"of which {us} shares {shared[0]}" if shared else f"neither of which {us} uses")
                    sents.append(self.v(f"[It was|It is] [published|presented] at {q.venue} {q.year} and [evaluates on|reports "
                                        f"results on] {_and(theirs)}, {also}."))
            paras.append(" ".join(sents))
        for q in self.cross:
            qa = AREA_BY_NAME[q.area]
            sents = self.v("[Outside {task}|Beyond our area], {cm} {cite} [proposed|used] {what} for {qtask}; we borrow "
                           "[its|this] {what} because [our {c2} faces the same optimisation problem|it is simple and "
                           "well tested|it transfers without changes].",
                           cm=q.method, cite=_cite(q), what=self.rng.choice(("learning-rate schedule", "normalisation scheme",
                                                                             "data-augmentation policy", "warm-up strategy")),
                           qtask=qa.task)
            paras.append(sents) if not paras else paras.__setitem__(-1, paras[-1] + " " + sents)
        return paras

    def _fam_of(self, q: PaperGT) -> str:
        m = self.pl.res.methods.get(q.method)
        a = AREA_BY_NAME[q.area]
        if m is None:
            return "empirical studies"
        return next(f.plural for f in a.families if f.key == m.family)

    def method_section(self) -> list[SectionGT]:
        s = []
        over = self.some([
            "[Given|Let x denote] {inp}, {method} [produces|predicts] {out} [in three stages|through a stack of {layers} blocks].",
            "[Each block|Every stage] [combines|contains] a {c1} and a {c2} with [a residual connection|pre-normalisation].",
            "[The hidden width is|We use a width of] {dim} [throughout|in all stages].",
            "[Unlike a standard {fam}|In contrast to common {fams}], the {c1} [is conditioned on|receives] the output of the {c2}.",
            "[This coupling|The conditioning] [lets the model|allows {method} to] [adapt its computation to each {inp}|"
            "share information between stages]."], 4, 5)
        s.append(("Overview", [" ".join(over)]))
        comp = self.some([
            "[We parameterise the {c1}|The {c1} is parameterised] [as a|by a] [small two-layer network|low-rank projection|"
            "gated linear unit] of width {dim}.",
            "[Its output|The result] is [scaled|weighted] by a coefficient \u03bb = {lam} [before|prior to] the residual sum.",
            "[To stabilise training|For stability], we [normalise|re-scale] the {c1} [per channel|per {inp}] with temperature \u03c4 = {tau}.",
            "[A naive|The straightforward] [implementation|version] of the {c1} [costs quadratic memory|is slow on long inputs]; "
            "we [avoid this|reduce this cost] [by chunking|with a linear-time approximation].",
            "[We found|Empirically,] [initialising the {c1} to the identity|a zero-initialised output layer] [matters|helps early "
            "training]."], 4, 5)
        s.append(("The " + self.s["c1"], [" ".join(comp)]))
        obj = self.some([
            "[The model is trained with|We optimise] the [standard|usual] {task} loss [plus|together with] an auxiliary term on the {c2}, "
            "weighted by \u03bb = {lam}.",
            "[Both terms|The two losses] are [computed|averaged] over the [mini-batch|{unit} of a batch].",
            "[We use no|No experiment uses] [extra data|external labels|a pretrained {c3}] [beyond the training set|at any point].",
            "[Setting \u03bb to zero recovers|With \u03bb = 0, {method} reduces to] the [base|underlying] {fam}."], 3, 4)
        s.append(("Training objective", [" ".join(obj)]))
        c2 = self.some([
            "[The {c2}|Our {c2}] [is shared across|is reused by] all [blocks|stages][ to save parameters|].",
            "[It takes|Its input is] the [intermediate features|hidden state] of dimension {dim} and [returns|outputs] "
            "[a gating vector|per-position weights|a residual update].",
            "[We compared|We tried] [three|several] [designs|variants] of the {c2} and [kept|chose] the [simplest|cheapest] "
            "[one|variant] [that matched the others on {ds1}|without loss on {ds1}].",
            "[At inference|During inference], the {c2} [can be fused into|is merged with] the {c1}[, so it adds no latency|].",
            "[For {unit} with little structure|When the {inp} is easy], the {c2} [learns to pass its input through|"
            "stays close to the identity]."], 4, 5)
        s.append((self.rng.choice(("The ", "Coupling with the ", "Role of the ")) + self.s["c2"], [" ".join(c2)]))
        if self.rng.random() < 0.6:
            cx = self.some([
                "[For an input of length n|With n positions], the {c1} costs O(n \u00b7 {dim}) [time|operations] "
                "[instead of|rather than] O(n\u00b2).",
                "[In practice|Measured on a {gpu}], {method} [adds|costs] [about|roughly] "
                f"{self.rng.randint(3, 19)}% [more|extra] [training time|memory] [than the base {{fam}}|over the base model].",
                "[The added parameters|Its extra parameters] [amount to|are] [less than|under] "
                f"{self.rng.choice((1, 2, 3, 5))}% of the [model|total].",
                "[Memory grows|Peak memory grows] linearly with the [batch size|number of {unit}]."], 3, 4)
            s.append(("Complexity", [" ".join(cx)]))
        return [SectionGT(number="", title=t, paragraphs=ps) for t, ps in s]

    def setup(self) -> str:
        return " ".join(self.some([
            "[We evaluate on|Experiments use|We report results on] {dslist}[ with their standard splits| following common practice|].",
            "[Models are trained with|We use] {opt}, [a learning rate of|learning rate] {lr} and [a batch size of|batch size] {bs}.",
            "[Weight decay is|We set weight decay to] {wd}[ and the learning rate warms up to {lr} over {warm} steps|"
            " with {warm} warm-up steps and {bs} {unit} per batch].",
            "[Training takes|A full run takes] about {hours} hours on {gpus} {gpu} [accelerators|devices].",
            "[All baselines are re-trained|We re-train every baseline] with [the same recipe|their public code], [and we report the "
            "mean of {seeds} seeds|averaged over {seeds} seeds].",
            "[Hyper-parameters are tuned|We tune hyper-parameters] on a held-out [split|part] of the training data of {ds1}.",
            "[Gradients are clipped|We clip gradients] at norm [1.0|5.0|3.0] and use [mixed precision|bfloat16 arithmetic].",
            "[Checkpoints are selected|We select the checkpoint] [by validation {metric}|at the end of training].",
            "[Unless stated otherwise|By default], the {c2} of {method} uses {layers} layers and width {dim}."], 5, 8))

    def datasets_para(self) -> str:
        sents = []
        for ds in self.p.datasets:
            h = sum(map(ord, ds))
            n = [1.2, 0.05, 0.3, 2.1, 0.9, 0.16, 4.0, 0.6][h % 8]
            k = 10 + h % 900
            sents.append(self.v(f"[{ds} contains|{ds} has|{_cap('the')} {ds} benchmark consists of] about {n:g} million "
                                f"[{{unit}}|training {{unit}}]"
                                f"[ in {k} categories| labelled with {k} classes|]; we [use|follow] its [official|standard] "
                                "[validation split|test split] [to evaluate {us}|for evaluating {us}]."))
        sents.append(self.v("[We chose these benchmarks because|These benchmarks were chosen since] they [differ in|cover "
                            "a range of] [scale and difficulty|size and domain]."))
        return " ".join(sents)

    def baselines_para(self) -> str:
        ms = [self.pl.row_method(r[0]) for r in self.main().rows if self.pl.row_method(r[0]) != self.p.method]
        fam_of = {m: self.pl.res.methods[m].family for m in ms}
        fams = {f.key: f.name for f in self.area.families}
        items = [f"{m} ({_an(fams[fam_of[m]])})" for m in ms]
        return " ".join([self.v(f"[We compare with|Baselines are] {_and(items)}."),
                         self.v("[Methods without public code are|Where no code is available, methods are] "
                                "[re-implemented|reproduced] [from their papers|following their descriptions]"
                                "[ and checked against their reported numbers|]."),
                         self.v("[All of them|Every baseline] [uses|is trained with] the same [data|augmentation] "
                                "[and|as well as the same] [schedule|number of epochs] as {method}.")])

    def results_para(self) -> str:
        p, t = self.p, self.main()
        who = "all methods" if self.study else f"{self.s['method']} with prior methods"
        sents = [self.v("[Table 1 compares|We compare, in Table 1,] {who} [on|across] {dslist}.", who=who)]
        for ds in p.datasets:
            r = self.ranked(ds)
            vals = self.col(ds)
            if not self.study and r[0] == p.method:
                sents.append(self.v(f"On {ds}, {{method}} [is best|ranks first], [ahead of|followed by] {r[1]} by "
                                    f"{abs(vals[p.method] - vals[r[1]]):.2f} [points|{{metric}}]."))
            elif not self.study:
                pos = r.index(p.method) + 1
                sents.append(self.v(f"On {ds}, {r[0]} [is stronger than|outperforms] {{method}}, which ranks "
                                    f"{['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'][min(pos, 10) - 1]}"
                                    f" of {len(r)}."))
            else:
                sents.append(self.v(f"On {ds}, {r[0]} [is strongest|leads] and {r[-1]} [is weakest|trails]."))
        if "Params (M)" in t.columns:
            sents.append(self.v("[The parameter counts in Table 1 show|Table 1 also lists model sizes, showing] that "
                                "[gains do not come from size alone|larger models are not always better]."))
        return " ".join(sents)

    def figure_para(self, f: FigureGT) -> str:
        a, rng = self.area, self.rng
        n = f.n
        if f.kind == "line":
            sw = next((s for s in a.sweeps if s.x_label == f.x_label), None)
            phrase = sw.phrase if sw else f.x_label
            sents = [self.v(f"[Figure {n} varies|In Figure {n} we vary|Figure {n} studies] {phrase} on {f.dataset} "
                            f"for {_and([s.label for s in f.series])}.")]
            cross = _crossing(f, a.higher_is_better)
            if cross:
                sents.append(self.v(f"[The curves of|Curves for] {cross[0]} and {cross[1]} cross: {cross[0]} is "
                                    f"[ahead|better] at small {f.x_label.split(' (')[0]}, {cross[1]} at large."))
            elif sw and sw.shape == "peak":
                sents.append(self.v(f"[Every method|All methods] [peak|are best] [inside the range|at an intermediate value], "
                                    f"[so|and] {phrase} [needs tuning|should not be pushed to its extreme]."))
            if any(not _monotone(s.y) for s in f.series) and sw and sw.shape == "budget":
                sents.append(self.v("[The curves are not monotone|Single runs are noisy]; [differences below one point|small "
                                    "gaps] [should not be over-read|are within seed variance]."))
            if f.err_style:
                sents.append(self.v(f"[{'Shaded bands' if f.err_style == 'band' else 'Error bars'} show|We show] the "
                                    "[spread|standard deviation] over {seeds} seeds."))
            return " ".join(sents)
        if f.kind == "panels":
            assert f.panels
            return self.v(f"[Figure {n}|Figure {n}, with {len(f.panels)} panels,] [repeats the sweep|extends the analysis] "
                          f"[({', '.join(pn.label + ' ' + pn.title for pn in f.panels)})|across {len(f.panels)} settings] "
                          f"for {_and(sorted({s.label for pn in f.panels for s in pn.series}))}; "
                          "[the ordering of methods is stable|rankings change little] [except|apart from] small budgets.")
        if f.kind == "scatter":
            best = max(f.series, key=lambda s: max(s.y) if a.higher_is_better else -min(s.y))
            return self.v(f"[Figure {n} plots|We plot in Figure {n}] {{metric}} against {a.cost_axis} "
                          f"[for each method|for every compared model]; {best.label} [reaches the best {{metric}}|has the "
                          "best point] [in this plot|of all markers].")
        if f.kind == "bar":
            drops = {s.label: s.y[-1] for s in f.series}
            top = max(drops, key=drops.get) if a.higher_is_better else min(drops, key=drops.get)
            return self.v(f"[Figure {n} reports|We report in Figure {n}] [robustness|results] under "
                          f"{f.setting or 'distribution shift'}; [on {f.series[0].x[-1]}|in the last group], {top} "
                          "[is best|degrades least].")
        if f.kind == "stacked_bar":
            big = max(f.series, key=lambda s: sum(s.y)).label
            return self.v(f"[Figure {n} breaks down|The breakdown in Figure {n} shows] {f.y_label.split(' (')[0]} by "
                          f"component for {_and(f.series[0].x)}: [the {big} dominates|most of it is spent in the {big}] "
                          "[for every method|overall].")
        if f.kind == "hbar":
            s0 = f.series[0]
            top = s0.x[max(range(len(s0.y)), key=lambda i: s0.y[i] if a.higher_is_better else -s0.y[i])]
            return self.v(f"[Figure {n} lists|In Figure {n} we list] {{metric}} per {f.y_label.lower()}; [the highest|"
                          f"the best] value [belongs to|is for] {top}[ ({s0.label})|].")
        if f.kind == "heatmap":
            best = max(((s.label, x, y) for s in f.series for x, y in zip(s.x, s.y)),
                       key=lambda t: t[2] if a.higher_is_better else -t[2])
            return self.v(f"[Figure {n} shows|The grid in Figure {n} shows] {{metric}} for [each|every] {f.y_label} and "
                          f"{f.x_label}; the best cell is {best[0]} with {f.x_label} {best[1]}.")
        if f.kind == "diagram":
            return self.v(f"[Figure {n} sketches|As Figure {n} shows,] [the architecture|the data flow]: "
                          f"{_and([s.label for s in f.series[1:-1]])} [process|transform] {a.input_name}.")
        return self.v(f"[Figure {n} shows|We show in Figure {n}] {a.qualitative} [of|for] {_and([s.label for s in f.series])}; "
                      "[differences are most visible|the gap is clearest] on [hard|cluttered|rare] [cases|examples].")

    def ablation_para(self, t: TableGT) -> str:
        sents = [self.v(f"[Table {t.n} ablates|We ablate in Table {t.n}] the components of {{method}}.")]
        for ds in t.columns[1:]:
            c = t.columns.index(ds)
            vals = {r[0]: float(r[c]) for r in t.rows[1:]}
            worst = min(vals, key=vals.get) if self.area.higher_is_better else max(vals, key=vals.get)
            sents.append(self.v(f"[On|For] {ds}, [the largest drop comes from|the variant that suffers most is] "
                                f"'{worst}'."))
        return " ".join(sents)

    def other_table_para(self, t: TableGT) -> str:
        if t.role == "efficiency":
            params = {r[0]: float(r[1]) for r in t.rows}
            return self.v(f"[Table {t.n} lists|We list in Table {t.n}] [size and speed|parameters and throughput]; "
                          f"{min(params, key=params.get)} is the smallest [model|of the compared methods].")
        if t.role == "hparams":
            who = self.p.method or "the re-trained models"
            return self.v(f"[Table {t.n} lists the hyper-parameters of {who}|The hyper-parameters of {who} are listed in "
                          f"Table {t.n}] [on {_and(t.columns[1:])}|for {_and(t.columns[1:])}]"
                          "[; all other settings follow Section 4|, selected on held-out data|].")
        if t.role == "per_class":
            return self.v(f"[Table {t.n} breaks down|Per-category results are in Table {t.n}, which breaks down] {{metric}} "
                          f"of {_and([r[0] for r in t.rows])} on {t.caption.split(' on ')[-1].rstrip('.')}[ by category|].")
        return self.v(f"See Table {t.n}.")


    # ---- longer sections -------------------------------------------------------------------------
    def problem_setup(self) -> list[str]:
        a = [self.v("[We consider|We study] {task} [with|from] a training set of [labelled|annotated] {unit}; [a model|the "
                    "model] maps {inp} x to {out} y [through a|with a] [stack of|sequence of] [blocks|stages], [each of which "
                    "contains|with] a {c1} and a {c2}."),
             self.v("[We write|Denote by] h_l the [features|hidden state] after block l and f_l the {c1} of that block, so that "
                    "h_(l+1) = h_l + f_l(h_l) [in a standard {fam}|for the base {fam}] of [depth|width] {layers} by {dim}."),
             self.v("[In {method}|With {method}], f_l [additionally receives|also takes] g_l(h_l), the output of the {c2}, "
                    "[and|while] [the rest of the block|everything else] [is unchanged|stays as in the base model]."),
             self.v("[The question we ask is|Our question is] [whether|when] [this extra input|the signal from the {c2}] "
                    "[helps|improves] {metric} [on {ds1} and {dsN}|across {dslist}] [at a fixed budget|for the same compute] "
                    "[in {method}|for {method}].")]
        b = self.some([
            "[A first observation is|We first note] that {method} [contains|includes] the base {fam} as a special case "
            "[when|if] g_l [is constant|outputs zeros], so [it can only|training can] [match or improve|improve on] it "
            "[on the training objective|in training loss].",
            "[Second|Next], the cost of g_l [in {method}|for {method}] [is|grows] linear in the number of positions, "
            "[as|since] it [acts on|is applied to] each position [independently|separately] [before|prior to] the {c1}.",
            "[Third|Finally], {method} [keeps|preserves] the [interface|input and output shapes] of every block, so it "
            "[drops into|fits] [existing|standard] {fams} [without changes|with no other change].",
            "[These properties|The three properties] [guide|motivate] the design of {method} [below|in the next section]."], 3, 4)
        return [" ".join(a), " ".join(b)]

    def training_para(self) -> str:
        return " ".join(self.some([
            "[We train|{method} is trained] [end to end|jointly] [with|using] {opt} [for|over] {hours} [hours|GPU-hours] "
            "[on|using] {gpus} {gpu} [devices|accelerators].",
            "[The learning rate of {method}|{method}'s learning rate] [follows|uses] a cosine schedule [from|starting at] "
            "{lr} after {warm} warm-up steps.",
            "[We use|{method} uses] a batch of {bs} {unit} [per step|per update], [a peak learning rate of|learning "
            "rate] {lr} [and|with] weight decay {wd}.",
            "[For {method}, the|The] coefficient \u03bb = {lam} and temperature \u03c4 = {tau} [were|are] [chosen|selected] on "
            "[held-out data|a validation split] of {ds1}.",
            "[Training {method} is stable|{method} trains stably] [without|with no] [gradient clipping|special tricks] at "
            "[batch size|batch] {bs}, [but|although] [larger|bigger] batches [need|require] a [longer|longer {warm}-step] warm-up."],
            4, 5))

    def analysis_extra(self) -> str:
        return " ".join(self.some([
            "[To understand|To see] [where|why] {method} [helps|improves], we [measure|track] the [norm|magnitude] of g_l "
            "[per block|at each block] [during training|over training] on {ds1}.",
            "[Early blocks|The first blocks] of {method} [use|rely on] the {c2} [little|only weakly], [while|whereas] "
            "[late blocks|the last blocks] [depend on it|use it] [strongly|heavily] on {ds1}.",
            "[Replacing|When we replace] g_l [by|with] its [average|mean] over the [data|training set], {method} [loses "
            "most of|gives up much of] its [gain|advantage] [on {dsN}|over the base {fam}].",
            "[This suggests|This indicates] that {method} [benefits from|exploits] [per-input|input-dependent] "
            "[behaviour|signals] [rather than|more than] [extra capacity|additional parameters].",
            "[The same trend holds|We see the same pattern] [for|with] [the other datasets|{dsN}] [at|for] [every|each] "
            "[depth|model size] we [tried|tested] with {method}."], 4, 5))


    def scaling_paras(self) -> list[str]:
        a = self.some([
            "[We also train|We further train] [larger|wider] [versions|variants] of {method} [with|at] [twice|four times] "
            "the width [on {ds1}|for {ds1}] [to see whether|to check that] [the gain persists|its advantage holds].",
            "[At the largest size|For the widest variant], {method} [still improves|keeps improving] [on {ds1}|over the "
            "base {fam}], [though|but] [the margin shrinks|by a smaller margin].",
            "[Smaller|Narrower] [variants|versions] of {method} [benefit|gain] [most|the most] from the {c2}, "
            "[which|and this] [matches|agrees with] [our analysis|the motivation] in [the problem setup|Section 3].",
            "[Doubling|Halving] the [training schedule|number of epochs] [changes|affects] {method} and the base {fam} "
            "[alike|in the same way][, so the comparison is not an artefact of the schedule|].",
            "[With|Using] [a quarter|half] of the [training data|training {unit}] of {ds1}, {method} [retains|keeps] "
            "[most of|a large part of] its [gain|advantage], [suggesting|indicating] [better|higher] [data efficiency|"
            "sample efficiency]."], 4, 5)
        b = self.some([
            "[Our comparison of {method} has|The evaluation of {method} has] [limits|caveats]: [all|every] [numbers|"
            "results] [come from|are from] our [own|re-run] [training|runs] of [each|every] method.",
            "[Differences|Gaps] [below|under] [half a point|0.5 points] [between {method} and a baseline|in our tables] "
            "[are|fall] within [seed variance|run-to-run noise] on {dsN}.",
            "[We did not|We could not] [tune|search] [the baselines'|every baseline's] hyper-parameters as [extensively|"
            "carefully] as those of {method}[, although we used their published settings|].",
            "[Future versions|Later versions] of {method} [could|might] [learn|adapt] \u03bb [per block|per layer] "
            "[instead of|rather than] [fixing it|keeping it fixed] at {lam}."], 3, 4)
        return [" ".join(a), " ".join(b)]

    def failure_para(self) -> str:
        return " ".join(self.some([
            "[Looking at|Inspecting] the [errors|failure cases] of {method} on {dsN}, [most|many] [involve|concern] "
            "[rare|small|ambiguous] {unit}.",
            "[For these|On such] {unit}, {method} [behaves like|is no better than] the [base|underlying] {fam}[, which "
            "suggests that the {c1} falls back to its default|].",
            "[A second group|Another group] of [errors|failures] of {method} [comes from|stems from] [label noise|"
            "annotation errors] in {dsN}[, which no method can fix|].",
            "[Increasing|Doubling] the {c2} [width|depth] [fixes some of|removes part of] [these errors|these failures] "
            "[of {method}|for {method}] at [a higher|an extra] [cost|training cost]."], 3, 4))

    def discussion(self) -> list[str]:
        return [" ".join(self.some([
            "[A limitation of|One limitation of] {method} is [the extra hyper-parameter \u03bb|its reliance on the {c2}|"
            "the added memory of the {c1}].",
            "[We have not evaluated|We did not test] [larger models|other {unit}|settings beyond {dslist}][ for lack of compute|].",
            "[Our sweeps|The sweeps] [vary|change] one factor at a time; [interactions between|joint effects of] the {c1} and the "
            "{c2} [remain open|are left for future work].",
            "[Gains|Improvements] on {dsN} [are smaller|are less consistent] than on {ds1}, [possibly because|perhaps since] "
            "[its {unit} differ|the {c3} matters less there].",
            "[Training|Each run] [costs|took] about {hours} GPU-hours on {gpu} [devices|accelerators], [so|and] [we report|"
            "results use] {seeds} seeds."], 4, 5))]

    def conclusion(self) -> str:
        return " ".join(self.some([
            "[We presented|This paper introduced|We have described] {method}[, {a_fam} built on {tech}|] for {task}.",
            "{method} [is evaluated|was tested] on {dslist}[ against re-trained baselines|].",
            "[Future work will cover|Next steps include|We plan to study] [applying {tech} to other {fams}|scaling the {c1}|a study of the {c2}].",
            "[Code|Our implementation] [will be|is] released."], 3, 4))


def _monotone(ys: list[float]) -> bool:
    d = [b - a for a, b in zip(ys, ys[1:])]
    return all(x >= 0 for x in d) or all(x <= 0 for x in d)


def _crossing(f: FigureGT, higher: bool) -> tuple[str, str] | None:
    for i, a in enumerate(f.series):
        for b in f.series[i + 1:]:
            d = [x - y for x, y in zip(a.y, b.y)]
            if d[0] * d[-1] < 0:
                first_ahead = (d[0] > 0) == higher
                return (a.label, b.label) if first_ahead else (b.label, a.label)
    return None


_STRUCTURES = ("classic", "background", "late_related", "results_split")


def write_paper(p: PaperGT, area: Area, fam: Family, planner, cited: list[PaperGT], cross: list[PaperGT], body_n: int,
                main_tables: int, rng: random.Random, tech: str, prob: str, study: bool) -> None:
    w = Writer(p, area, fam, planner, cited, cross, rng, tech, prob, study)
    p.abstract = w.abstract()
    body_figs = p.figures[:body_n]
    app_figs = p.figures[body_n:]
    body_tabs = p.tables[:main_tables]
    app_tabs = p.tables[main_tables:]
    first_fig = body_figs[0] if body_figs and body_figs[0].kind in ("diagram", "scatter") else None
    rest = [f for f in body_figs if f is not first_fig]
    structure = "study" if study else rng.choice(_STRUCTURES)
    secs: list[tuple[str, list[str] | list[SectionGT]]] = []
    intro = w.intro(first_fig)
    related = w.related()
    setup = w.setup()
    res = w.results_para()
    fig_paras = [w.figure_para(f) for f in rest]
    tab_paras = [w.ablation_para(t) if t.role == "ablation" else w.other_table_para(t) for t in body_tabs[1:]]
    exp_subs: list[tuple[str, list[str]]] = [
        (rng.choice(("Experimental setup", "Setup", "Implementation and protocol")), [w.datasets_para(), setup,
                                                                                      w.baselines_para()]),
        (rng.choice(("Main results", "Comparison with prior work", "Results")), [res])]
    if not study:
        fig_paras += [w.analysis_extra(), w.failure_para()]
    if fig_paras:
        k = (len(fig_paras) + 1) // 2
        exp_subs.append((rng.choice(("Analysis", "Sensitivity analysis", "Scaling behaviour")), fig_paras[:k]))
        if fig_paras[k:]:
            exp_subs.append((rng.choice(("Robustness and efficiency", "Further analysis", "Additional comparisons")),
                             fig_paras[k:]))
    if tab_paras:
        exp_subs.append((rng.choice(("Ablation study", "Ablations", "What matters in {method}?")).format(method=p.method or "the recipe"),
                         tab_paras))
    method_subs = [] if study else w.method_section()
    if not study:
        method_subs.append(SectionGT(number="", title=rng.choice(("Training", "Optimisation", "Training procedure")),
                                     paragraphs=[w.training_para()]))
    if study:
        secs = [("Introduction", intro), ("Related Work", related), ("Problem Setup", w.problem_setup()),
                ("Experimental Protocol", [w.datasets_para(), setup, w.baselines_para(), w.v("[We group methods by family|Methods are grouped by family]: "
                                                     "{fams} [and|versus] [their|the other] competitors[ of the study|].")]),
                ("Findings", [(t, ps) for t, ps in exp_subs[1:]]),
                ("Recommendations", w.discussion()), ("Conclusion", [w.conclusion()])]
    elif structure == "classic":
        secs = [("Introduction", intro), ("Related Work", related), ("Problem Setup", w.problem_setup()),
                ("Method", method_subs), ("Experiments", exp_subs), ("Discussion", w.discussion()),
                ("Conclusion", [w.conclusion()])]
    elif structure == "background":
        secs = [("Introduction", intro), ("Background", related + w.problem_setup()), ("Approach", method_subs),
                ("Experiments", exp_subs), ("Limitations", w.discussion()), ("Conclusion", [w.conclusion()])]
    elif structure == "late_related":
        secs = [("Introduction", intro), ("Motivation", w.problem_setup()), (f"{p.method}", method_subs),
                ("Experiments", exp_subs),
                ("Related Work", related), ("Conclusion and Future Work", [w.conclusion()] + w.discussion())]
    else:
        secs = [("Introduction", intro), ("Related Work", related), ("Preliminaries", w.problem_setup()),
                ("Method", method_subs), ("Experimental Setup", exp_subs[0][1]),
                ("Results", [(t, ps) for t, ps in exp_subs[1:]]),
            ("Discussion", w.discussion()), ("Conclusion", [w.conclusion()])]
    sections: list[SectionGT] = []
    for i, (title, content) in enumerate(secs, start=1):
        _emit(sections, str(i), title, content)
    # appendices: floats of the appendix and their text
    letters = iter("ABCDEF")
    if app_tabs or app_figs:
        paras = []
        for t in app_tabs:
            paras.append(w.ablation_para(t) if t.role == "ablation" else w.other_table_para(t))
        for f in app_figs:
            paras.append(w.figure_para(f))
        _emit(sections, next(letters), rng.choice(("Additional Results", "Supplementary Experiments", "More Results")),
              paras)
    _emit(sections, next(letters), rng.choice(("Implementation Details", "Training Details", "Reproducibility")),
          [w.setup(), w.datasets_para(), w.training_para()])
    if p.layout == "two_column" or rng.random() < 0.3:
        _emit(sections, next(letters), rng.choice(("Scaling and Further Analysis", "Extended Analysis",
                                                   "Additional Analysis")), w.scaling_paras())
    if rng.random() < 0.4:
        _emit(sections, next(letters), rng.choice(("Broader Impact", "Societal Impact")), [w.v(
            "[{us}|This work on {us}] [could reduce|may lower] the compute [needed|required] for {task}[, but|; however,] "
            "[models trained on {ds1} inherit its biases|errors on rare {unit} remain a risk].")])
    names = {m for m in planner.compared} | {p.method} - {""}
    p.abstract = _anchor(p.abstract, names)
    for sec in sections:
        sec.paragraphs = [_anchor(x, names) for x in sec.paragraphs]
    number_citations(p, sections)
    p.sections = sections


def _specific(s: str, names: set[str]) -> bool:
    """A sentence only this paper (or a few) can contain: it names a method or cites, or has two numbers."""
    return "⟦" in s or any(m in s for m in names) or len(set(_NUMS.findall(_FLOATREF.sub("", s)))) >= 2


def _anchor(text: str, names: set[str]) -> str:
    """Join each generic sentence to a neighbour that is specific to the paper (with a semicolon), so no
    sentence of the paper is a stock phrase other papers share word for word."""
    out: list[str] = []
    held: list[str] = []
    for s in _SENT.split(text):
        if _specific(s, names):
            if held:
                s = "; ".join(h.rstrip(".") for h in held) + "; " + _lower(s)
                held = []
            out.append(s)
        elif out:
            out[-1] = out[-1].rstrip(".") + "; " + _lower(s)
        else:
            held.append(s)
    if held:
        out.append("; ".join(h.rstrip(".") for h in held) + ".")
    return " ".join(out)


def _lower(s: str) -> str:
    first = s.split(" ", 1)[0]
    return s[0].lower() + s[1:] if first[1:] == first[1:].lower() and first.isalpha() and first not in ("I",) else s


def _emit(out: list[SectionGT], number: str, title: str, content) -> None:
    """A section; `content` is paragraphs or (title, paragraphs) subsections or SectionGT subsections."""
    if content and isinstance(content[0], SectionGT):
        out.append(SectionGT(number=number, title=title, paragraphs=[]))
        for k, sub in enumerate(content, start=1):
            out.append(SectionGT(number=f"{number}.{k}", title=sub.title, paragraphs=sub.paragraphs))
    elif content and isinstance(content[0], tuple):
        out.append(SectionGT(number=number, title=title, paragraphs=[]))
        for k, (t, ps) in enumerate(content, start=1):
            out.append(SectionGT(number=f"{number}.{k}", title=t, paragraphs=ps))
    else:
        out.append(SectionGT(number=number, title=title, paragraphs=list(content)))


_CITE_RE = re.compile(r"⟦([^⟧]+)⟧")


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
