"""smolagents agents (CodeAgent, ToolCallingAgent) whose tools call back into the harness tool session.

smolagents runs synchronously, so a turn runs in a worker thread (`asyncio.to_thread`) and every tool
call and every trace record is bridged back to the event loop, where the tool session lives. Budgets,
ablations and evidence accounting therefore hold exactly as for the other agents: the smolagents
tools are thin wrappers over `ctx.call_tool`. Code written by the model runs in smolagents'
LocalPythonExecutor (no `open`, only the imports listed in AUTHORIZED_IMPORTS, a time limit).

One smolagents agent lives for the whole episode; its memory carries evidence across turns.
Memory-only turns and the budget fallback are a single model request without tools.
"""
from __future__ import annotations

import asyncio
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Callable, Coroutine

from harness.agent import (
    AgentConfig,
    BudgetExhaustedError,
    EpisodeInfo,
    FinalAnswer,
    Observation,
    ProviderError,
    TokenUsage,
    ToolCall,
    ToolSpec,
    TurnContext,
)

from ._endpoint import api_key, decoding_kwargs, preflight_endpoint, retry_policy
from ._prompt import (
    FINAL_BY_CODE,
    FINAL_BY_TOOL,
    FINAL_NO_TOOL_SUFFIX,
    answer_instructions,
    system_prompt,
    clean_final_answer,
    memory_digest,
    strip_data_urls,
    turn_message_text,
)
from ._retry import call_with_retries_sync
from ._smol_tools import make_smol_tools

EMPTY_MESSAGE_TOOL = "__empty_message__"
AUTHORIZED_IMPORTS = ["math", "statistics", "json", "re"]
CODE_TIMEOUT_S = 20


class _Bridge:
    """The thread-safe way from the smolagents worker thread back to the turn's context on the event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.ctx: TurnContext | None = None
        self.budget_hit = False
        self.provider_error: ProviderError | None = None
        self.step_images: list[str] = []
        self.code_tools: list[str] = []  # tools callable from code during agent.run (CodeAgent sends no schema)
        self.on_budget_used: Callable[[], None] = lambda: None

    def _run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        fut: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return fut.result()

    def _on_loop(self, fn: Callable[[], Any]) -> Any:
        async def call() -> Any:
            return fn()

        return self._run(call())

    def call_tool(self, name: str, args: dict[str, Any]) -> Observation:
        assert self.ctx is not None
        ctx = self.ctx
        try:
            obs: Observation = self._run(ctx.call_tool(name, args))
        except BudgetExhaustedError:
            self.budget_hit = True
            self.on_budget_used()
            raise
        self.step_images += [im.path for im in obs.images if Path(im.path).is_file()]
        if ctx.view.budget_left <= 0:  # stop before the next model request, like the step agents
            self.budget_hit = True
            self.on_budget_used()
        return obs

    def record_model_call(self, **kw: Any) -> None:
        ctx = self.ctx
        assert ctx is not None
        self._on_loop(lambda: ctx.record_model_call(**kw))

    def record_retry(self, attempt: int, error: str, wait_s: float) -> None:
        ctx = self.ctx
        assert ctx is not None
        self._on_loop(lambda: ctx.record_retry(attempt, error, wait_s))

    def model_slot(self) -> None:
        slot = getattr(self.ctx, "model_slot", None)
        if slot is not None:
            self._run(slot())


def _make_recording_model(config: AgentConfig, bridge: _Bridge) -> Any:
    """An OpenAIServerModel whose requests go through our retries and land in the trace."""
    from smolagents import OpenAIServerModel
    from smolagents.models import ChatMessage, TokenUsage as SmolTokenUsage

    policy = retry_policy(config)

    class RecordingModel(OpenAIServerModel):  # type: ignore[misc]
        def generate(self, messages: list[Any], stop_sequences: list[str] | None = None,
                     response_format: dict[str, str] | None = None, tools_to_call_from: list[Any] | None = None,
                     **kwargs: Any) -> Any:
            completion_kwargs = self._prepare_completion_kwargs(
                messages=messages, stop_sequences=stop_sequences, response_format=response_format,
                tools_to_call_from=tools_to_call_from, model=self.model_id,
                custom_role_conversions=self.custom_role_conversions, convert_images_to_image_urls=True, **kwargs,
            )
            bridge.model_slot()
            t0 = time.perf_counter()
            try:
                resp = call_with_retries_sync(
                    lambda: self.client.chat.completions.create(**completion_kwargs), policy, bridge.record_retry
                )
            except ProviderError as e:
                bridge.provider_error = e
                raise
            usage = getattr(resp, "usage", None)
            tokens = TokenUsage(input_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                                output_tokens=getattr(usage, "completion_tokens", 0) or 0)
            bridge.record_model_call(
                model=self.model_id, request=strip_data_urls(completion_kwargs), response=resp.model_dump(mode="json"),
                usage=tokens, latency_s=time.perf_counter() - t0,
                tools_offered=([t.name for t in tools_to_call_from if t.name != "final_answer"]
                               if tools_to_call_from else list(bridge.code_tools)),
            )
            msg = resp.choices[0].message if resp.choices else None
            return ChatMessage(
                role="assistant", content=(msg.content if msg else None) or "",
                tool_calls=(msg.tool_calls if msg else None) or None, raw=resp,
                token_usage=SmolTokenUsage(input_tokens=tokens.input_tokens, output_tokens=tokens.output_tokens),
            )

    return RecordingModel(
        model_id=config.model or "default", api_base=config.base_url, api_key=api_key(config),
        client_kwargs={"timeout": config.request_timeout_s, "max_retries": 0}, retry=False, **decoding_kwargs(config),
    )


class _SmolAgentBase:
    """What both smolagents agents share: the bridge, the per-episode agent, the no-tool requests."""

    name = "smol"
    uses_gold = False
    final_instruction = FINAL_BY_TOOL

    def __init__(self, config: AgentConfig):
        self.config = config
        self._agent: Any = None
        self._bridge: _Bridge | None = None
        self._model: Any = None

    async def preflight(self) -> None:
        """Before the run: a model name, an API key and a reachable endpoint (ValueError otherwise)."""
        await preflight_endpoint(self.config)

    async def start_episode(self, info: EpisodeInfo) -> None:
        self._bridge = _Bridge(asyncio.get_running_loop())
        self._model = _make_recording_model(self.config, self._bridge)
        self._agent = None

    async def end_episode(self) -> None:
        if self._agent is not None and hasattr(self._agent, "cleanup"):
            self._agent.cleanup()
        self._agent = None

    def _build(self, tools: list[Any]) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _step_callback(self, memory_step: Any, agent: Any = None) -> None:
        """Show the images the tools returned in this step to the model (as smolagents observation images)."""
        bridge = self._bridge
        if bridge is None or not bridge.step_images:
            return
        from PIL import Image

        paths, bridge.step_images = bridge.step_images, []
        if hasattr(memory_step, "observations_images"):
            memory_step.observations_images = [Image.open(p).convert("RGB") for p in paths]

    def _ensure_agent(self, specs: list[ToolSpec]) -> Any:
        if self._agent is None:
            assert self._bridge is not None
            tools = make_smol_tools(specs, self._bridge.call_tool)
            self._agent = self._build(tools)
            agent = self._agent
            self._bridge.on_budget_used = agent.interrupt
        return self._agent

    async def run_turn(self, ctx: TurnContext) -> FinalAnswer:
        assert self._bridge is not None, "start_episode was not called"
        bridge = self._bridge
        bridge.ctx, bridge.budget_hit, bridge.provider_error, bridge.step_images = ctx, False, None, []
        bridge.code_tools = ctx.view.tool_names if isinstance(self, SmolCodeAgent) else []
        agent = self._ensure_agent(ctx.view.tools)
        view = ctx.view
        images = []
        if view.cue_image and Path(view.cue_image).is_file():
            from PIL import Image

            images.append(Image.open(view.cue_image).convert("RGB"))
        task = turn_message_text(view)
        first_run = not agent.memory.steps
        if first_run and view.history:  # turns played by someone else (replay hand-over)
            task = memory_digest(view, per_obs_chars=4000) + "\n\n" + task
        try:
            output = await asyncio.to_thread(
                agent.run, task, reset=first_run, images=images or None, max_steps=max(1, view.budget_left) + 2,
            )
        except Exception as e:
            bridge.code_tools = []
            if bridge.provider_error is not None:
                raise bridge.provider_error from e
            if bridge.budget_hit:
                raise BudgetExhaustedError(str(e)) from e
            raise
        if bridge.provider_error is not None:  # smolagents swallowed it while writing its own final answer
            raise bridge.provider_error
        text = None if output is None else str(output)
        return FinalAnswer(answer=clean_final_answer(text), reasoning=text)

    async def step(self, ctx: TurnContext) -> ToolCall | FinalAnswer:
        """A turn without tools (memory-only, or the budget fallback): exactly one request, no tools."""
        assert self._bridge is not None, "start_episode was not called"
        from smolagents.models import ChatMessage, MessageRole

        bridge = self._bridge
        bridge.ctx, bridge.provider_error, bridge.code_tools = ctx, None, []
        view = ctx.view
        if self._agent is not None:
            messages = self._agent.write_memory_to_messages()
        else:
            messages = [ChatMessage(role=MessageRole.SYSTEM,
                                    content=[{"type": "text", "text": system_prompt(self.final_instruction)}])]
        # the budget fallback restates the question, not the turn's opening (which would say "no tools in this turn")
        prompt = (f"Turn {view.turn}: {view.question}\n{answer_instructions(view.answer_spec)}" if view.fallback
                  else turn_message_text(view))
        if self._agent is None and view.history:
            prompt = memory_digest(view, per_obs_chars=4000) + "\n\n" + prompt
        empties = sum(1 for o in view.memory if o.turn == view.turn and o.tool == EMPTY_MESSAGE_TOOL)
        if empties:
            prompt += f"\nYour last {empties} repl{'y was' if empties == 1 else 'ies were'} empty; each counted as a step."
        if view.fallback:
            prompt += "\n" + FINAL_NO_TOOL_SUFFIX
        else:
            prompt += "\nReply with a last line `Final answer: <answer>`."
        messages.append(ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": prompt}]))
        assert self._model is not None
        reply = await asyncio.to_thread(self._model.generate, messages)
        text = reply.content if isinstance(reply.content, str) else str(reply.content or "")
        if self._agent is not None:  # keep the answer in the agent's memory for later turns
            from smolagents.memory import TaskStep

            self._agent.memory.steps.append(TaskStep(task=f"{prompt}\n(You answered: {text.strip()})"))
        if not text.strip() and not view.fallback:
            # an empty reply counts as a step (the session refuses the non-tool); the budget ends the turn
            return ToolCall(tool=EMPTY_MESSAGE_TOOL, args={}, reasoning="the model returned an empty message")
        return FinalAnswer(answer=clean_final_answer(text), reasoning=text or None)


class SmolCodeAgent(_SmolAgentBase):
    """smolagents CodeAgent: the model writes Python that calls the tools; run in LocalPythonExecutor."""

    name = "smol-code"
    final_instruction = FINAL_BY_CODE

    def _build(self, tools: list[Any]) -> Any:
        from smolagents import CodeAgent

        return CodeAgent(
            tools=tools, model=self._model, additional_authorized_imports=list(AUTHORIZED_IMPORTS),
            executor_type="local", executor_kwargs={"timeout_seconds": int(self.config.extra.get("code_timeout_s", CODE_TIMEOUT_S))},
            instructions=system_prompt(FINAL_BY_CODE), verbosity_level=0, step_callbacks=[self._step_callback],
        )


class SmolToolCallingAgent(_SmolAgentBase):
    """smolagents ToolCallingAgent: function calling; every call (even to unknown tools) reaches the session."""

    name = "smol-tools"

    def _build(self, tools: list[Any]) -> Any:
        from ._smol_tools import harness_tool_calling_agent_class

        cls = harness_tool_calling_agent_class()
        assert self._bridge is not None
        return cls(
            tools=tools, model=self._model, instructions=system_prompt(FINAL_BY_TOOL), verbosity_level=0,
            step_callbacks=[self._step_callback], harness_call=self._bridge.call_tool,
            max_tool_threads=1,  # parallel calls run in the order the model gave them: steps and trace stay in order
        )
