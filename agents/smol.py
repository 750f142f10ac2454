"""smolagents agents (CodeAgent, ToolCallingAgent) whose tools call back into the harness tool session.

smolagents runs synchronously, so a tool turn runs `agent.run` in a worker thread and every tool
call, trace record and budget question is bridged back to the event loop, where the tool session
lives. The harness's budget is the only limit: smolagents' own `max_steps` is set out of reach, every
model request of the loop first opens a step with `ctx.begin_step()` (refused once the budget is
used), each finished step without a tool call is reported (`ctx.no_tool_step`, with a reminder of
the two ways to act added to what the model sees next), and the agent is interrupted as soon as the
session says the turn is exhausted. The runner then makes the one fallback request through `step`.

Turns without tools (memory-only turns, the fallback) are plain requests built from the agent's
memory under a system prompt that names no tool, answered in the agent's own form: `final_answer()`
in a code block for the CodeAgent (its code runs, with no tool but final_answer), a `Final answer:`
line for the ToolCallingAgent. Code written by the model never runs in the harness's process: it runs
in smolagents' LocalPythonExecutor (no `open`, only the imports in AUTHORIZED_IMPORTS) inside the
jail code_exec uses, one jailed interpreter per episode, with wall-clock, CPU and memory limits kept
from outside (`_smol_jail.py`); the tools it calls come back to the harness over a pipe and go through
the same tool session. One smolagents agent lives for the whole episode, built at episode start with
the run's tools; its memory carries evidence across turns. The smolagents hooks overridden or relied
on here are pinned by tests/agents/test_smol_pin.py.
"""
from __future__ import annotations

import asyncio
import contextvars
import functools
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Coroutine

from harness.agent import (
    AgentConfig,
    BaseAgent,
    BudgetExhaustedError,
    EpisodeInfo,
    FinalAnswer,
    MemoryMode,
    NoToolReason,
    NoToolStep,
    Observation,
    ProviderError,
    TokenUsage,
    ToolCall,
    ToolCalls,
    TurnContext,
    TurnView,
    is_placeholder_answer,
)
from harness.chat_body import ChatBody
from harness.code_jail import SessionLimits
from harness.provider import call_with_retries_sync

from ._answers import answer_value_text, code_blocks, last_chance_answer, no_tool_reason, read_reply
from ._endpoint import (
    api_key,
    carries_images,
    decoding_kwargs,
    preflight_endpoint,
    retry_policy,
    tool_choice_field,
    with_fix,
)
from ._memory import digest_earlier_turns
from ._prompt import (
    CODE_STYLE,
    TOOL_STYLE,
    AnswerStyle,
    fallback_prompt,
    no_tool_feedback,
    observation_text,
    system_prompt,
    turn_message_text,
)
from ._wire import finish_reason, first_message, function_calls, plain_text_content, post_chat_sdk, token_counts
from ._smol_tools import make_smol_tools

AUTHORIZED_IMPORTS = ["math", "statistics", "json", "re"]
CODE_TIMEOUT_S = 20  # wall-clock and CPU seconds of one code step (agent_config.extra code_timeout_s)
CODE_MEMORY_MB = 1024  # memory of the episode's jailed interpreter (agent_config.extra code_memory_mb)
# smolagents' own step limit, set out of reach: the harness's budget ends the loop (begin_step refuses
# a model request past it), so smolagents' provide_final_answer never runs.
OUT_OF_REACH_STEPS = 1_000_000
_IMAGE_TOKENS = 800
_HANDOVER_CHARS = 4000
_QUIET = -1  # smolagents' LogLevel.OFF: everything is in the trace, nothing on the console



# A smolagents turn holds its thread for the whole turn while its tool calls come back to the event loop, and the tools
# (the sandbox's search, PDF parsing) use asyncio's default thread pool. Turns in that same pool (min(32, CPUs + 4)
# threads: 6 on two cores) would take every thread at 6 concurrent episodes and the tools would wait for ever: turns
# get their own threads (made as needed, up to the largest concurrency a run may have).
_TURN_THREADS = ThreadPoolExecutor(max_workers=256, thread_name_prefix="smol-turn")


async def _in_turn_thread(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """`asyncio.to_thread` on the turn threads (the context variables go along, as to_thread does)."""
    ctx = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(_TURN_THREADS, functools.partial(ctx.run, func, *args, **kwargs))

class _Bridge:
    """The thread-safe way from the smolagents worker thread back to the turn's context on the event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, images: bool = True):
        self.loop = loop
        self.images = images  # tool images go to the model (False: a text-only run)
        self.ctx: TurnContext | None = None
        self.in_loop = False  # inside agent.run: every model request opens a model step
        self.provider_error: ProviderError | None = None
        self.step_images: list[str] = []
        self.step_calls = 0  # harness tool calls of the current smolagents step
        self.step_requested = False  # the current step's model request was made
        self.text_answer: str | None = None  # a `Final answer:` line smolagents itself would not take
        self.code_tools: list[str] = []  # tools callable from code during agent.run (CodeAgent sends no schema)

    def _run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        fut: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return fut.result()

    def _on_loop(self, fn: Callable[[], Any]) -> Any:
        async def call() -> Any:
            return fn()

        return self._run(call())

    @property
    def _ctx(self) -> TurnContext:
        assert self.ctx is not None, "no turn is running"
        return self.ctx

    def begin_step(self) -> None:
        self._on_loop(self._ctx.begin_step)

    def exhausted(self) -> bool:
        ctx = self._ctx
        return bool(self._on_loop(lambda: ctx.exhausted))

    def view(self) -> TurnView:
        ctx = self._ctx
        view: TurnView = self._on_loop(lambda: ctx.view)
        return view

    def call_tool(self, name: str, args: dict[str, Any], raw_arguments: str | None = None) -> Observation:
        self.step_calls += 1
        obs: Observation = self._run(self._ctx.call_tool(name, args, raw_arguments=raw_arguments))
        if self.images:
            self.step_images += [im.path for im in obs.images if Path(im.path).is_file()]
        return obs

    def no_tool_step(self, step: NoToolStep) -> None:
        ctx = self._ctx
        self._on_loop(lambda: ctx.no_tool_step(step))

    def record_model_call(self, **kw: Any) -> None:
        ctx = self._ctx
        self._on_loop(lambda: ctx.record_model_call(**kw))

    def record_retry(self, attempt: int, error: str, wait_s: float) -> None:
        ctx = self._ctx
        self._on_loop(lambda: ctx.record_retry(attempt, error, wait_s))

    def model_slot(self) -> None:
        self._run(self._ctx.model_slot())


def _make_recording_model(config: AgentConfig, bridge: _Bridge) -> Any:
    """An OpenAIServerModel whose requests open harness steps, go through our retries and land in the trace."""
    from smolagents import OpenAIServerModel
    from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction
    from smolagents.models import TokenUsage as SmolTokenUsage

    policy = retry_policy(config)

    class RecordingModel(OpenAIServerModel):  # type: ignore[misc]
        def generate(self, messages: list[Any], stop_sequences: list[str] | None = None,
                     response_format: dict[str, str] | None = None, tools_to_call_from: list[Any] | None = None,
                     **kwargs: Any) -> Any:
            if bridge.in_loop:
                bridge.begin_step()  # BudgetExhaustedError past the budget: no request is made
            completion_kwargs = self._prepare_completion_kwargs(
                messages=messages, stop_sequences=stop_sequences, response_format=response_format,
                tools_to_call_from=tools_to_call_from, model=self.model_id,
                custom_role_conversions=self.custom_role_conversions, convert_images_to_image_urls=True,
                tool_choice=tool_choice_field(config).get("tool_choice"), **kwargs,
            )
            # strings where there is no image: the shape every server takes (smolagents sends parts everywhere)
            completion_kwargs["messages"] = plain_text_content(completion_kwargs["messages"])
            # the exact bytes sent, built once: no SDK transform walking the conversation
            body = ChatBody.from_request(completion_kwargs)
            bridge.model_slot()
            latency = [0.0]  # of the attempt that answered; failed attempts are recorded apart
            offered = ([t.name for t in tools_to_call_from if t.name != "final_answer"]
                       if tools_to_call_from else list(bridge.code_tools))

            def post() -> dict[str, Any]:
                t0 = time.perf_counter()
                completion = post_chat_sdk(self.client, body)
                latency[0] = time.perf_counter() - t0
                return completion

            def failed(error: str, seconds: float) -> None:  # the body of an attempt that failed goes in the trace too
                bridge.record_model_call(model=self.model_id, request=None, body=body, response=None,
                                         usage=TokenUsage(), latency_s=seconds, tools_offered=offered, error=error)

            try:
                resp = call_with_retries_sync(post, policy, bridge.record_retry, failed)
            except ProviderError as e:
                bridge.provider_error = with_fix(e, completion_kwargs.get("tool_choice"),
                                                 carries_images(completion_kwargs["messages"]))
                raise bridge.provider_error from e
            bridge.step_requested = True
            prompt_tokens, completion_tokens = token_counts(resp)
            tokens = TokenUsage(input_tokens=prompt_tokens, output_tokens=completion_tokens)
            bridge.record_model_call(
                model=self.model_id, request=None, body=body, response=resp,
                usage=tokens, latency_s=latency[0], tools_offered=offered,
            )
            msg = first_message(resp) or {}
            calls = [ChatMessageToolCall(id=c["id"], type="function", function=ChatMessageToolCallFunction(
                         name=c["function"]["name"], arguments=c["function"]["arguments"]))
                     for c in function_calls(msg)]
            return ChatMessage(
                role="assistant", content=msg.get("content") or "", tool_calls=calls or None, raw=resp,
                token_usage=SmolTokenUsage(input_tokens=tokens.input_tokens, output_tokens=tokens.output_tokens),
            )

    return RecordingModel(
        model_id=config.model or "default", api_base=config.base_url, api_key=api_key(config),
        client_kwargs={"timeout": config.request_timeout_s, "max_retries": 0}, retry=False, **decoding_kwargs(config),
    )


def _estimate_tokens(messages: list[Any]) -> int:
    n = 0
    for m in messages:
        for part in m.content if isinstance(m.content, list) else [{"type": "text", "text": str(m.content or "")}]:
            n += _IMAGE_TOKENS if part.get("type") == "image" else len(str(part.get("text", ""))) // 4
    return n


class _SmolAgentBase(BaseAgent):
    """What both smolagents agents share: the bridge, the per-episode agent, the turns without tools."""

    name = "smol"
    memory_modes: tuple[MemoryMode, ...] = ("conversation", "summary")
    style: AnswerStyle = TOOL_STYLE
    code_tags: tuple[str, str] = ("<code>", "</code>")

    def __init__(self, config: AgentConfig):
        self.config = config
        self._agent: Any = None
        self._bridge: _Bridge | None = None
        self._model: Any = None
        self._compacted_for = 0  # the turn whose earlier turns were last compacted (or digested at hand-over)
        self._opened = 0  # the last turn whose opening message went into the agent's memory
        self._refused_ids: list[str | None] = []  # calls of the last reply in a turn without tools

    async def preflight(self) -> None:
        """Before the run: a model name, an API key and a reachable endpoint (ValueError otherwise)."""
        await preflight_endpoint(self.config)

    async def start_episode(self, info: EpisodeInfo) -> None:
        self._bridge = _Bridge(asyncio.get_running_loop(), images=self.config.images)
        self._model = _make_recording_model(self.config, self._bridge)
        self._agent = self._build(make_smol_tools(info.tools, self._bridge.call_tool, images=self.config.images))
        self._compacted_for, self._opened = 0, 0

    async def end_episode(self) -> None:
        if isinstance(self, SmolCodeAgent) and self._agent is not None:
            self._agent.cleanup()  # the code executor's resources
        self._agent = None

    def _build(self, tools: list[Any]) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def owns_turn(self, view: TurnView) -> bool:
        return bool(view.tools)  # tool turns run smolagents' own loop; turns without tools are single requests

    # -- what the model sees after each step --------------------------------------------------
    def _classify(self, step: Any) -> tuple[NoToolReason, str]:
        """Why a smolagents step called no tool, and anything to add for the model."""
        from smolagents.utils import AgentExecutionError, AgentParsingError

        text = self._reply_text(step)
        reading = read_reply(text, self.code_tags)
        reason, detail = no_tool_reason(text, finish_reason(getattr(step.model_output_message, "raw", None)), reading)
        if reason in ("over_long", "empty") or is_placeholder_answer(reading.answer):
            return reason, detail
        if isinstance(step.error, AgentParsingError):
            return ("unparseable" if text.lstrip().startswith("{") else "plan"), ""
        if isinstance(step.error, AgentExecutionError):
            return ("code_error" if isinstance(self, SmolCodeAgent) else "other"), ""
        if step.error is None and isinstance(self, SmolCodeAgent):
            return "code_without_tool", ""
        return "other", ""

    def _step_callback(self, memory_step: Any, agent: Any = None) -> None:
        """After each smolagents step: its tool images once, a report of a step without a tool call (and the
        reminder the model sees next), and an interrupt as soon as the harness's budget is used up."""
        bridge = self._bridge
        assert bridge is not None
        paths, bridge.step_images = bridge.step_images, []
        if paths:
            from PIL import Image

            memory_step.observations_images = [Image.open(p).convert("RGB") for p in paths]
        else:
            memory_step.observations_images = None  # smolagents repeats the task's images on every step
        if bridge.step_requested and bridge.step_calls == 0 and not memory_step.is_final_answer:
            if (answer := self._text_answer(memory_step)) is not None:  # an answer in a form smolagents skips
                bridge.text_answer, bridge.step_calls, bridge.step_requested = answer, 0, False
                memory_step.error = None  # later turns must not read that their accepted answer failed to parse
                if self._agent is not None:
                    self._agent.interrupt()
                return
            reason, detail = self._classify(memory_step)
            feedback = no_tool_feedback(bridge.view(), reason, self.style, detail)
            memory_step.observations = f"{memory_step.observations}\n{feedback}" if memory_step.observations else feedback
            bridge.no_tool_step(NoToolStep(reason=reason, reply=self._reply_text(memory_step) or None, feedback=feedback))
        bridge.step_calls, bridge.step_requested = 0, False
        if (bridge.exhausted() or self._jail_broken() is not None) and self._agent is not None:
            self._agent.interrupt()

    def _jail_broken(self) -> Exception | None:
        """Why the jail the code runs in could not be (re)started, if it could not: the episode ends with it."""
        return getattr(getattr(self._agent, "python_executor", None), "broken", None)

    def _reply_text(self, step: Any) -> str:
        """What the model wrote in a step, without the closing code tag the CodeAgent appends to every reply."""
        text = step.model_output if isinstance(step.model_output, str) else ""
        opening, closing = self.code_tags
        if text.rstrip().endswith(closing) and opening not in text:
            text = text.rstrip()[: -len(closing)]
        return text

    def _text_answer(self, step: Any) -> str | None:
        """A `Final answer:` line (or the final-answer tool call written as JSON) in a reply smolagents could not
        parse: an answer for the harness, whatever the framework's own format."""
        from smolagents.utils import AgentParsingError

        if not isinstance(step.error, AgentParsingError):
            return None
        reading = read_reply(self._reply_text(step), self.code_tags)
        if is_placeholder_answer(reading.answer):
            return None  # the instructions' placeholder repeated: no answer (the step is reported as such)
        return reading.answer if reading.form in ("line", "tool_text") else None

    # -- memory ---------------------------------------------------------------------------------
    def _maybe_compact(self, ctx: TurnContext) -> None:
        """At a turn's start: a digest of turns another agent played (hand-over), or summary memory."""
        from smolagents.memory import TaskStep

        view, agent = ctx.view, self._agent
        if self._compacted_for == view.turn or not view.history:
            return
        handover = not agent.memory.steps
        if not handover and self.config.memory_mode != "summary":
            return
        cap = self.config.context_tokens
        if not handover and cap is not None and _estimate_tokens(agent.write_memory_to_messages()) <= cap:
            return
        code = isinstance(self, SmolCodeAgent)
        note = "Variables from your earlier code are cleared." if code and not handover else ""
        digest = digest_earlier_turns(view, chars=_HANDOVER_CHARS if handover else self.config.summary_chars, note=note)
        agent.memory.steps = [TaskStep(task=digest.text)]
        if code and not handover:
            agent.python_executor.clear_variables()
        self._compacted_for = view.turn
        ctx.record_memory(digest.compaction)

    def _push(self, *, task: str | None = None, reply: str | None = None, feedback: str | None = None) -> None:
        """Keep a turn without tools in the agent's memory, so later turns see it."""
        from smolagents.memory import ActionStep, TaskStep
        from smolagents.monitoring import Timing

        if task is not None:
            self._agent.memory.steps.append(TaskStep(task=task))
        if reply is not None or feedback is not None:
            self._agent.memory.steps.append(ActionStep(step_number=0, timing=Timing(start_time=time.time()),
                                                       model_output=reply, observations=feedback))

    # -- tool turns: smolagents' loop under the harness's budget ----------------------------------
    async def run_turn(self, ctx: TurnContext) -> FinalAnswer:
        assert self._bridge is not None and self._agent is not None, "start_episode was not called"
        bridge, agent, view = self._bridge, self._agent, ctx.view
        bridge.ctx, bridge.provider_error, bridge.step_images = ctx, None, []
        bridge.step_calls, bridge.step_requested, bridge.text_answer = 0, False, None
        bridge.code_tools = view.tool_names if isinstance(self, SmolCodeAgent) else []
        self._maybe_compact(ctx)
        images = []
        if view.cue_image and self.config.images and Path(view.cue_image).is_file():
            from PIL import Image

            images.append(Image.open(view.cue_image).convert("RGB"))
        first_run = not agent.memory.steps
        self._opened = view.turn
        bridge.in_loop = True
        try:
            output = await _in_turn_thread(agent.run, turn_message_text(view, self.style, image_attached=bool(images)),
                                           reset=first_run,
                                           images=images or None, max_steps=OUT_OF_REACH_STEPS)
        except Exception as e:
            if bridge.provider_error is not None:
                raise bridge.provider_error from e
            if (broken := self._jail_broken()) is not None:
                raise broken from e
            if bridge.text_answer is not None:
                return FinalAnswer(answer=bridge.text_answer, reasoning=bridge.text_answer)
            if ctx.exhausted:
                self._drop_unanswered_step()
                raise BudgetExhaustedError(str(e)) from e
            raise
        finally:
            bridge.in_loop, bridge.code_tools = False, []
        if bridge.provider_error is not None:  # smolagents swallowed it in a step
            raise bridge.provider_error
        text = answer_value_text(output)
        return FinalAnswer(answer=text, reasoning=text)

    def _drop_unanswered_step(self) -> None:
        """A step whose model request the budget refused leaves an error step in smolagents' memory: drop it."""
        from smolagents.utils import AgentGenerationError

        steps = self._agent.memory.steps
        while steps and isinstance(getattr(steps[-1], "error", None), AgentGenerationError):
            steps.pop()

    # -- turns without tools: one plain request per step ----------------------------------------
    async def _plain_request(self, ctx: TurnContext) -> Any:
        """One request without tools, built from the agent's memory under a system prompt that names no tool."""
        from smolagents.models import ChatMessage, MessageRole

        bridge, view = self._bridge, ctx.view
        assert bridge is not None
        bridge.ctx, bridge.provider_error, bridge.code_tools, bridge.in_loop = ctx, None, [], False
        if self._opened != view.turn:
            self._maybe_compact(ctx)
            self._opened = view.turn
            if not view.fallback:
                self._push(task=turn_message_text(view, self.style, image_attached=False))
        if view.fallback:
            self._push(task=fallback_prompt(view, self.style))
        no_tools = ChatMessage(role=MessageRole.SYSTEM,
                               content=[{"type": "text", "text": system_prompt(self.style.final_instruction)}])
        messages = [no_tools] + [m for m in self._agent.write_memory_to_messages() if m.role != MessageRole.SYSTEM]
        return await asyncio.to_thread(self._model.generate, messages)

    async def step(self, ctx: TurnContext) -> ToolCalls | FinalAnswer | NoToolStep:
        """A turn without tools (memory-only for smol-tools, the fallback for both): one request per step."""
        assert self._bridge is not None and self._agent is not None, "start_episode was not called"
        view = ctx.view
        self._show_refusals(view)
        reply = await self._plain_request(ctx)
        text = reply.content if isinstance(reply.content, str) else str(reply.content or "")
        if view.fallback:
            self._push(reply=text)
            answer = await self._fallback_answer(text)
            return FinalAnswer(answer=answer, reasoning=text or "empty reply to the final request")
        calls = self._native_calls(reply)
        if isinstance(calls, FinalAnswer):
            self._push(reply=text or calls.answer)
            return calls
        if calls is not None:  # a tool asked for in a turn without tools: the session refuses it, a step
            self._push(reply=text or f"(called {', '.join(c.tool for c in calls.calls)})")
            self._refused_ids = [c.call_id for c in calls.calls]
            return calls
        reading = read_reply(text, self.code_tags)
        if reading.answer is not None and not is_placeholder_answer(reading.answer):
            self._push(reply=text)
            return FinalAnswer(answer=reading.answer, reasoning=text)
        return self._no_tool(view, text, *no_tool_reason(text, finish_reason(reply.raw), reading))

    def _show_refusals(self, view: TurnView) -> None:
        """What the session said about the calls of the last reply (a turn without tools refuses them)."""
        if not self._refused_ids:
            return
        said = [observation_text(o, images=self.config.images) for o in view.memory
                if o.turn == view.turn and o.call_id in self._refused_ids]
        self._refused_ids = []
        self._push(feedback="\n".join(said + [f"No tools can be called in this turn: {self.style.without_tools}."]))

    def _no_tool(self, view: TurnView, text: str, reason: NoToolReason, detail: str) -> NoToolStep:
        feedback = no_tool_feedback(view, reason, self.style, detail)
        self._push(reply=text, feedback=feedback)
        return NoToolStep(reason=reason, reply=text or None, feedback=feedback)

    def _native_calls(self, reply: Any) -> ToolCalls | FinalAnswer | None:
        """Function calls the server returned anyway (none were offered): final_answer answers, others are refused."""
        import json

        out = []
        for tc in reply.tool_calls or []:
            fn = tc.function
            raw = fn.arguments if isinstance(fn.arguments, str) else json.dumps(fn.arguments)
            try:
                args = json.loads(raw) if raw.strip() else {}
            except json.JSONDecodeError:
                args = None
            if fn.name == "final_answer":
                value = args.get("answer") if isinstance(args, dict) else raw
                return FinalAnswer(answer=answer_value_text(value), reasoning=raw)
            out.append(ToolCall(tool=fn.name, args=args, call_id=tc.id) if isinstance(args, dict)
                       else ToolCall(tool=fn.name, raw_arguments=raw, call_id=tc.id))
        return ToolCalls(calls=out) if out else None

    async def _fallback_answer(self, text: str) -> str | None:
        """The answer of the fallback reply: any marker, else the last line of its prose."""
        return last_chance_answer(text, self.code_tags)


class SmolCodeAgent(_SmolAgentBase):
    """smolagents CodeAgent: the model writes Python that calls the tools; run by smolagents' executor in the jail."""

    name = "smol-code"
    style = CODE_STYLE
    # True only where smol-code is itself an agent program in the bridge's sandbox (harness.bridge.host): the
    # model's code runs in this process with smolagents' own executor, that sandbox being its confinement (a
    # jail cannot start inside it). Never a setting: in the harness's process the code always runs in the jail.
    run_code_here = False

    async def preflight(self) -> None:
        """Before the run: the endpoint, and the jail the model's code runs in (ValueError saying what to install)."""
        self._limits()
        await super().preflight()
        from ._smol_jail import jail_unavailable

        if (why := await asyncio.to_thread(jail_unavailable)) is not None:
            raise ValueError(f"smol-code runs the model's code in the jail, which cannot run here: {why}")

    def _limits(self) -> SessionLimits:
        """The code's limits from agent_config.extra (ValueError naming the field if one is not a positive number)."""
        extra, values = self.config.extra, {}
        for key, default, cast in (("code_timeout_s", CODE_TIMEOUT_S, float), ("code_memory_mb", CODE_MEMORY_MB, int)):
            raw = extra.get(key, default)
            try:
                values[key] = cast(raw)
            except (TypeError, ValueError):
                values[key] = 0
            if isinstance(raw, bool) or not values[key] > 0:
                raise ValueError(f"agent_config.extra.{key} must be a positive number, not {raw!r}")
        step_s = values["code_timeout_s"]
        return SessionLimits(wall_seconds=step_s, cpu_seconds=step_s, memory_mb=int(values["code_memory_mb"]))

    def _build(self, tools: list[Any]) -> Any:
        from smolagents import CodeAgent

        if self.run_code_here:
            from smolagents.local_python_executor import LocalPythonExecutor

            executor = LocalPythonExecutor(list(AUTHORIZED_IMPORTS),
                                           timeout_seconds=max(1, int(self._limits().wall_seconds)))
        else:
            from ._smol_jail import executor_class

            executor = executor_class()(list(AUTHORIZED_IMPORTS), limits=self._limits())
        try:
            agent = CodeAgent(
                tools=tools, model=self._model, additional_authorized_imports=list(AUTHORIZED_IMPORTS), executor=executor,
                instructions=system_prompt(CODE_STYLE.final_instruction), verbosity_level=_QUIET,
                step_callbacks=[self._step_callback], max_steps=OUT_OF_REACH_STEPS,
            )
        except Exception:
            executor.cleanup()  # the episode's jail goes with the agent that failed to build
            raise
        self.code_tags = tuple(agent.code_block_tags)  # type: ignore[assignment]
        return agent

    def owns_turn(self, view: TurnView) -> bool:
        return True  # tool turns: smolagents' loop; memory-only turns: a loop of plain requests whose code runs

    async def run_turn(self, ctx: TurnContext) -> FinalAnswer:
        if ctx.view.tools:
            return await super().run_turn(ctx)
        return await self._memory_turn(ctx)

    async def _memory_turn(self, ctx: TurnContext) -> FinalAnswer:
        """A turn without tools: each reply's code runs (a tool it calls reaches the session, which refuses it
        and counts the step); the loop ends at final_answer or when the harness's budget says so."""
        assert self._bridge is not None and self._agent is not None, "start_episode was not called"
        bridge = self._bridge
        while True:
            ctx.begin_step()  # BudgetExhaustedError ends the turn: the runner makes the fallback request
            reply = await self._plain_request(ctx)
            view = ctx.view
            text = reply.content if isinstance(reply.content, str) else str(reply.content or "")
            bridge.step_calls = 0
            outcome = await self._run_code(text, with_tools=True)  # None: the reply has no code
            reading = read_reply(text, self.code_tags)
            if outcome is None and reading.answer is not None and not is_placeholder_answer(reading.answer):
                outcome = reading.answer  # `Final answer:` line or the final-answer tool call written as text
            if isinstance(outcome, str):
                self._push(reply=text)
                return FinalAnswer(answer=outcome, reasoning=text)
            reason, detail = outcome or no_tool_reason(text, finish_reason(reply.raw), reading)
            if bridge.step_calls == 0:
                ctx.no_tool_step(self._no_tool(ctx.view, text, reason, detail))
            else:  # the code called tools; the session refused and counted them, their results are in the logs
                self._push(reply=text, feedback=f"{detail}\nNo tools can be called in this turn: {self.style.without_tools}.")
            if ctx.exhausted:
                raise BudgetExhaustedError("the turn's budget is used up")

    async def _run_code(self, text: str, *, with_tools: bool) -> str | tuple[NoToolReason, str] | None:
        """Run a reply's code: the value it gave final_answer, or why it gave none (None: no code at all)."""
        blocks = code_blocks(text, self.code_tags)
        if not blocks:
            return None
        from smolagents.local_python_executor import fix_final_answer_code

        agent = self._agent
        executor = agent.python_executor
        executor.send_tools(dict(agent.tools) if with_tools else {"final_answer": agent.tools["final_answer"]})

        def run() -> Any:
            return executor(fix_final_answer_code("\n".join(blocks)))

        try:
            out = await _in_turn_thread(run)
        except BudgetExhaustedError:
            raise
        except Exception as e:  # the model's code failed: shown to the model, a step
            if (broken := self._jail_broken()) is not None:
                raise broken from e
            return "code_error", f"Error: {e}"
        if out.is_final_answer:
            return answer_value_text(out.output) or ""
        return "code_without_tool", f"Execution logs:\n{out.logs}\nLast output: {out.output}"

    async def _fallback_answer(self, text: str) -> str | None:
        """The fallback reply's answer: a literal marker, the value its code gives final_answer (no tool can be
        called), else the last line of its prose."""
        reading = read_reply(text, self.code_tags)
        if reading.answer is not None:
            return reading.answer
        if reading.code is not None:
            outcome = await self._run_code(text, with_tools=False)
            return outcome if isinstance(outcome, str) else None
        return last_chance_answer(text, self.code_tags)


class SmolToolCallingAgent(_SmolAgentBase):
    """smolagents ToolCallingAgent: function calling; every call (even to unknown tools) reaches the session."""

    name = "smol-tools"
    style = TOOL_STYLE

    def _build(self, tools: list[Any]) -> Any:
        from ._smol_tools import harness_tool_calling_agent_class

        cls = harness_tool_calling_agent_class()
        assert self._bridge is not None
        return cls(
            tools=tools, model=self._model, instructions=system_prompt(TOOL_STYLE.final_instruction), verbosity_level=_QUIET,
            step_callbacks=[self._step_callback], harness_call=self._bridge.call_tool, harness_images=self.config.images,
            max_steps=OUT_OF_REACH_STEPS,
            max_tool_threads=1,  # parallel calls run in the order the model gave them: steps and trace stay in order
        )

