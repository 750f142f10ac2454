"""The tool session: the only way from an agent to a tool.

Per turn it checks that a tool is offered, counts the step against the budget, runs the tool, saves
its images next to the trace, writes the tool_call event and appends the observation to memory.
A call to a tool that is not offered, or with arguments that fail the schema, returns an error
observation and still counts as a step.
"""
from __future__ import annotations

import asyncio
import hashlib
import time
import traceback
from pathlib import Path
from typing import Any

from tools import Tool, ToolResult, World

from .agent import (
    BudgetExhaustedError,
    MemoryImage,
    Observation,
    TurnContext,
    TurnView,
)
from .memory import EpisodeMemory
from .trace import ModelCall, Retry, TokenUsage, ToolCallEvent
from .tracewriter import TraceWriter


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
        self.tool_calls = 0
        self.usage = TokenUsage()

    @property
    def tokens(self) -> int:
        return self.usage.total


class ToolSession(TurnContext):
    """One turn's TurnContext: the agent's view plus the harness-side calls."""

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
        self.view = view
        self._world = world
        self._tools = tools
        self._memory = memory
        self._writer = writer
        self._assets = assets_dir
        self._run_dir = run_dir
        self._counters = counters
        self._limiter = limiter

    # -- tool calls -------------------------------------------------------------------------
    async def call_tool(self, tool: str, args: dict[str, Any], reasoning: str | None = None) -> Observation:
        if self.view.budget_left <= 0 or self.view.fallback:
            raise BudgetExhaustedError(f"step budget of {self.view.max_steps} used up")
        self.view.steps_used += 1
        step = self.view.steps_used
        started = time.time()
        t0 = time.perf_counter()
        result = await self._run(tool, args)
        duration = time.perf_counter() - t0
        executed = result.error_kind != "refused"  # a refused call is a step, not a tool call
        self._counters.tool_calls += executed
        images = self._save_images(result, step)
        obs = Observation(
            turn=self.view.turn,
            step=step,
            tool=tool,
            args=args if isinstance(args, dict) else {"__raw__": repr(args)},
            text=result.text,
            images=[MemoryImage(path=str(p), caption=c) for p, c in images],
            data=result.data,
            provenance=list(result.provenance),
            error=result.error,
        )
        self._writer.write(
            ToolCallEvent(
                turn=self.view.turn,
                step=step,
                ts=started,
                duration_s=duration,
                tool=tool,
                args=obs.args,
                reasoning=reasoning,
                result_summary=result.summary(),
                result_text=result.text,
                images=[str(p.relative_to(self._run_dir)) for p, _ in images],
                provenance=list(result.provenance),
                error=result.error,
                error_kind=result.error_kind,
                budget_left=self.view.budget_left,
                executed=executed,
            )
        )
        self._memory.add(obs)
        self.view.memory = self._memory.observations
        return obs

    async def _run(self, name: str, args: Any) -> ToolResult:
        offered = self.view.tool_names
        if name not in offered:
            why = "no tools are offered in this turn (answer from memory)" if not offered else (
                f"tools offered in this turn: {', '.join(offered)}"
            )
            return ToolResult.fail(f"tool {name!r} is not available; {why}", "refused")
        tool = self._tools[name]
        try:
            return await tool(self._world, args)
        except (OSError, TimeoutError) as e:
            # fetch/parse failures of the world: the agent sees them and may try another route
            return ToolResult.fail(f"{name} could not access the paper: {type(e).__name__}: {e}", "data_access")
        except Exception as e:  # our own bug: the episode fails with the pipeline bucket
            raise PipelineError(f"{name} raised {type(e).__name__}: {e}", traceback.format_exc()) from e

    def _save_images(self, result: ToolResult, step: int) -> list[tuple[Path, str | None]]:
        out = []
        for i, img in enumerate(result.images):
            data = img.png
            digest = hashlib.sha256(data).hexdigest()[:10]
            stem = Path(img.name).stem or "image"
            p = self._assets / f"t{self.view.turn}s{step}_{i}_{stem}_{digest}.png"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
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
    ) -> None:
        self._counters.model_calls += 1
        self._counters.usage = self._counters.usage + usage
        self._writer.write(
            ModelCall(
                turn=self.view.turn,
                step=self.view.steps_used,
                duration_s=latency_s,
                model=model,
                tools_offered=tools_offered,
                request=request,
                response=response,
                usage=usage,
                latency_s=latency_s,
                purpose="budget_fallback" if self.view.fallback else "step",
            )
        )

    def record_retry(self, attempt: int, error: str, wait_s: float) -> None:
        self._writer.write(Retry(turn=self.view.turn, step=self.view.steps_used, attempt=attempt, error=error, wait_s=wait_s))

    async def model_slot(self) -> None:
        await self._limiter.wait()
