"""Continuing a recorded episode with another agent (`epi replay RUN EPISODE --from-turn K --agent NAME`).

The turns before K are reproduced from the recorded run with real tool calls (the replay agent), then the
new agent takes the episode over. The new run is a run like any other; the source run is never modified.
The new agent's endpoint and key variable come from the user (`harness.stored_run`): the source run's
run.json is data and never chooses where a key is sent.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from .agent import Action, Agent, BaseAgent, EpisodeInfo, FinalAnswer, TurnContext, TurnView
from .episode_runner import EpisodeOutcome
from .rundir import RunDir
from .safe_paths import safe_name
from .trace import EpisodeStart

ProgressFn = Callable[[EpisodeOutcome], None]


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
    command: list[str] | None = None,
) -> Path:
    """Reproduce turns < from_turn of a recorded episode with real tool calls, then let `agent` go on.

    `agent_options` (model, base_url, api_key_env, ...) are the user's choices for the new agent; the source
    run's other agent settings (model, decoding) are kept, its agent-specific options (`extra`) are not. Where
    the source run names an endpoint or key variable the user did not give, RunSetupError says so and shows
    `command` (the user's command line) completed with it. Returns the new run's directory. The source run is never modified.
    """
    from agents import make_agent

    from .runner import RunSetupError, run_episodes, settings_from_run
    from .stored_run import PROGRAM_FIELDS, NamedOnlyByRun, user_choices

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
    options = dict(agent_options or {})
    cmd = command or ["epi", "replay", str(src.path), episode_id, "--from-turn", str(from_turn), "--agent", agent]
    # the source agent's own options (agent_config.extra: files, limits; an agent program's command, variables,
    # folders and sandbox) are not the new agent's: dropped, so nothing the run folder names is started
    program = {f.path[-1]: getattr(type(base.agent_config)(), f.path[-1]) for f in PROGRAM_FIELDS}
    base = base.model_copy(update={"agent_config": base.agent_config.model_copy(update={"extra": {}, **program})})
    try:
        user_choices(base.model_dump(mode="json"), {"agent": agent, "agent_config": options}, command=cmd,
                     where=f"{src.run_json}")
    except NamedOnlyByRun as e:
        raise RunSetupError(str(e)) from None
    defaults = type(base.agent_config)()
    for name in ("base_url", "api_key_env"):  # never the source run's: the user's, or the default
        options.setdefault(name, getattr(defaults, name))
    cfg = base.agent_config.model_copy(update=options, deep=True)
    new_id = run_id or safe_name(f"{src.run_id}--{episode_id}--from{from_turn}-{agent}")
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
