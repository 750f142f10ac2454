"""A sweep (`epi ablate`) read back: its factors and cells, the paired effect of each factor, and the tools each
cell's agent called.

A sweep crosses factors (options given two or more levels; the first level of each is its reference). Each
cell is paired with the cell that differs from it only in one factor, set to that factor's reference level:
the difference is then that factor's doing, the other factors held where they were. Each such pair is a
`paired.pair_runs` comparison (McNemar's exact test and Newcombe's interval on episode success, a paired
bootstrap for the other numbers). A factor level met under several settings of the other factors also gets
a pooled effect: a paired bootstrap over episodes, each episode one cluster that holds its matched pairs
(the same episode under other settings is not an independent observation). Intervals that have no spread
to measure are written "all n ... equal", never as zero width (`interval.bracket`).

Tool calls are counted from each cell's traces, per tool (run, and refused); a factor that removes a tool the
reference cell never called is named: its "no difference" says nothing about the tool.
"""
from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.rundir import RunDir

from .epochs import Reducer
from .interval import bracket
from .model import RunScores
from .paired import PairedComparison, PairedRow, PairingError, _bootstrap_row, _select, pair_runs
from .run import read_episode_scores
from .uncertainty import episode_values

SPEC_FILE = "ablation.json"
SPEC_VERSION = 1


class SweepFactor(BaseModel):
    """One option swept: its setting, flag and levels as given (the first is the reference)."""

    model_config = ConfigDict(extra="forbid")

    option: str = Field(description="the settings field (RunSettings or AgentConfig)")
    flag: str
    levels: list[str] = Field(min_length=2)


class SweepCell(BaseModel):
    """One run of the sweep: its run id and, per factor, the index of its level."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    levels: list[int]


class AblationSpec(BaseModel):
    """ablation.json: what the sweep was asked to run, so that `epi ablate --resume ID` continues it whole."""

    model_config = ConfigDict(extra="forbid")

    version: int = SPEC_VERSION
    name: str
    flags: dict[str, str] = Field(description="every option given on the command line: setting -> levels as typed")
    base: dict[str, Any] = Field(default_factory=dict, description="the --preset and --config settings, merged")
    preset: str | None = None
    config: str | None = None
    factors: list[SweepFactor] = Field(default_factory=list)
    cells: list[SweepCell] = Field(default_factory=list)

    def cell_label(self, cell: SweepCell, skip: int | None = None) -> str:
        """`--model a, --max-steps 5` for a cell (without factor `skip`)."""
        parts = [f"{f.flag} {f.levels[i]}" for k, (f, i) in enumerate(zip(self.factors, cell.levels)) if k != skip]
        return ", ".join(parts) or "(no other factor)"


def cell_levels(n_levels: list[int]) -> list[tuple[int, ...]]:
    """Every combination of level indices, the first factor varying slowest (the reference cell first)."""
    return list(itertools.product(*[range(n) for n in n_levels]))


def read_spec(folder: Path) -> AblationSpec:
    """The sweep's ablation.json; ValueError naming the file when it is missing or not a sweep's."""
    from pydantic import ValidationError

    path = Path(folder) / SPEC_FILE
    try:
        spec = AblationSpec.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise ValueError(f"{path} does not exist: {folder} is not a sweep made by epi ablate") from None
    except (ValidationError, ValueError) as e:
        raise ValueError(f"{path} is not a sweep's ablation.json: {str(e).splitlines()[0]}") from None
    if spec.version != SPEC_VERSION:
        raise ValueError(f"{path} has version {spec.version}; this epiharness reads version {SPEC_VERSION}")
    n = [len(f.levels) for f in spec.factors]
    if [tuple(c.levels) for c in spec.cells] != cell_levels(n):
        raise ValueError(f"{path}: its cells are not the combinations of its factors' levels")
    return spec


# --- tool calls -------------------------------------------------------------------------------------------------

class ToolCount(BaseModel):
    offered: bool = Field(default=True, description="the tool was offered in the run (run.json `tools`)")
    run: int = Field(default=0, description="calls the tool session ran")
    refused: int = Field(default=0, description="calls asked for and refused (a tool not offered, past the budget)")


def tool_counts(run_dir: Path) -> dict[str, ToolCount]:
    """Per tool, the calls in the run's current traces (every epoch; failed attempts set aside are not counted)."""
    from harness.trace import ToolCallEvent, parse_event

    rd = RunDir(run_dir)
    out: dict[str, ToolCount] = {}
    try:
        offered = json.loads(rd.run_json.read_text()).get("tools") or []
    except (OSError, ValueError, AttributeError):
        offered = []
    for t in offered:
        if isinstance(t, str):
            out[t] = ToolCount()
    for epoch in rd.epochs():
        folder = rd.epoch_dir(epoch)
        for path in sorted(folder.glob("*.jsonl")):
            with path.open("rb") as f:
                for line in f:
                    if b'"tool_call"' not in line:
                        continue
                    try:
                        ev = parse_event(line)
                    except ValueError:  # a damaged line: scoring reports it; it counts no call
                        continue
                    if isinstance(ev, ToolCallEvent):
                        c = out.setdefault(ev.tool, ToolCount(offered=not offered))
                        if ev.executed:
                            c.run += 1
                        else:
                            c.refused += 1
    return dict(sorted(out.items()))


# --- effects ----------------------------------------------------------------------------------------------------

class MatchedPair(BaseModel):
    """A cell against the cell that differs only in this factor, at its reference level."""

    run: str
    reference: str
    others: str = Field(description="the other factors' levels both cells share")
    comparison: PairedComparison | None = None
    not_paired: str | None = Field(default=None, description="why the two cells could not be paired")


class FactorEffect(BaseModel):
    """The effect of one level of a factor against its reference level."""

    factor: str = Field(description="the option's flag")
    level: str
    reference: str
    pairs: list[MatchedPair]
    pooled: list[PairedRow] = Field(default_factory=list, description="over every matched pair, when there are several")
    pooled_pairs: int = 0
    pooled_episodes: int = 0


class AblationResult(BaseModel):
    """What the sweep's report says: effects per factor, tool calls per cell, warnings."""

    effects: list[FactorEffect] = Field(default_factory=list)
    tool_calls: dict[str, dict[str, ToolCount]] = Field(default_factory=dict, description="run id -> tool -> calls")
    warnings: list[str] = Field(default_factory=list)


def _pooled(pairs: list[tuple[PairedComparison, Any, Any]]) -> tuple[list[PairedRow], int, int]:
    """ESR, Acc_final and EC pooled over matched pairs: per episode, one unit per pair in which it was paired."""
    clusters: dict[str, dict[str, list[list[float]]]] = {}
    for _c, va, vb in pairs:
        for i, eid in enumerate(va.ids):
            d = clusters.setdefault(eid, {k: [] for k in ("sa", "sb", "fa", "fb", "ha", "na", "hb", "nb")})
            d["sa"].append(sum(va.success[i]) / len(va.success[i]))
            d["sb"].append(sum(vb.success[i]) / len(vb.success[i]))
            d["fa"].append(sum(va.final[i]) / len(va.final[i]))
            d["fb"].append(sum(vb.final[i]) / len(vb.final[i]))
            d["ha"].append(sum(va.ec_hit[i]) / len(va.ec_hit[i]))
            d["na"].append(sum(va.ec_need[i]) / len(va.ec_need[i]))
            d["hb"].append(sum(vb.ec_hit[i]) / len(vb.ec_hit[i]))
            d["nb"].append(sum(vb.ec_need[i]) / len(vb.ec_need[i]))
    eps = list(clusters.values())

    def col(k: str) -> list[list[float]]:
        return [e[k] for e in eps]

    rows = [_bootstrap_row("ESR", "%", col("sa"), None, col("sb"), None),
            _bootstrap_row("Acc_final", "%", col("fa"), None, col("fb"), None),
            _bootstrap_row("EC", "%", col("ha"), col("na"), col("hb"), col("nb"))]
    return rows, len(pairs), len(eps)


def factor_effects(spec: AblationSpec, run_dirs: dict[str, Path], scores: dict[str, RunScores]) -> list[FactorEffect]:
    """Every non-reference level of every factor, against its reference, cell by matched cell."""
    by_levels = {tuple(c.levels): c for c in spec.cells}
    eps_cache: dict[str, Any] = {}

    def eps(run_id: str) -> Any:
        if run_id not in eps_cache:
            eps_cache[run_id] = read_episode_scores(run_dirs[run_id])
        return eps_cache[run_id]

    out: list[FactorEffect] = []
    for k, f in enumerate(spec.factors):
        for li in range(1, len(f.levels)):
            pairs: list[MatchedPair] = []
            values: list[tuple[PairedComparison, Any, Any]] = []
            for cell in spec.cells:
                if cell.levels[k] != li:
                    continue
                ref_levels = list(cell.levels)
                ref_levels[k] = 0
                ref = by_levels[tuple(ref_levels)]
                mp = MatchedPair(run=cell.run_id, reference=ref.run_id, others=spec.cell_label(cell, skip=k))
                a, b = scores.get(cell.run_id), scores.get(ref.run_id)
                if a is None or b is None:
                    mp.not_paired = f"{cell.run_id if a is None else ref.run_id} has no scores"
                    pairs.append(mp)
                    continue
                reducer = Reducer.parse(b.reducer)
                try:
                    c = pair_runs(a, eps(cell.run_id), b, eps(ref.run_id), reducer)
                except PairingError as e:
                    mp.not_paired = str(e)
                    pairs.append(mp)
                    continue
                mp.comparison = c
                pairs.append(mp)
                common = _common(c, eps(cell.run_id), eps(ref.run_id), a, b)
                va = episode_values(_select(_counted(eps(cell.run_id), a), common), reducer)
                vb = episode_values(_select(_counted(eps(ref.run_id), b), common), reducer)
                values.append((c, va, vb))
            eff = FactorEffect(factor=f.flag, level=f.levels[li], reference=f.levels[0], pairs=pairs)
            if len(values) > 1:
                eff.pooled, eff.pooled_pairs, eff.pooled_episodes = _pooled(values)
            out.append(eff)
    return out


def _counted(eps: Any, s: RunScores) -> list[Any]:
    from .metrics import counted

    return counted(list(eps), s.errors_as_failures)


def _common(c: PairedComparison, run_eps: Any, base_eps: Any, a: RunScores, b: RunScores) -> list[str]:
    """The episodes pair_runs paired, in its order."""
    base_ids = {e.episode_id for e in _counted(base_eps, b)}
    seen: list[str] = []
    for e in _counted(run_eps, a):
        if e.episode_id in base_ids and e.episode_id not in seen:
            seen.append(e.episode_id)
    return seen


def removed_tool_warnings(spec: AblationSpec, counts: dict[str, dict[str, ToolCount]]) -> list[str]:
    """A level of --disable-tool that removes a tool the matched reference cell never called: its effect says
    nothing about the tool (the agent did not use it to begin with)."""
    out: list[str] = []
    by_levels = {tuple(c.levels): c for c in spec.cells}
    for k, f in enumerate(spec.factors):
        if f.option != "disable_tools":
            continue
        ref_items = _items(f.levels[0])
        for li in range(1, len(f.levels)):
            removed = [t for t in _items(f.levels[li]) if t not in ref_items]
            for tool in removed:
                idle, refs, totals = [], [], []
                for cell in spec.cells:
                    if cell.levels[k] != li:
                        continue
                    ref_levels = list(cell.levels)
                    ref_levels[k] = 0
                    ref = by_levels[tuple(ref_levels)].run_id
                    refs.append(ref)
                    if ref in counts and counts[ref].get(tool, ToolCount()).run == 0:
                        total = sum(c.run for c in counts[ref].values())
                        totals.append(total)
                        idle.append(f"{ref} (0 of {total} tool calls)")
                if idle and len(idle) == len(refs):
                    out.append(f"{f.flag} {f.levels[li]} removes {tool}, which the agent never called in any of the "
                               f"{len(idle)} reference cell{'s' if len(idle) > 1 else ''} ({f.flag} {f.levels[0]}; "
                               f"{_span(totals)} tool calls each): its effect says nothing about {tool}")
                elif idle:
                    out.append(f"{f.flag} {f.levels[li]} removes {tool}, which the agent never called in the reference "
                               f"cell{'s' if len(idle) > 1 else ''} {', '.join(idle)}: there its effect says nothing "
                               f"about {tool}")
    return out


def _span(xs: list[int]) -> str:
    return f"{min(xs)}" if min(xs) == max(xs) else f"{min(xs)}-{max(xs)}"


def _items(level: str) -> list[str]:
    from harness.cli._options import ITEM_SEP, NO_ITEMS

    return [] if level.strip().lower() == NO_ITEMS else [t.strip() for t in level.split(ITEM_SEP)]


def analyse(spec: AblationSpec, run_dirs: dict[str, Path], scores: dict[str, RunScores]) -> AblationResult:
    counts = {rid: tool_counts(d) for rid, d in run_dirs.items()}
    every = sorted({t for c in counts.values() for t in c})
    counts = {rid: {t: c.get(t, ToolCount(offered=False)) for t in every} for rid, c in counts.items()}
    return AblationResult(effects=factor_effects(spec, run_dirs, scores), tool_calls=counts,
                          warnings=removed_tool_warnings(spec, counts))


# --- what a reader sees -----------------------------------------------------------------------------------------

def diff_text(r: PairedRow, what: str = "pair", unit: str = "") -> str:
    d = r.difference
    if d is None:
        return "n/a"
    digits = 1 if r.unit == "%" else 2
    return (f"{d.estimate:+.{digits}f} {unit + ' ' if unit else ''}"
            f"{bracket(d.low, d.high, digits, signed=True, all_equal=d.all_equal, n=d.episodes, what=what)}")


def _p(p: float | None) -> str:
    if p is None:
        return "n/a"
    if p == 0.0:
        return "< 0.0001"
    return f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def _episodes(n: int) -> str:
    return f"{n} episode{'s' if n != 1 else ''}"


def effect_rows(e: FactorEffect) -> list[list[str]]:
    """Terminal rows of one factor level: the pooled effect (where there are several matched pairs), then each pair:
    [other factors, episodes, ESR difference [95% CI], test and p, verdict]."""
    rows = []
    if e.pooled:
        esr = e.pooled[0]
        rows.append([f"pooled over {e.pooled_pairs} matched pairs", _episodes(e.pooled_episodes),
                     diff_text(esr, "episode"), f"paired bootstrap p = {_p(esr.p_value)}", _verdict(esr)])
    for p in e.pairs:
        if p.comparison is None:
            rows.append([p.others, "", "not paired", p.not_paired or "", ""])
            continue
        esr = p.comparison.rows[0]
        test = "McNemar exact" if p.comparison.mcnemar is not None else "paired bootstrap"
        rows.append([p.others, _episodes(p.comparison.episodes), diff_text(esr), f"{test} p = {_p(esr.p_value)}",
                     _verdict(esr)])
    return rows


def _verdict(r: PairedRow) -> str:
    if r.detectable is None:
        return "n/a"
    return ("a detectable difference" if r.detectable else "no detectable difference") + (" (see the note)" if r.note else "")


def tool_table_rows(counts: dict[str, dict[str, ToolCount]]) -> tuple[list[str], list[list[str]]]:
    """Columns (tools) and one row of cells per run: `n` calls run, `n (+r refused)`; `off` for a tool not offered."""
    tools = sorted({t for c in counts.values() for t in c})
    rows = []
    for rid, c in counts.items():
        cells = []
        for t in tools:
            x = c.get(t, ToolCount(offered=False))
            shown = f"{x.run}" if x.offered or x.run else "off"
            cells.append(shown + (f" (+{x.refused} refused)" if x.refused else ""))
        cells.append(str(sum(x.run for x in c.values())))
        rows.append([rid, *cells])
    return tools, rows


def ablation_markdown(spec: AblationSpec, result: AblationResult) -> list[str]:
    """The sections of comparison.md a sweep adds: factors, paired effects, tool calls, warnings."""
    lines = ["## Factors", "", "| Option | Levels (the first is the reference) |", "|---|---|"]
    lines += [f"| `{f.flag}` | {', '.join(f'`{x}`' for x in f.levels)} |" for f in spec.factors]
    lines.append("")
    for w in result.warnings:
        lines += [f"> **WARNING: {w}.**", ""]
    if result.effects:
        lines += ["## Paired effect of each factor", "",
                  "Each cell against the cell that differs from it only in this factor, at the factor's reference level "
                  "(the other factors held): the difference (cell minus reference) with its 95% interval and a paired "
                  "test (ESR and Acc_final: McNemar's exact test and Newcombe's interval; others: a paired bootstrap). "
                  "Pooled: every matched pair of a level at once, a paired bootstrap over episodes (an episode's pairs "
                  "one cluster). \"all n ... equal\": the pairs never differed, not a certainty.", ""]
    for e in result.effects:
        lines += [f"### `{e.factor}` {e.level} against {e.reference}", ""]
        if e.pooled:
            lines += [f"Pooled over {e.pooled_pairs} matched pairs, {e.pooled_episodes} episodes:", "",
                      "| Number | Difference [95% CI] | p | Verdict |", "|---|---|---|---|"]
            for r in e.pooled:
                v = "n/a" if r.detectable is None else ("detectable" if r.detectable else "no detectable difference")
                lines.append(f"| {r.metric} % | {diff_text(r, 'episode')} | {_p(r.p_value)} | {v} |")
            lines.append("")
            lines += [f"- {r.metric}: {r.note}." for r in e.pooled if r.note]
        lines += ["| Cell | Reference cell | Other factors | ESR % | Acc_final % | EC % | MG | Verdict |",
                  "|---|---|---|---|---|---|---|---|"]
        for p in e.pairs:
            if p.comparison is None:
                lines.append(f"| {p.run} | {p.reference} | {p.others} | not paired: {p.not_paired} | | | | |")
                continue
            rows = {r.metric: r for r in p.comparison.rows}
            cells = [diff_text(rows[m]) if m in rows else "n/a" for m in ("ESR", "Acc_final", "EC", "MG")]
            lines.append(f"| {p.run} | {p.reference} | {p.others} | {' | '.join(cells)} | {p.comparison.verdict} |")
        lines.append("")
    tools, rows = tool_table_rows(result.tool_calls)
    lines += ["## Tool calls per run", "", "Calls the tool session ran, per tool, over every episode and epoch "
              "(refused: asked for but not run; off: not offered in that run).", "",
              "| Run | " + " | ".join(tools) + " | All |", "|---|" + "---|" * (len(tools) + 1)]
    lines += ["| " + " | ".join(r) + " |" for r in rows] + [""]
    return lines


def plot_paired_effects(result: AblationResult, path: Path) -> Path | None:
    """One row per factor level: each matched pair's ESR difference and the pooled one, with 95% intervals (a
    cross, and no bar, where the pairs never differed)."""
    from . import plots

    rows: list[tuple[str, PairedRow, bool]] = []  # label, ESR row, pooled (its units are episodes, not pairs)
    for e in result.effects:
        if e.pooled:
            rows.append((f"{e.factor} {e.level} vs {e.reference}: pooled", e.pooled[0], True))
        for p in e.pairs:
            if p.comparison is not None:
                rows.append((f"{e.factor} {e.level} vs {e.reference} [{p.others}]", p.comparison.rows[0], False))
    rows = [r for r in rows if r[1].difference is not None]
    if not rows:
        return None
    fig, ax = plots._subplots((8.0, 0.38 * len(rows) + 1.4))
    for y, (label, r, pooled) in enumerate(reversed(rows)):
        d = r.difference
        assert d is not None
        color = "#e15759" if pooled else "#4e79a7"
        if d.all_equal:
            ax.plot([d.estimate], [y], marker="x", color=color, markersize=7)
            ax.annotate(bracket(d.low, d.high, all_equal=True, n=d.episodes, what="episode" if pooled else "pair"),
                        (d.estimate, y),
                        xytext=(6, -3), textcoords="offset points", fontsize=7, color=color)
        else:
            ax.errorbar([d.estimate], [y], xerr=[[d.estimate - d.low], [d.high - d.estimate]], fmt="D" if pooled else "o",
                        color=color, capsize=3, markersize=5)
    ax.axvline(0.0, color="#888888", linewidth=0.8, linestyle="--")
    ax.set_yticks(range(len(rows)), [r[0] for r in reversed(rows)], fontsize=7)
    ax.set_xlabel("ESR difference, cell minus its reference cell (points, 95% interval)")
    ax.set_title("Paired effect of each factor (x: all pairs equal, no interval)")
    return plots._save(fig, path)


def result_json(spec: AblationSpec, result: AblationResult) -> dict[str, Any]:
    """The sweep's effects as JSON (`epi ablate --json`)."""
    def row(r: PairedRow) -> dict[str, Any]:
        d = r.difference
        return {"metric": r.metric, "difference": None if d is None else d.estimate,
                "low": None if d is None else d.low, "high": None if d is None else d.high,
                "all_equal": bool(d and d.all_equal), "p": r.p_value, "detectable": r.detectable}

    return {
        "factors": [f.model_dump() for f in spec.factors],
        "cells": [{"run": c.run_id, "levels": {f.flag: f.levels[i] for f, i in zip(spec.factors, c.levels)}}
                  for c in spec.cells],
        "effects": [{"factor": e.factor, "level": e.level, "reference": e.reference,
                     "pooled": [row(r) for r in e.pooled],
                     "pairs": [{"run": p.run, "reference": p.reference, "others": p.others,
                                "verdict": p.comparison.verdict if p.comparison else None,
                                "rows": [row(r) for r in p.comparison.rows] if p.comparison else [],
                                "not_paired": p.not_paired} for p in e.pairs]}
                    for e in result.effects],
        "tool_calls": {rid: {t: c.model_dump() for t, c in cs.items()} for rid, cs in result.tool_calls.items()},
        "warnings": result.warnings,
    }


def dump(obj: Any) -> str:
    return json.dumps(obj, indent=2)
