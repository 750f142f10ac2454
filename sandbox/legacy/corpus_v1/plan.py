"""Plan the corpus from a seed: paper metadata, the citation graph, and every value of every float.

The plan is the ground truth minus what only rendering knows (pages, bounding boxes). It is a pure
function of (seed, number of papers): the same seed always gives the same plan. Results are
consistent across papers: a method has one score per dataset, reused by every table that lists it.
"""
from __future__ import annotations

import random
import re

from sandbox.corpus.model import FigureGT, GroundTruth, PaperGT, SeriesGT, TableGT

from .charts import value_grid
from .prose import PaperContext, write_paper_text
from .vocab import AREAS, FAMILY_NAMES, GIVEN_NAMES, STEM_HEADS, STEM_TAILS, VENUES_BY_PARITY, Area, Dataset

GENERATOR_VERSION = "corpus-1.1"
DEFAULT_PAPERS = 96
_NUM_RE = re.compile(r"\d+(?:\.\d+)?")


def numbers_in(text: str) -> set[float]:
    """Every number written in a text, as floats (used to keep plotted values out of the text)."""
    return {float(m) for m in _NUM_RE.findall(text)}


def table_value(v: float, decimals: int = 2) -> str:
    """Format a table cell so it never equals a chart value (charts use multiples of 0.5)."""
    unit = 10 ** -decimals
    v = round(v, decimals)
    while abs(v * 2 - round(v * 2)) < unit / 2:
        v = round(v + unit, decimals)
    return f"{v:.{decimals}f}"


class _Scores:
    """One latent score per (method, dataset): newer methods are better on average."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.quality: dict[str, float] = {}
        self.values: dict[tuple[str, str], float] = {}
        self.params: dict[str, float] = {}

    def add_method(self, name: str, quality: float) -> None:
        self.quality[name] = quality
        self.params[name] = self.rng.uniform(8, 120)

    def score(self, method: str, ds: Dataset) -> float:
        key = (method, ds.name)
        if key not in self.values:
            q = self.quality[method] + self.rng.gauss(0, 0.04)
            frac = min(max(0.1 + 0.8 * q, 0.02), 0.99)
            span = ds.high - ds.low
            v = ds.low + span * frac if ds.higher_is_better else ds.high - span * frac
            self.values[key] = float(table_value(v))
        return self.values[key]


def _better(ds: Dataset, a: float, b: float) -> bool:
    return a > b if ds.higher_is_better else a < b


def _main_table(n: int, p: PaperGT, area: Area, datasets: list[Dataset], rows_methods: list[str],
                scores: _Scores) -> TableGT:
    metrics = sorted({d.metric for d in datasets}, key=[d.metric for d in datasets].index)
    rows = [[m] + [table_value(scores.score(m, d)) for d in datasets] for m in rows_methods]
    arrow = "higher is better" if datasets[0].higher_is_better else "lower is better"
    cap = (f"Table {n}: Comparison of {p.method} with prior {area.task} methods on "
           f"{', '.join(d.name for d in datasets)} ({' / '.join(metrics)}, {arrow}). Best results are in bold.")
    return TableGT(n=n, caption=cap, columns=["Method"] + [d.name for d in datasets], rows=rows,
                   metric=metrics[0], higher_is_better=datasets[0].higher_is_better)


def _ablation_table(n: int, p: PaperGT, area: Area, datasets: list[Dataset], scores: _Scores,
                    rng: random.Random) -> TableGT:
    comps = rng.sample(list(area.components), 3)
    labels = [f"{p.method} (full)", f"w/o {comps[0]}", f"w/o {comps[1]}", f"{comps[2]} replaced by baseline"]
    rows = []
    for i, label in enumerate(labels):
        cells = [label]
        for d in datasets:
            full = scores.score(p.method, d)
            drop = 0.0 if i == 0 else rng.uniform(0.3, 3.0) * (d.high - d.low) / 20
            cells.append(table_value(full - drop if d.higher_is_better else full + drop))
        rows.append(cells)
    cap = (f"Table {n}: Ablation of the components of {p.method} on "
           f"{' and '.join(d.name for d in datasets)} ({datasets[0].metric}).")
    return TableGT(n=n, caption=cap, columns=["Variant"] + [d.name for d in datasets], rows=rows,
                   metric=datasets[0].metric, higher_is_better=datasets[0].higher_is_better)


def _efficiency_table(n: int, p: PaperGT, ds: Dataset, methods: list[str], scores: _Scores) -> TableGT:
    rows = []
    for m in methods:
        params = scores.params[m]
        rows.append([m, table_value(params, 1), table_value(params * 0.23 + 1.3, 1), table_value(scores.score(m, ds))])
    cap = f"Table {n}: Model size, compute and {ds.metric} on {ds.name} for {p.method} and competing methods."
    return TableGT(n=n, caption=cap, columns=["Method", "Params (M)", "GFLOPs", ds.name], rows=rows,
                   metric=ds.metric, higher_is_better=ds.higher_is_better)


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def _on_grid(values: list[float]) -> list[float]:
    g = value_grid(min(values), max(values))
    return [round(v / g) * g for v in values]


def _line_figure(n: int, p: PaperGT, area: Area, ds: Dataset, methods: list[str], scores: _Scores,
                 rng: random.Random) -> FigureGT:
    x_label = area.curve_x[0]
    xs: list[float] = {"Training epochs": [50, 100, 200, 300, 400], "Pretraining epochs": [100, 200, 400, 800],
                       "Training iterations (k)": [50, 100, 150, 200, 250, 300],
                       "Number of layers": [2, 4, 8, 16, 32]}[x_label]
    series = []
    for i, m in enumerate(methods):
        final = scores.score(m, ds)
        span = (ds.high - ds.low) * rng.uniform(0.12, 0.2) * (1 + 0.6 * (len(methods) - 1 - i))
        ys = []
        for j in range(len(xs)):
            t = j / (len(xs) - 1)
            if x_label == "Number of layers":  # deeper graph nets over-smooth; the paper's method does not
                shape = 1 - 0.1 * t if m == p.method else 1 - (t ** 1.5)
            else:
                shape = 1 - (1 - t) ** 2
            gain = span * shape
            ys.append(final - span + gain if ds.higher_is_better else final + span - gain)
        series.append(SeriesGT(label=m, x=list(xs), y=ys))
    grid = _on_grid([y for s in series for y in s.y])
    k = 0
    for s in series:
        s.y, k = grid[k:k + len(s.y)], k + len(s.y)
    cap = f"Figure {n}: Effect of the {x_label.lower()} on {ds.metric} on {ds.name} for {_and(methods)}."
    return FigureGT(n=n, kind="line", visual="vector", caption=cap, x_label=x_label, y_label=f"{ds.metric}", series=series)


def _bar_figure(n: int, p: PaperGT, datasets: list[Dataset], methods: list[str], scores: _Scores) -> FigureGT:
    series = [SeriesGT(label=m, x=[d.name for d in datasets], y=[float(round(scores.score(m, d))) for d in datasets])
              for m in methods]
    cap = f"Figure {n}: Per-dataset comparison of {_and(methods)} ({datasets[0].metric})."
    return FigureGT(n=n, kind="bar", visual="vector", caption=cap, x_label="Dataset", y_label=datasets[0].metric, series=series)


def _scatter_figure(n: int, p: PaperGT, ds: Dataset, methods: list[str], scores: _Scores, rng: random.Random) -> FigureGT:
    series = []
    for m in methods:
        base = scores.params[m] * 0.23 + 1.3
        xs = [float(max(1, round(base * f))) for f in (0.5, 1.0, 2.0)]
        final = scores.score(m, ds)
        step = (ds.high - ds.low) * rng.uniform(0.03, 0.07)
        ys = [final - step, final, final + step * 0.6] if ds.higher_is_better else [final + step, final, final - step * 0.6]
        series.append(SeriesGT(label=m, x=xs, y=ys))
    grid = _on_grid([y for s in series for y in s.y])
    k = 0
    for s in series:
        s.y, k = grid[k:k + len(s.y)], k + len(s.y)
    cap = f"Figure {n}: Trade-off between compute (GFLOPs) and {ds.metric} on {ds.name} for three model sizes of each method."
    return FigureGT(n=n, kind="scatter", visual="vector", caption=cap, x_label="GFLOPs", y_label=ds.metric, series=series)


def _nudge_out_of_text(fig: FigureGT, forbidden: set[float]) -> None:
    """Move any plotted value that also appears as a number in the text by one grid step."""
    g = value_grid(min(y for s in fig.series for y in s.y), max(y for s in fig.series for y in s.y))
    if fig.kind == "bar":
        g = 1.0
    for s in fig.series:
        ys = []
        for y in s.y:
            while y in forbidden:
                y = round(y + g, 2)
            ys.append(y)
        s.y = ys


def _method_names(rng: random.Random, n: int) -> list[str]:
    stems = [h + t for h in STEM_HEADS for t in STEM_TAILS]
    rng.shuffle(stems)
    return stems[:n]


def _authors(rng: random.Random) -> list[str]:
    k = rng.randint(2, 6)
    given = rng.sample(GIVEN_NAMES, k)
    family = rng.sample(FAMILY_NAMES, k)
    return [f"{g} {f}" for g, f in zip(given, family)]


def _plan_floats(p: PaperGT, area: Area, scores: _Scores, rng: random.Random, cited_same_area: list[str]) -> None:
    datasets = [d for d in area.datasets if d.name in p.datasets]
    others = cited_same_area[-4:]
    # a paper reports beating the prior work it compares with (its own scores are not drawn yet)
    best_prior = max((scores.quality[m] for m in others), default=-1.0)
    scores.quality[p.method] = max(scores.quality[p.method], best_prior + rng.uniform(0.04, 0.1))
    base = [m for m in area.baselines[: rng.randint(1, 2)]]
    n_tables = rng.choice((1, 2, 2, 3))
    tables = [_main_table(1, p, area, datasets, base + others + [p.method], scores)]
    if n_tables >= 2:
        tables.append(_ablation_table(2, p, area, datasets[: rng.randint(1, 2)], scores, rng))
    if n_tables >= 3:
        tables.append(_efficiency_table(3, p, datasets[0], (others or base)[-3:] + [p.method], scores))
    p.tables = tables
    n_figs = rng.choice((1, 2, 2, 3, 3, 4))
    kinds = rng.sample(["line", "bar", "scatter", "line"], n_figs)
    competitors = (others or base)[-2:]
    figs: list[FigureGT] = []
    ds_cycle = rng.sample(datasets, len(datasets))
    for i, kind in enumerate(kinds, start=1):
        ds = ds_cycle[i % len(ds_cycle)]
        ms = competitors[-rng.randint(1, len(competitors)):] + [p.method]
        if kind == "line":
            f = _line_figure(i, p, area, ds, ms, scores, rng)
        elif kind == "bar" and len(datasets) >= 2:
            f = _bar_figure(i, p, datasets, ms, scores)
        else:
            f = _scatter_figure(i, p, ds, ms, scores, rng)
        f.visual = "vector" if rng.random() < 0.5 else "raster"
        figs.append(f)
    p.figures = figs


def plan_corpus(seed: int, n_papers: int = DEFAULT_PAPERS) -> GroundTruth:
    """The full ground truth for a corpus (pages and bboxes are filled in later by the renderer)."""
    rng = random.Random(seed)
    scores = _Scores(rng)
    for area in AREAS:
        for i, b in enumerate(area.baselines):
            scores.add_method(b, -0.05 + 0.08 * i)
    names = _method_names(rng, n_papers)
    layouts = ["one_column", "two_column"] * (n_papers // 2 + 1)
    rng.shuffle(layouts)
    per_area: dict[str, int] = {}
    papers: list[PaperGT] = []
    arxiv_seen: set[str] = set()
    ids = [f"P{i + 1:03d}" for i in range(n_papers)]
    rng.shuffle(ids)
    for i in range(n_papers):
        area = AREAS[i % len(AREAS)]
        j = per_area.get(area.name, 0)
        per_area[area.name] = j + 1
        m_area = (n_papers - AREAS.index(area) + len(AREAS) - 1) // len(AREAS)
        year = 2016 + (j * 9) // max(m_area, 1)
        venue = rng.choice(VENUES_BY_PARITY[year % 2])
        method = names[i] + rng.choice(area.suffixes)
        technique, problem = rng.choice(area.techniques), rng.choice(area.problems)
        while True:
            arxiv = f"{year % 100:02d}{rng.randint(1, 12):02d}.{rng.randint(1000, 19999):05d}"
            if arxiv not in arxiv_seen:
                arxiv_seen.add(arxiv)
                break
        k = rng.randint(2, min(4, len(area.datasets)))
        chosen = rng.sample(list(area.datasets), k)
        datasets = [d.name for d in area.datasets if d in chosen]
        scores.add_method(method, (year - 2016) / 8 + rng.gauss(0, 0.1))
        papers.append(PaperGT(
            id=ids[i], title=f"{method}: {technique} for {problem}", authors=_authors(rng), venue=venue,
            year=year, area=area.name, abstract="", method=method, task=area.task, datasets=datasets,
            references=[], layout=layouts[i], sections=[], figures=[], tables=[], pdf=f"{ids[i]}.pdf",
            arxiv_id=arxiv,
        ))
    order = sorted(range(n_papers), key=lambda i: (papers[i].year, rng.random()))
    by_id = {p.id: p for p in papers}
    for rank, i in enumerate(order):
        p = papers[i]
        earlier = [papers[k] for k in order[:rank]]
        same = [q for q in earlier if q.area == p.area]
        cross = [q for q in earlier if q.area != p.area]
        cited_same = rng.sample(same, min(len(same), rng.randint(3, 6)))
        cited_cross = rng.sample(cross, min(len(cross), rng.randint(0, 2)))
        cited_same.sort(key=lambda q: (q.year, q.id))
        area = next(a for a in AREAS if a.name == p.area)
        _plan_floats(p, area, scores, rng, [q.method for q in cited_same])
        ctx = PaperContext(paper=p, area=area, cited_same=cited_same, cited_cross=cited_cross, rng=rng)
        write_paper_text(ctx)  # fills abstract, sections and references (ids in citation order)
        text = " ".join([p.title, p.abstract, " ".join(a for a in p.authors), str(p.year), p.arxiv_id or ""]
                        + [para for s in p.sections for para in s.paragraphs]
                        + [s.number + " " + s.title for s in p.sections]
                        + [c for t in p.tables for row in t.rows for c in row] + [t.caption for t in p.tables]
                        + [f.caption for f in p.figures]
                        + [ctx.reference_string(by_id[r]) for r in p.references])
        forbidden = numbers_in(text) | set(float(k) for k in range(0, 13))
        for f in p.figures:
            _nudge_out_of_text(f, forbidden)
    return GroundTruth(generator_version=GENERATOR_VERSION, seed=seed, papers=sorted(papers, key=lambda q: q.id))
