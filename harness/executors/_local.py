"""The default executor: every job in this process under asyncio (model calls are I/O bound)."""
from __future__ import annotations

import asyncio
from typing import Sequence

from ..session import RateLimiter
from ._jobs import (
    DoneFn, EpisodeJob, Executor, RunPlan, episode_runner, failed_outcome, model_key, rate_limits, run_all,
)


class LocalExecutor(Executor):
    """Runs up to `concurrency` jobs at once; one rate limiter per model, shared by every run given."""

    name = "local"

    def __init__(self, concurrency: int):
        self.concurrency = concurrency

    async def run(self, plans: Sequence[RunPlan], on_done: DoneFn) -> None:
        limits = rate_limits(plans)
        limiters = {key: RateLimiter(rps) for key, rps in limits.items()}
        no_limit = RateLimiter(None)
        factories = {id(p): p.make_agent_factory() for p in plans}
        sem = asyncio.Semaphore(self.concurrency)

        async def one(plan: RunPlan, job: EpisodeJob) -> None:
            async with sem:
                try:
                    runner = episode_runner(
                        plan.settings, world=plan.world, tools=plan.tools, run_dir=plan.run_dir,
                        limiter=limiters.get(model_key(plan.settings), no_limit), agent_factory=factories[id(plan)],
                        epoch=job.epoch,
                    )
                    out = await runner.run(plan.episodes[job.episode_id])
                except Exception as e:  # a harness bug in one episode must not stop the others
                    out = failed_outcome(job, e)
            on_done(plan, out)

        await run_all([one(p, j) for p in plans for j in p.jobs])
