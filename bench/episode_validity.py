"""Benchmark validity: the issue-13 yardstick measured on an episode file over a built sandbox.

It measures, with the real tools and search engine, what a skeptical agent researcher would try:
figure values printed in the text (table rows and sentences naming the same series), bar charts that
equal their own table, cue text pasted into web_search ranking the target first, finals that do not
fuse (vacuous conditions, mixed settings, unused papers, table-only finals), answer priors (the
paper's own method, the first option), table values another paper prints for the same row and
column, duplicate turns and episodes without figure evidence. The same script runs on sandbox-v1
(which has no `reads` annotations: its question templates are parsed) and on sandbox-v2 (which
annotates every read), so the two are compared with one yardstick.

    .venv/bin/python bench/episode_validity.py episodes/sandbox-v1.jsonl --sandbox sandbox/build-v1
    .venv/bin/python bench/episode_validity.py episodes/sandbox-v2.jsonl [--json]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from bench._validity_reads import Read, final_reads, turn_read  # noqa: E402
from bench._validity_text import PaperText, collect_text  # noqa: E402
from harness.episode import Episode  # noqa: E402
from harness.episodes_io import load_episodes  # noqa: E402
from sandbox.corpus.build import load_ground_truth  # noqa: E402
from sandbox.corpus.model import GroundTruth  # noqa: E402
from sandbox.world import SandboxWorld  # noqa: E402


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "0/0"


def value_turns(eps: list[Episode], gt: GroundTruth, kind: str) -> list[tuple[str, int, Read]]:
    """(episode, turn, read) of every non-final turn that asks for a number read off a `kind` ("figure",
    "table")."""
    out = []
    for ep in eps:
        for i, t in enumerate(ep.turns):
            if t.memory_only or t.answer.format != "number":
                continue
            r = turn_read(ep, i, gt)
            if r is not None and r.unit.startswith(f"{kind}:"):
                out.append((ep.id, i + 1, r))
    return out


def text_checks(fig_turns: list[tuple[str, int, Read]], texts: dict[str, PaperText], gt: GroundTruth) -> dict:
    printed = prose = bar_equals_table = bars = 0
    examples = []
    papers = {p.id: p for p in gt.papers}
    for ep_id, ti, r in fig_turns:
        pt = texts[r.paper]
        hit = pt.value_near_label(r.series or "", float(r.value), r.tolerance)
        if hit:
            printed += 1
            if len(examples) < 5:
                examples.append(f"{ep_id} T{ti}: {r.series}={r.value} printed as {hit!r}")
        if pt.value_in_prose(r.series or "", float(r.value), r.tolerance):
            prose += 1
        if r.x is None:  # a bar chart: is the bar a cell of the paper's own table?
            bars += 1
            for t in papers[r.paper].tables:
                if r.dataset in t.columns:
                    ci = t.columns.index(r.dataset)
                    for row in t.rows:
                        if row[0] == r.series and _num(row[ci]) is not None and abs(_num(row[ci]) - float(r.value)) <= r.tolerance:
                            bar_equals_table += 1
                            break
                    else:
                        continue
                    break
    return {"figure_value_turns": len(fig_turns), "printed_on_a_row_or_sentence_naming_the_series": printed,
            "printed_in_prose": prose, "bar_turns": bars, "bar_equals_own_table_cell": bar_equals_table,
            "examples": examples}


def _num(cell: str) -> float | None:
    try:
        return float(cell.replace("*", "").strip().split()[0])
    except (ValueError, IndexError):
        return None


async def cue_paste(eps: list[Episode], world: SandboxWorld) -> dict:
    """Cue text pasted verbatim into the engine: does the target rank first?"""
    total = first = t1_total = t1_first = 0
    for ep in eps:
        for i, t in enumerate(ep.turns):
            if t.cue is None or not t.cue.text or not t.evidence:
                continue
            target = t.evidence[0].paper
            hits = await world.search(t.cue.text, 5)
            ok = bool(hits) and hits[0].paper_id == target
            total += 1
            first += ok
            if i == 0:
                t1_total += 1
                t1_first += ok
    return {"cue_turns": total, "cue_paste_top1": first, "turn1_cues": t1_total, "turn1_top1": t1_first}


def final_checks(eps: list[Episode], gt: GroundTruth) -> dict:
    parsed = mixed = vacuous = constraint2 = table_only = unused = 0
    for ep in eps:
        final = ep.turns[-1]
        fr = final_reads(ep, gt)
        if fr is not None:
            parsed += 1
            numeric = [r for r in fr.operands if isinstance(r.value, (int, float))]
            keys = {(r.dataset, r.metric) for r in numeric}
            xs = {(r.x, r.x_label) for r in numeric if r.unit.startswith("figure:")}
            if len(keys) > 1 or len(xs) > 1:
                mixed += 1
            if fr.conditions is not None and len(fr.conditions) >= 2:
                constraint2 += 1
                answer = set.intersection(*fr.conditions)
                for k in range(len(fr.conditions)):
                    rest = [c for j, c in enumerate(fr.conditions) if j != k]
                    if set.intersection(*rest) == answer:
                        vacuous += 1
                        break
        if not any(e.unit.startswith("figure:") for e in final.evidence):
            table_only += 1
        final_papers = {e.paper for e in final.evidence} | {r.paper for r in final.reads}
        if set(ep.papers) - final_papers:
            unused += 1
    return {"finals": len(eps), "finals_parsed": parsed, "mixed_setting_finals": mixed,
            "constraint_finals_with_2plus_conditions": constraint2, "with_a_vacuous_condition": vacuous,
            "finals_without_figure_evidence": table_only, "episodes_with_an_unused_paper": unused}


def prior_checks(eps: list[Episode], gt: GroundTruth) -> dict:
    """Answer-free priors on choice turns: the paper's own method, and each option position."""
    own_method = {p.id: p.method for p in gt.papers}
    n = own = own_turns = 0
    chance = own_chance = 0.0
    pos = Counter()
    for ep in eps:
        for t in ep.turns:
            a = t.answer
            if a.format != "choice" or not a.choices:
                continue
            n += 1
            chance += 1 / len(a.choices)
            pos[sorted(a.choices).index(a.value)] += 1
            papers = {e.paper for e in t.evidence}
            names = {own_method.get(p) for p in papers} | {"Ours"}
            names |= {f"{n} (ours)" for n in names if n}
            if any(o in names for o in a.choices.values()):
                own_turns += 1
                own_chance += 1 / len(a.choices)
                own += a.choices[a.value] in names
    return {"choice_turns": n, "chance": round(chance / n, 3) if n else None,
            "turns_offering_the_own_method": own_turns, "own_method_is_right": own,
            "chance_on_those_turns": round(own_chance / own_turns, 3) if own_turns else None,
            "right_option_position": dict(sorted(pos.items()))}


def recurring_table_values(eps: list[Episode], gt: GroundTruth) -> dict:
    cells: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for p in gt.papers:
        for t in p.tables:
            for row in t.rows:
                for c, col in enumerate(t.columns[1:], start=1):
                    v = _num(row[c]) if c < len(row) else None
                    if v is not None:
                        cells.setdefault((row[0], col), []).append((p.id, v))
    reads = [r for _, _, r in value_turns(eps, gt, "table")]
    recurring = 0
    for r in reads:
        others = [v for pid, v in cells.get((r.series or "", r.column or ""), []) if pid != r.paper]
        recurring += any(abs(v - float(r.value)) <= r.tolerance for v in others)
    return {"table_value_turns": len(reads), "another_paper_prints_the_same_cell": recurring}


def _table_guess(gt: GroundTruth, paper: str, series: str | None, dataset: str | None) -> float | None:
    """What the text offers for a plotted value: the series' method on that dataset in the paper's Table 1."""
    p = next(q for q in gt.papers if q.id == paper)
    if not p.tables or not series or not dataset or dataset not in p.tables[0].columns:
        return None
    method = p.method if series == "Ours" else series
    t = p.tables[0]
    row = next((r for r in t.rows if r[0].removesuffix(" (ours)") == method), None)
    return _num(row[t.columns.index(dataset)]) if row else None


def text_guess_checks(eps: list[Episode], gt: GroundTruth) -> dict:
    """A text-only guesser that takes each plotted value to be its method's table value (the nearest
    thing the text prints) and ranks by table values: how often it is right on figure turns and finals
    (annotated files only)."""
    fig_n = fig_right = fin_n = fin_right = 0
    for ep in eps:
        for t in ep.turns:
            if t.memory_only or not t.reads or not t.reads[0].unit.startswith("figure:") or t.answer.format != "number":
                continue
            r = t.reads[0]
            g = _table_guess(gt, r.paper, r.series, r.dataset if r.x is not None else None)
            fig_n += 1
            fig_right += g is not None and abs(g - float(r.value)) <= (t.answer.tolerance or 0)
        final = ep.turns[-1]
        d = final.derivation
        if not final.reads or d is None or d.op == "filter":
            continue
        guesses = {r.turn: _table_guess(gt, r.paper, r.series, r.dataset) for r in final.reads}
        if any(v is None for v in guesses.values()):
            continue
        fin_n += 1
        a = final.answer
        vals = list(guesses.values())
        if d.op == "difference":
            ok = abs((vals[0] - vals[1]) - float(a.value)) <= (a.tolerance or 0)
        elif d.op == "range":
            ok = abs(max(vals) - min(vals) - float(a.value)) <= (a.tolerance or 0)
        elif d.op == "mean":
            ok = abs(sum(vals) / len(vals) - float(a.value)) <= (a.tolerance or 0)
        elif d.op == "count":
            ok = sum(v > vals[0] for v in vals[1:]) == a.value
        else:
            pick = (max if d.op == "argmax" else min)(guesses, key=guesses.get)
            ok = a.choices[a.value] == f"the method whose value you read in turn {pick}"
        fin_right += ok
    return {"figure_value_turns": fig_n, "table_guess_right": fig_right, "finals_guessable": fin_n,
            "finals_table_guess_right": fin_right}


def misc_checks(eps: list[Episode]) -> dict:
    dup = sum(1 for ep in eps if len({t.question for t in ep.turns}) < len(ep.turns))
    no_fig = sum(1 for ep in eps if not any(e.unit.startswith("figure:") for t in ep.turns for e in t.evidence))
    return {"episodes": len(eps), "episodes_repeating_a_turn": dup, "episodes_without_figure_evidence": no_fig}


async def measure(episodes: Path, sandbox: Path) -> dict:
    gt = load_ground_truth(sandbox)
    eps = load_episodes(episodes).episodes
    world = SandboxWorld(sandbox)
    fig_turns = value_turns(eps, gt, "figure")
    texts = await collect_text(world, sorted({r.paper for _, _, r in fig_turns}))
    return {
        "episodes_file": str(episodes), "sandbox": str(sandbox), "corpus": f"{gt.generator_version}/seed={gt.seed}",
        "papers": len(gt.papers),
        "figures_in_text": text_checks(fig_turns, texts, gt),
        "search": await cue_paste(eps, world),
        "finals": final_checks(eps, gt),
        "priors": prior_checks(eps, gt),
        "recurring": recurring_table_values(eps, gt),
        "text_guess": text_guess_checks(eps, gt),
        "misc": misc_checks(eps),
    }


def report(m: dict) -> str:
    f, s, fi, pr, rc, mi = m["figures_in_text"], m["search"], m["finals"], m["priors"], m["recurring"], m["misc"]
    lines = [
        f"{m['episodes_file']} over {m['sandbox']} ({m['corpus']}, {m['papers']} papers, {mi['episodes']} episodes)",
        f"figure-value turns with the gold value printed on a row/sentence naming the series: "
        f"{_pct(f['printed_on_a_row_or_sentence_naming_the_series'], f['figure_value_turns'])}",
        f"figure values printed in prose (sentences)                    : {_pct(f['printed_in_prose'], f['figure_value_turns'])}",
        f"bar-chart turns equal to a cell of the paper's own table      : {_pct(f['bar_equals_own_table_cell'], f['bar_turns'])}",
        f"cue text pasted into web_search ranks the target first        : {_pct(s['cue_paste_top1'], s['cue_turns'])}"
        f" (turn 1: {_pct(s['turn1_top1'], s['turn1_cues'])})",
        f"finals combining different datasets/metrics/x settings         : {_pct(fi['mixed_setting_finals'], fi['finals_parsed'])} of parsed finals",
        f"constraint finals (2+ conditions) with a vacuous condition     : {_pct(fi['with_a_vacuous_condition'], fi['constraint_finals_with_2plus_conditions'])}",
        f"episodes with a paper the final does not use                   : {_pct(fi['episodes_with_an_unused_paper'], fi['finals'])}",
        f"finals without figure evidence (tables/text only)              : {_pct(fi['finals_without_figure_evidence'], fi['finals'])}",
        f"choice turns: own method right {_pct(pr['own_method_is_right'], pr['turns_offering_the_own_method'])}"
        f" of turns offering it (chance on those turns {pr['chance_on_those_turns']}, on all {pr['choice_turns']} "
        f"choice turns {pr['chance']}); right option by position {pr['right_option_position']}",
        f"table-value turns whose cell another paper prints too         : {_pct(rc['another_paper_prints_the_same_cell'], rc['table_value_turns'])}",
        f"episodes repeating a turn: {mi['episodes_repeating_a_turn']}; episodes without figure evidence: "
        f"{mi['episodes_without_figure_evidence']}",
    ]
    tg = m["text_guess"]
    if tg["figure_value_turns"]:
        lines.append(f"text-only guess (a plotted value = its method's table value): right on "
                     f"{_pct(tg['table_guess_right'], tg['figure_value_turns'])} figure-value turns and "
                     f"{_pct(tg['finals_table_guess_right'], tg['finals_guessable'])} non-constraint finals")
    if f["examples"]:
        lines.append("examples of printed figure values: " + "; ".join(f["examples"][:3]))
    return "\n".join(lines)


def main() -> None:
    from sandbox import paths

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("episodes", type=Path)
    ap.add_argument("--sandbox", type=Path, default=None, help="built sandbox folder (default: EPI_SANDBOX_DIR or sandbox/build)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    m = asyncio.run(measure(args.episodes, args.sandbox or paths.sandbox_dir()))
    print(json.dumps(m, indent=1) if args.json else report(m))


if __name__ == "__main__":
    main()
