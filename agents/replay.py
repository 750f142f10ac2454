"""Replay: re-execute the actions recorded in a run's traces against the tools.

For each episode it reads the trace of `config.replay_run` and, turn by turn, issues the recorded tool
calls (same names and arguments, in order) and then gives the recorded final answer. Tools really
run again, so a replay reproduces a run (or shows where a world or tool changed), and the runner's
`continue_episode` uses it to rebuild turns before handing an episode to another agent.
`config.extra["until_turn"]`: replay only up to that turn; later turns answer None.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.agent import AgentConfig, EpisodeInfo, FinalAnswer, ToolCall, TurnContext
from harness.rundir import RunDir
from harness.trace import ToolCallEvent
from harness.trace_fold import fold_events


@dataclass
class RecordedTurn:
    """What one turn did in the recorded run: every call it asked for (refused ones too: they were steps)."""

    calls: list[ToolCallEvent] = field(default_factory=list)
    answer: str | None = None
    source: str = "none"


def recorded_turns(events: list[Any]) -> dict[int, RecordedTurn]:
    """Turn number -> its recorded tool calls and final answer, from the shared trace fold."""
    fold = fold_events("", events)
    return {tf.turn: RecordedTurn(calls=list(tf.calls), answer=tf.answer_text, source=tf.answer_source)
            for tf in fold.ordered_turns if tf.calls or tf.answer is not None}


class ReplayAgent:
    """Issues a recorded trace's tool calls, then its answer, turn by turn."""

    name = "replay"
    uses_gold = False

    def __init__(self, config: AgentConfig):
        self.config = config
        until = config.extra.get("until_turn")
        self.until_turn: int | None = int(until) if until is not None else None
        self._turns: dict[int, RecordedTurn] = {}
        self._turn = 0
        self._next = 0

    def _run_dir(self) -> RunDir:
        if self.config.replay_run is None:
            raise ValueError("the replay agent needs the run to replay (agent_config.replay_run / --replay-run)")
        rd = RunDir(self.config.replay_run)
        if not rd.exists():
            raise ValueError(f"no run to replay at {rd.path} (run.json missing)")
        return rd

    async def preflight(self) -> None:
        """Before the run: the run to replay exists."""
        self._run_dir()

    async def start_episode(self, info: EpisodeInfo) -> None:
        rd = self._run_dir()
        trace = rd.read_trace(info.episode_id)
        if trace.missing:
            raise ValueError(f"run {rd.run_id!r} has no trace for episode {info.episode_id!r}")
        self._turns = recorded_turns(trace.events)
        self._turn, self._next = 0, 0

    async def step(self, ctx: TurnContext) -> ToolCall | FinalAnswer:
        view = ctx.view
        if view.turn != self._turn:
            self._turn, self._next = view.turn, 0
        if self.until_turn is not None and view.turn > self.until_turn:
            return FinalAnswer(answer=None, reasoning=f"replay stops after turn {self.until_turn}")
        rec = self._turns.get(view.turn, RecordedTurn())
        if not view.fallback and self._next < len(rec.calls):
            ev = rec.calls[self._next]
            self._next += 1
            return ToolCall(tool=ev.tool, args=dict(ev.args), reasoning=ev.reasoning or f"replayed step {ev.step}")
        return FinalAnswer(answer=rec.answer, reasoning=f"replayed answer (recorded source: {rec.source})")

    async def end_episode(self) -> None:
        self._turns = {}
