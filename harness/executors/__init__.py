"""Executors: who does a run's jobs. `local` (asyncio in this process) is the default; `ray` sends the
same jobs to a Ray cluster. Traces land in the same layout either way, so `--resume` does not care
which executor ran the first part.

Public API: `EpisodeJob`, `RunPlan`, `Executor`, `ExecutorError`, `LocalExecutor`, `make_executor`,
`plan_jobs`, `epoch_seed`, `model_key`.
"""
from __future__ import annotations

from typing import Sequence

from ..settings import RunSettings
from ._jobs import EpisodeJob, Executor, ExecutorError, RunPlan, epoch_seed, model_key, plan_jobs
from ._local import LocalExecutor

__all__ = [
    "EpisodeJob", "RunPlan", "Executor", "ExecutorError", "LocalExecutor", "make_executor", "plan_jobs",
    "epoch_seed", "model_key",
]


def make_executor(settings: Sequence[RunSettings]) -> Executor:
    """The executor the settings ask for (all runs of a grid share one). Ray connects here, before
    anything is written, so an unreachable cluster is reported up front."""
    first = settings[0]
    kinds = {s.executor for s in settings}
    if len(kinds) > 1:
        raise ExecutorError(f"the runs of one grid must share an executor, got {', '.join(sorted(kinds))}")
    if first.executor == "ray":
        from ._ray import RayExecutor

        return RayExecutor(settings)
    return LocalExecutor(max(s.concurrency for s in settings))
