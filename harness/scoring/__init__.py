"""Scoring: outcome and process metrics, judges and agreement, failure attribution, reports and plots.

Public API: `score_run`, `compare_runs`, `write_comparison`, `JudgeConfig`, and the records in
`harness.scoring.model`. Heavy modules (matplotlib, openai) load only when these are first used, so
readers of the records (replay, viewer) import `harness.scoring.model` cheaply.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .model import (
    SCORER_VERSION, AnswerVerdict, BucketCounts, CostTotals, EpisodeScore, FailureCounts, FailureLabel, RunScores,
    SplitScores, TurnScore,
)

if TYPE_CHECKING:
    from .compare import compare_runs, write_comparison
    from .judge import JudgeConfig
    from .quick import quick_episode_success
    from .run import score_run

__all__ = [
    "score_run", "compare_runs", "write_comparison", "JudgeConfig", "quick_episode_success",
    "RunScores", "SplitScores", "EpisodeScore", "TurnScore", "FailureLabel", "FailureCounts", "CostTotals",
    "BucketCounts", "AnswerVerdict", "SCORER_VERSION", "preload",
]

_LAZY = {"score_run": "run", "compare_runs": "compare", "write_comparison": "compare", "JudgeConfig": "judge",
         "quick_episode_success": "quick"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(name)


def preload() -> None:
    """Import what `score_run` needs (matplotlib for the plots, pint for units, the report) ahead of time.

    A run calls it from a background thread while its episodes wait on the model (harness.preload), so
    scoring at the end of the run starts warm instead of spending a second on imports."""
    import importlib

    for module in ("run", "report", "plots"):
        importlib.import_module(f"{__name__}.{module}")
    from .units import preload_units

    preload_units()
