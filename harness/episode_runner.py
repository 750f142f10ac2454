"""The episode runner: drives an agent through each episode's turns under the protocol's rules.

Per turn: offer the allowed tools (none on a memory-only turn unless final-turn tools are on), let
the agent act until it answers or the turn's budget (harness.budget, kept by the tool session) is
used; then exactly one more no-tool request for a fallback answer. Everything goes to the trace. An
error in one episode ends that episode with a reason bucket and never the run.
"""
from __future__ import annotations

import asyncio
import hashlib
import os
import re
import shutil
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tools import Tool, World, get_tool
from tools._watch import unwatch, watch

from .agent import (
    Agent,
    AgentProgramError,
    AnswerSpec,
    BudgetExhaustedError,
    ReportBrief,
    EpisodeInfo,
    FallbackKind,
    FinalAnswer,
    ModelOutputError,
    NoToolStep,
    ProviderError,
    ToolCall,
    ToolCalls,
    ToolSpec,
    TurnView,
    agent_protocol_problems,
)
from .episode import Episode
from .episodes_io import CUE_IMAGE_MAX_BYTES, cue_image_bytes_problem
from .memory import EpisodeMemory
from .rundir import RunDir
from .safe_paths import PathOutside, resolve_inside
from .session import EpisodeCounters, PipelineError, RateLimiter, ToolSession
from .settings import RunSettings
from .trace import (
    AgentCheck,
    BudgetExhausted,
    EpisodeEnd,
    EpisodeStart,
    ErrorEvent,
    FinalAnswerEvent,
    LimitHit,
    ReasonBucket,
    TurnStart,
)
from .trace_store import write_once
from .tracewriter import TraceWriter


@dataclass
class EpisodeOutcome:
    episode_id: str
    status: str
    bucket: str | None
    answers: list[str | None]
    wall_s: float
    epoch: int = 1


@dataclass
class RunSummary:
    run_id: str
    run_dir: Path
    episodes_total: int
    episodes_run: int
    episodes_kept: int
    outcomes: list[EpisodeOutcome] = field(default_factory=list)
    scores: Any = None
    epochs: int = 1
    lost: list[tuple[str, int]] = field(default_factory=list)  # (episode, epoch) lost with their workers
    retired: list[str] = field(default_factory=list)  # `epi retry`: failed attempts set aside (paths in the run)


class _EpisodeStop(Exception):
    """Ends the episode early with a reason bucket."""

    def __init__(self, bucket: ReasonBucket, message: str, detail: str | None = None, answered: bool = False,
                 answer: str | None = None):
        super().__init__(message)
        self.bucket: ReasonBucket = bucket
        self.message = message
        self.detail = detail
        self.answered = answered  # the current turn already has its final_answer event
        self.answer = answer


class _LimitReached(Exception):
    def __init__(self, limit: str, value: float, cap: float):
        super().__init__(limit)
        self.limit, self.value, self.cap = limit, value, cap


def _answer_text(action: Any) -> str | None:
    if isinstance(action, FinalAnswer):
        return None if action.answer is None else str(action.answer)
    return None


def _checked_agent(agent: Any) -> Agent:
    """The agent, if it implements the protocol (harness.agent.Agent); else the episode fails saying what is missing."""
    missing = agent_protocol_problems(agent)
    if missing:
        raise _EpisodeStop("pipeline", f"{type(agent).__name__} does not implement the agent protocol "
                                       f"(harness.agent.Agent): missing {', '.join(missing)}")
    return agent


class _EpisodeState:
    """One episode's harness-side state the agent never sees: its scratch folder and the current turn's session."""

    def __init__(self, scratch_dir: Path, writer: TraceWriter, counters: EpisodeCounters):
        self.scratch_dir = scratch_dir  # the agent's copies of images: outside the run folder, removed with the episode
        self.writer, self.counters = writer, counters
        self.ctx: ToolSession | None = None

    def agent_cue(self, cue_image: str | None) -> str | None:
        """The agent's copy of the cue image, named by its hash (the episode folder's path stays in the trace)."""
        if cue_image is None:
            return None
        src = Path(cue_image)
        if not src.is_file():
            return None
        data = src.read_bytes()
        dest = self.scratch_dir / f"cue-{hashlib.sha256(data).hexdigest()}{src.suffix.lower()}"
        if not dest.exists():
            dest.write_bytes(data)
        return str(dest)

    def outside_session(self, what: str, name: str) -> None:
        """The agent ran a tool or built a world itself (tools._watch): not stopped (it is trusted code in this
        process), written to the trace as an agent_check of the turn, the episode marked."""
        ctx = self.ctx
        when = ("start_episode" if ctx is None else "this memory-only turn" if ctx.view.memory_only else "this turn")
        if what == "tool":
            check, detail = "tool_outside_session", (f"the agent ran {name} itself, outside the tool session, in {when}: "
                                                     "no budget, no trace of its result")
        else:
            check, detail = "world_outside_session", f"the agent built its own {name} in {when}"
        if ctx is not None:
            ctx.check(check, "flagged", detail)  # type: ignore[arg-type]
            return
        self.counters.agent_checks += 1
        self.writer.write(AgentCheck(turn=0, check=check, outcome="flagged", detail=detail))  # type: ignore[arg-type]


class EpisodeRunner:
    """Runs episodes with one agent, as repeat `epoch`; shared pieces (world, tools, limiter) come from the run."""

    def __init__(
        self,
        *,
        settings: RunSettings,
        world: World,
        tools: dict[str, Tool],
        run_dir: RunDir,
        limiter: RateLimiter,
        episodes_dir: Path,
        make_agent: Callable[[], Agent],
        epoch: int = 1,
    ):
        self.s = settings
        self.world = world
        self.tools = tools
        self.run_dir = run_dir
        self.limiter = limiter
        self.episodes_dir = episodes_dir
        self.make_agent = make_agent
        self.epoch = epoch  # which repeat of each episode this runner runs: decides where traces go

    def _specs(self, names: list[str]) -> list[ToolSpec]:
        return [ToolSpec(**self.tools[n].spec()) for n in names]

    async def run(self, ep: Episode) -> EpisodeOutcome:
        epoch = self.epoch
        writer = TraceWriter(self.run_dir.trace_path(ep.id, epoch), run_id=self.run_dir.run_id, episode_id=ep.id)
        t_start = time.time()
        counters = EpisodeCounters()
        memory = EpisodeMemory()
        answers: list[str | None] = []
        status, bucket = "completed", None
        agent: Agent | None = None
        # what the agent is given to read (images) lives here, outside the run folder; removed with the episode
        scratch_dir = Path(tempfile.mkdtemp(prefix="epi-agent-"))
        state = _EpisodeState(scratch_dir, writer, counters)
        watching = watch(state.outside_session)
        try:
            try:
                built = self.make_agent()
            except Exception as e:  # building the agent failed: our side or its config
                raise _EpisodeStop("pipeline", f"could not create agent: {type(e).__name__}: {e}", traceback.format_exc())
            agent = _checked_agent(built)
            writer.write(
                EpisodeStart(
                    n_turns=ep.n_turns, split=ep.split, task_type=ep.task_type, initiation=ep.initiation,
                    agent=agent.name, uses_gold=bool(agent.uses_gold), epoch=epoch,
                )
            )
            info = EpisodeInfo(
                episode_id=ep.id, n_turns=ep.n_turns, split=ep.split, task_type=ep.task_type,
                initiation=ep.initiation, area=ep.area, tools=self._specs(list(self.tools)),
                episode=ep if agent.uses_gold else None,
            )
            await self._guard(agent.start_episode(info), "start_episode")
            for t in range(1, ep.n_turns + 1):  # the answer turns, then a report episode's report turn
                answer = await self._run_turn(agent, ep, t, memory, writer, counters, t_start, epoch, state)
                answers.append(answer)
        except asyncio.CancelledError:  # the run was stopped (SIGINT, SIGTERM): this episode runs again on resume
            writer.abandon(discard=True)
            raise
        except _EpisodeStop as stop:
            status, bucket = "failed", stop.bucket
            writer.write(ErrorEvent(turn=len(answers) + 1, bucket=stop.bucket, message=stop.message, detail=stop.detail))
            if stop.answered:
                answers.append(stop.answer)
            for t in range(len(answers) + 1, ep.n_turns + 1):
                writer.write(FinalAnswerEvent(turn=t, answer=None, source="none"))
                answers.append(None)
        finally:
            if agent is not None:
                try:
                    await asyncio.wait_for(agent.end_episode(), timeout=30)
                except Exception:  # an agent's cleanup failing must not lose the trace
                    pass
            unwatch(watching)
            shutil.rmtree(scratch_dir, ignore_errors=True)
        writer.write(
            EpisodeEnd(
                ts=time.time(), duration_s=time.time() - t_start, status=status, bucket=bucket,
                model_calls=counters.model_calls, tool_calls=counters.tool_calls,
                usage=counters.usage, agent_checks=counters.agent_checks,
            )
        )
        writer.commit()
        return EpisodeOutcome(ep.id, status, bucket, answers, time.time() - t_start, epoch)

    async def _guard(self, coro: Any, what: str, steps: int = 1) -> Any:
        """Await an agent call (`steps` model steps at most); map its failures to reason buckets."""
        limit = self.s.step_timeout_s * steps
        try:
            return await asyncio.wait_for(coro, timeout=limit)
        except (_EpisodeStop, BudgetExhaustedError, _LimitReached):
            raise
        except ProviderError as e:
            raise _EpisodeStop("provider", f"model provider failed: {e}") from e
        except ModelOutputError as e:
            raise _EpisodeStop("model", f"no usable model output: {e}") from e
        except AgentProgramError as e:
            raise _EpisodeStop("model", str(e), e.detail) from e
        except PipelineError as e:
            raise _EpisodeStop("pipeline", str(e), e.detail) from e
        except asyncio.TimeoutError:
            raise _EpisodeStop("model", f"agent {what} took longer than {limit:.0f} s") from None
        except Exception as e:
            raise _EpisodeStop(
                "pipeline", f"agent {what} raised {type(e).__name__}: {e}", traceback.format_exc()
            ) from e

    def _copy_cue_image(self, name: str, episode_id: str, epoch: int) -> Path:
        """The turn's cue image, copied into the episode's folder of the run and named by the hash of its bytes:
        the agent and the trace see the copy. Only a file inside the episode file's folder is read (validation
        refused any other; a file changed since fails this episode, never the run)."""
        try:
            src = resolve_inside(self.episodes_dir, name)
            if not src.is_file():  # not a FIFO or a device a swap put there since validation
                raise OSError(f"{name!r} is not a regular file in {self.episodes_dir}")
            with src.open("rb") as fh:  # bounded: a file grown since validation is not read whole
                size = os.fstat(fh.fileno()).st_size
                data = fh.read(CUE_IMAGE_MAX_BYTES + 1)
            if (why := cue_image_bytes_problem(data[:16], max(size, len(data)))) is not None:
                raise OSError(why)
        except (PathOutside, OSError) as e:
            raise _EpisodeStop("pipeline", f"cue image not used: {e}") from None
        suffix = Path(name).suffix.lower()
        suffix = suffix if re.fullmatch(r"\.[a-z0-9]{1,5}", suffix) else ""
        dest = self.run_dir.assets_dir(episode_id, epoch) / f"{hashlib.sha256(data).hexdigest()}{suffix}"
        write_once(dest, data)
        return dest

    def _check_limits(self, counters: EpisodeCounters, t_start: float) -> None:
        if self.s.max_episode_tokens is not None and counters.tokens >= self.s.max_episode_tokens:
            raise _LimitReached("tokens", counters.tokens, self.s.max_episode_tokens)
        if self.s.max_episode_seconds is not None and time.time() - t_start >= self.s.max_episode_seconds:
            raise _LimitReached("wall_time", time.time() - t_start, self.s.max_episode_seconds)

    async def _run_turn(
        self, agent: Agent, ep: Episode, t: int, memory: EpisodeMemory, writer: TraceWriter,
        counters: EpisodeCounters, t_start: float, epoch: int = 1, state: "_EpisodeState | None" = None,
    ) -> str | None:
        if t > len(ep.turns):  # the report turn: tools stay available, with the turn's own budget
            rep = ep.report
            assert rep is not None
            question, cue_text, cue_image, cue_ref, memory_only, budget = rep.question, None, None, None, False, rep.budget
            spec = AnswerSpec(format="report", report=ReportBrief(max_words=rep.max_words, persona=rep.persona))
            allowed = list(self.tools)
        else:
            turn = ep.turns[t - 1]
            question, memory_only, budget = turn.question, turn.memory_only, self.s.max_steps
            allowed = [] if (turn.memory_only and not self.s.final_turn_tools) else list(self.tools)
            cue_text, cue_image, cue_ref = (turn.cue.text if turn.cue else None), None, None
            if turn.cue and turn.cue.image:
                cue_copy = self._copy_cue_image(turn.cue.image, ep.id, epoch)
                cue_image, cue_ref = str(cue_copy.absolute()), cue_copy.relative_to(self.run_dir.path).as_posix()
            spec = AnswerSpec(format=turn.answer.format, choices=turn.answer.choices, unit=turn.answer.unit)
        agent_cue = state.agent_cue(cue_image) if state is not None else cue_image
        view = TurnView(
            episode_id=ep.id, turn=t, n_turns=ep.n_turns, question=question, cue_text=cue_text, cue_image=agent_cue,
            answer_spec=spec, tools=self._specs(allowed), max_steps=budget, budget_unit=self.s.budget_unit,
            memory_only=memory_only, memory=list(memory.observations), history=list(memory.history),
        )
        writer.write(
            TurnStart(
                turn=t, question=question, cue_text=view.cue_text, cue_image=cue_ref,
                allowed_tools=allowed, budget=budget, budget_unit=self.s.budget_unit,
                memory_only=memory_only,
            )
        )
        ctx = ToolSession(
            view=view, world=self.world, tools=self.tools, memory=memory, writer=writer,
            assets_dir=self.run_dir.assets_dir(ep.id, epoch), run_dir=self.run_dir.path, counters=counters,
            limiter=self.limiter, scratch_dir=state.scratch_dir if state is not None else None,
        )
        if state is not None:
            state.ctx = ctx
        answer: str | None = None
        source = "agent"
        reasoning = None
        try:
            self._check_limits(counters, t_start)
            action = await self._act(agent, ctx, counters, t_start)
            if action is None:  # budget used up without an answer: one no-tool fallback request
                b = ctx.budget
                writer.write(BudgetExhausted(
                    turn=t, step=b.used, budget=b.limit, unit=b.unit, ran_out=b.ran_out or "budget",
                    tool_calls=b.tool_calls, model_steps=b.model_steps, no_tool_steps=b.no_tool_steps,
                ))
                answer, reasoning = await self._fallback(agent, ctx, "budget_fallback")
                source = "budget_fallback"
            else:
                answer, reasoning = _answer_text(action), action.reasoning
        except _LimitReached as lim:
            writer.write(LimitHit(turn=t, step=ctx.budget.used, limit=lim.limit, value=lim.value, cap=lim.cap))
            answer, reasoning = await self._fallback(agent, ctx, "limit_fallback")
            writer.write(FinalAnswerEvent(turn=t, step=ctx.budget.used, answer=answer, source="limit_fallback", reasoning=reasoning))
            ctx.finish_turn()
            memory.finish_turn(t, question, answer)
            raise _EpisodeStop(
                "model", f"episode {lim.limit} limit reached ({lim.value:.0f} >= {lim.cap:.0f})",
                answered=True, answer=answer,
            ) from None
        writer.write(FinalAnswerEvent(turn=t, step=ctx.budget.used, answer=answer, source=source, reasoning=reasoning))
        ctx.finish_turn()
        memory.finish_turn(t, question, answer)
        return answer

    async def _act(self, agent: Agent, ctx: ToolSession, counters: EpisodeCounters, t_start: float) -> FinalAnswer | None:
        """Let the agent work the turn. Returns its FinalAnswer, or None once the budget is used up."""
        if agent.owns_turn(ctx.view):
            try:
                # the agent's loop makes up to one model request per step of the budget and of the no-tool cap
                view = ctx.view
                steps = view.max_steps * (2 if view.budget_unit == "tool_call" else 1)
                result = await self._guard(agent.run_turn(ctx), "run_turn", steps=steps)
            except BudgetExhaustedError:
                return None
            if isinstance(result, FinalAnswer):
                return result
            raise _EpisodeStop("model", f"agent run_turn returned {type(result).__name__}, not a FinalAnswer")
        while True:
            self._check_limits(counters, t_start)
            try:
                ctx.begin_step()
            except BudgetExhaustedError:
                return None
            action = await self._guard(agent.step(ctx), "step")
            if isinstance(action, FinalAnswer):
                return action
            if isinstance(action, (ToolCall, ToolCalls)):
                for call in action.calls if isinstance(action, ToolCalls) else [action]:
                    try:
                        await ctx.call_tool(call.tool, call.args, call.reasoning, raw_arguments=call.raw_arguments,
                                            call_id=call.call_id)
                    except BudgetExhaustedError:
                        continue  # refused and recorded; the rest of the reply is refused the same way
                    except PipelineError as e:
                        raise _EpisodeStop("pipeline", str(e), e.detail) from e
            elif isinstance(action, NoToolStep):
                ctx.no_tool_step(action)
            else:
                raise _EpisodeStop("model", f"agent returned {type(action).__name__}, not an action (harness.agent.Action)")
            if ctx.exhausted:
                return None

    async def _fallback(self, agent: Agent, ctx: ToolSession, kind: FallbackKind) -> tuple[str | None, str | None]:
        ctx.enter_fallback(kind)
        try:
            action = await self._guard(agent.step(ctx), "fallback step")
        except BudgetExhaustedError:
            return None, None
        if isinstance(action, FinalAnswer):
            return _answer_text(action), action.reasoning
        if isinstance(action, (ToolCall, ToolCalls)):  # refused, each written like every refusal, and flagged
            for call in action.calls if isinstance(action, ToolCalls) else [action]:
                try:
                    await ctx.call_tool(call.tool, call.args, call.reasoning, raw_arguments=call.raw_arguments,
                                        call_id=call.call_id)
                except BudgetExhaustedError:
                    pass
        return None, f"the agent answered the fallback request with {type(action).__name__}, not a final answer"


def active_tool_names(settings: RunSettings) -> list[str]:
    from tools import CORE_TOOLS

    names = [n for n in CORE_TOOLS if n not in settings.disable_tools]
    names += [n for n in settings.enable_tools if n not in names and n not in settings.disable_tools]
    return names


def load_tools(names: list[str]) -> dict[str, Tool]:
    return {n: get_tool(n) for n in names}
