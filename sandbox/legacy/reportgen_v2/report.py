"""Assemble the frozen report benchmark over corpus v2 (`episodes/sandbox-v2-report.jsonl`): episodes whose last
turn asks for a cited report on the methods of a paper the earlier turns found and read (issue 31). Frozen in
sandbox/legacy: it keeps writing the same bytes and the same `source` stamp (`sandbox.episodegen.report
reportgen-1.0`, the module it was first made by); the living generator is `sandbox.episodegen.report`.

Per anchor paper A (a main Table 1 and a line chart): turn 1 finds A from its title and reads a Table 1 cell;
turn 2 reads a plotted value of one of its figures; the report turn asks for the methods' scores, ranking,
cost and low-budget behaviour for a reader. Two episodes share each question with different personas (other
dataset, other constraints), and the gold claim sets of the pair differ by at least `MIN_CHANGE`. Gold claims
are values (each candidate's Table 1 score, its cost, its plotted value at the smallest setting), relations
(consecutive candidates in the ranking, the two leading curves) and the leader; each cites the unit that
states it, carries that unit's tolerance, and every figure claim passes the text-clearance rule (no printed
number of the paper gives it). The corpus is read only through `facts.ReportCorpus`.
Deterministic: the same ground truth and seed give the same bytes.
"""
from __future__ import annotations

import json
import math
import random
from pathlib import Path

from sandbox.corpus.model import GroundTruth

from .facts import EFFICIENCY, LOWER_IS_BETTER, TABLE_TOLERANCE, LineFigure, ReportCorpus, Table
from .personas import ARCHETYPES, FIELD, Archetype, constraint_text

GENERATOR_VERSION = "reportgen-1.0"
DEFAULT_SEED = 31
DEFAULT_QUESTIONS = 24  # two personas each: 48 episodes
MIN_CHANGE = 0.30
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


class ReportBuilder:
    def __init__(self, corpus: ReportCorpus, rng: random.Random):
        self.c, self.rng = corpus, rng

    # ---- persona -----------------------------------------------------------------------------
    def persona(self, arch: Archetype, pid: str, dataset: str, main: Table, eff: Table | None) -> tuple[dict, list[str]] | None:
        """(persona, candidate methods) for an archetype on this paper, or None if its constraint cannot bind."""
        rows = main.methods
        constraints = [{"text": constraint_text("dataset", dataset), "field": "dataset", "op": "==", "value": dataset}]
        cands = list(rows)
        if arch.extra in FIELD:
            if eff is None:
                return None
            field = FIELD[arch.extra]
            vals = sorted((eff.value(m, field), m) for m in eff.methods if m in rows and eff.value(m, field) is not None)
            if len(vals) < 3:
                return None
            low = field in LOWER_IS_BETTER
            keep = 2 + self.rng.randrange(len(vals) - 2)  # keep 2 .. n-1
            ordered = vals if low else vals[::-1]
            a, b = ordered[keep - 1][0], ordered[keep][0]
            if a == b:
                return None
            thr = _round_between(a, b)
            constraints.append({"text": constraint_text(arch.extra, thr), "field": field, "op": "<=" if low else ">=",
                                "value": thr})
            cands = [m for _, m in ordered[:keep]]
        elif arch.extra == "year":
            years = sorted({self.c.papers[self.c.by_method[m]].year for m in rows if m in self.c.by_method})
            if len(years) < 2:
                return None
            y = years[-1] if len(years) == 2 else self.rng.choice(years[1:])
            cands = [m for m in rows if m in self.c.by_method and self.c.papers[self.c.by_method[m]].year >= y]
            if len(cands) < 2 or len(cands) == len([m for m in rows if m in self.c.by_method]):
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
        vals = {m: main.value(m, dataset) for m in cands}
        vals = {m: v for m, v in vals.items() if v is not None}
        for m, v in vals.items():
            out.append({"kind": "value", "subject": m, "relation": "=", "quantity": metric, "dataset": dataset,
                        "value": v, "unit": unit, "tolerance": TABLE_TOLERANCE, "cites": _cite(pid, f"table:{main.n}")})
        ranked = sorted(vals, key=lambda m: -vals[m] if hib else vals[m])
        for a, b in list(zip(ranked, ranked[1:]))[:3]:
            if abs(vals[a] - vals[b]) > 0.05:
                out.append({"kind": "compare", "subject": a, "object": b, "relation": ">" if vals[a] > vals[b] else "<",
                            "quantity": metric, "dataset": dataset, "tolerance": TABLE_TOLERANCE,
                            "cites": _cite(pid, f"table:{main.n}")})
        every = [main.value(m, dataset) for m in main.methods]
        every = [v for v in every if v is not None]
        if ranked and vals[ranked[0]] == (max(every) if hib else min(every)) and every.count(vals[ranked[0]]) == 1:
            out.append({"kind": "rank", "subject": ranked[0], "relation": "max" if hib else "min", "quantity": metric,
                        "dataset": dataset, "tolerance": TABLE_TOLERANCE, "cites": _cite(pid, f"table:{main.n}")})
        if eff is not None:
            col = field or "Params (M)"
            for m in cands:
                v = eff.value(m, col)
                if v is not None:
                    out.append({"kind": "value", "subject": m, "relation": "=", "quantity": col, "value": v,
                                "tolerance": TABLE_TOLERANCE, "cites": _cite(pid, f"table:{eff.n}")})
        if fig is not None:
            x, pts = self._figure_setting(pid, fig, cands)
            for method, y in pts:
                out.append({"kind": "value", "subject": method, "relation": "=", "quantity": fig.metric,
                            "dataset": fig.dataset, "x_label": fig.x_label, "x": x, "value": y, "unit": unit,
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
        """The smallest plotted setting where the most candidate curves are askable (no printed number gives
        them), and those (method, value) points."""
        best: tuple[float, list[tuple[str, float]]] = (min(fig.series[0][2]), [])
        for x in sorted(set(fig.series[0][2])):
            pts = [(method, ys[xs.index(x)]) for label, method, xs, ys in fig.series
                   if method in cands and x in xs and self.c.askable(pid, fig, label, method, x, ys[xs.index(x)])]
            if len(pts) > len(best[1]):
                best = (x, pts)
        return best

    # ---- one question, two personas ----------------------------------------------------------
    def build(self, pid: str, qid: str, archs: list[Archetype], source: str) -> list[dict] | None:
        c = self.c
        main, eff = c.main_table(pid), c.efficiency_table(pid)
        figs = [f for f in c.line_figures(pid) if main is not None and f.dataset in main.columns]
        if main is None or len(main.rows) < 4 or not figs:
            return None
        datasets = [d for d in main.columns[1:] if d not in EFFICIENCY]
        fig_sets = [f.dataset for f in figs]
        if len(datasets) < 2:
            return None
        d1 = self.rng.choice(fig_sets)
        others = [d for d in fig_sets if d != d1] or [d for d in datasets if d != d1]
        d2 = self.rng.choice(others)
        turn1, turn2, opened = self._answer_turns(pid, main, figs)
        if turn2 is None:
            return None
        question = self._question(pid, main, eff, figs)
        out = []
        golds: list[list[dict]] = []
        for arch, dataset in zip(archs, (d1, d2)):
            made = self.persona(arch, pid, dataset, main, eff)
            if made is None:
                return None
            persona, cands = made
            field = next((k["field"] for k in persona["constraints"] if k["field"] in EFFICIENCY), None)
            fig = next((f for f in figs if f.dataset == dataset), None)
            gold = self.gold(pid, dataset, cands, main, eff, field, fig)
            if len(gold) < 5:
                return None
            golds.append(gold)
            cited = sorted({(u["paper"], u["unit"]) for g in gold for u in g["cites"]})
            checklist = [_open(p, u) for p, u in cited if (p, u) not in opened]
            papers = [c.paper_facts(pid)] + [c.paper_facts(c.by_method[m]) for m in main.methods
                                             if m in c.by_method and c.by_method[m] != pid]
            hard = len(persona["constraints"]) > 1
            out.append({
                "id": f"{qid}-{arch.key}", "split": "hard" if hard else "easy", "task_type": "comparison",
                "initiation": "direct_title", "area": c.papers[pid].area, "turns": [turn1, turn2],
                "report": {"question": question, "persona": persona, "max_words": 1500, "budget": REPORT_BUDGET,
                           "gold": gold, "facts": c.unit_facts(pid), "papers": papers,
                           "evidence": [{"paper": p, "unit": u} for p, u in cited], "checklist": checklist},
                "source": source,
            })
        if change_share(golds[0], golds[1]) < MIN_CHANGE:
            return None
        return out

    def _answer_turns(self, pid: str, main: Table, figs: list[LineFigure]) -> tuple[dict, dict | None, set]:
        p = self.c.papers[pid]
        row = self.rng.choice(main.rows[:-1])
        col = main.columns[1]
        metric = f" ({main.metric})" if main.metric else ""
        cue = f'The paper titled "{p.title}".'
        turn1 = {"question": f'Find the paper described by the cue. In Table {main.n}, what value{metric} is reported for '
                             f'the method "{row[0]}" in the column "{col}"?',
                 "cue": {"text": cue},
                 "answer": {"format": "number", "value": float(row[1]), "tolerance": TABLE_TOLERANCE,
                            **({"unit": "%"} if main.metric and "%" in main.metric else {})},
                 "evidence": [{"paper": pid, "unit": f"table:{main.n}"}],
                 "checklist": [{"tool": "web_search", "args": {"query": p.title}},
                               {"tool": "table_extract", "args": {"paper": pid, "table": main.n}}]}
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

    def _question(self, pid: str, main: Table, eff: Table | None, figs: list[LineFigure]) -> str:
        cost = (f" what the qualifying methods cost (Table {eff.n}: parameters, GFLOPs, throughput)," if eff else "")
        x_labels = sorted({f.x_label for f in figs})
        return (f"Write a short report for the reader described below on the methods compared in Table {main.n} of the "
                f"paper from turn 1, restricted to the benchmark and the constraints the reader states: the score of "
                f"each qualifying method, how they rank and by how much they differ,{cost} and how they "
                f"behave at a small {' / '.join(x_labels)} in the paper's figures on that benchmark (read from the plot). "
                f"Leave out methods that do "
                f"not fit the reader's constraints.")


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


def generate_report_episodes(gt: GroundTruth, *, seed: int = DEFAULT_SEED, questions: int = DEFAULT_QUESTIONS) -> list[dict]:
    """Report episodes (plain dicts in the public episode format), two personas per question."""
    corpus = ReportCorpus(gt)
    rng = random.Random(f"report:{seed}")
    areas = sorted({p.area for p in gt.papers})
    pools = {a: [pid for pid in corpus.ids if corpus.papers[pid].area == a] for a in areas}
    for a in areas:
        rng.shuffle(pools[a])
    source = f"sandbox.episodegen.report {GENERATOR_VERSION} seed={seed} ground_truth={corpus.source}"
    out: list[dict] = []
    arch_i = 0
    for q in range(questions):
        area = areas[q % len(areas)]
        for attempt, pid in enumerate(pools[area]):
            archs = [ARCHETYPES[(arch_i + k) % len(ARCHETYPES)] for k in range(2)]
            built = ReportBuilder(corpus, random.Random(f"{seed}:{q}:{attempt}")).build(pid, f"rpt-{q + 1:03d}", archs, source)
            if built is None:
                continue
            pools[area].remove(pid)
            out += built
            arch_i += 2
            break
        else:
            raise ReportGenerationError(f"no paper of area {area!r} can serve report question {q + 1}")
    return out


def write_report_episodes(episodes: list[dict], path: Path) -> str:
    """One JSON object per line; returns the file's sha256."""
    import hashlib

    data = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in episodes).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def main(argv: list[str] | None = None) -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ground-truth", type=Path, default=Path("sandbox/build-v2/ground_truth.json"))
    ap.add_argument("--out", type=Path, default=Path("episodes/sandbox-v2-report.jsonl"))
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--questions", type=int, default=DEFAULT_QUESTIONS)
    a = ap.parse_args(argv)
    gt = GroundTruth.model_validate_json(a.ground_truth.read_text(encoding="utf-8"))
    eps = generate_report_episodes(gt, seed=a.seed, questions=a.questions)
    digest = write_report_episodes(eps, a.out)
    print(f"wrote {len(eps)} report episodes to {a.out} (sha256 {digest[:12]})")


if __name__ == "__main__":
    main()

