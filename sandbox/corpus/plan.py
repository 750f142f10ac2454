"""Plan corpus v3 from a seed: papers, authors, citations, and every value of every table and figure.

A pure function of (seed, number of papers). Each paper belongs to an area and, unless it is an
empirical study, introduces a method of one of the area's families. It compares with the methods of
the same-area papers it cites and with a few classic baselines of the area; its line figures sweep only
axes that make sense for every method they plot. Its own method is the best in its main table only as
often as its latent quality makes it so. Figures are of many kinds (line sweeps with noise, crossings,
error bars or bands and log axes; scatter; grouped, stacked and horizontal bars; heatmaps; multi-panel
figures) plus procedural ones no question is asked about (architecture diagrams, image grids), each
raster or vector; a vector figure either draws its marks as exact vector paths or embeds them as an
image inside vector axes (`vector_exact`).
"""
from __future__ import annotations

import random

from .model import FigureGT, GroundTruth, PanelGT, PaperGT, SeriesGT, TableGT
from .results import Results, better
from .vocab import (AFFILIATIONS, AREAS, FAMILY_NAMES, FIRST_YEAR, GIVEN_NAMES, LAST_YEAR, NAME_SUFFIXES, STEM_HEADS,
                    STEM_TAILS, Area, Dataset, Family, Sweep)

GENERATOR_VERSION = "corpus-3.0"
DEFAULT_PAPERS = 480
MIN_PAPERS = 24  # fewer cannot give every area papers to cite
MIN_PAPERS_REASON = "so that every area has papers to cite and compare with"
STUDY_SHARE = 0.15  # empirical studies: no method of their own
CROSS_AREA_CITE = 0.22  # chance a paper cites one paper of another area (with a stated reason)
CROSS_AREA_MAX = 0.08  # ... as long as cross-area references stay at most this share of all references
_LETTERS = "ABCDEFGHKLMNPRSTVWZ"
_Q0_SLACK = 0.3
_OWN_MARGIN = (-0.14, 0.05)


def paper_id(i: int) -> str:
    """Corpus v3 ids: 'Q' and four digits, apart from v1's P001 and v2's P0001."""
    return f"Q{i + 1:04d}"


class _Names:
    """Method names from area-neutral stems, suffixes and acronyms; never reused."""

    def __init__(self, rng: random.Random):
        self.rng, self.used = rng, set()

    def new(self) -> str:
        r = self.rng
        while True:
            if r.random() < 0.22:
                name = "".join(r.choice(_LETTERS) for _ in range(r.randint(3, 5)))
                if r.random() < 0.3:
                    name += r.choice(("-2", "-S", "+", "-XL"))
            else:
                name = r.choice(STEM_HEADS) + r.choice(STEM_TAILS)
                if r.random() < 0.25:
                    name += r.choice(STEM_TAILS)
                name += r.choice(NAME_SUFFIXES)
            if name not in self.used:
                self.used.add(name)
                return name


class _People:
    def __init__(self, rng: random.Random, areas: tuple[Area, ...], per_area: int):
        self.rng = rng
        names = [f"{g} {f}" for g in GIVEN_NAMES for f in FAMILY_NAMES]
        rng.shuffle(names)
        size = max(12, int(per_area * 1.6))
        self.pool = {a.name: names[i * size:(i + 1) * size] for i, a in enumerate(areas)}

    def authors(self, area: str) -> list[str]:
        pool = self.pool[area]
        weights = [1.0 / (1 + k) ** 0.5 for k in range(len(pool))]
        first = self.rng.choices(pool, weights)[0]
        rest = self.rng.sample([p for p in pool if p != first], self.rng.choice((1, 2, 2, 3, 3, 4, 5, 6)))
        return [first] + rest


def _areas_for(n_papers: int) -> tuple[Area, ...]:
    return AREAS[: max(2, min(len(AREAS), n_papers // 6))]


class _Deck:
    """Draws indices in proportion to integer weights, like cards from a shuffled deck refilled when empty, so
    the shares hold in a small corpus too (independent draws let one pattern reach a third of 48 titles)."""

    def __init__(self, rng: random.Random, weights: list[int]):
        self.rng, self.weights, self.cards = rng, weights, []

    def draw(self) -> int:
        if not self.cards:
            self.cards = [k for k, w in enumerate(self.weights) for _ in range(w)]
            self.rng.shuffle(self.cards)
        return self.cards.pop()


_TITLE_WEIGHTS = [26, 14, 9, 8, 10, 5, 8, 6, 7, 7]


def title_for(rng: random.Random, p: PaperGT, area: Area, fam: Family, tech: str, prob: str, study: bool,
              decks: dict[bool, _Deck] | None = None) -> tuple[str, str]:
    """(title, pattern name): one of ten patterns, the method's name in front only in some; `decks` (by
    `study`) draw the pattern so shares hold at every corpus size."""
    T = tech.title().replace("-", "-")
    P = prob[0].upper() + prob[1:]
    if study:
        pats = [("study", f"An Empirical Study of {fam.plural.title()} for {area.task.title()}"),
                ("revisit", f"Revisiting {T} in {area.task.title()}"),
                ("question", f"Do {fam.plural.title()} Really Need {T}?"),
                ("benchmark", f"A Closer Look at {P}: Benchmarking {fam.plural.title()}")]
    else:
        M = p.method
        pats = [("colon", f"{M}: {T} for {P}"),
                ("plain", f"{T} for {P}"),
                ("towards", f"Towards {P} with {T}"),
                ("learning", f"Learning {area.task.title()} Models with {T}"),
                ("via", f"{P} via {T}"),
                ("simple", f"A Simple and Strong Baseline for {P}"),
                ("rethink", f"Rethinking the {rng.choice(area.components).title()} in {fam.plural.title()}"),
                ("when", f"When Does {T} Help {fam.plural.title()}?"),
                ("named", f"{M}: Scaling {fam.plural.title()} for {P}"),
                ("beyond", f"Beyond {rng.choice(area.components).title()}s: {T} for {area.task.title()}")]
        k = decks[False].draw() if decks else rng.choices(range(len(pats)), _TITLE_WEIGHTS)[0]
        return pats[k][1], pats[k][0]
    k = decks[True].draw() if decks else rng.randrange(len(pats))
    return pats[k][1], pats[k][0]


def _sweeps_for(area: Area, families: set[str]) -> list[Sweep]:
    return [s for s in area.sweeps if not s.families or families <= set(s.families)]


def _label(p: PaperGT, m: str, ours_label: bool) -> str:
    return "Ours" if (m == p.method and ours_label) else m


class _Planner:
    def __init__(self, p: PaperGT, area: Area, fam: Family, compared: list[str], res: Results, rng: random.Random,
                 study: bool):
        self.p, self.area, self.fam, self.res, self.rng, self.study = p, area, fam, res, rng, study
        self.compared = compared  # methods in the main table, own last
        self.dsets = [d for d in area.datasets if d.name in p.datasets]
        self.main: TableGT | None = None
        self.figs: list[FigureGT] = []
        self.appendix_figs: list[FigureGT] = []
        self.tables: list[TableGT] = []
        self.appendix_tables: list[TableGT] = []
        self.own_label = rng.choice(("ours", "ours", "plain", "Ours"))

    # ---- tables -------------------------------------------------------------------------
    def cell(self, m: str, d: str) -> float:
        t = self.main
        assert t is not None
        row = next(r for r in t.rows if self.row_method(r[0]) == m)
        return float(row[t.columns.index(d)])

    def row_method(self, label: str) -> str:
        if label == "Ours":
            return self.p.method
        return label.removesuffix(" (ours)")

    def main_table(self) -> TableGT:
        p, area, rng = self.p, self.area, self.rng
        rows = []
        seen: dict[str, set[float]] = {d.name: set() for d in self.dsets}
        with_params = rng.random() < 0.4
        for m in self.compared:
            own = m == p.method
            cells = []
            for d in self.dsets:
                v = self.res.rerun(area, m, d, own, rng)
                while v in seen[d.name]:
                    v = round(v + 0.01, 2)
                seen[d.name].add(v)
                cells.append(f"{v:.2f}" if area.higher_is_better or v >= 10 else f"{v:.2f}")
            label = m
            if own:
                label = {"ours": f"{m} (ours)", "plain": m, "Ours": "Ours"}[self.own_label]
            lead = [label] + ([f"{self.res.methods[m].cost * 40:.1f}"] if with_params else [])
            rows.append(lead + cells)
        arrow = "higher is better" if area.higher_is_better else "lower is better"
        who = "all methods" if self.study else f"{p.method} and prior methods"
        cap = rng.choice((
            f"Table 1: {area.metric} of {who} on {_and([d.name for d in self.dsets])} ({arrow}).",
            f"Table 1: Main results of {who} on {_and([d.name for d in self.dsets])}, in {area.metric} ({arrow}); the best "
            "value per column is in bold.",
            f"Table 1: Comparison of {len(self.compared)} methods on {len(self.dsets)} benchmarks "
            f"({_and([d.name for d in self.dsets])}), in {area.metric} "
            f"({arrow}); baselines are re-trained with their public code.",
        ))
        cols = ["Method"] + (["Params (M)"] if with_params else []) + [d.name for d in self.dsets]
        t = TableGT(n=1, caption=cap, columns=cols, rows=rows, metric=area.metric, higher_is_better=area.higher_is_better,
                    role="main")
        self.main = t
        return t

    def ablation_table(self) -> TableGT:
        p, area, rng = self.p, self.area, self.rng
        comps = rng.sample(list(area.components), 3)
        labels = [f"{p.method} (full)", f"w/o {comps[0]}", f"w/o {comps[1]}", f"{comps[2]} replaced",
                  f"w/o {comps[0]} and {comps[1]}"][: rng.choice((4, 4, 5))]
        ds = self.dsets[: rng.randint(1, 3)]
        rows = []
        for i, label in enumerate(labels):
            cells = [label]
            for d in ds:
                own = self.cell(p.method, d.name)
                drop = 0.0 if i == 0 else rng.uniform(0.015, 0.16) * (d.high - d.low) * (1.6 if i == 4 else 1)
                cells.append(f"{(own - drop if area.higher_is_better else own + drop):.2f}")
            rows.append(cells)
        cap = rng.choice((f"Table 0: Ablation of the components of {p.method} ({area.metric}).",
                          f"Table 0: Removing components of {p.method} one at a time: {area.metric} on {_and([d.name for d in ds])}."))
        return TableGT(n=0, caption=cap, columns=["Variant"] + [d.name for d in ds], rows=rows, metric=area.metric,
                       higher_is_better=area.higher_is_better, role="ablation")

    def efficiency_table(self) -> TableGT:
        rng, area = self.rng, self.area
        ms = self.compared[-rng.randint(3, min(5, len(self.compared))):]
        rows = []
        for m in ms:
            c = self.res.methods[m].cost
            label = next(r[0] for r in self.main.rows if self.row_method(r[0]) == m)  # type: ignore[union-attr]
            rows.append([label, f"{c * 40:.1f}", f"{c * 31 + 2:.1f}", f"{900 / (c + 0.4):.0f}"])
        unit = {"images": "img/s", "utterances": "utt/s", "sentence pairs": "sent/s", "nodes": "graphs/s"}[area.data_unit]
        cap = (f"Table 0: Size and speed of {_and([r[0] for r in rows])}, measured on one GPU with batch size "
               f"{rng.choice((1, 16, 32, 64))}.")
        return TableGT(n=0, caption=cap, columns=["Method", "Params (M)", area.cost_axis.split(" (")[0], f"Throughput ({unit})"],
                       rows=rows, role="efficiency")

    def hparam_table(self) -> TableGT:
        rng = self.rng
        ds = self.dsets[: rng.randint(2, 3)]
        names = [("Learning rate", lambda: f"{rng.choice((1, 2, 3, 5, 8))}e-{rng.choice((3, 4, 5))}"),
                 ("Batch size", lambda: str(rng.choice((16, 32, 64, 128, 256, 512, 1024)))),
                 ("Weight decay", lambda: str(rng.choice((0.0, 0.01, 0.05, 0.1, 0.3)))),
                 ("Warm-up steps", lambda: str(rng.choice((500, 1000, 2000, 5000, 10000)))),
                 ("Dropout", lambda: str(rng.choice((0.0, 0.1, 0.2, 0.3)))),
                 ("Gradient clipping", lambda: str(rng.choice((0.5, 1.0, 3.0, 5.0))))]
        rows = [[n] + [f() for _ in ds] for n, f in rng.sample(names, rng.randint(4, 6))]
        return TableGT(n=0, caption=f"Table 0: Hyper-parameters of {self.p.method or 'all re-trained models'} on "
                                    f"{_and([d.name for d in ds])}.",
                       columns=["Setting"] + [d.name for d in ds], rows=rows, role="hparams")

    def per_class_table(self) -> TableGT:
        rng, area = self.rng, self.area
        ms = self.compared[-3:]
        d = self.dsets[0]
        cats = rng.sample(list(area.per_class), rng.randint(4, 6))
        rows = []
        for m in ms:
            base = self.cell(m, d.name)
            label = next(r[0] for r in self.main.rows if self.row_method(r[0]) == m)  # type: ignore[union-attr]
            rows.append([label] + [f"{base + rng.gauss(0, 0.08) * (d.high - d.low):.2f}" for _ in cats])
        return TableGT(n=0, caption=f"Table 0: Per-category {area.metric} of {_and([r[0] for r in rows])} on {d.name}.",
                       columns=["Method"] + cats,
                       rows=rows, metric=area.metric, higher_is_better=area.higher_is_better, role="per_class")

    # ---- figures ------------------------------------------------------------------------
    def _fig(self, kind: str, cap: str, x_label: str, y_label: str, series: list[SeriesGT], **kw) -> FigureGT:
        return FigureGT(n=0, kind=kind, visual="vector", caption="Figure 0: " + cap[0].upper() + cap[1:], x_label=x_label, y_label=y_label,
                        series=series, **kw)

    def _line_series(self, sweep: Sweep, d: Dataset, methods: list[str], noisy: bool, err: bool,
                     ours_label: bool) -> list[SeriesGT]:
        out = []
        noise = self.rng.uniform(0.012, 0.03) if noisy else self.rng.uniform(0.002, 0.006)
        for m in methods:
            ys = self.res.curve(self.area, d, sweep, m, self.cell(m, d.name), noise, self.rng)
            s = SeriesGT(label=_label(self.p, m, ours_label), method=m, x=[float(x) for x in sweep.grid], y=ys)
            if err:
                s.err = [round(abs(self.rng.gauss(0.018, 0.008)) * (d.high - d.low) + 0.01, 2) for _ in ys]
            out.append(s)
        return out

    def _pick_methods(self, sweep: Sweep, k: int) -> list[str]:
        ok = [m for m in self.compared if not sweep.families or self.res.methods[m].family in sweep.families]
        own = [self.p.method] if self.p.method in ok else []
        others = [m for m in ok if m not in own]
        pick = self.rng.sample(others, min(len(others), k - len(own)))
        return [m for m in ok if m in pick] + own

    def _sweeps(self) -> list[Sweep]:
        fams = {self.res.methods[m].family for m in self.compared}
        shared = _sweeps_for(self.area, fams)
        own_only = [s for s in self.area.sweeps if s.families and self.fam.key in s.families and s not in shared]
        ok = lambda s: sum(not s.families or self.res.methods[m].family in s.families for m in self.compared) >= 2  # noqa: E731
        return [s for s in shared + own_only if ok(s)]

    def line_figure(self, sweep: Sweep, d: Dataset) -> FigureGT:
        rng = self.rng
        methods = self._pick_methods(sweep, rng.choice((2, 3, 3, 4, 4, 5)))
        err = rng.random() < 0.35
        ours_label = rng.random() < 0.25
        series = self._line_series(sweep, d, methods, rng.random() < 0.5, err, ours_label)
        log_y = (not self.area.higher_is_better) and rng.random() < 0.5
        style = rng.choice(("bars", "band")) if err else None
        extra = "; shaded regions show one standard deviation over three seeds" if style == "band" else (
            "; error bars show the standard deviation over three seeds" if style == "bars" else "")
        who = f" ({_and([s.label for s in series])})" if rng.random() < 0.75 else ""
        cap = rng.choice((f"{self.area.metric} on {d.name}{who} as a function of {sweep.phrase}{extra}.",
                          f"Effect of {sweep.phrase} on {d.name} for {_and([s.label for s in series])} "
                          f"({self.area.metric}){extra}.",
                          f"Varying {sweep.phrase}: {self.area.metric} on {d.name}{who}{' (log scale)' if log_y else ''}{extra}."))
        return self._fig("line", cap, sweep.x_label, self.area.metric, series, dataset=d.name,
                         log_x=sweep.log_x, log_y=log_y, err_style=style)

    def panel_figure(self) -> FigureGT | None:
        rng = self.rng
        sweeps = self._sweeps()
        if not sweeps:
            return None
        panels = []
        if rng.random() < 0.5 and len(self.dsets) >= 2:  # one sweep over datasets
            s = rng.choice(sweeps)
            methods = self._pick_methods(s, rng.choice((3, 4)))
            ds = self.dsets[: rng.choice((2, 3))]
            for i, d in enumerate(ds):
                series = self._line_series(s, d, methods, rng.random() < 0.5, False, False)
                panels.append(PanelGT(label=f"({'abc'[i]})", kind="line", title=d.name, x_label=s.x_label,
                                      y_label=self.area.metric, series=series, dataset=d.name, log_x=s.log_x))
            cap = f"{self.area.metric} as a function of {s.phrase} on " + ", ".join(
                f"{pn.label} {pn.title}" for pn in panels) + "."
        else:  # several sweeps on one dataset
            d = rng.choice(self.dsets)
            chosen = rng.sample(sweeps, min(len(sweeps), rng.choice((2, 3))))
            if len(chosen) < 2:
                return None
            for i, s in enumerate(chosen):
                methods = self._pick_methods(s, rng.choice((2, 3)))
                series = self._line_series(s, d, methods, rng.random() < 0.5, False, False)
                panels.append(PanelGT(label=f"({'abc'[i]})", kind="line", title=f"{s.x_label}", x_label=s.x_label,
                                      y_label=self.area.metric, series=series, dataset=d.name, log_x=s.log_x))
            cap = f"Sensitivity on {d.name}: " + "; ".join(f"{pn.label} {sw.phrase}" for pn, sw in zip(panels, chosen)) + "."
        labels = sorted({s.label for pn in panels for s in pn.series})
        return self._fig("panels", cap, "", self.area.metric, [], panels=panels, full_width=True,
                         dataset=None) if labels else None

    def scatter_figure(self) -> FigureGT:
        rng, area = self.rng, self.area
        d = self.dsets[0]
        ms = self.compared[-rng.randint(4, min(7, len(self.compared))):] if len(self.compared) >= 4 else self.compared
        series = []
        ours = rng.random() < 0.25
        for m in ms:
            f = self.res.methods[m]
            k = rng.choice((1, 2, 3))
            xs, ys = [], []
            base = self.cell(m, d.name)
            for j in range(k):
                scale = (0.45, 1.0, 2.3)[j + (3 - k) if k < 3 else j]
                xs.append(round(f.cost * 12 * scale * rng.uniform(0.9, 1.1), 2))
                delta = (scale - 1.0) * 0.05 * (d.high - d.low)
                ys.append(round(base + delta if area.higher_is_better else base - delta, 2))
            series.append(SeriesGT(label=_label(self.p, m, ours), method=m, x=xs, y=ys))
        xs_all = [x for s in series for x in s.x]
        log_x = max(xs_all) / max(min(xs_all), 1e-6) > 8
        cap = rng.choice((f"{area.metric} on {d.name} against {area.cost_axis} for {_and(ms)}; each marker is one model size.",
                          f"Accuracy-cost trade-off of {_and(ms)} on {d.name}: {area.metric} versus {area.cost_axis}."))
        return self._fig("scatter", cap, area.cost_axis, area.metric, series, dataset=d.name, log_x=log_x)

    def bar_figure(self) -> FigureGT:
        rng, area = self.rng, self.area
        ms = self.compared[-rng.randint(2, min(4, len(self.compared))):]
        ours = rng.random() < 0.25
        if rng.random() < 0.5 and len(self.dsets) >= 2:
            shift = rng.choice(area.shifts)
            ds = self.dsets[: rng.choice((2, 3))]
            series = [SeriesGT(label=_label(self.p, m, ours), method=m, x=[d.name for d in ds],
                               y=[self.res.shifted(area, d, m, self.cell(m, d.name), rng) for d in ds]) for m in ms]
            cap = f"{area.metric} of {_and(ms)} on {shift}, per dataset."
            return self._fig("bar", cap, "Dataset", area.metric, series, setting=shift)
        d = self.dsets[0]
        shifts = list(area.shifts)
        series = [SeriesGT(label=_label(self.p, m, ours), method=m, x=["clean"] + [s.split(" (")[0] for s in shifts],
                           y=[self.res.rerun(area, m, d, m == self.p.method, rng)]
                           + [self.res.shifted(area, d, m, self.cell(m, d.name), rng) for _ in shifts]) for m in ms]
        return self._fig("bar", f"Robustness of {_and(ms)} on {d.name}: {area.metric} on clean data and under each shift.",
                         "Condition", area.metric, series, dataset=d.name)

    def stacked_figure(self) -> FigureGT:
        rng, area = self.rng, self.area
        ms = self.compared[-rng.randint(3, min(5, len(self.compared))):]
        parts = ["backbone"] + rng.sample(list(area.components), 2) + (["other"] if rng.random() < 0.5 else [])
        series = []
        for j, part in enumerate(parts):
            series.append(SeriesGT(label=part, x=[m for m in ms],
                                   y=[round(self.res.methods[m].cost * rng.uniform(2, 9) * (2.2 if j == 0 else 1), 1) for m in ms]))
        unit = rng.choice(("latency (ms)", "memory (GB)", "training time (h)"))
        return self._fig("stacked_bar", f"Breakdown of {unit.split(' (')[0]} by component for {_and(ms)}.", "Method",
                         unit, series)

    def hbar_figure(self) -> FigureGT:
        rng, area = self.rng, self.area
        d = rng.choice(self.dsets)
        if rng.random() < 0.5:  # per-category comparison of two methods
            cats = rng.sample(list(area.per_class), rng.randint(4, 6))
            ms = [m for m in self.compared[-2:]]
            series = [SeriesGT(label=_label(self.p, m, False), method=m, x=cats,
                               y=[round(self.cell(m, d.name) + rng.gauss(0, 0.09) * (d.high - d.low), 2) for _ in cats])
                      for m in ms]
            return self._fig("hbar", f"Per-category {area.metric} of {_and(ms)} on {d.name}.", area.metric, "Category", series,
                             dataset=d.name)
        ms = self.compared[-rng.randint(4, min(8, len(self.compared))):] if len(self.compared) >= 4 else self.compared
        vals = [self.res.shifted(area, d, m, self.cell(m, d.name), rng) for m in ms]
        order = sorted(range(len(ms)), key=lambda i: vals[i], reverse=area.higher_is_better)
        shift = rng.choice(area.shifts)
        series = [SeriesGT(label=f"on {shift}", x=[ms[i] for i in order], y=[vals[i] for i in order])]
        return self._fig("hbar", f"{area.metric} of {self.p.method or 'each re-trained method'} and the methods it is "
                                 f"compared with on {d.name}, evaluated on {shift}.",
                         area.metric, "Method", series, dataset=d.name, setting=shift)

    def heatmap_figure(self) -> FigureGT:
        rng, area = self.rng, self.area
        d = rng.choice(self.dsets)
        own = self.p.method or self.compared[-1]
        base = self.cell(own, d.name)
        span = d.high - d.low
        if rng.random() < 0.6:
            rows = ["1e-4", "3e-4", "1e-3", "3e-3"][: rng.choice((3, 4))]
            cols = [str(v) for v in rng.choice(((0.0, 0.01, 0.05, 0.1), (0.1, 0.3, 1.0, 3.0, 10.0), (1, 2, 4, 8, 16)))]
            xl, yl = rng.choice(("weight decay", "loss weight", "warm-up epochs")), "learning rate"
            oi, oj = rng.randrange(len(rows)), rng.randrange(len(cols))
            series = []
            for i, r in enumerate(rows):
                ys = []
                for j in range(len(cols)):
                    pen = 0.06 * span * ((i - oi) ** 2 + 0.5 * (j - oj) ** 2) + abs(rng.gauss(0, 0.01)) * span
                    ys.append(round(base - pen if area.higher_is_better else base + pen, 2))
                series.append(SeriesGT(label=r, x=cols, y=ys))
            cap = f"{area.metric} of {own} on {d.name} for each combination of {yl} and {xl}."
        else:
            cats = rng.sample(list(area.per_class), rng.randint(4, 6))
            ms = self.compared[-rng.randint(3, min(5, len(self.compared))):]
            series = [SeriesGT(label=m, method=m, x=cats, y=[round(self.cell(m, d.name) + rng.gauss(0, 0.08) * span, 2)
                                                               for _ in cats]) for m in ms]
            xl, yl = "category", "method"
            cap = f"Per-category {area.metric} on {d.name}; rows are methods ({_and(ms)}), columns categories."
        return self._fig("heatmap", cap, xl, yl, series, dataset=d.name, annotated=rng.random() < 0.5)

    def diagram_figure(self) -> FigureGT:
        area, rng = self.area, self.rng
        blocks = [area.input_name] + rng.sample(list(area.components), rng.randint(3, 5)) + [area.output_name]
        cap = rng.choice((f"Overview of {self.p.method or 'the evaluated pipeline'}. " + " → ".join(blocks[:3]) + " ...",
                          f"Architecture of {self.p.method or 'the pipeline'}: {area.input_name} passes through the "
                          f"{blocks[1]} and the {blocks[2]} before {area.output_name} is produced."))
        return self._fig("diagram", cap, "", "", [SeriesGT(label=b, x=[], y=[]) for b in blocks], procedural=True)

    def grid_figure(self) -> FigureGT:
        rng, area = self.rng, self.area
        cols = rng.randint(3, 6)
        rows = [m for m in self.compared[-rng.randint(2, 3):]]
        cap = f"Qualitative comparison: {area.qualitative} of " + _and(rows) + f" on {rng.choice(self.dsets).name}."
        return self._fig("image_grid", cap, "", "", [SeriesGT(label=m, x=[f"sample {i + 1}" for i in range(cols)], y=[])
                                                      for m in rows], procedural=True)

    # ---- the whole set --------------------------------------------------------------------
    def plan(self) -> None:
        rng, area = self.rng, self.area
        self.tables.append(self.main_table())
        if not self.study and rng.random() < 0.7:
            self.tables.append(self.ablation_table())
        if rng.random() < 0.35:
            self.tables.append(self.efficiency_table())
        body: list[FigureGT] = []
        if rng.random() < 0.55:
            body.append(self.diagram_figure())
        elif rng.random() < 0.6:
            body.append(self.scatter_figure())
        sweeps = self._sweeps()
        combos = [(s, d) for s in sweeps for d in self.dsets]
        rng.shuffle(combos)
        for s, d in combos[: rng.choice((1, 2, 2, 3))]:
            body.append(self.line_figure(s, d))
        makers = [self.bar_figure, self.stacked_figure, self.hbar_figure, self.heatmap_figure, self.scatter_figure,
                  self.panel_figure]
        weights = [0.45, 0.25, 0.35, 0.3, 0.25, 0.4]
        for make, w in zip(makers, weights):
            if rng.random() < w and not (make == self.scatter_figure and any(f.kind == "scatter" for f in body)):
                f = make()
                if f is not None:
                    body.append(f)
        if area.qualitative and rng.random() < 0.5:
            body.append(self.grid_figure())
        appendix: list[FigureGT] = []
        for s, d in combos[3: 3 + rng.choice((0, 1, 1, 2))]:
            appendix.append(self.line_figure(s, d))
        if rng.random() < 0.35:
            appendix.append(rng.choice((self.heatmap_figure, self.hbar_figure, self.bar_figure))())
        if area.qualitative and rng.random() < 0.3:
            appendix.append(self.grid_figure())
        self.figs = body
        self.appendix_figs = appendix
        if rng.random() < 0.6:
            self.appendix_tables.append(self.hparam_table())
        if rng.random() < 0.35:
            self.appendix_tables.append(self.per_class_table())


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


def finish_figures(p: PaperGT, figs: list[FigureGT], rng: random.Random) -> None:
    """Number figures, decide raster or vector (and exactness) and raster resolution."""
    for n, f in enumerate(figs, start=1):
        f.n = n
        f.caption = f"Figure {n}:" + f.caption.split(":", 1)[1]
        if f.kind == "image_grid":
            f.visual = "raster"
            f.dpi = rng.choice((150, 200, 300))
            continue
        if f.kind != "panels" and p.layout == "two_column" and rng.random() < 0.33:
            f.full_width = True
        vector_ok = p.layout == "one_column" or f.full_width
        if f.kind == "diagram" or (vector_ok and rng.random() < 0.55):
            f.visual = "vector"
            f.vector_exact = f.kind == "diagram" or rng.random() < 0.55
            if not f.vector_exact:
                f.dpi = rng.choice((150, 200, 300))
        else:
            f.visual = "raster"
            f.dpi = rng.choices((100, 120, 150, 200, 300), (2, 3, 3, 2, 1))[0]


def plan_corpus(seed: int, n_papers: int = DEFAULT_PAPERS) -> GroundTruth:
    """The full ground truth of corpus v3 (pages and bboxes are filled in by the renderer)."""
    return _plan(seed, n_papers)[0]


def method_families(seed: int, n_papers: int) -> dict[str, str]:
    """The family key of every method of the corpus (the ground truth does not record it)."""
    return {m: f.family for m, f in _plan(seed, n_papers)[1].methods.items()}


def _plan(seed: int, n_papers: int) -> tuple[GroundTruth, Results]:
    from .prose import write_paper  # noqa: PLC0415

    if n_papers < MIN_PAPERS:
        from .versions import RecipeError  # noqa: PLC0415

        raise RecipeError(f"corpus v3 needs at least {MIN_PAPERS} papers (got {n_papers}), {MIN_PAPERS_REASON}")
    rng = random.Random(f"corpus-v3:{seed}")
    res = Results(random.Random(f"corpus-v3:{seed}:results"))
    areas = _areas_for(n_papers)
    names = _Names(random.Random(f"corpus-v3:{seed}:names"))
    classic: dict[str, list[str]] = {}
    for a in areas:  # two classic baselines per family, older than every corpus paper
        classic[a.name] = []
        for fam in a.families:
            for _ in range(2):
                m = names.new()
                res.add(m, fam.key, rng.uniform(-0.25, 0.05), FIRST_YEAR - 2)
                classic[a.name].append(m)
    people = _People(rng, areas, n_papers // len(areas))
    ids = [paper_id(i) for i in range(n_papers)]
    rng.shuffle(ids)
    per_area = {a.name: (n_papers + len(areas) - 1 - k) // len(areas) for k, a in enumerate(areas)}
    rank: dict[str, int] = {}
    papers: list[PaperGT] = []
    meta: dict[str, tuple[Area, Family, bool, str, str]] = {}
    arxiv_seen: set[str] = set()
    decks = {False: _Deck(random.Random(f"corpus-v3:{seed}:titles"), _TITLE_WEIGHTS),
             True: _Deck(random.Random(f"corpus-v3:{seed}:study-titles"), [1, 1, 1, 1])}
    for i in range(n_papers):
        area = areas[i % len(areas)]
        j = rank.get(area.name, 0)
        rank[area.name] = j + 1
        year = FIRST_YEAR + (j * (LAST_YEAR - FIRST_YEAR + 1)) // per_area[area.name]
        study = j >= 3 and rng.random() < STUDY_SHARE
        fam = rng.choice(area.families)
        tech, prob = rng.choice(area.techniques), rng.choice(area.problems)
        while (arxiv := f"{year % 100:02d}{rng.randint(1, 12):02d}.{rng.randint(1000, 19999):05d}") in arxiv_seen:
            pass
        arxiv_seen.add(arxiv)
        chosen = rng.sample(list(area.datasets), rng.choice((2, 3, 3, 4)))
        p = PaperGT(id=ids[i], title="", authors=people.authors(area.name), venue=rng.choice(area.venues), year=year,
                    area=area.name, abstract="", method="" if study else names.new(), task=area.task,
                    datasets=[d.name for d in area.datasets if d in chosen], references=[],
                    layout="one_column" if rng.random() < 0.6 else "two_column", sections=[], figures=[], tables=[],
                    pdf=f"{ids[i]}.pdf", arxiv_id=arxiv)
        p.title, pattern = title_for(rng, p, area, fam, tech, prob, study, decks)
        meta[p.id] = (area, fam, study, tech, prob)
        papers.append(p)
    order = sorted(range(n_papers), key=lambda k: (papers[k].year, rng.random()))
    done: list[PaperGT] = []
    n_cross = n_refs = 0  # cross-area and all references planned so far
    for k in order:
        p = papers[k]
        area, fam, study, tech, prob = meta[p.id]
        same = [q for q in done if q.area == p.area and q.year < p.year or (q.area == p.area and q.year == p.year and rng.random() < 0.3)]
        cited: list[PaperGT] = []
        want = min(len(same), rng.randint(4, 12))
        weights = [1.0 / (1 + p.year - q.year) * (2.0 if meta[q.id][1] == fam else 1.0) for q in same]
        while len(cited) < want:
            q = rng.choices(same, weights)[0]
            if q not in cited:
                cited.append(q)
        cross_pool = [q for q in done if q.area != p.area and q.method]
        # a cross-area citation only while the corpus's running share stays under CROSS_AREA_MAX, so the share
        # holds at every corpus size (a small corpus has few same-area papers to cite)
        cross = [rng.choice(cross_pool)] if (cross_pool and rng.random() < CROSS_AREA_CITE and
                                             (n_cross + 1) / (n_refs + len(cited) + 1) <= CROSS_AREA_MAX) else []
        n_cross += len(cross)
        n_refs += len(cited) + len(cross)
        cited.sort(key=lambda q: (q.year, q.id))
        prior = [q.method for q in cited if q.method][-rng.randint(3, 6):]
        n_classic = rng.randint(1, 3) if len(prior) >= 3 else rng.randint(3, 4)
        base = rng.sample(classic[area.name], n_classic)
        compared = sorted(set(base + prior), key=lambda m: (res.methods[m].year, res.methods[m].family, m))
        if not study:
            best_prior = max((res.methods[m].quality for m in compared), default=0.0)
            q0 = (p.year - FIRST_YEAR) / (LAST_YEAR - FIRST_YEAR) * 0.6 + rng.gauss(0, 0.08)
            res.add(p.method, fam.key, max(q0 - _Q0_SLACK, best_prior + rng.uniform(*_OWN_MARGIN)), p.year)
            compared.append(p.method)
        planner = _Planner(p, area, fam, compared, res, rng, study)
        planner.plan()
        body_n = len(planner.figs)
        finish_figures(p, planner.figs + planner.appendix_figs, rng)
        tables = planner.tables + planner.appendix_tables
        for n, t in enumerate(tables, start=1):
            t.n = n
            t.caption = f"Table {n}:" + t.caption.split(":", 1)[1]
        p.figures = planner.figs + planner.appendix_figs
        p.tables = tables
        write_paper(p, area, fam, planner, cited, cross, body_n, len(planner.tables), rng, tech, prob, study)
        done.append(p)
    gt = GroundTruth(generator_version=GENERATOR_VERSION, seed=seed, papers=sorted(papers, key=lambda q: q.id))
    return gt, res


__all__ = ["plan_corpus", "GENERATOR_VERSION", "DEFAULT_PAPERS", "paper_id", "better", "AFFILIATIONS"]
