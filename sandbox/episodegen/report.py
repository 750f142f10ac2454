"""Assemble the report benchmark (`episodes/sandbox-v3-report.jsonl`, over corpus v3): episodes whose last turn
asks for a cited report on the methods of a paper the earlier turns found and read (issue 31).

Per anchor paper A (a main table with at least four methods and an askable line chart on one of its datasets):
turn 1 finds A from a cue that takes rewording (first author, venue and year; or its task, venue, year and
datasets; with a search probe, a cue whose text pasted verbatim ranks A first is passed over) and reads a main
table cell; turn 2 reads a plotted value of one of A's figures; the report turn asks for the methods' scores,
ranking, cost and small-setting behaviour for a reader. Two episodes share each question with different personas
(another dataset, other constraints), and the gold claim sets of the pair differ by at least `MIN_CHANGE`.
Gold claims are values (each candidate's main-table score, its cost, its plotted value at the smallest setting
where the most candidate curves are askable), relations (consecutive candidates in the ranking, the two leading
curves) and the leader; each cites the unit that states it and carries that unit's tolerance. Every figure
claim and figure read is a point the v3 episode generator could ask (`facts.V3Facts.askable`: pixels only, a
linear axis, cleared from the printed numbers, the calibrated text guess and the other curves); cost claims
are only on the columns the report scorer resolves (parameters, GFLOPs, throughput). `report_problems`
re-checks a whole file. The corpus is read only through `report_facts.ReportCorpus`. Deterministic: the same
ground truth, seed and search index give the same bytes. The frozen v2 report benchmark (sandbox-v2-report) is
`sandbox.legacy.reportgen_v2`.
"""
from __future__ import annotations

import hashlib
import json
import math
import random
from pathlib import Path

from sandbox.corpus.model import GroundTruth

from .cues import Cue, citation_cue, hint_cue
from .probe import NoProbe, Probe
from .report_facts import GFLOPS, PARAMS, TABLE_TOLERANCE, LineFigure, ReportCorpus, Table, checkable_cost, \
    is_throughput, throughput_unit
from .report_personas import ARCHETYPES, Archetype, constraint_text

GENERATOR_VERSION = "reportgen-2.0"
DEFAULT_SEED = 31
DEFAULT_QUESTIONS = 24  # two personas each: 48 episodes
DEFAULT_OUT = "episodes/sandbox-v3-report.jsonl"
MIN_CHANGE = 0.30
MIN_GOLD = 5
REPORT_BUDGET = 10


class ReportGenerationError(RuntimeError):
    """The ground truth cannot yield the requested report episodes."""


def _cite(pid: str, unit: str) -> list[dict]:
    return [{"paper": pid, "unit": unit}]


def claim_key(c: dict) -> tuple:
    return (c["kind"], c["subject"], c.get("object"), c["relation"], c.get("dataset"), c.get("quantity"),
            c.get("x"), c.get("value"))


def change_share(a: list[dict], b: list[dict]) -> float:
    """Share of the two gold claim sets not common to both (1 - |A ∩ B| / |A ∪ B|)."""
    ka, kb = {claim_key(c) for c in a}, {claim_key(c) for c in b}
    return 1.0 - len(ka & kb) / len(ka | kb)


def _cost_column(eff: Table, kind: str) -> tuple[str, str] | None:
    """(constraint kind, column) a persona's extra constraint bounds in the cost table: params, gflops (parameters
    where the table has no GFLOPs: the compute-minded readers fall back on model size) or throughput."""
    if kind == "gflops" and GFLOPS in eff.columns:
        return "gflops", GFLOPS
    if kind in ("params", "gflops"):
        return ("params", PARAMS) if PARAMS in eff.columns else None
    col = next((c for c in eff.columns if is_throughput(c)), None)
    return ("throughput", col) if col else None


def cost_table(corpus: ReportCorpus, pid: str, main: Table) -> Table | None:
    """Where the paper prints what its methods cost: its efficiency table, else its main table's parameter column."""
    return corpus.efficiency_table(pid) or (main if PARAMS in main.columns else None)


class ReportBuilder:
    def __init__(self, corpus: ReportCorpus, rng: random.Random, probe: Probe):
        self.c, self.rng, self.probe = corpus, rng, probe

    # ---- persona -----------------------------------------------------------------------------
    def persona(self, arch: Archetype, dataset: str, main: Table, eff: Table | None) -> tuple[dict, list[str]] | None:
        """(persona, candidate methods) for an archetype on this paper, or None if its constraint cannot bind."""
        rows = main.methods
        constraints = [{"text": constraint_text("dataset", dataset), "field": "dataset", "op": "==", "value": dataset}]
        cands = list(rows)
        if arch.extra in ("params", "gflops", "throughput"):
            bound = _cost_column(eff, arch.extra) if eff is not None else None
            if bound is None:
                return None
            kind, field = bound
            vals = sorted((v, m) for m in eff.methods if m in rows and (v := eff.value(m, field)) is not None)
            if len(vals) < 3:
                return None
            low = not is_throughput(field)
            keep = 2 + self.rng.randrange(len(vals) - 2)  # keep 2 .. n-1
            ordered = vals if low else vals[::-1]
            a, b = ordered[keep - 1][0], ordered[keep][0]
            if a == b:
                return None
            thr = _round_between(a, b)
            constraints.append({"text": constraint_text(kind, thr, throughput_unit(field)), "field": field,
                                "op": "<=" if low else ">=", "value": thr})
            cands = [m for _, m in ordered[:keep]]
        elif arch.extra == "year":
            known = [m for m in rows if m in self.c.by_method]
            years = sorted({self.c.papers[self.c.by_method[m]].year for m in known})
            if len(years) < 2:
                return None
            y = years[-1] if len(years) == 2 else self.rng.choice(years[1:])
            cands = [m for m in known if self.c.papers[self.c.by_method[m]].year >= y]
            if len(cands) < 2 or len(cands) == len(known):
                return None
            constraints.append({"text": constraint_text("year", y), "field": "year", "op": ">=", "value": y})
        persona = {"role": arch.role, "expertise": arch.expertise, "cares_about": list(arch.cares_about),
                   "constraints": constraints, "context": arch.context.format(dataset=dataset)}
        return persona, [m for m in rows if m in cands]

    # ---- gold --------------------------------------------------------------------------------
    def gold(self, pid: str, dataset: str, cands: list[str], main: Table, eff: Table | None, field: str | None,
             fig: LineFigure | None) -> list[dict]:
        metric = main.metric or ""
        unit = "%" if "%" in metric else None
        hib = main.higher_is_better
        out: list[dict] = []
        vals = {m: v for m in cands if (v := main.value(m, dataset)) is not None}
        for m, v in vals.items():
            out.append({"kind": "value", "subject": m, "relation": "=", "quantity": metric, "dataset": dataset,
                        "value": v, "unit": unit, "tolerance": TABLE_TOLERANCE, "cites": _cite(pid, f"table:{main.n}")})
        ranked = sorted(vals, key=lambda m: -vals[m] if hib else vals[m])
        for a, b in list(zip(ranked, ranked[1:]))[:3]:
            if abs(vals[a] - vals[b]) > 0.05:
                out.append({"kind": "compare", "subject": a, "object": b, "relation": ">" if vals[a] > vals[b] else "<",
                            "quantity": metric, "dataset": dataset, "tolerance": TABLE_TOLERANCE,
                            "cites": _cite(pid, f"table:{main.n}")})
        every = [v for m in main.methods if (v := main.value(m, dataset)) is not None]
        if ranked and vals[ranked[0]] == (max(every) if hib else min(every)) and every.count(vals[ranked[0]]) == 1:
            out.append({"kind": "rank", "subject": ranked[0], "relation": "max" if hib else "min", "quantity": metric,
                        "dataset": dataset, "tolerance": TABLE_TOLERANCE, "cites": _cite(pid, f"table:{main.n}")})
        col = field or (PARAMS if eff is not None and PARAMS in eff.columns else None)
        if eff is not None and col is not None and checkable_cost(col):
            for m in cands:
                v = eff.value(m, col)
                if v is not None:
                    out.append({"kind": "value", "subject": m, "relation": "=", "quantity": col, "value": v,
                                "tolerance": TABLE_TOLERANCE, "cites": _cite(pid, f"table:{eff.n}")})
        if fig is not None:
            x, pts = self._figure_setting(pid, fig, cands)
            funit = "%" if "%" in fig.metric else None
            for method, y in pts:
                out.append({"kind": "value", "subject": method, "relation": "=", "quantity": fig.metric,
                            "dataset": fig.dataset, "x_label": fig.x_label, "x": x, "value": y, "unit": funit,
                            "tolerance": fig.tolerance, "cites": _cite(pid, f"figure:{fig.n}")})
            fhib = self.c.direction(pid, fig.metric)
            pts.sort(key=lambda p: -p[1] if fhib else p[1])
            if len(pts) >= 2 and abs(pts[0][1] - pts[1][1]) > 2 * fig.tolerance:
                out.append({"kind": "compare", "subject": pts[0][0], "object": pts[1][0],
                            "relation": ">" if pts[0][1] > pts[1][1] else "<", "quantity": fig.metric,
                            "dataset": fig.dataset, "x_label": fig.x_label, "x": x, "tolerance": fig.tolerance,
                            "cites": _cite(pid, f"figure:{fig.n}")})
        return out

    def _figure_setting(self, pid: str, fig: LineFigure, cands: list[str]) -> tuple[float, list[tuple[str, float]]]:
        """The smallest plotted setting where the most candidate curves are askable, and those (method, value) points."""
        best: tuple[float, list[tuple[str, float]]] = (min(fig.series[0][2]), [])
        for x in sorted(set(fig.series[0][2])):
            pts = [(method, ys[xs.index(x)]) for label, method, xs, ys in fig.series
                   if method in cands and x in xs and self.c.askable(pid, fig, label, method, x, ys[xs.index(x)])]
            if len(pts) > len(best[1]):
                best = (x, pts)
        return best

    # ---- one question, two personas ----------------------------------------------------------
    def build(self, pid: str, qid: str, archs: list[Archetype], source: str, cue_kind: str) -> list[dict] | None:
        c = self.c
        if not c.papers[pid].method:
            return None
        main = c.main_table(pid)
        if main is None or len(main.rows) < 4:
            return None
        eff = cost_table(c, pid, main)
        figs = [f for f in c.line_figures(pid) if f.dataset in main.datasets]
        datasets = main.datasets
        if not figs or len(datasets) < 2:
            return None
        fig_sets = sorted({f.dataset for f in figs}, key=datasets.index)
        # each persona's benchmark has a chart to read: two of them, or one for both (the constraints then differ)
        d1 = self.rng.choice(fig_sets)
        d2 = self.rng.choice([d for d in fig_sets if d != d1] or [d1])
        cue = self._cue(pid, cue_kind)
        if cue is None:
            return None
        turn1, turn2, opened = self._answer_turns(pid, main, figs, cue)
        if turn2 is None:
            return None
        question = self._question(main, eff, figs)
        out = []
        golds: list[list[dict]] = []
        for arch, dataset in zip(archs, (d1, d2)):
            made = self.persona(arch, dataset, main, eff)
            if made is None:
                return None
            persona, cands = made
            field = next((k["field"] for k in persona["constraints"] if k["field"] not in ("dataset", "year")), None)
            fig = next((f for f in figs if f.dataset == dataset), None)
            gold = self.gold(pid, dataset, cands, main, eff, field, fig)
            if len(gold) < MIN_GOLD or not any(g["cites"][0]["unit"].startswith("figure:") for g in gold):
                return None
            golds.append(gold)
            cited = sorted({(u["paper"], u["unit"]) for g in gold for u in g["cites"]})
            checklist = [_open(p, u) for p, u in cited if (p, u) not in opened]
            papers = [c.paper_facts(pid)] + [c.paper_facts(c.by_method[m]) for m in main.methods
                                             if m in c.by_method and c.by_method[m] != pid]
            hard = len(persona["constraints"]) > 1
            out.append({
                "id": f"{qid}-{arch.key}", "split": "hard" if hard else "easy", "task_type": "comparison",
                "initiation": "citation" if cue.kind == "citation" else "indirect_hint", "area": c.papers[pid].area,
                "turns": [turn1, turn2],
                "report": {"question": question, "persona": persona, "max_words": 1500, "budget": REPORT_BUDGET,
                           "gold": gold, "facts": c.unit_facts(pid), "papers": papers,
                           "evidence": [{"paper": p, "unit": u} for p, u in cited], "checklist": checklist},
                "source": source,
            })
        if change_share(golds[0], golds[1]) < MIN_CHANGE:
            return None
        return out

    def _cue(self, pid: str, first: str) -> Cue | None:
        """A turn-1 cue of kind `first` (citation or hint), else the other kind; one whose text pasted into the
        search already ranks the paper first is passed over (with a probe)."""
        makers = {"citation": lambda: citation_cue(self.c.v3, pid, self.probe),
                  "hint": lambda: hint_cue(self.c.v3, pid, self.rng, self.probe)}
        for kind in (first, "hint" if first == "citation" else "citation"):
            cue = makers[kind]()
            if cue is not None and self.probe.top1(cue.text) != pid:
                return cue
        return None

    def _answer_turns(self, pid: str, main: Table, figs: list[LineFigure], cue: Cue) -> tuple[dict, dict | None, set]:
        rows = [(r, m) for r, m in zip(main.rows, main.names) if not self.c.v3.is_own(pid, r[0])]
        col = main.datasets[0]
        choices = [(r, m) for r, m in rows if main.value(m, col) is not None]
        row, _ = self.rng.choice(choices)
        metric = f" ({main.metric})" if main.metric else ""
        turn1 = {"question": f'Find the paper described by the cue. In Table {main.n}, what value{metric} is reported for '
                             f'the method "{row[0]}" in the column "{col}"?',
                 "cue": {"text": cue.text},
                 "answer": {"format": "number", "value": float(row[main.columns.index(col)]), "tolerance": TABLE_TOLERANCE,
                            **({"unit": "%"} if main.metric and "%" in main.metric else {})},
                 "evidence": [{"paper": pid, "unit": f"table:{main.n}"}],
                 "checklist": [s.model_dump() for s in cue.steps]
                 + [{"tool": "table_extract", "args": {"paper": pid, "table": main.n}}]}
        options = []
        for f in figs:
            xs = sorted(set(f.series[0][2]))
            for label, method, fx, fy in f.series:
                for x in xs[1:3]:
                    if x in fx and self.c.askable(pid, f, label, method, x, fy[fx.index(x)]):
                        options.append((f, label, x, fy[fx.index(x)]))
        if not options:
            return turn1, None, set()
        f, label, x, y = self.rng.choice(options)
        turn2 = {"question": f'Stay with the paper from turn 1. Figure {f.n} plots {f.metric} against {f.x_label} on '
                             f'{f.dataset}. What is the {f.metric} of the series "{label}" at {f.x_label} = {x:g}? '
                             f'Read it from the figure.',
                 "answer": {"format": "number", "value": y, "tolerance": f.tolerance,
                            **({"unit": "%"} if "%" in f.metric else {})},
                 "evidence": [{"paper": pid, "unit": f"figure:{f.n}"}],
                 "checklist": [{"tool": "figure_extract", "args": {"paper": pid, "figure": f.n}}],
                 "reads": [{"paper": pid, "unit": f"figure:{f.n}", "series": label, "dataset": f.dataset,
                            "metric": f.metric, "x": x, "x_label": f.x_label, "value": y}]}
        return turn1, turn2, {(pid, f"table:{main.n}"), (pid, f"figure:{f.n}")}

    def _question(self, main: Table, eff: Table | None, figs: list[LineFigure]) -> str:
        cols = [c for c in (eff.columns[1:] if eff else []) if checkable_cost(c)]
        cost = f" what the qualifying methods cost (Table {eff.n}: {', '.join(cols)})," if eff and cols else ""
        x_labels = sorted({f.x_label for f in figs})
        return (f"Write a short report for the reader described below on the methods compared in Table {main.n} of the "
                f"paper from turn 1, restricted to the benchmark and the constraints the reader states: the score of "
                f"each qualifying method, how they rank and by how much they differ,{cost} and how they "
                f"behave at a small {' / '.join(x_labels)} in the paper's figures on that benchmark (read from the plot). "
                f"Leave out methods that do not fit the reader's constraints.")


def _open(pid: str, unit: str) -> dict:
    kind, n = unit.split(":")
    return {"tool": f"{kind}_extract", "args": {"paper": pid, kind: int(n)}}


def _round_between(a: float, b: float) -> float:
    """A round threshold between a (kept) and b (excluded)."""
    lo, hi = sorted((a, b))
    for step in (50, 25, 10, 5, 2, 1, 0.5, 0.1):
        v = math.ceil(lo / step) * step
        if lo <= v < hi and v != b:
            return round(v, 1) if v != int(v) else float(int(v))
    return round((a + b) / 2, 2)


def generate_report_episodes(gt: GroundTruth, *, seed: int = DEFAULT_SEED, questions: int = DEFAULT_QUESTIONS,
                             probe: Probe | None = None, corpus: ReportCorpus | None = None) -> list[dict]:
    """Report episodes (plain dicts in the public episode format), two personas per question; the questions cycle
    through the corpus's areas (a paper of another area when none of the area can serve), the cue kinds
    alternate, and each pair takes the next two archetypes. `corpus`: the ground truth's index, when the caller
    has built it already (`ReportCorpus(gt)`)."""
    if not gt.generator_version.startswith("corpus-3"):
        raise ReportGenerationError(f"the report generator reads corpus v3 ground truths, not {gt.generator_version} "
                                    "(the v2 report benchmark is sandbox.legacy.reportgen_v2)")
    probe = probe or NoProbe()
    corpus = corpus if corpus is not None and corpus.gt is gt else ReportCorpus(gt)
    rng = random.Random(f"report-v3:{seed}")
    areas = sorted({p.area for p in gt.papers})
    pools = {a: [pid for pid in corpus.ids if corpus.papers[pid].area == a] for a in areas}
    for a in areas:
        rng.shuffle(pools[a])
    source = f"sandbox.episodegen.report {GENERATOR_VERSION} seed={seed} ground_truth={corpus.source}"
    out: list[dict] = []
    arch_i = 0
    for q in range(questions):
        area = areas[q % len(areas)]
        archs = [ARCHETYPES[(arch_i + k) % len(ARCHETYPES)] for k in range(2)]
        cue_kind = ("citation", "hint")[q % 2]
        # the question's own area first, then the others (an area whose papers cannot serve these readers)
        order = [area] + [a for a in areas if a != area]
        for attempt, pid in enumerate(pid for a in order for pid in pools[a]):
            builder = ReportBuilder(corpus, random.Random(f"{seed}:{q}:{attempt}"), probe)
            built = builder.build(pid, f"rpt3-{q + 1:03d}", archs, source, cue_kind)
            if built is None:
                continue
            pools[corpus.papers[pid].area].remove(pid)
            out += built
            arch_i += 2
            break
        else:
            raise ReportGenerationError(f"no paper can serve report question {q + 1} (readers {archs[0].key}, {archs[1].key})")
    problems = report_problems(out, gt, corpus)
    if problems:
        raise ReportGenerationError("the report episodes break a generator rule: " + "; ".join(problems[:5]))
    return out


def report_problems(episodes: list[dict], gt: GroundTruth, corpus: ReportCorpus | None = None) -> list[str]:
    """What breaks the report benchmark's rules in a set of report episodes over the ground truth `gt`: a figure
    claim or figure read the v3 rules would not ask (on a figure not shown as pixels only, or a value a printed
    number, the text guess or another curve gives), a claim whose value is not the one its unit states, a
    pair of personas on one question whose gold claim sets differ by less than `MIN_CHANGE`, fewer than
    `MIN_GOLD` gold claims or none read from a figure."""
    c = corpus or ReportCorpus(gt)
    out: list[str] = []
    pairs: dict[str, list[dict]] = {}
    for e in episodes:
        eid, rep = e["id"], e["report"]
        pairs.setdefault(rep["question"] + "\x00" + e["turns"][0]["cue"]["text"], []).append(e)
        if len(rep["gold"]) < MIN_GOLD:
            out.append(f"{eid}: {len(rep['gold'])} gold claims (at least {MIN_GOLD})")
        if not any(g["cites"][0]["unit"].startswith("figure:") for g in rep["gold"]):
            out.append(f"{eid}: no gold claim is read from a figure")
        figures = {(f.paper, f.n): f for pid in {u["paper"] for g in rep["gold"] for u in g["cites"]}
                   for f in c.line_figures(pid)}
        points = [(g["cites"][0]["paper"], g["cites"][0]["unit"], g["subject"], g.get("x"), g.get("value"))
                  for g in rep["gold"] if g["kind"] == "value" and g["cites"][0]["unit"].startswith("figure:")]
        points += [(r["paper"], r["unit"], r["series"], r["x"], r["value"]) for t in e["turns"] for r in t.get("reads", [])
                   if r["unit"].startswith("figure:")]
        for pid, unit, name, x, value in points:
            fig = figures.get((pid, int(unit.split(":")[1])))
            if fig is None:
                out.append(f"{eid}: {pid} {unit} is not a figure the v3 rules ask about (pixels only, linear, one panel)")
                continue
            hit = [(label, method, ys[xs.index(x)]) for label, method, xs, ys in fig.series
                   if name in (label, method) and x in xs]
            if not hit or abs(hit[0][2] - value) > 1e-9:
                out.append(f"{eid}: {pid} {unit} {name!r} at x={x}: {value} is not the plotted value")
            elif not c.askable(pid, fig, hit[0][0], hit[0][1], x, value):
                out.append(f"{eid}: {pid} {unit} {name!r} at x={x}: {value} is given by the paper's text or another curve")
    for group in pairs.values():
        if len(group) == 2 and change_share(group[0]["report"]["gold"], group[1]["report"]["gold"]) < MIN_CHANGE:
            out.append(f"{group[0]['id']} and {group[1]['id']}: the two personas share more than "
                       f"{1 - MIN_CHANGE:.0%} of their gold claims")
    return out


def write_report_episodes(episodes: list[dict], path: Path) -> str:
    """One JSON object per line; returns the file's sha256."""
    data = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in episodes).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def main(argv: list[str] | None = None) -> None:
    import argparse

    from .probe import ToolProbe

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sandbox", type=Path, default=Path("sandbox/build"),
                    help="the built corpus v3 (its ground_truth.json, and its search index for the cue probe)")
    ap.add_argument("--out", type=Path, default=Path(DEFAULT_OUT))
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--questions", type=int, default=DEFAULT_QUESTIONS)
    ap.add_argument("--no-probe", action="store_true", help="no search probe (the cues are not checked against the index)")
    a = ap.parse_args(argv)
    gt_path = a.sandbox / "ground_truth.json"
    if not gt_path.is_file():
        ap.exit(2, f"error: {gt_path}: ground truth not found; run `epi sandbox build` first\n")
    gt = GroundTruth.model_validate_json(gt_path.read_text(encoding="utf-8"))
    probe = NoProbe() if a.no_probe else ToolProbe(a.sandbox)
    try:
        eps = generate_report_episodes(gt, seed=a.seed, questions=a.questions, probe=probe)
    except ReportGenerationError as e:
        ap.exit(2, f"error: {e}\n")
    digest = write_report_episodes(eps, a.out)
    print(f"wrote {len(eps)} report episodes to {a.out} (sha256 {digest[:12]})")


if __name__ == "__main__":
    main()
