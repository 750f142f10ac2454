"""The Ray executor: the same jobs, done by worker processes of a Ray cluster.

Each worker is a Ray actor that loads the world, episode files and tools once and runs up to
`concurrency` jobs at once under asyncio. The driver owns the run (its lock, `harness.runlock`); workers
only write the traces of the jobs they are given and never take the lock. Workers write traces straight into the results folder
(one machine, or a folder every node mounts at the same path), or with `ray_copy_back` send each
finished trace and its images back to the driver, which writes them. A job whose worker dies (process
killed, node lost) is run again from the start, up to `job_retries` times; it never becomes a model
failure. One small actor hands out model-request slots so each model's rate limit holds across all
workers of all runs.
"""
from __future__ import annotations

import asyncio
import os
import shutil
import socket
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..episode_runner import EpisodeOutcome
from ..rundir import RunDir, atomic_write_text
from ..settings import RunSettings
from ._jobs import (
    AgentFactory, DoneFn, EpisodeJob, Executor, ExecutorError, RunPlan, SlotClock, default_agent_factory,
    episode_runner, failed_outcome, model_key, rate_limits, run_all,
)

# Variables a worker needs to see the same sandbox, caches and offline settings as the driver.
_FORWARDED_PREFIXES = ("EPI_",)
_FORWARDED = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "TOKENIZERS_PARALLELISM")


@dataclass
class WorkerJob:
    """What a worker needs for one job; every path absolute, because workers have their own cwd."""

    settings: RunSettings
    run_dir: str
    job: EpisodeJob
    rate_key: str
    rate_interval: float
    copy_back: bool


@dataclass
class WorkerResult:
    outcome: EpisodeOutcome
    files: dict[str, bytes] = field(default_factory=dict)  # copy-back: path under the run folder -> bytes


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutorError("--executor ray needs the ray package: pip install 'ray>=2.40'") from None
    return ray


def _resolve_address(settings: RunSettings) -> str | None:
    return settings.ray_address or os.environ.get("RAY_ADDRESS") or None


def _probe(host: str, port: int) -> str | None:
    """None if something listens at host:port, else why not."""
    try:
        with socket.create_connection((host.strip("[]"), port), timeout=5):
            return None
    except OSError as e:
        return str(e.strerror or e)


def _check_reachable(address: str) -> None:
    """Fail fast, with a message, when nothing listens at the address (ray.init would wait long)."""
    if address in ("auto", "local"):
        return
    hostport = address.split("://", 1)[-1].rstrip("/")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ExecutorError(f"Ray address {address!r} is not host:port, ray://host:port or auto")
    why = _probe(host, int(port))
    if why is not None:
        raise ExecutorError(
            f"cannot reach the Ray cluster at {address}: {why}. Start one with `ray start --head` "
            "or fix --ray-address / RAY_ADDRESS (leave both unset to start a private local instance)"
        )
    if "://" in address:
        return
    # Ray rewrites a loopback address to this machine's network address before connecting; a cluster
    # listening on loopback only is then out of reach and ray.init retries for minutes.
    try:
        from ray._private.services import canonicalize_bootstrap_address

        canonical = canonicalize_bootstrap_address(address) or address
    except Exception:  # a private Ray helper: if it moved, skip this extra check
        return
    c_host, _, c_port = canonical.rpartition(":")
    if canonical != address and c_port.isdigit() and _probe(c_host, int(c_port)) is not None:
        raise ExecutorError(
            f"Ray would connect to {address} as {canonical}, where nothing listens: the cluster listens on "
            f"loopback only. Connect with its other address, or set RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 "
            "(single-machine mode, everything on loopback) both for `ray start` and for epi"
        )


def _runtime_env(settings: Sequence[RunSettings]) -> dict[str, Any]:
    names = {n for n in os.environ if n.startswith(_FORWARDED_PREFIXES)} | set(_FORWARDED)
    names |= {s.agent_config.api_key_env for s in settings}
    return {"env_vars": {n: os.environ[n] for n in sorted(names) if n in os.environ}}


def _lost_errors(ray: Any) -> tuple[type[BaseException], ...]:
    ex = ray.exceptions
    names = ("RayActorError", "WorkerCrashedError", "NodeDiedError", "LocalRayletDiedError", "ObjectLostError")
    return tuple(getattr(ex, n) for n in names if hasattr(ex, n))


class _RateGate:
    """Cluster-wide model-request slots: one instance, called by every worker. A slot is a wall-clock
    time, so the time a reply takes to reach the worker does not shift the request."""

    def __init__(self) -> None:
        self.clock = SlotClock()

    def reserve(self, key: str, interval: float) -> float:
        now = time.time()
        return now + self.clock.reserve(key, interval, now)


class _GateLimiter:
    """The worker-side rate limiter: asks the gate for the next slot of its model, then waits for it."""

    def __init__(self, gate: Any, key: str, interval: float):
        self.gate, self.key, self.interval = gate, key, interval

    async def wait(self) -> None:
        if not self.interval:
            return
        slot = await self.gate.reserve.remote(self.key, self.interval)
        delay = slot - time.time()
        if delay > 0:
            await asyncio.sleep(delay)


class _EpisodeWorker:
    """A long-lived worker process: caches the world and episode files, runs jobs concurrently."""

    def __init__(self, gate_name: str):
        import ray

        self.gate = ray.get_actor(gate_name)  # by name: a restarted worker finds it again
        self.worlds: dict[str, Any] = {}
        self.episode_sets: dict[str, dict[str, Any]] = {}
        self.tools: dict[tuple[str, ...], Any] = {}

    def _world(self, settings: RunSettings) -> Any:
        key = f"{settings.world}:{settings.sandbox or ''}"
        if key not in self.worlds:
            from ..runner import make_world

            self.worlds[key] = make_world(settings)
        return self.worlds[key]

    def _episode(self, settings: RunSettings, world: Any, episode_id: str) -> Any:
        key = str(settings.episodes)
        if key not in self.episode_sets:
            from ..runner import load_episode_set

            self.episode_sets[key] = {e.id: e for e in load_episode_set(settings, world).episodes}
        return self.episode_sets[key][episode_id]

    def _tools(self, settings: RunSettings) -> Any:
        from ..episode_runner import active_tool_names, load_tools

        names = tuple(active_tool_names(settings))
        if names not in self.tools:
            self.tools[names] = load_tools(list(names))
        return self.tools[names]

    async def run_job(self, wj: WorkerJob, factory: AgentFactory | None) -> WorkerResult:
        settings = wj.settings
        world = self._world(settings)
        episode = self._episode(settings, world, wj.job.episode_id)
        run_dir, scratch = RunDir(wj.run_dir), None
        if wj.copy_back:
            scratch = Path(tempfile.mkdtemp(prefix="epi-job-"))
            run_dir = RunDir(scratch / RunDir(wj.run_dir).run_id)
        try:
            runner = episode_runner(
                settings, world=world, tools=self._tools(settings), run_dir=run_dir,
                limiter=_GateLimiter(self.gate, wj.rate_key, wj.rate_interval),
                agent_factory=factory or default_agent_factory(settings), epoch=wj.job.epoch,
            )
            outcome = await runner.run(episode)
            files: dict[str, bytes] = {}
            if scratch is not None:
                files = _collect(run_dir, wj.job)
            return WorkerResult(outcome, files)
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)


def _collect(rd: RunDir, job: EpisodeJob) -> dict[str, bytes]:
    """The finished trace of a job and its images, keyed by their path under the run folder."""
    out = {}
    assets = rd.assets_dir(job.episode_id, job.epoch)
    if assets.is_dir():
        for p in sorted(assets.rglob("*")):
            if p.is_file():
                out[str(p.relative_to(rd.path))] = p.read_bytes()
    trace = rd.trace_path(job.episode_id, job.epoch)
    out[str(trace.relative_to(rd.path))] = trace.read_bytes()
    return out


def _write_back(rd: RunDir, job: EpisodeJob, files: dict[str, bytes]) -> None:
    """Write a copied-back job: images first, the trace last and atomically (it marks the job done)."""
    trace_rel = str(rd.trace_path(job.episode_id, job.epoch).relative_to(rd.path))
    for rel, data in files.items():
        if rel != trace_rel:
            p = rd.path / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
    atomic_write_text(rd.path / trace_rel, files[trace_rel].decode("utf-8"))


class RayExecutor(Executor):
    """Sends jobs to worker actors on a Ray cluster. Connects on creation, so a bad address fails
    before the run folder is made."""

    name = "ray"

    def __init__(self, settings: Sequence[RunSettings]):
        first = settings[0]
        self.concurrency = max(s.concurrency for s in settings)
        self.retries = first.job_retries
        self.copy_back = first.ray_copy_back
        address = _resolve_address(first)
        if not address and "ray" not in sys.modules:
            # A private instance is single-machine: Ray's local-only mode keeps every one of its
            # services and connections on loopback (read when ray is imported; inherited by workers).
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        self.ray = _import_ray()
        self.owns_connection = not self.ray.is_initialized()
        if self.owns_connection:
            if address:
                _check_reachable(address)
            local = {} if address else {"num_cpus": first.ray_workers or os.cpu_count() or 1, "include_dashboard": False}
            try:
                self.ray.init(address=address, runtime_env=_runtime_env(settings), **local)
            except (ConnectionError, RuntimeError, ValueError, TimeoutError) as e:
                if self.ray.is_initialized():
                    self.ray.shutdown()
                raise ExecutorError(f"cannot connect to the Ray cluster at {address or 'a new local instance'}: {e}") from None
        cpus = int(self.ray.cluster_resources().get("CPU", 1))
        self.n_workers = first.ray_workers or max(1, cpus)
        self.address = address or "local"

    async def run(self, plans: Sequence[RunPlan], on_done: DoneFn) -> None:
        ray = self.ray
        for p in plans:
            if p.custom_world:
                raise ExecutorError("a World object passed in code cannot be sent to Ray workers; use the local executor")
        gate_name = f"epi-rate-gate-{uuid.uuid4().hex[:12]}"
        gate = ray.remote(num_cpus=0)(_RateGate).options(name=gate_name).remote()
        worker_cls = ray.remote(num_cpus=1, max_restarts=-1, max_task_retries=0)(_EpisodeWorker)
        self._workers = [worker_cls.options(max_concurrency=self.concurrency).remote(gate_name) for _ in range(self.n_workers)]
        self._inflight = [0] * len(self._workers)
        limits = rate_limits(plans)
        factories = {id(p): ray.put(p.agent_factory) if p.agent_factory is not None else None for p in plans}
        sem = asyncio.Semaphore(len(self._workers) * self.concurrency)

        async def one(plan: RunPlan, job: EpisodeJob) -> None:
            key = model_key(plan.settings)
            wj = WorkerJob(
                settings=_absolute(plan.settings), run_dir=str(plan.run_dir.path.resolve()), job=job, rate_key=key,
                rate_interval=1.0 / limits[key] if key in limits else 0.0, copy_back=self.copy_back,
            )
            async with sem:
                result = await self._run_with_retries(wj, factories[id(plan)], plan.run_dir.run_id)
            if result is None:
                plan.lost.append(job)
                _drop_partial(plan.run_dir, job)
                return
            if result.files:
                _write_back(plan.run_dir, job, result.files)
            on_done(plan, result.outcome)

        try:
            await run_all([one(p, j) for p in plans for j in p.jobs])
        finally:
            for w in self._workers:
                ray.kill(w, no_restart=True)
            ray.kill(gate, no_restart=True)

    async def _call(self, wj: WorkerJob, factory: Any) -> WorkerResult:
        """One attempt on the least busy worker."""
        i = min(range(len(self._workers)), key=self._inflight.__getitem__)
        self._inflight[i] += 1
        try:
            return await self._workers[i].run_job.remote(wj, factory)
        finally:
            self._inflight[i] -= 1

    async def _run_with_retries(self, wj: WorkerJob, factory: Any, run_id: str) -> WorkerResult | None:
        """Run a job; if its worker dies, run it again from the start. None: lost `retries + 1` times."""
        lost_errors = _lost_errors(self.ray)
        job, deaths = wj.job, 0
        what = f"episode {job.episode_id} (epoch {job.epoch}) of run {run_id}"
        while True:
            try:
                return await self._call(wj, factory)
            except lost_errors as e:  # the worker died or became unreachable (restarting) mid-job
                deaths += 1
                why = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
            except Exception as e:  # the job itself raised: a harness bug, the pipeline's failure
                return WorkerResult(failed_outcome(job, e))
            if deaths > self.retries:
                from ..stored_run import resume_command

                print(f"error: {what} was lost with its worker {deaths} times; it has no trace. "
                      f"Run it again with `{resume_command(wj.settings)}`", file=sys.stderr)
                return None
            print(f"warning: the worker running {what} was lost ({why}); running the job again "
                  f"(attempt {deaths + 1} of {self.retries + 1})", file=sys.stderr)
            await asyncio.sleep(min(5.0, 0.5 * deaths))

    async def close(self) -> None:
        if self.owns_connection and self.ray.is_initialized():
            self.ray.shutdown()


def _absolute(settings: RunSettings) -> RunSettings:
    """The settings with every path made absolute (a worker's cwd is not the driver's)."""
    ac = settings.agent_config
    update_ac = {"replay_run": Path(ac.replay_run).resolve()} if ac.replay_run else {}
    return settings.model_copy(update={
        "episodes": Path(settings.episodes).resolve(), "results": Path(settings.results).resolve(),
        "sandbox": Path(settings.sandbox).resolve() if settings.sandbox else None,
        "agent_config": ac.model_copy(update=update_ac),
    })


def _drop_partial(rd: RunDir, job: EpisodeJob) -> None:
    part = rd.trace_path(job.episode_id, job.epoch)
    part.with_name(part.name + ".part").unlink(missing_ok=True)
