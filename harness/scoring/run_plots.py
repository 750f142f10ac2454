"""Which plots a run's report has, decided without matplotlib (harness/scoring/plots.py draws them).

report.md names its plots while a plot worker (harness/plot_worker.py) may still be drawing them,
so the decision lives here, apart from the drawing, and both sides take it from the same function.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .model import EpisodeScore, RunScores


def process_plot_rows(episodes: list[EpisodeScore]) -> list[Any] | None:
    """The process-against-outcome correlations to plot, or None when there is nothing to plot (no process
    metrics, or every rho undefined: every episode right, or every one wrong)."""
    if not any(e.process is not None for e in episodes):
        return None
    from .process_outcome import process_correlations

    corrs = process_correlations(episodes)
    return corrs if any(c.rho is not None for c in corrs) else None


def planned_plots(scores: RunScores, episodes: list[EpisodeScore], out_dir: Path) -> dict[str, Path]:
    """The plots `plot_run` draws for this run: name -> file."""
    out: dict[str, Path] = {}
    if scores.all.failures.total():
        out["failure_types"] = out_dir / "failure_types.png"
    if episodes:
        out["cost"] = out_dir / "cost_per_episode.png"
    if process_plot_rows(episodes) is not None:
        out["process"] = out_dir / "process_vs_outcome.png"
    return out
