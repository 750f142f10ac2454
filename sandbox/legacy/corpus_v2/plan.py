"""Plan corpus v2 from a seed: papers, authors, citations, and every value of every table and figure.

A pure function of (seed, number of papers). Papers of an area share datasets and sweep grids and
tend to plot the settings the papers they cite plotted (a field follows a protocol), so papers linked
by citations can be compared at one setting. Authors come from a pool per area, so first-author
surnames recur, as do venue and year: every paper has look-alikes a search must tell apart.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from sandbox.corpus.model import FigureGT, GroundTruth, PaperGT, SeriesGT, TableGT
from ..corpus_v1.vocab import FAMILY_NAMES, GIVEN_NAMES, STEM_HEADS, STEM_TAILS
from .checks import check_plan, figure_problem
from .prose import write_paper
from .results import MIN_SEPARATION, Results, off_grid, separate
from .vocab import AREAS, FIRST_YEAR, LAST_YEAR, VENUES_BY_PARITY, Area, Dataset

GENERATOR_VERSION = "corpus-2.0"
DEFAULT_PAPERS = 480
PAPERS_PER_AREA_MIN = 16
_STEM_MIDS = ("ri", "da", "mo", "ne", "lu")


def paper_id(i: int) -> str:
    """Corpus v2 ids have four digits (P0001), so they never collide with corpus v1's (P001)."""
    return f"P{i + 1:04d}"


def _stems(rng: random.Random, n: int) -> list[str]:
    stems = [h + t for h in STEM_HEADS for t in STEM_TAILS]
    if n > len(stems):
        stems += [h + m + t for h in STEM_HEADS for m in _STEM_MIDS for t in STEM_TAILS]
    rng.shuffle(stems)
    return stems[:n]


def _areas_for(n_papers: int) -> tuple[Area, ...]:
    """All six areas for a full corpus; a small test corpus keeps fewer, so each area has enough papers."""
    return AREAS[: max(1, min(len(AREAS), n_papers // PAPERS_PER_AREA_MIN))]


class _People:
    """A pool of researchers per area; first authors are drawn with skewed weights so surnames recur."""

    def __init__(self, rng: random.Random, areas: tuple[Area, ...], per_area: int):
        self.rng = rng
        self.pool: dict[str, list[str]] = {}
        names = [f"{g} {f}" for g in GIVEN_NAMES for f in FAMILY_NAMES]
        rng.shuffle(names)
        size = max(6, per_area // 2)
        for i, a in enumerate(areas):
            self.pool[a.name] = names[i * size:(i + 1) * size]

    def authors(self, area: str) -> list[str]:
        pool = self.pool[area]
        weights = [1.0 / (1 + k) ** 0.7 for k in range(len(pool))]
        first = self.rng.choices(pool, weights)[0]
        rest = self.rng.sample([p for p in pool if p != first], self.rng.randint(1, 4))
        return [first] + rest


def _main_table(p: PaperGT, area: Area, dsets: list[Dataset], rows: list[str], res: Results,
                rng: random.Random) -> TableGT:
    body = []
    seen: dict[str, set[float]] = {d.name: set() for d in dsets}
    for m in sorted(rows, key=lambda r: r != p.method):  # the own value first; re-runs never tie with it
        own = m == p.method
        cells = []
        for d in dsets:
            v = res.rerun(area, m, d, own, rng)
            while v in seen[d.name]:
                v = round(v + 0.01, 2)
            seen[d.name].add(v)
            cells.append(f"{v:.2f}")
        body.append([f"{m} (ours)" if own else m] + cells)
    body = body[1:] + body[:1]
    arrow = "higher is better" if area.higher_is_better else "lower is better"
    cap = (f"Table 1: {area.metric} of {p.method} and re-trained baselines on {', '.join(d.name for d in dsets)}, "
           f"{area.standard} ({arrow}). Best results are in bold.")
    return TableGT(n=1, caption=cap, columns=["Method"] + [d.name for d in dsets], rows=body, metric=area.metric,
                   higher_is_better=area.higher_is_better, role="main")


def _ablation_table(n: int, p: PaperGT, area: Area, dsets: list[Dataset], rng: random.Random) -> TableGT:
    comps = rng.sample(list(area.components), 3)
    labels = [f"{p.method} (full)", f"w/o {comps[0]}", f"w/o {comps[1]}", f"{comps[2]} replaced by baseline"]
    own = {d.name: _table_value(p, p.method, d.name) for d in dsets}
    rows = []
    for i, label in enumerate(labels):
        cells = [label]
        for d in dsets:
            drop = 0.0 if i == 0 else rng.uniform(0.02, 0.15) * (d.high - d.low)
            cells.append(f"{(own[d.name] - drop if area.higher_is_better else own[d.name] + drop):.2f}")
        rows.append(cells)
    cap = f"Table {n}: Ablation of the components of {p.method} on {' and '.join(d.name for d in dsets)} ({area.metric})."
    return TableGT(n=n, caption=cap, columns=["Variant"] + [d.name for d in dsets], rows=rows, metric=area.metric,
                   higher_is_better=area.higher_is_better, role="ablation")


def _efficiency_table(n: int, p: PaperGT, methods: list[str], res: Results, rng: random.Random) -> TableGT:
    rows = []
    for m in methods:
        params = res.methods[m].params * rng.uniform(0.97, 1.03)
        label = f"{m} (ours)" if m == p.method else m
        rows.append([label, f"{params:.1f}", f"{params * 0.23 + 1.3:.1f}", f"{9000 / (params + 20):.0f}"])
    cap = f"Table {n}: Model size, compute and throughput of {p.method} and the compared methods (one GPU, batch 64)."
    return TableGT(n=n, caption=cap, columns=["Method", "Params (M)", "GFLOPs", "Throughput (img/s)"], rows=rows,
                   role="efficiency")


def _datasets_of(area: Area, p: PaperGT) -> list[Dataset]:
    return [d for d in area.datasets if d.name in p.datasets]


def _table_value(p: PaperGT, method: str, dataset: str) -> float:
    t = p.tables[0]
    row = next(r for r in t.rows if r[0] in (method, f"{method} (ours)"))
    return float(row[t.columns.index(dataset)])


def _separated(columns: list[list[float]], higher_is_better: bool) -> list[list[float]]:
    """Columns pushed apart until neighbours are MIN_SEPARATION of the final value range apart (the
    range grows as values are pushed, so repeat until it holds, with a margin for off-grid nudges)."""
    for _ in range(8):
        span = max(max(c) for c in columns) - min(min(c) for c in columns)
        gap = MIN_SEPARATION * span * 1.03 + 0.04
        if all(b - a >= gap for c in columns for a, b in zip(sorted(c), sorted(c)[1:])):
            break
        columns = separate(columns, gap, higher_is_better)
    return columns


def _line_figure(p: PaperGT, area: Area, d: Dataset, sweep_i: int, methods: list[str], res: Results,
                 rng: random.Random) -> FigureGT:
    sweep = area.sweeps[sweep_i]
    curves = [res.curve(area, d, sweep, m, _table_value(p, m, d.name), m == p.method, rng) for m in methods]
    columns = _separated([[c[j] for c in curves] for j in range(len(sweep.grid))], area.higher_is_better)
    series = [SeriesGT(label="Ours" if m == p.method else m, method=m, x=[float(x) for x in sweep.grid],
                       y=[off_grid(columns[j][i]) for j in range(len(sweep.grid))]) for i, m in enumerate(methods)]
    lo, hi = sweep.grid[0], sweep.grid[-1]
    cap = (f"Figure 0: {area.metric} on {d.name} as {sweep.phrase} varies ({sweep.x_label}, {lo:g} to {hi:g}). "
           f"Ours denotes {p.method}; the other curves are baselines re-trained under the same protocol.")
    return FigureGT(n=0, kind="line", visual="vector", caption=cap, x_label=sweep.x_label, y_label=area.metric,
                    series=series, dataset=d.name)


def _bar_figure(p: PaperGT, area: Area, dsets: list[Dataset], methods: list[str], res: Results,
                rng: random.Random) -> FigureGT:
    values = [[res.shifted(area, d, m, _table_value(p, m, d.name), rng) for d in dsets] for m in methods]
    columns = _separated([[v[j] for v in values] for j in range(len(dsets))], area.higher_is_better)
    series = [SeriesGT(label="Ours" if m == p.method else m, method=m, x=[d.name for d in dsets],
                       y=[off_grid(columns[j][i]) for j in range(len(dsets))]) for i, m in enumerate(methods)]
    cap = (f"Figure 0: {area.metric} {area.shift} on {', '.join(d.name for d in dsets)}. "
           f"Ours denotes {p.method}.")
    return FigureGT(n=0, kind="bar", visual="vector", caption=cap, x_label="Dataset", y_label=area.metric,
                    series=series, setting=area.shift)


def _bar_groups(dsets: list[Dataset]) -> list[list[Dataset]]:
    """Sets of 2-3 datasets whose value ranges are close enough to share one readable bar-chart axis."""
    out = []
    for i, a in enumerate(dsets):
        for j in range(i + 1, len(dsets)):
            pair = [a, dsets[j]]
            if max(d.high for d in pair) - min(d.low for d in pair) <= 26:
                out.append(pair)
                for k in range(j + 1, len(dsets)):
                    triple = pair + [dsets[k]]
                    if max(d.high for d in triple) - min(d.low for d in triple) <= 26:
                        out.append(triple)
    return out


def _retry(p: PaperGT, make: Callable[[], FigureGT], attempts: int = 12) -> FigureGT:
    """Draw a figure again (new noise) until it passes the figure rules; the last draw goes to check_plan."""
    for _ in range(attempts):
        f = make()
        f.n = len(p.figures) + 1
        if figure_problem(p, f) is None:
            return f
    return f


def _plan_floats(p: PaperGT, area: Area, cited: list[PaperGT], res: Results, rng: random.Random) -> None:
    dsets = _datasets_of(area, p)
    prior = [q.method for q in cited if q.area == p.area][-4:]
    generic = list(area.baselines[: rng.randint(1, 2)])
    p.tables = [_main_table(p, area, dsets, generic + prior + [p.method], res, rng)]
    if rng.random() < 0.5:
        p.tables.append(_ablation_table(len(p.tables) + 1, p, area, dsets[: rng.randint(1, 2)], rng))
    if rng.random() < 0.35:
        p.tables.append(_efficiency_table(len(p.tables) + 1, p, (prior or generic)[-3:] + [p.method], res, rng))
    protocol = {(f.dataset, f.x_label) for q in cited for f in q.figures if f.kind == "line"}
    combos = [(d, s) for d in dsets for s in range(len(area.sweeps))]
    rng.shuffle(combos)
    combos.sort(key=lambda c: (c[0].name, area.sweeps[c[1]].x_label) not in protocol or rng.random() < 0.3)
    baselines = [r[0] for r in p.tables[0].rows[:-1]]
    figs = []
    for d, s in combos[: rng.choice((2, 2, 3))]:
        pick = rng.sample(baselines, min(len(baselines), rng.choice((2, 3, 3))))
        methods = [m for m in baselines if m in pick] + [p.method]
        figs.append(_retry(p, lambda: _line_figure(p, area, d, s, methods, res, rng)))
    groups = _bar_groups(dsets)
    if rng.random() < 0.5 and groups:
        pick = rng.sample(baselines, min(len(baselines), 2))
        group = rng.choice(groups)
        methods = [m for m in baselines if m in pick] + [p.method]
        figs.append(_retry(p, lambda: _bar_figure(p, area, group, methods, res, rng)))
    rng.shuffle(figs)
    for n, f in enumerate(figs, start=1):
        f.n = n
        f.caption = f"Figure {n}:" + f.caption.split(":", 1)[1]
        vector = rng.random() < 0.5
        # two-column papers embed their charts as images: a chart's title and legend drawn as text could
        # merge with a line of the other column into one text block and be lost from the figure's crop
        f.visual = "vector" if vector and p.layout == "one_column" else "raster"
    p.figures = figs


def plan_corpus(seed: int, n_papers: int = DEFAULT_PAPERS) -> GroundTruth:
    """The full ground truth of corpus v2 (pages and bboxes are filled in later by the renderer)."""
    rng = random.Random(f"corpus-v2:{seed}")
    res = Results(random.Random(f"corpus-v2:{seed}:results"))
    areas = _areas_for(n_papers)
    for a in areas:
        for i, b in enumerate(a.baselines):
            res.add(b, -0.1 + 0.08 * i)
    people = _People(rng, areas, n_papers // len(areas))
    stems = _stems(rng, n_papers)
    ids = [paper_id(i) for i in range(n_papers)]
    rng.shuffle(ids)
    papers: list[PaperGT] = []
    arxiv_seen: set[str] = set()
    counts = {a.name: (n_papers + len(areas) - 1 - k) // len(areas) for k, a in enumerate(areas)}
    rank: dict[str, int] = {}
    for i in range(n_papers):
        area = areas[i % len(areas)]
        j = rank.get(area.name, 0)
        rank[area.name] = j + 1
        year = FIRST_YEAR + (j * (LAST_YEAR - FIRST_YEAR + 1)) // counts[area.name]
        method = stems[i] + rng.choice(area.suffixes)
        technique, _ = rng.choice(area.techniques)
        while (arxiv := f"{year % 100:02d}{rng.randint(1, 12):02d}.{rng.randint(1000, 19999):05d}") in arxiv_seen:
            pass
        arxiv_seen.add(arxiv)
        chosen = rng.sample(list(area.datasets), rng.choice((3, 3, 4)))
        papers.append(PaperGT(
            id=ids[i], title=f"{method}: {technique} for {rng.choice(area.problems)}", authors=people.authors(area.name),
            venue=rng.choice(VENUES_BY_PARITY[year % 2]), year=year, area=area.name, abstract="", method=method,
            task=area.task, datasets=[d.name for d in area.datasets if d in chosen], references=[],
            layout="one_column" if rng.random() < 0.5 else "two_column", sections=[], figures=[], tables=[],
            pdf=f"{ids[i]}.pdf", arxiv_id=arxiv))
    order = sorted(range(n_papers), key=lambda k: (papers[k].year, rng.random()))
    by_area = {a.name: a for a in areas}
    done: list[PaperGT] = []
    for k in order:
        p = papers[k]
        area = by_area[p.area]
        same = [q for q in done if q.area == p.area]
        weights = [1.0 / (1 + p.year - q.year) for q in same]
        cited: list[PaperGT] = []
        while same and len(cited) < min(len(same), rng.randint(3, 6)):
            q = rng.choices(same, weights)[0]
            if q not in cited:
                cited.append(q)
        cross = [q for q in done if q.area != p.area]
        cited_cross = rng.sample(cross, min(len(cross), rng.randint(0, 2)))
        cited.sort(key=lambda q: (q.year, q.id))
        q0 = (p.year - FIRST_YEAR) / (LAST_YEAR - FIRST_YEAR) + rng.gauss(0, 0.1)
        best_prior = max((res.methods[q.method].quality for q in cited), default=-1.0)
        res.add(p.method, max(q0, best_prior + rng.uniform(0.0, 0.08)))
        _plan_floats(p, area, cited, res, rng)
        write_paper(p, area, cited, cited_cross, rng)
        done.append(p)
    gt = GroundTruth(generator_version=GENERATOR_VERSION, seed=seed, papers=sorted(papers, key=lambda q: q.id))
    check_plan(gt)
    return gt
