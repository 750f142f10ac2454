"""PNG plots (matplotlib, Agg backend) for report.md and comparison.md (EpiBench Fig. 4, 5, 6).

Every plotted ESR, Acc_final and Acc_pre carries its 95% interval as an error bar."""
from __future__ import annotations

import os
from pathlib import Path

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure  # no pyplot: no global figure state, and a lighter import

from .interval import Interval
from .model import FAILURE_NAMES, FAILURE_TYPES, CostTotals, EpisodeScore, RunScores
from .run_plots import planned_plots, process_plot_rows

# FAILURE_NAMES lives in .model (the report reads it without matplotlib); kept importable from here
__all__ = ["FAILURE_NAMES", "plot_run", "planned_plots"]
FAILURE_COLORS = {"retrieve": "#4e79a7", "perception": "#f28e2b", "reading_memory": "#59a14f",
                  "reasoning": "#e15759", "others": "#bab0ac"}


def _err(values: list[float], intervals: list[Interval | None]) -> list[list[float]]:
    """matplotlib's asymmetric error bars (below, above) for values with their intervals (0 where none)."""
    lo = [max(0.0, v - iv.low) if iv is not None else 0.0 for v, iv in zip(values, intervals)]
    hi = [max(0.0, iv.high - v) if iv is not None else 0.0 for v, iv in zip(values, intervals)]
    return [lo, hi]


def _iv(r: RunScores, key: str) -> Interval | None:
    return getattr(r.all.intervals, key) if r.all.intervals is not None else None


def _subplots(figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    fig = Figure(figsize=figsize)
    return fig, fig.subplots()


def _save(fig: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    # bbox_inches="tight" crops the saved image to every artist, legends outside the axes included; a
    # tight_layout() pass before it would lay the figure out once more for nothing (a fifth of the plots' time)
    tmp = path.with_name(f".{path.stem}.tmp{os.getpid()}{path.suffix}")  # a reader never sees half an image
    try:
        fig.savefig(tmp, dpi=110, bbox_inches="tight")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def failure_distribution(labels: list[str], runs: list[RunScores], path: Path, split: str = "all") -> Path:
    """Stacked bars: share of failed episodes per error type, one bar per run (Fig. 4)."""
    fig, ax = _subplots((max(4.0, 1.2 * len(runs) + 2.5), 3.6))
    bottoms = [0.0] * len(runs)
    for ftype in FAILURE_TYPES:
        vals = []
        for r in runs:
            f = r.split(split).failures
            total = f.total()
            vals.append(100.0 * getattr(f, ftype) / total if total else 0.0)
        ax.bar(labels, vals, bottom=bottoms, label=FAILURE_NAMES[ftype], color=FAILURE_COLORS[ftype])
        bottoms = [b + v for b, v in zip(bottoms, vals)]
    ax.set_ylabel("% of failed episodes")
    ax.set_ylim(0, 100)
    ax.set_title("Failure types")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.tick_params(axis="x", labelrotation=20, labelsize=7)
    for label in ax.get_xticklabels():
        label.set_horizontalalignment("right")
    return _save(fig, path)


def _other_settings(r: RunScores) -> str:
    """The ablation settings of a run apart from the step budget (one budget line per such group)."""
    a = r.ablation.model_copy(update={"max_steps": None})
    return a.label().removeprefix("steps=?").lstrip(", ") or "all settings"


def budget_curve(runs: list[RunScores], path: Path) -> Path:
    """ESR and the max-steps error rate (episodes whose first error is a max-step termination) against the per-turn
    step budget (Fig. 6); one pair of lines per group of runs that share every other setting, so runs of different
    ablations are never joined into one line."""
    groups: dict[str, list[RunScores]] = {}
    for r in runs:
        groups.setdefault(_other_settings(r), []).append(r)
    fig, ax = _subplots((6.4 if len(groups) > 1 else 4.8, 3.6))
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (name, rs) in enumerate(groups.items()):
        rs = sorted(rs, key=lambda r: r.ablation.max_steps or 0)
        pts = [(r.ablation.max_steps or 0, r.all.esr or 0.0, r.all.max_steps_rate or 0.0) for r in rs]
        c = colors[k % len(colors)]
        tag = f" ({name})" if len(groups) > 1 else ""
        ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=_err([p[1] for p in pts], [_iv(r, "esr") for r in rs]),
                    marker="o", color=c, capsize=3, label=f"ESR % (95% interval){tag}")
        ax.plot([p[0] for p in pts], [p[2] for p in pts], marker="s", ls="--", color=c, label=f"max-steps error, % of episodes{tag}")
    ax.set_xticks(sorted({r.ablation.max_steps or 0 for r in runs}))
    ax.set_ylim(-3, 103)
    ax.set_xlabel("step budget per turn")
    ax.set_ylabel("%")
    ax.set_title("Step budget (ESR with its 95% interval)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _save(fig, path)


def ablation_bars(labels: list[str], runs: list[RunScores], path: Path) -> Path:
    """ESR, Acc_final and Acc_pre per ablation setting (Fig. 5)."""
    fig, ax = _subplots((max(4.5, 1.6 * len(runs) + 2), 3.6))
    width = 0.26
    xs = range(len(runs))
    for k, (key, name) in enumerate((("esr", "ESR"), ("acc_final", "Acc_final"), ("acc_pre", "Acc_pre"))):
        vals = [getattr(r.all, key) or 0.0 for r in runs]
        ax.bar([x + (k - 1) * width for x in xs], vals, width, label=name,
               yerr=_err(vals, [_iv(r, key) for r in runs]), capsize=2, error_kw={"elinewidth": 0.8})
    ax.set_xticks(list(xs), labels, rotation=15, fontsize=7, ha="right")
    ax.set_ylabel("%")
    ax.set_ylim(0, 105)
    ax.set_title("Ablations (bars: 95% intervals)")
    ax.legend(fontsize=8)
    return _save(fig, path)


def cost_axis(costs: list[CostTotals]) -> tuple[str, str]:
    """The cost to plot: total tokens when any run/episode used tokens, else tool calls (agents without a
    model), else wall time. Returns (CostTotals field, axis label)."""
    if any(c.total_tokens for c in costs):
        return "total_tokens", "total tokens"
    if any(c.tool_calls for c in costs):
        return "tool_calls", "tool calls (no tokens used)"
    return "wall_time_s", "wall time (s)"


def cost_vs_success(labels: list[str], runs: list[RunScores], path: Path) -> Path:
    """Cost (tokens, or tool calls when no run used tokens) against ESR, one marker per run, named in a legend."""
    field, axis = cost_axis([r.all for r in runs])
    fig, ax = _subplots((7.2, 3.6))
    markers = "osD^v<>Xph*"
    for k, (label, r) in enumerate(zip(labels, runs)):
        esr = r.all.esr or 0.0
        ax.errorbar([getattr(r.all, field)], [esr], yerr=_err([esr], [_iv(r, "esr")]), fmt=markers[k % len(markers)],
                    ms=7, alpha=0.8, capsize=3, label=label)
    ax.set_xlabel(axis)
    ax.set_ylabel("ESR % (95% interval)")
    ax.set_ylim(-3, 103)
    ax.set_title("Cost against success")
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _save(fig, path)


def episode_cost_scatter(episodes: list[EpisodeScore], path: Path) -> Path:
    """Per-episode cost against tool calls, successes drawn over failures; the y axis is tokens, or wall
    time when the agent used no tokens (a token axis of zeros says nothing)."""
    tokens = any(e.cost.total_tokens for e in episodes)
    field, axis = ("total_tokens", "total tokens") if tokens else ("wall_time_s", "wall time (s)")
    fig, ax = _subplots((4.8, 3.4))
    for ok, color, name, marker, size in ((False, "#e15759", "failure", "o", 18), (True, "#2f8f3a", "success", "^", 46)):
        sel = [e for e in episodes if e.success is ok]
        ax.scatter([e.cost.tool_calls for e in sel], [getattr(e.cost, field) for e in sel], c=color, marker=marker,
                   label=f"{name} ({len(sel)})", s=size, alpha=0.9 if ok else 0.45,
                   edgecolors="black" if ok else "none", linewidths=0.6)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("tool calls")
    ax.set_ylabel(axis)
    ax.set_title("Cost per episode")
    ax.legend(fontsize=8)
    return _save(fig, path)


def plot_run(scores: RunScores, episodes: list[EpisodeScore], out_dir: Path) -> dict[str, Path]:
    """The plots of one run's report (those `planned_plots` names): failure types by split, cost per episode,
    process against outcome."""
    out = planned_plots(scores, episodes, out_dir)
    if "failure_types" in out:
        labels = [s for s in ("easy", "hard", "all") if scores.split(s).episodes]
        _failure_by_split(labels, [scores] * len(labels), out["failure_types"])
    if "cost" in out:
        episode_cost_scatter(episodes, out["cost"])
    if "process" in out:
        process_correlations(process_plot_rows(episodes) or [], out["process"])
    return out


def _failure_by_split(splits: list[str], runs: list[RunScores], path: Path) -> Path:
    fig, ax = _subplots((4.8, 3.4))
    bottoms = [0.0] * len(splits)
    for ftype in FAILURE_TYPES:
        vals = [float(getattr(r.split(s).failures, ftype)) for r, s in zip(runs, splits)]
        ax.bar(splits, vals, bottom=bottoms, label=FAILURE_NAMES[ftype], color=FAILURE_COLORS[ftype])
        bottoms = [b + v for b, v in zip(bottoms, vals)]
    ax.set_ylabel("failed episodes")
    ax.set_title("Failure types by split")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _save(fig, path)


def process_correlations(corrs: list, path: Path, title: str = "Process against outcome") -> Path:  # list[Correlation]
    """Spearman rho of each process metric with success, with its 95% interval; undefined rows shown as 'n/a'."""
    rows = list(reversed(corrs))
    fig, ax = _subplots((6.4, 0.28 * len(rows) + 1.2))
    ys = range(len(rows))
    for y, c in zip(ys, rows):
        color = "#4e79a7" if c.level == "episode" else "#f28e2b"
        if c.rho is None:
            ax.text(0, y, "n/a", va="center", ha="center", fontsize=7, color="#888888")
            continue
        lo = c.rho - c.low if c.low is not None else 0.0
        hi = c.high - c.rho if c.high is not None else 0.0
        ax.errorbar([c.rho], [y], xerr=[[lo], [hi]], fmt="o", color=color, ms=4, capsize=2, lw=1)
    ax.axvline(0, color="#999999", lw=0.8)
    ax.set_yticks(list(ys), [f"{c.metric} ({c.level})" for c in rows], fontsize=7)
    ax.set_xlim(-1.05, 1.05)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel("Spearman rho with success (95% bootstrap interval)")
    ax.set_title(title)
    return _save(fig, path)
