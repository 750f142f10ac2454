"""The tool session: the only way from an agent to a tool, and the one keeper of the turn's budget.

Per turn it owns the agent's view (a new read-only TurnView after every change), opens model steps
against the budget, checks that a tool is offered, runs it, saves its images next to the trace,
writes the tool_call event and appends the observation to memory. A call to a tool that is not
offered, or with arguments that are not JSON or fail the tool's schema (a wrong type, a missing or an
extra argument), is refused: an error observation that uses the budget but is not run, so it is never
an executed tool call (MG, cost). A call past the budget is recorded as refused and not run.
"""
from __future__ import annotations

import asyncio
import hashlib
import time
import traceback
from pathlib import Path
from typing import Any

from tools import Tool, ToolError, ToolResult, World

from .agent import (
    BudgetExhaustedError,
    FallbackKind,
    MemoryCompaction,
    MemoryImage,
    NoToolStep,
    Observation,
    TurnContext,
    TurnView,
)
from .budget import StepBudget
from .chat_body import ChatBody
from .memory import EpisodeMemory
from .trace import MemoryCompacted, ModelCall, NoToolStep as NoToolStepEvent, Retry, TokenUsage, ToolCallEvent
from .trace_store import write_once
from .tracewriter import TraceWriter

_REPLY_CHARS = 2000


class PipelineError(Exception):
    """A bug in our own code while running a tool: fails the episode with the pipeline bucket."""

    def __init__(self, message: str, detail: str):
        super().__init__(message)
        self.detail = detail


class RateLimiter:
    """Spaces model requests across the run to at most `rps` per second."""

    def __init__(self, rps: float | None):
        self.interval = 1.0 / rps if rps else 0.0
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        if not self.interval:
            return
        async with self._lock:
            now = time.monotonic()
            delay = self._next - now
            self._next = max(now, self._next) + self.interval
        if delay > 0:
            await asyncio.sleep(delay)


class EpisodeCounters:
    """Running totals for one episode: what the limits and episode_end need."""

    def __init__(self) -> None:
        self.model_calls = 0
        self.failed_model_calls = 0  # attempts the provider answered with an error (not model calls)
        self.tool_calls = 0
        self.usage = TokenUsage()

    @property
    def tokens(self) -> int:
        return self.usage.total


class ToolSession(TurnContext):
    """One turn's TurnContext: the agent's view, the budget, and the harness-side calls."""

    def __init__(
        self,
        *,
        view: TurnView,
        world: World,
        tools: dict[str, Tool],
        memory: EpisodeMemory,
        writer: TraceWriter,
        assets_dir: Path,
        run_dir: Path,
        counters: EpisodeCounters,
        limiter: RateLimiter,
    ):
        self._view = view
        self.budget = StepBudget(limit=view.max_steps, unit=view.budget_unit)
        self._fallback: FallbackKind | None = None
        self._world = world
        self._tools = tools
        self._memory = memory
        self._writer = writer
        self._assets = assets_dir
        self._run_dir = run_dir
        self._counters = counters
        self._limiter = limiter

    # -- the view (this class is its only owner) -------------------------------------------
    @property
    def view(self) -> TurnView:
        return self._view

    def _refresh(self, **update: Any) -> None:
        b = self.budget
        self._view = self._view.model_copy(update={
            "steps_used": b.used, "no_tool_steps": b.no_tool_steps, "memory": list(self._memory.observations), **update,
        })

    def enter_fallback(self, kind: FallbackKind) -> None:
        """The turn's last request: no tools; model calls from now on are recorded with this purpose."""
        self._fallback = kind
        self.budget.step_open = False
        self._refresh(fallback=True, tools=[])

    # -- the budget -------------------------------------------------------------------------
    @property
    def exhausted(self) -> bool:
        return self._fallback is not None or self.budget.ran_out is not None

    def begin_step(self) -> None:
        if self._fallback is not None:
            raise BudgetExhaustedError("the turn is in its no-tool fallback request")
        b = self.budget
        if b.step_open and b.calls_in_step == 0:  # a loop agent's step that ended silently without a tool call
            self.no_tool_step(NoToolStep(reason="other", feedback="(the agent reported nothing about this step)"))
        if not b.begin_step():
            raise BudgetExhaustedError(self._ran_out_message())
        self._refresh()

    def _ran_out_message(self) -> str:
        b = self.budget
        if b.ran_out == "no_tool_steps":
            return f"{b.no_tool_steps} model steps without a tool call: the cap of {b.limit} for this turn is reached"
        noun = "tool calls" if b.unit == "tool_call" else "model steps"
        return f"step budget of {b.limit} {noun} used up"

    def no_tool_step(self, step: NoToolStep) -> None:
        b = self.budget
        if not b.step_open and b.unit == "model_step":
            b.begin_step()  # a step reported without begin_step still costs one
        b.end_step_without_tool()
        self._refresh()
        reply = step.reply if step.reply is None or len(step.reply) <= _REPLY_CHARS else step.reply[:_REPLY_CHARS] + " ..."
        self._writer.write(NoToolStepEvent(
            turn=self._view.turn, step=b.used, reason=step.reason, reply=reply, feedback=step.feedback,
            no_tool_steps=b.no_tool_steps, cap=b.limit,
        ))

    # -- tool calls -------------------------------------------------------------------------
    async def call_tool(self, tool: str, args: dict[str, Any], reasoning: str | None = None, *,
                        raw_arguments: str | None = None, call_id: str | None = None) -> Observation:
        if not isinstance(args, dict):  # a loop agent passed something else: keep it as text, refuse the call
            raw_arguments, args = (raw_arguments if raw_arguments is not None else repr(args)), {}
        in_fallback = self._fallback is not None  # refused like a call past the budget, and traced the same way
        counted = not in_fallback and self.budget.take_call()
        started = time.time()
        t0 = time.perf_counter()
        refusal = None
        if in_fallback:
            result = ToolResult.fail("not run: no tools in the turn's last request (the budget is used up: answer now)",
                                     "refused")
        elif not counted:
            noun = "tool calls" if self.budget.unit == "tool_call" else "model steps"
            result = ToolResult.fail(f"not run: the step budget of {self.budget.limit} {noun} for this turn is used up",
                                     "refused")
        elif raw_arguments is not None:
            result = ToolResult.fail(
                f"the arguments for {tool!r} were not a JSON object, so the call was not run: {raw_arguments[:300]!r}",
                "bad_arguments")
        else:
            refusal = self._refusal(tool, args)
            result = refusal if refusal is not None else await self._run(tool, args)
        duration = time.perf_counter() - t0
        executed = counted and raw_arguments is None and refusal is None
        self._counters.tool_calls += executed
        step = self.budget.used
        images = self._save_images(result)
        obs = Observation(
            turn=self._view.turn, step=step, tool=tool, args=args, raw_arguments=raw_arguments, call_id=call_id,
            text=result.text, images=[MemoryImage(path=str(p), caption=c) for p, c in images], data=result.data,
            provenance=list(result.provenance), error=result.error, counted=counted,
        )
        self._writer.write(
            ToolCallEvent(
                turn=self._view.turn, step=step, ts=started, duration_s=duration, tool=tool, args=args,
                raw_arguments=raw_arguments, reasoning=reasoning, result_summary=result.summary(),
                result_text=result.text, images=[str(p.relative_to(self._run_dir)) for p, _ in images],
                provenance=list(result.provenance), error=result.error, error_kind=result.error_kind,
                budget_left=self.budget.left, executed=executed, counted=counted,
            )
        )
        self._memory.add(obs)
        self._refresh()
        if not counted:
            raise BudgetExhaustedError("no tools in the fallback request" if in_fallback else self._ran_out_message())
        return obs

    def _refusal(self, name: str, args: dict[str, Any]) -> ToolResult | None:
        """Why the call is not run (a tool not offered, arguments that fail its schema), or None to run it."""
        offered = self._view.tool_names
        if name not in offered:
            why = "no tools are offered in this turn (answer from memory)" if not offered else (
                f"tools offered in this turn: {', '.join(offered)}"
            )
            return ToolResult.fail(f"tool {name!r} is not available; {why}", "refused")
        try:
            self._tools[name].validate(args)
        except ToolError as e:
            return ToolResult.fail(f"{e.message}; the call was not run", "bad_arguments")
        return None

    async def _run(self, name: str, args: dict[str, Any]) -> ToolResult:
        tool = self._tools[name]
        try:
            return await tool(self._world, args)
        except (OSError, TimeoutError) as e:
            # fetch/parse failures of the world: the agent sees them and may try another route
            return ToolResult.fail(f"{name} could not access the paper: {type(e).__name__}: {e}", "data_access")
        except Exception as e:  # our own bug: the episode fails with the pipeline bucket
            raise PipelineError(f"{name} raised {type(e).__name__}: {e}", traceback.format_exc()) from e

    def _save_images(self, result: ToolResult) -> list[tuple[Path, str | None]]:
        """Each image once per episode, named by the hash of its bytes: the same file a request that
        sends it refers to (`harness.trace_store`)."""
        out = []
        for img in result.images:
            data = img.png
            p = self._assets / f"{hashlib.sha256(data).hexdigest()}.png"
            write_once(p, data)
            out.append((p, img.caption))
        return out

    # -- model calls ------------------------------------------------------------------------
    def record_model_call(
        self,
        *,
        model: str,
        request: dict[str, Any] | None,
        response: dict[str, Any] | None,
        usage: TokenUsage,
        latency_s: float,
        tools_offered: list[str],
        body: ChatBody | None = None,
        error: str | None = None,
    ) -> None:
        """Write a model_call; the request is stored by content hash (`body`: the exact bytes sent). With
        `error`, the attempt failed: its body is kept for debugging, it is not counted as a model call."""
        if error is not None:
            self._counters.failed_model_calls += 1
        else:
            self._counters.model_calls += 1
        self._counters.usage = self._counters.usage + usage
        self._writer.write(
            ModelCall(
                turn=self._view.turn,
                step=self.budget.used,
                duration_s=latency_s,
                model=model,
                tools_offered=tools_offered,
                **self._writer.request_fields(request, body),
                response=response,
                error=error,
                usage=usage,
                latency_s=latency_s,
                purpose=self._fallback or "step",
            )
        )

    def record_retry(self, attempt: int, error: str, wait_s: float) -> None:
        self._writer.write(Retry(turn=self._view.turn, step=self.budget.used, attempt=attempt, error=error, wait_s=wait_s))

    def record_memory(self, compaction: MemoryCompaction) -> None:
        self._writer.write(MemoryCompacted(turn=self._view.turn, step=self.budget.used, **compaction.model_dump()))

    async def model_slot(self) -> None:
        await self._limiter.wait()
