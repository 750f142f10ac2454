"""The unit of work of a run, a run ready to execute, and what both executors share.

A run (or a grid of runs) is a bag of independent jobs: one episode of one run, once (its epoch).
The runner turns settings into RunPlans; an executor does their jobs and reports each outcome.
Which executor did a job leaves no mark in the results: the trace alone says the job is done.
"""
from __future__ import annotations

import asyncio
import traceback
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from tools import Tool, World

from ..episode import Episode
from ..episode_runner import EpisodeOutcome, EpisodeRunner
from ..rundir import RunDir
from ..settings import RunSettings

AgentFactory = Callable[[], Any]


class ExecutorError(Exception):
    """An executor cannot start or go on (unreachable cluster, missing package): the message says what to do."""


@dataclass(frozen=True)
class EpisodeJob:
    """Run episode `episode_id` once more, as repeat number `epoch` (1-based)."""

    episode_id: str
    epoch: int = 1


@dataclass
class RunPlan:
    """A checked run ready to execute: its settings, its folder and the jobs still to do."""

    settings: RunSettings
    run_dir: RunDir
    episodes: dict[str, Episode]
    jobs: list[EpisodeJob]
    kept: int
    world: World
    tools: dict[str, Tool]
    agent_factory: AgentFactory | None = None
    custom_world: bool = False
    lost: list[EpisodeJob] = field(default_factory=list)

    @property
    def episodes_dir(self) -> Path:
        return Path(self.settings.episodes).resolve().parent

    def make_agent_factory(self) -> AgentFactory:
        if self.agent_factory is not None:
            return self.agent_factory
        return default_agent_factory(self.settings)


DoneFn = Callable[[RunPlan, EpisodeOutcome], None]


class Executor(ABC):
    """Does the jobs of one or more runs. Calls `on_done` for each finished job, in the caller's loop."""

    name: str = "executor"

    @abstractmethod
    async def run(self, plans: Sequence[RunPlan], on_done: DoneFn) -> None:
        """Run every job of every plan; a job that cannot be done goes to its plan's `lost` list."""

    async def close(self) -> None:
        """Release what the executor holds (cluster connection, worker processes)."""


def default_agent_factory(settings: RunSettings) -> AgentFactory:
    from agents import make_agent

    name, config = settings.agent, settings.agent_config
    return lambda: make_agent(name, config)


def plan_jobs(episodes: Sequence[Episode], epochs: int, done: set[tuple[str, int]]) -> list[EpisodeJob]:
    """Every (episode, epoch) not already done, epoch by epoch, so epoch 1 completes first."""
    return [EpisodeJob(e.id, k) for k in range(1, epochs + 1) for e in episodes if (e.id, k) not in done]


def epoch_seed(settings: RunSettings, epoch: int) -> int:
    """The seed for one repeat: the run's seed for epoch 1, then one more per epoch."""
    return settings.seed + epoch - 1


def model_key(settings: RunSettings) -> str:
    """What a rate limit is per: the endpoint and model (the agent's name when it calls no model)."""
    ac = settings.agent_config
    return f"{ac.base_url or 'default-endpoint'}|{ac.model or settings.agent}"


def rate_limits(plans: Sequence[RunPlan]) -> dict[str, float]:
    """Requests per second for each model key; runs sharing a model share its strictest limit."""
    out: dict[str, float] = {}
    for p in plans:
        rps = p.settings.model_rps
        if rps:
            key = model_key(p.settings)
            out[key] = min(rps, out.get(key, rps))
    return out


class SlotClock:
    """Spaces events `interval` seconds apart per key: each call reserves the next free slot and says
    how long to wait for it (the same rule as harness.session.RateLimiter, for many keys at once)."""

    def __init__(self) -> None:
        self._next: dict[str, float] = {}

    def reserve(self, key: str, interval: float, now: float) -> float:
        nxt = self._next.get(key, 0.0)
        self._next[key] = max(now, nxt) + interval
        return max(0.0, nxt - now)


async def run_all(coros: Sequence[Any]) -> None:
    """Await every job; when the run is cancelled (SIGINT, SIGTERM), cancel every job and wait until each has
    stopped (abandoning its trace) before the cancellation goes on, so no job writes into the run after its
    owner let go. A job is cancelled again until it stops: asyncio.wait_for may swallow one cancellation
    when its inner call finishes at the same moment (Python < 3.12)."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        pending = {t for t in tasks if not t.done()}
        while pending:
            for t in pending:
                t.cancel()
            _, pending = await asyncio.wait(pending, timeout=1.0)
        raise


def failed_outcome(job: EpisodeJob, error: BaseException) -> EpisodeOutcome:
    """A harness bug stopped the job: report it and count it as a pipeline failure, never the model's."""
    import sys

    detail = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    from ..terminal_text import inert

    print(inert(f"error: episode {job.episode_id} (epoch {job.epoch}) stopped by a harness error: "
                f"{type(error).__name__}: {error}\n{detail}"), file=sys.stderr)
    return EpisodeOutcome(job.episode_id, "failed", "pipeline", [], 0.0, job.epoch)


def episode_runner(
    settings: RunSettings, *, world: World, tools: dict[str, Tool], run_dir: RunDir, limiter: Any,
    agent_factory: AgentFactory, epoch: int = 1,
) -> EpisodeRunner:
    return EpisodeRunner(
        settings=settings, world=world, tools=tools, run_dir=run_dir, limiter=limiter,
        episodes_dir=Path(settings.episodes).resolve().parent, make_agent=agent_factory, epoch=epoch,
    )
