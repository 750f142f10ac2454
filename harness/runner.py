"""A run: check the settings, open the world and the run directory, hand the jobs to an executor, score.

A run, or a grid of runs, is a bag of (run, episode, epoch) jobs; the executor (local asyncio or Ray)
only decides where they run. Everything a user can get wrong is checked before any episode runs
(RunSetupError -> exit code 2).
"""
from __future__ import annotations

import asyncio
import datetime as _dt
import importlib.metadata as _md
import json
import os
import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from tools import ALL_TOOLS, World

from .agent import Action, Agent, BaseAgent, EpisodeInfo, FinalAnswer, TurnContext, TurnView
from .episode_runner import EpisodeOutcome, RunSummary, active_tool_names, load_tools
from .executors import ExecutorError, RunPlan, epoch_seed, make_executor, plan_jobs
from .executors._jobs import default_agent_factory
from .preload import Preloader
from .rundir import RunDir, atomic_write_text
from .settings import RunSettings
from .trace import EpisodeStart

ProgressFn = Callable[[EpisodeOutcome], None]


class RunSetupError(Exception):
    """A run cannot start: the message says which setting or file is wrong."""


def _package_versions() -> dict[str, str]:
    out = {}
    for pkg in ("epiharness", "pydantic", "pymupdf", "openai", "smolagents", "tenacity", "sentence-transformers", "faiss-cpu", "bm25s", "torch"):
        try:
            out[pkg] = _md.version(pkg)
        except _md.PackageNotFoundError:
            pass
    return out


def _git_commit() -> str | None:
    try:
        r = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True, text=True, timeout=5
        )
        return r.stdout.strip() or None if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def make_world(settings: RunSettings) -> World:
    if settings.world == "sandbox":
        from sandbox.world import SandboxNotBuilt, SandboxWorld

        try:
            return SandboxWorld()
        except SandboxNotBuilt as e:
            raise RunSetupError(str(e)) from None
    from sandbox.paths import cache_dir
    from tools.live import LiveWorld

    return LiveWorld(cache_dir() / "live")


def check_settings(settings: RunSettings) -> None:
    from agents import AGENT_FACTORIES, agent_class

    if settings.agent not in AGENT_FACTORIES:
        raise RunSetupError(f"unknown agent {settings.agent!r}; known agents: {', '.join(AGENT_FACTORIES)}")
    mode = settings.agent_config.memory_mode
    if mode not in agent_class(settings.agent).memory_modes:
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
    run_id = settings.run_id or f"{settings.agent}-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    return RunDir(settings.results / run_id)


def _check_writable(results: Path) -> None:
    try:
        results.mkdir(parents=True, exist_ok=True)
        probe = results / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise RunSetupError(f"results directory {results} is not writable: {e.strerror or e}") from None


def write_run_json(rd: RunDir, settings: RunSettings, episode_set: Any, tools: list[str], extra: dict[str, Any],
                   search_engine: str | None = None) -> None:
    cfg = {
        "run_id": rd.run_id,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(),
        "settings": json.loads(settings.model_dump_json()),
        "agent": settings.agent,
        "model": settings.agent_config.model,
        "tools": tools,
        "max_steps": settings.max_steps,
        "final_turn_tools": settings.final_turn_tools,
        "disable_tools": settings.disable_tools,
        "episodes_path": str(Path(settings.episodes).resolve()),
        "episodes_sha256": episode_set.sha256,
        "episodes_total": len(episode_set.episodes),
        "seed": settings.seed,
        "epochs": settings.epochs,
        "epoch_seeds": {str(k): epoch_seed(settings, k) for k in range(1, settings.epochs + 1)},
        "temperature": settings.agent_config.temperature,
        "git_commit": _git_commit(),
        "versions": _package_versions(),
        "python": platform.python_version(),
        # the same episodes rank differently under another search engine: reports name it
        "search_engine": search_engine,
        **extra,
    }
    atomic_write_text(rd.run_json, json.dumps(cfg, indent=2))


def settings_from_run(rd: RunDir) -> RunSettings:
    cfg = rd.load_config()
    return RunSettings.model_validate(cfg["settings"])


@dataclass
class RunRequest:
    """One run of a grid, as asked: settings, whether to resume, and the optional code-level hooks."""

    settings: RunSettings
    resume: bool = False
    agent_factory: Callable[[], Any] | None = None
    extra_config: dict[str, Any] | None = None
    world: World | None = None


@dataclass
class _Checked:
    request: RunRequest
    world: World
    episode_set: Any
    episodes: list[Any]
    run_dir: RunDir


def _check_request(req: RunRequest, worlds: dict[str, World]) -> _Checked:
    """Everything that can be wrong with one run, found without writing anything."""
    settings = req.settings
    check_settings(settings)
    world = req.world or worlds.get(settings.world) or make_world(settings)
    if req.world is None:
        worlds[settings.world] = world
    episode_set = load_episode_set(settings, world)
    episodes = select_episodes(settings, episode_set.episodes)
    rd = _run_dir_for(settings)
    if req.resume:
        if not rd.exists():
            raise RunSetupError(f"--resume: no run {rd.run_id!r} under {settings.results}")
        old = rd.load_config()
        if old.get("episodes_sha256") != episode_set.sha256:
            raise RunSetupError(
                f"--resume: run {rd.run_id!r} was made with a different episode set "
                f"({old.get('episodes_path')}, sha256 {str(old.get('episodes_sha256'))[:12]}...) than "
                f"{settings.episodes} (sha256 {episode_set.sha256[:12]}...)"
            )
    elif rd.exists():
        raise RunSetupError(
            f"run {rd.run_id!r} already exists under {settings.results}; use --resume {rd.run_id} or another --run-id"
        )
    return _Checked(req, world, episode_set, episodes, rd)


async def _plan(c: _Checked) -> RunPlan:
    """Make the run folder (or take it up again) and list the jobs still to do."""
    settings, rd = c.request.settings, c.run_dir
    tool_names = active_tool_names(settings)
    _check_writable(settings.results)
    rd.traces_dir.mkdir(parents=True, exist_ok=True)
    done: set[tuple[str, int]] = set()
    if c.request.resume:
        done = rd.completed_jobs()
        rd.discard_partial_traces()
    else:
        write_run_json(rd, settings, c.episode_set, tool_names, c.request.extra_config or {},
                       getattr(c.world, "search_engine", None))
    jobs = plan_jobs(c.episodes, settings.epochs, done)
    return RunPlan(
        settings=settings, run_dir=rd, episodes={e.id: e for e in c.episodes}, jobs=jobs,
        kept=len(c.episodes) * settings.epochs - len(jobs), world=c.world, tools=load_tools(tool_names),
        agent_factory=c.request.agent_factory, custom_world=c.request.world is not None,
    )


async def run_grid(
    requests: list[RunRequest], *, progress: Callable[[RunPlan, EpisodeOutcome], None] | None = None,
    on_start: Callable[[RunPlan], None] | None = None,
) -> list[RunSummary]:
    """Run (or resume) several runs as one bag of jobs on one executor; one summary per run.

    Every run is checked, and the executor reached, before any run folder is written."""
    worlds: dict[str, World] = {}
    checked: list[_Checked] = []
    executor = None
    outcomes: dict[int, list[EpisodeOutcome]] = {}
    try:
        for r in requests:
            checked.append(_check_request(r, worlds))
            await _preflight(r.agent_factory or default_agent_factory(r.settings))
        try:
            executor = make_executor([r.settings for r in requests])
        except ExecutorError as e:
            raise RunSetupError(str(e)) from None
        plans = [await _plan(c) for c in checked]
        preloader = _preloader(plans)  # after the checks: it would only compete with them for the GIL
        for p in plans:
            outcomes[id(p)] = []
            if on_start:
                on_start(p)

        def done(plan: RunPlan, out: EpisodeOutcome) -> None:
            outcomes[id(plan)].append(out)
            if progress:
                progress(plan, out)

        try:
            await executor.run(plans, done)
        except ExecutorError as e:
            raise RunSetupError(str(e)) from None
    finally:
        if executor is not None:
            await executor.close()
        for w in {id(w): w for w in [*worlds.values(), *(r.world for r in requests if r.world)]}.values():
            await w.close()
    preloader.wait()  # scoring imports what the preload may still be importing: let it finish first
    summaries = []
    for p in plans:
        s = RunSummary(
            run_id=p.run_dir.run_id, run_dir=p.run_dir.path, episodes_total=len(p.episodes),
            episodes_run=len(p.jobs) - len(p.lost), episodes_kept=p.kept, outcomes=outcomes[id(p)],
            epochs=p.settings.epochs, lost=[(j.episode_id, j.epoch) for j in p.lost],
        )
        if p.settings.score:
            s.scores = score_if_available(p.run_dir.path)
        summaries.append(s)
    return summaries


def _preloader(plans: list[RunPlan]) -> Preloader:
    """Start loading, in the background, what this process will need once episodes run: the search index
    and embedder of the tools (when the episodes run here, not on Ray workers), then the scorer's imports.
    The loads overlap the episodes' model calls instead of delaying their first tool calls and the scores."""
    pre = Preloader()
    for p in {id(p.world): p for p in plans if p.jobs and p.settings.executor == "local"}.values():
        if callable(load := getattr(p.world, "preload", None)):  # a duck-typed world may lack it
            pre.add(load, tuple(p.tools))
    if any(p.settings.score for p in plans):
        from . import scoring

        pre.add(scoring.preload)
    return pre.start()


async def run_episodes(
    settings: RunSettings,
    *,
    progress: ProgressFn | None = None,
    on_start: Callable[[RunDir, int], None] | None = None,
    agent_factory: Callable[[], Any] | None = None,
    resume: bool = False,
    extra_config: dict[str, Any] | None = None,
    world: World | None = None,
) -> RunSummary:
    """Run (or resume) a whole run. Raises RunSetupError before anything runs if the input is wrong.

    `world` replaces the world named in the settings (a library user's own World implementation).
    """
    req = RunRequest(settings, resume=resume, agent_factory=agent_factory, extra_config=extra_config, world=world)
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


def score_if_available(run_dir: Path) -> Any:
    """Score a finished run; a scoring problem is reported, never allowed to lose the run."""
    from .scoring import score_run
    from .scoring.run import ScoringError

    try:
        return score_run(run_dir)
    except ScoringError as e:
        import sys

        print(f"warning: the run is saved but could not be scored: {e}; fix it and run `epi score {run_dir}`", file=sys.stderr)
        return None


class HandoverAgent(BaseAgent):
    """Replays the turns before `from_turn` from a recorded run, then hands the episode to another agent."""

    def __init__(self, replay: Agent, target: Agent, from_turn: int):
        self.replay, self.target, self.from_turn = replay, target, from_turn
        self.name = f"replay<{from_turn}>{target.name}"  # type: ignore[misc]
        self.uses_gold = target.uses_gold  # type: ignore[misc]
        self.memory_modes = target.memory_modes  # type: ignore[misc]

    def _who(self, turn: int) -> Agent:
        return self.replay if turn < self.from_turn else self.target

    async def preflight(self) -> None:
        await self.replay.preflight()
        await self.target.preflight()

    async def start_episode(self, info: EpisodeInfo) -> None:
        await self.replay.start_episode(info)
        await self.target.start_episode(info)

    def owns_turn(self, view: TurnView) -> bool:
        return self._who(view.turn).owns_turn(view)

    async def step(self, ctx: TurnContext) -> Action:
        return await self._who(ctx.view.turn).step(ctx)

    async def run_turn(self, ctx: TurnContext) -> FinalAnswer:
        return await self._who(ctx.view.turn).run_turn(ctx)

    async def end_episode(self) -> None:
        await self.replay.end_episode()
        await self.target.end_episode()


async def continue_episode(
    run_dir: Path, episode_id: str, from_turn: int, agent: str, *, results_dir: Path, run_id: str | None = None,
    progress: ProgressFn | None = None, agent_options: dict[str, Any] | None = None,
) -> Path:
    """Reproduce turns < from_turn of a recorded episode with real tool calls, then let `agent` go on.

    `agent_options` (model, base_url, ...) override the source run's agent config for the new agent.
    Returns the new run's directory. The source run is never modified.
    """
    from agents import make_agent

    src = RunDir(run_dir)
    if not src.exists():
        raise RunSetupError(f"no run at {run_dir} (run.json missing)")
    trace = src.read_trace(episode_id)
    if trace.missing:
        raise RunSetupError(f"run {src.run_id!r} has no trace for episode {episode_id!r}")
    n_turns = next((e.n_turns for e in trace.events if isinstance(e, EpisodeStart)), None)
    if n_turns is None or not 1 <= from_turn <= n_turns:
        raise RunSetupError(f"--from-turn must be between 1 and {n_turns or '?'} for episode {episode_id!r}")
    base = settings_from_run(src)
    cfg = base.agent_config.model_copy(update=agent_options or {}, deep=True)
    new_id = run_id or f"{src.run_id}--{episode_id}--from{from_turn}-{agent}"
    settings = base.model_copy(update={
        "agent": agent, "episode_ids": [episode_id], "limit": None, "run_id": new_id, "results": Path(results_dir),
        "epochs": 1, "executor": "local", "ray_address": None,  # one episode, here: no cluster needed
    })
    replay_cfg = cfg.model_copy(update={"replay_run": src.path, "extra": {**cfg.extra, "until_turn": from_turn - 1}})

    def factory() -> Any:
        return HandoverAgent(make_agent("replay", replay_cfg), make_agent(agent, cfg), from_turn)

    summary = await run_episodes(
        settings.model_copy(update={"agent_config": cfg}), agent_factory=factory, progress=progress,
        extra_config={"continued_from": {"run": str(src.path), "episode": episode_id, "from_turn": from_turn}},
    )
    return summary.run_dir
