"""A run: check the settings, open the world and the run directory, hand the jobs to an executor, score.

A run, or a grid of runs, is a bag of (run, episode, epoch) jobs; the executor (local asyncio or Ray)
only decides where they run. Everything a user can get wrong is checked before any episode runs
(RunSetupError -> exit code 2). One process owns a run while it writes it (`harness.runlock`): a second
writer is refused before it writes anything. SIGINT or SIGTERM stops a run cleanly (`harness.run_signals`):
finished traces stay, the episodes in progress are abandoned, and RunInterrupted says how far it got.
`retry` requests (`epi retry`) set the errored episodes' traces aside as failed attempts and run them again.
"""
from __future__ import annotations

import asyncio
import datetime as _dt
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from tools import ALL_TOOLS, World

from .episode_runner import EpisodeOutcome, RunSummary, active_tool_names, load_tools
from .executors import ExecutorError, RunPlan, make_executor, plan_jobs
from .executors._jobs import default_agent_factory
from .preload import Preloader
from .rundir import Attempt, RunDir
from .run_record import (  # noqa: F401  (settings_from_run, write_run_json: public here since the start)
    RunSetupError, corpus_of, load_run_config, record_retry, settings_from_run, write_run_json,
)
from .run_signals import InterruptedRun, RunInterrupted, StopSignals
from .runlock import RunLock, RunLocked, check_free
from .safe_paths import safe_name
from .settings import RunSettings

if TYPE_CHECKING:
    from .plot_worker import PlotWorker
    from .scoring.prescore import Prescored

ProgressFn = Callable[[EpisodeOutcome], None]


class NothingToRetry(RunSetupError):
    """`epi retry` found no errored episode in the run (not an error: nothing is written)."""


def make_world(settings: RunSettings) -> World:
    if settings.world == "sandbox":
        from sandbox.world import SandboxNotBuilt, SandboxWorld

        try:
            return SandboxWorld(settings.sandbox)
        except SandboxNotBuilt as e:
            raise RunSetupError(str(e)) from None
    from sandbox.paths import cache_dir
    from tools.live import LiveWorld

    return LiveWorld(cache_dir() / "live")


def check_settings(settings: RunSettings) -> None:
    from agents import AGENT_FACTORIES, AgentLoadError, agent_class

    try:  # the user's own agent (a file, a module, an entry point) is imported here, from the user's settings
        cls = agent_class(settings.agent)
    except AgentLoadError as e:
        raise RunSetupError(str(e)) from None
    mode = settings.agent_config.memory_mode
    if mode not in getattr(cls, "memory_modes", ()):
        able = [n for n in AGENT_FACTORIES if mode in agent_class(n).memory_modes]
        raise RunSetupError(
            f"agent {settings.agent!r} does not support --memory-mode {mode} (it keeps no model context to compact); "
            f"agents that do: {', '.join(able) or 'none'}")
    for opt, names in (("--disable-tool", settings.disable_tools), ("--enable-tool", settings.enable_tools)):
        for n in names:
            if n not in ALL_TOOLS:
                raise RunSetupError(f"{opt}: unknown tool {n!r}; known tools: {', '.join(ALL_TOOLS)}")
    if settings.executor == "ray" and settings.agent == "human":
        raise RunSetupError("the human agent plays in this terminal; it cannot run on Ray workers (use --executor local)")
    if settings.ray_address and settings.executor != "ray":
        raise RunSetupError(f"--ray-address {settings.ray_address} is set but the executor is local; add --executor ray")
    if settings.agent == "replay" and not settings.agent_config.replay_run:
        raise RunSetupError("the replay agent needs the run to replay (agent_config.replay_run)")
    if settings.sandbox is not None and settings.world != "sandbox":
        raise RunSetupError(f"--sandbox {settings.sandbox} names a corpus folder, but the world is {settings.world}")
    if "code_exec" in settings.enable_tools and "code_exec" not in settings.disable_tools:
        from sandbox.jail import jail_unavailable_reason  # starts the real sandbox once: fail now, not mid-run

        if (why := jail_unavailable_reason()) is not None:
            raise RunSetupError(why)


def load_episode_set(settings: RunSettings, world: World) -> Any:
    from .episodes_io import EpisodeFileError, load_episodes

    catalog = getattr(world, "catalog", None)
    try:
        return load_episodes(settings.episodes, catalog=catalog)
    except EpisodeFileError as e:
        raise RunSetupError(str(e)) from None


def select_episodes(settings: RunSettings, episodes: list[Any]) -> list[Any]:
    chosen = episodes
    if settings.episode_ids:
        known = {e.id for e in episodes}
        missing = [i for i in settings.episode_ids if i not in known]
        if missing:
            raise RunSetupError(f"--episode: not in {settings.episodes}: {', '.join(missing)}")
        want = set(settings.episode_ids)
        chosen = [e for e in episodes if e.id in want]
    if settings.limit is not None:
        chosen = chosen[: settings.limit]
    return chosen


def _run_dir_for(settings: RunSettings) -> RunDir:
    from agents import agent_label

    run_id = settings.run_id or safe_name(f"{agent_label(settings.agent)}-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}")
    return RunDir(settings.results / run_id)


def _check_writable(results: Path) -> None:
    try:
        results.mkdir(parents=True, exist_ok=True)
        probe = results / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise RunSetupError(f"results directory {results} is not writable: {e.strerror or e}") from None


@dataclass
class RunRequest:
    """One run of a grid, as asked: settings, whether to resume or retry, and the optional code-level hooks."""

    settings: RunSettings
    resume: bool = False
    agent_factory: Callable[[], Any] | None = None
    extra_config: dict[str, Any] | None = None
    world: World | None = None
    retry: bool = False  # run the errored episodes again (`epi retry`), their failed traces kept as attempts
    break_lock: bool = False  # take over a lock held on another host (its pid cannot be checked from here)

    @property
    def command(self) -> str:
        return "epi retry" if self.retry else ("epi run --resume" if self.resume else "epi run")


@dataclass
class _Checked:
    request: RunRequest
    world: World
    episode_set: Any
    episodes: list[Any]
    run_dir: RunDir
    lock: RunLock | None = None
    retired: list[tuple[Attempt, str, str]] = field(default_factory=list)


def _check_stored(req: RunRequest, rd: RunDir, episode_set: Any, world: World) -> None:
    """A run taken up again (resume, retry) must exist, be free, and match the episode file and corpus."""
    settings = req.settings
    if not rd.exists():
        raise RunSetupError(f"{'--resume' if req.resume else 'retry'}: no run {rd.run_id!r} under {settings.results}")
    try:  # first: whatever else is wrong, a live owner is what the user must hear about
        check_free(rd.path, break_lock=req.break_lock)
    except RunLocked as e:
        raise RunSetupError(str(e)) from None
    old = load_run_config(rd)
    if newer := rd.newer_traces():
        raise RunSetupError(
            f"{req.command}: run {rd.run_id!r} holds traces written by a newer epiharness ({newer[0].name}"
            f"{f' and {len(newer) - 1} more' if len(newer) > 1 else ''}); take it up with that version")
    if old.get("episodes_sha256") != episode_set.sha256:
        raise RunSetupError(
            f"{req.command}: run {rd.run_id!r} was made with a different episode set "
            f"({old.get('episodes_path')}, sha256 {str(old.get('episodes_sha256'))[:12]}...) than "
            f"{settings.episodes} (sha256 {episode_set.sha256[:12]}...)"
        )
    was, now = old.get("corpus"), corpus_of(world)
    if was and now and was.get("catalog_sha256") != now.get("catalog_sha256"):
        from sandbox.corpus.identity import CorpusIdentity

        raise RunSetupError(
            f"{req.command}: run {rd.run_id!r} was made on {CorpusIdentity.model_validate(was).describe()}, but the "
            f"sandbox now is {CorpusIdentity.model_validate(now).describe()}; take it up on the same corpus "
            "(--sandbox DIR) or start a new run")


def _with_corpus_of(settings: RunSettings) -> RunSettings:
    """The settings with the corpus folder the episode file was built for (its `source` fields): the one given
    (--sandbox, else EPI_SANDBOX_DIR or sandbox/build) when it holds that corpus, else the corpus version's own
    folder (sandbox/build-v1 for v1); RunSetupError naming the command that builds it when none does."""
    from sandbox.corpus.select import CorpusMismatch, corpus_for_episodes

    try:
        folder = corpus_for_episodes(settings.episodes, settings.sandbox)
    except CorpusMismatch as e:
        raise RunSetupError(str(e)) from None
    return settings if folder == settings.sandbox else settings.model_copy(update={"sandbox": folder})


def _errored(c: _Checked) -> list[Any]:
    from .scoring.run import errored_jobs

    return errored_jobs(c.run_dir.path, c.episodes, c.request.settings.epochs)


def _check_request(req: RunRequest, worlds: dict[str, World]) -> _Checked:
    """Everything that can be wrong with one run, found without writing anything."""
    settings = req.settings
    check_settings(settings)
    if settings.world == "sandbox" and req.world is None:
        req.settings = settings = _with_corpus_of(settings)
    key = f"{settings.world}:{settings.sandbox or ''}"
    world = req.world or worlds.get(key) or make_world(settings)
    if req.world is None:
        worlds[key] = world
    episode_set = load_episode_set(settings, world)
    episodes = select_episodes(settings, episode_set.episodes)
    rd = _run_dir_for(settings)
    checked = _Checked(req, world, episode_set, episodes, rd)
    if req.resume or req.retry:
        _check_stored(req, rd, episode_set, world)
        if req.retry and not _errored(checked):
            raise NothingToRetry(f"nothing to retry: no episode of run {rd.run_id!r} ended in a provider, data-access "
                                 "or pipeline error, and every episode has a finished trace")
    elif rd.exists() or rd.path.is_dir():
        try:
            check_free(rd.path, break_lock=False)
        except RunLocked as e:
            raise RunSetupError(str(e)) from None
        if rd.exists():
            raise RunSetupError(
                f"run {rd.run_id!r} already exists under {settings.results}; use --resume {rd.run_id} or another --run-id")
    return checked


def _take_lock(c: _Checked) -> None:
    """Own the run folder before writing anything in it; a new run's folder is made here."""
    req, rd = c.request, c.run_dir
    _check_writable(req.settings.results)
    rd.path.mkdir(parents=True, exist_ok=True)
    try:
        c.lock = RunLock.acquire(rd.path, command=req.command, break_lock=req.break_lock)
    except RunLocked as e:
        raise RunSetupError(str(e)) from None
    if not (req.resume or req.retry) and rd.exists():  # made by another process between the check and the lock
        c.lock.release()
        c.lock = None
        raise RunSetupError(f"run {rd.run_id!r} already exists under {req.settings.results}; use --resume {rd.run_id}")
    if (note := c.lock.note()) is not None:
        import sys

        print(f"note: run {rd.run_id!r}: {note}", file=sys.stderr)


async def _plan(c: _Checked) -> RunPlan:
    """Take up the run folder (it is ours now) and list the jobs still to do."""
    settings, rd, req = c.request.settings, c.run_dir, c.request
    tool_names = active_tool_names(settings)
    rd.traces_dir.mkdir(parents=True, exist_ok=True)
    done: set[tuple[str, int]] = set()
    if req.resume or req.retry:
        rd.discard_partial_traces()
        if req.retry:  # again, now that nobody else writes the run
            c.retired = [(rd.retire_trace(j.episode_id, j.epoch), j.bucket, j.why) for j in _errored(c) if j.has_trace]
            record_retry(rd, settings, c.retired)
        done = rd.completed_jobs()
    else:
        write_run_json(rd, settings, c.episode_set, tool_names, req.extra_config or {},
                       getattr(c.world, "search_engine", None), corpus_of(c.world))
    jobs = plan_jobs(c.episodes, settings.epochs, done)
    return RunPlan(
        settings=settings, run_dir=rd, episodes={e.id: e for e in c.episodes}, jobs=jobs,
        kept=len(c.episodes) * settings.epochs - len(jobs), world=c.world, tools=load_tools(tool_names),
        agent_factory=req.agent_factory, custom_world=req.world is not None,
    )


async def run_grid(
    requests: list[RunRequest], *, progress: Callable[[RunPlan, EpisodeOutcome], None] | None = None,
    on_start: Callable[[RunPlan], None] | None = None,
) -> list[RunSummary]:
    """Run (or resume, or retry) several runs as one bag of jobs on one executor; one summary per run.

    Every run is checked, and the executor reached, before any run folder is written. SIGINT or SIGTERM
    raises RunInterrupted once the finished traces are safe and the locks given back."""
    stop = StopSignals(asyncio.current_task()).install()
    checked: list[_Checked] = []
    try:
        try:
            plans, outcomes, after = await _execute(requests, checked, progress, on_start)
        except asyncio.CancelledError:
            if stop.signum is None:
                raise
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            for c in checked:
                if c.lock is not None:
                    c.run_dir.discard_partial_traces()  # an episode cut off mid-way is run again on resume
            raise RunInterrupted(stop.signum, [
                InterruptedRun(c.run_dir.run_id, len(c.run_dir.completed_jobs() & _wanted(c)),
                               len(c.episodes) * c.request.settings.epochs, c.request.settings)
                for c in checked if c.lock is not None]) from None
        finally:
            stop.remove()
        return _summaries(plans, outcomes, checked, after)
    finally:
        for c in checked:
            if c.lock is not None:
                c.lock.release()


def _wanted(c: _Checked) -> set[tuple[str, int]]:
    return {(e.id, k) for e in c.episodes for k in range(1, c.request.settings.epochs + 1)}


async def _execute(
    requests: list[RunRequest], checked: list[_Checked], progress: Callable[[RunPlan, EpisodeOutcome], None] | None,
    on_start: Callable[[RunPlan], None] | None,
) -> tuple[list[RunPlan], dict[int, list[EpisodeOutcome]], _Scoring]:
    worlds: dict[str, World] = {}
    executor = None
    plotter: PlotWorker | None = None
    outcomes: dict[int, list[EpisodeOutcome]] = {}
    try:
        for r in requests:
            checked.append(_check_request(r, worlds))
            await _preflight(r.agent_factory or default_agent_factory(r.settings))
        try:
            executor = make_executor([r.settings for r in requests])
        except ExecutorError as e:
            raise RunSetupError(str(e)) from None
        for c in checked:
            _take_lock(c)
        plans = [await _plan(c) for c in checked]
        plotter = _plotter(plans)
        preloader = _preloader(plans, plotter is not None)  # after the checks: it would only compete with them for the GIL
        for p in plans:
            outcomes[id(p)] = []
            if on_start:
                on_start(p)

        prescored: dict[int, Prescored | None] = {}  # made at the first finished episode (no scoring import before)

        def done(plan: RunPlan, out: EpisodeOutcome) -> None:
            outcomes[id(plan)].append(out)
            _prescore(plan, prescored, out, plotter)
            if progress:
                progress(plan, out)

        try:
            await executor.run(plans, done)
        except ExecutorError as e:
            raise RunSetupError(str(e)) from None
    except BaseException:
        if plotter is not None:  # nothing to draw: the worker exits
            plotter.close()
        raise
    finally:
        if executor is not None:
            await executor.close()
        from .bridge.pool import close_all

        await close_all()  # long-lived agent programs (--agent-long-lived) end with the run
        for w in {id(w): w for w in [*worlds.values(), *(r.world for r in requests if r.world)]}.values():
            await w.close()
    preloader.wait()  # scoring imports what the preload may still be importing: let it finish first
    return plans, outcomes, _Scoring(plotter, prescored)


def _prescore(plan: RunPlan, caches: dict[int, Prescored | None], out: EpisodeOutcome, worker: PlotWorker | None) -> None:
    """Score a finished episode now, while the others wait on the model: the run's scoring at the end reuses it.
    With a scoring worker, the worker scores it (a line in a pipe); else this process does."""
    ep = plan.episodes.get(out.episode_id)
    if not plan.settings.score or ep is None:
        return
    if worker is not None and worker.alive():
        worker.finished(plan.run_dir.path, out.episode_id, out.epoch)
        return
    try:
        cache = caches.get(id(plan))
        if cache is None:
            from .scoring.prescore import Prescored

            cache = caches[id(plan)] = Prescored()
        cache.add(plan.run_dir, ep, out.epoch)
    except Exception:  # noqa: BLE001 - scoring the run at the end scores it again and reports the problem there
        pass


def _plotter(plans: list[RunPlan]) -> PlotWorker | None:
    """A process that scores the runs scored here and draws their plots (harness/plot_worker.py), started now
    so its imports overlap the episodes and the drawing happens after the scores are out."""
    if not any(p.settings.score for p in plans):
        return None
    from .plot_worker import PlotWorker

    return PlotWorker.start()


@dataclass
class _Scoring:
    """What the run prepared for its scoring while the episodes ran: the plot worker, the episodes scored already."""

    plotter: PlotWorker | None = None
    prescored: dict[int, Prescored | None] = field(default_factory=dict)


def _summaries(plans: list[RunPlan], outcomes: dict[int, list[EpisodeOutcome]], checked: list[_Checked],
               after: _Scoring) -> list[RunSummary]:
    try:
        return _summarize(plans, outcomes, checked, after)
    finally:
        if after.plotter is not None:
            after.plotter.close()


def _summarize(plans: list[RunPlan], outcomes: dict[int, list[EpisodeOutcome]], checked: list[_Checked],
               after: _Scoring) -> list[RunSummary]:
    summaries = []
    for p, c in zip(plans, checked):
        s = RunSummary(
            run_id=p.run_dir.run_id, run_dir=p.run_dir.path, episodes_total=len(p.episodes),
            episodes_run=len(p.jobs) - len(p.lost), episodes_kept=p.kept, outcomes=outcomes[id(p)],
            epochs=p.settings.epochs, lost=[(j.episode_id, j.epoch) for j in p.lost],
            retired=[str(a.trace.relative_to(p.run_dir.path)) for a, _, _ in c.retired],
        )
        if p.settings.score:
            s.scores = _score(p, c, after)
        summaries.append(s)
    return summaries


def _score(p: RunPlan, c: _Checked, after: _Scoring) -> Any:
    """The run's scores: by the scoring worker (read back from scores.json), else in this process."""
    import sys

    from .plot_worker import WorkerScoringError

    if after.plotter is not None:
        try:
            if after.plotter.score(p.run_dir.path):
                from .scoring.model import RunScores

                return RunScores.model_validate_json(p.run_dir.scores_json.read_text(encoding="utf-8"))
        except WorkerScoringError as e:
            print(f"warning: the run is saved but could not be scored: {e}; fix it and run `epi score {p.run_dir.path}`",
                  file=sys.stderr)
            return None
        except (OSError, ValueError):
            pass  # scores.json unreadable after all: score here
    return score_if_available(p.run_dir.path, after.plotter, after.prescored.get(id(p)), c.episode_set)


def _preloader(plans: list[RunPlan], plot_worker: bool = False) -> Preloader:
    """Start loading, in the background, what this process will need once episodes run: the search index
    and embedder of the tools (when the episodes run here, not on Ray workers), then the scorer's imports
    (with a scoring worker, only the score records it reads back).
    The loads overlap the episodes' model calls instead of delaying their first tool calls and the scores."""
    pre = Preloader()
    for p in {id(p.world): p for p in plans if p.jobs and p.settings.executor == "local"}.values():
        if callable(load := getattr(p.world, "preload", None)):  # a duck-typed world may lack it
            pre.add(load, tuple(p.tools))
    if any(p.settings.score for p in plans):
        pre.add(_preload_scoring, not plot_worker)
    return pre.start()


def _preload_scoring(in_process: bool) -> None:
    import importlib

    from . import scoring  # the package too: its records cost the main thread half a second on a busy machine

    if in_process:  # no scoring worker: this process scores and draws
        scoring.preload()
    else:  # the worker scores and draws; `epi run` reads its scores back and prints them (no pint, no matplotlib)
        for module in ("run", "report"):
            importlib.import_module(f"{scoring.__name__}.{module}")


async def run_episodes(
    settings: RunSettings,
    *,
    progress: ProgressFn | None = None,
    on_start: Callable[[RunDir, int], None] | None = None,
    agent_factory: Callable[[], Any] | None = None,
    resume: bool = False,
    extra_config: dict[str, Any] | None = None,
    world: World | None = None,
    retry: bool = False,
    break_lock: bool = False,
) -> RunSummary:
    """Run (or resume, or retry) a whole run. Raises RunSetupError before anything runs if the input is wrong.

    `world` replaces the world named in the settings (a library user's own World implementation).
    """
    req = RunRequest(settings, resume=resume, agent_factory=agent_factory, extra_config=extra_config, world=world,
                     retry=retry, break_lock=break_lock)
    (summary,) = await run_grid(
        [req], progress=(lambda _p, out: progress(out)) if progress else None,
        on_start=(lambda p: on_start(p.run_dir, len(p.jobs))) if on_start else None,
    )
    return summary


async def _preflight(factory: Callable[[], Any]) -> None:
    """Let an agent refuse to start (missing API key, unreachable endpoint) before any episode runs."""
    from .agent import agent_protocol_problems

    try:
        agent = factory()
    except (ValueError, KeyError, OSError) as e:
        raise RunSetupError(f"cannot create the agent: {e}") from None
    missing = agent_protocol_problems(agent)
    if missing:
        raise RunSetupError(f"{type(agent).__name__} does not implement the agent protocol (harness.agent.Agent; "
                            f"subclass harness.agent.BaseAgent for the defaults): missing {', '.join(missing)}")
    try:
        await agent.preflight()
    except (ValueError, OSError, ConnectionError) as e:
        raise RunSetupError(str(e)) from None


def score_if_available(run_dir: Path, plotter: PlotWorker | None = None, prescored: Prescored | None = None,
                       episode_set: Any = None) -> Any:
    """Score a finished run; a scoring problem is reported, never allowed to lose the run."""
    from .scoring import score_run
    from .scoring.run import ScoringError

    try:
        return score_run(run_dir, plotter=plotter, prescored=prescored, episode_set=episode_set)
    except ScoringError as e:
        import sys

        print(f"warning: the run is saved but could not be scored: {e}; fix it and run `epi score {run_dir}`", file=sys.stderr)
        return None


from .handover import HandoverAgent, continue_episode  # noqa: E402,F401  (public here since the start)
