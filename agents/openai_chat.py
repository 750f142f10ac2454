"""An agent over any OpenAI-compatible chat endpoint, with function calling and image input.

Memory across turns is the conversation itself (kept for the whole episode). With
`memory_mode="summary"` earlier turns are replaced by a deterministic digest that says what was
dropped (agents._memory; at every new turn, or only once the conversation outgrows
`context_tokens`); the current turn stays verbatim and the trace records what the model still sees.

Each `step` is one model request, and its reply one model step: tool calls (all of them, one
ToolCalls action; arguments that are not JSON travel as `raw_arguments` and the session refuses
them), a final answer (a `Final answer:` line, or a `final_answer("...")` call in a code block), or
neither: an empty, over-long or unparseable reply or a plan is a NoToolStep, and the next request tells
the model what happened and the two ways to act. Repeated identical calls are annotated as repeats. The
harness's budget ends the turn; the fallback request restates the question without tools (in the same user
message as what the model was told about its last step, so two user messages never follow each other).

Wire shapes every common server accepts (llama.cpp, llama-cpp-python, vLLM, Ollama): a message is a plain
string unless it carries an image (then a list of parts), an assistant message with tool calls carries
`""` as content (never null), and `tool_choice` (`config.tool_choice`) goes with every request that offers
tools and with no other. `config.images` False sends no image and tells the model the image is not available.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.agent import (
    AgentConfig,
    BaseAgent,
    EpisodeInfo,
    FinalAnswer,
    MemoryMode,
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
from harness.chat_body import ChatBody, MessageEncoder
from harness.provider import call_with_retries

from ._answers import last_chance_answer, no_tool_reason, read_reply
from ._endpoint import (
    api_key,
    carries_images,
    decoding_kwargs,
    endpoint_url,
    preflight_endpoint,
    retry_policy,
    tls_context,
    tool_choice_field,
    with_fix,
)
from ._memory import digest_earlier_turns
from ._prompt import (
    SYSTEM_PROMPT,
    TEXT_STYLE,
    fallback_prompt,
    image_data_url,
    no_tool_feedback,
    observation_text,
    turn_message_text,
)
from ._wire import ChatEndpoint, finish_reason, first_message, function_calls, token_counts

_IMAGE_TOKENS = 800  # rough cost of one image when estimating context size
_HANDOVER_CHARS = 4000  # digest of turns another agent played: results cut to this many characters


def _tool_schema(view: TurnView) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in view.tools
    ]


def _estimate_tokens(messages: list[dict[str, Any]]) -> int:
    n = 0
    for m in messages:
        c = m.get("content")
        if isinstance(c, list):
            for part in c:
                n += _IMAGE_TOKENS if part.get("type") == "image_url" else len(part.get("text", "")) // 4
        elif isinstance(c, str):
            n += len(c) // 4
        n += len(json.dumps(m.get("tool_calls") or [])) // 4
    return n


def _parse_call(tc: dict[str, Any], reasoning: str | None) -> ToolCall:
    """One function call of a reply; arguments that are not a JSON object are kept as raw text."""
    fn = tc.get("function") or {}
    raw = fn.get("arguments") or ""
    try:
        args = json.loads(raw) if raw.strip() else {}
    except (ValueError, TypeError):
        args = None
    if isinstance(args, dict):
        return ToolCall(tool=fn.get("name") or "", args=args, reasoning=reasoning, call_id=tc.get("id") or "")
    return ToolCall(tool=fn.get("name") or "", raw_arguments=raw, reasoning=reasoning, call_id=tc.get("id") or "")


class OpenAIChatAgent(BaseAgent):
    """Chat completions with function calling against `config.base_url` (OpenAI, vLLM, Ollama, ...)."""

    name = "openai"
    memory_modes: tuple[MemoryMode, ...] = ("conversation", "summary")
    style = TEXT_STYLE

    def __init__(self, config: AgentConfig):
        self.config = config
        self.policy = retry_policy(config)
        self.send_images = config.images
        self._client: ChatEndpoint | None = None
        self._reset()

    def _reset(self) -> None:
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT}]
        self._turn = 0
        self._turn_start = 1  # index in messages where the current turn begins
        self._pending: list[ToolCall] = []  # the calls of the last reply, waiting for their results
        self._batch_images: list[str] = []
        self._calls_made: list[tuple[str, str, int]] = []  # (tool, args json, step) this turn
        self._compacted_for = 0  # the turn whose earlier turns were last compacted
        self._encoder = MessageEncoder()  # the episode's messages as JSON, each encoded once

    async def preflight(self) -> None:
        """Before the run: a model name, an API key and a reachable endpoint (ValueError otherwise)."""
        await preflight_endpoint(self.config)

    def _get_client(self) -> ChatEndpoint:
        if self._client is None:
            self._client = ChatEndpoint(self.config.base_url, api_key(self.config), self.config.request_timeout_s,
                                        verify=tls_context(endpoint_url(self.config.base_url)))
        return self._client

    async def start_episode(self, info: EpisodeInfo) -> None:
        self._reset()
        self._get_client()

    async def end_episode(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # -- the turn ---------------------------------------------------------------------------
    async def step(self, ctx: TurnContext) -> ToolCalls | FinalAnswer | NoToolStep:
        view = ctx.view
        if view.turn != self._turn:
            self._open_turn(ctx)
        self._absorb_results(view)
        self._flush_images()
        if view.fallback:
            self._say(fallback_prompt(view, self.style))
            reply = await self._request(ctx, with_tools=False)
            content = (reply or {}).get("content") or ""
            self.messages.append({"role": "assistant", "content": content})
            return FinalAnswer(answer=last_chance_answer(content), reasoning=content or "empty reply to the final request")
        reply = await self._request(ctx, with_tools=bool(view.tools))
        return self._act_on(reply, view)

    def _open_turn(self, ctx: TurnContext) -> None:
        view = ctx.view
        self._turn = view.turn
        self._pending, self._calls_made = [], []
        if len(self.messages) == 1 and view.history:
            # turns played by someone else (replay hand-over): start from a digest of what they gathered
            digest = digest_earlier_turns(view, chars=_HANDOVER_CHARS)
            self._say(digest.text)
            ctx.record_memory(digest.compaction)
            self._compacted_for = view.turn
        attach = bool(view.cue_image) and self.send_images and Path(view.cue_image or "").is_file()
        text = turn_message_text(view, self.style, image_attached=attach)
        if attach and view.cue_image:
            content: Any = [{"type": "text", "text": text},
                            {"type": "image_url", "image_url": {"url": image_data_url(view.cue_image)}}]
        else:
            content = text
        self._turn_start = len(self.messages) if self.messages[-1]["role"] != "user" else len(self.messages) - 1
        self._say(content)

    def _absorb_results(self, view: TurnView) -> None:
        """A tool message for every call of the last reply (refused and over-budget calls included)."""
        if not self._pending:
            return
        by_id = {o.call_id: o for o in view.memory if o.turn == view.turn and o.call_id is not None}
        for call in self._pending:
            obs: Observation | None = by_id.get(call.call_id)
            text = observation_text(obs, images=self.send_images) if obs else "(no result was recorded for this call)"
            if obs is not None and obs.counted:
                key = (obs.tool, obs.raw_arguments or json.dumps(obs.args, sort_keys=True))
                earlier = [s for t, a, s in self._calls_made if (t, a) == key]
                if earlier:
                    text = f"Note: you already made this exact call at step {earlier[0]}; repeating it does not help.\n" + text
                self._calls_made.append((key[0], key[1], obs.step))
                if self.send_images:
                    self._batch_images += [im.path for im in obs.images if Path(im.path).is_file()]
            self.messages.append({"role": "tool", "tool_call_id": call.call_id, "content": text})
        self._pending = []

    def _flush_images(self) -> None:
        """Images from tool results go in a user message after the tool messages (tool messages carry text only)."""
        if not self._batch_images:
            return
        parts: list[dict[str, Any]] = [{"type": "text", "text": "Images returned by the tool calls above:"}]
        parts += [{"type": "image_url", "image_url": {"url": image_data_url(p)}} for p in self._batch_images]
        self._batch_images = []
        self._say(parts)

    def _say(self, content: str | list[dict[str, Any]]) -> None:
        """A user message. One that follows another user message (a digest of earlier turns, images of tool
        results, the feedback on the turn's last step before the fallback request) joins it: chat templates
        such as Gemma's refuse two user messages in a row. The joined message gets a new value, never an
        edit in place (the message encoder recognises a sent message by identity)."""
        last = self.messages[-1] if len(self.messages) > 1 else None
        if last is None or last["role"] != "user":
            self.messages.append({"role": "user", "content": content})
            return
        old = last["content"]
        if isinstance(old, str) and isinstance(content, str):
            last["content"] = f"{old}\n\n{content}"
            return
        head = [{"type": "text", "text": old}] if isinstance(old, str) else list(old)
        tail = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        last["content"] = head + tail

    def _act_on(self, reply: dict[str, Any] | None, view: TurnView) -> ToolCalls | FinalAnswer | NoToolStep:
        content = (reply or {}).get("content") or ""
        tool_calls = (reply or {}).get("tool_calls") or []
        if tool_calls:
            # "" rather than null: llama-cpp-python refuses an assistant message whose content is null
            self.messages.append({"role": "assistant", "content": content, "tool_calls": tool_calls})
            self._pending = [_parse_call(tc, content or None) for tc in tool_calls]
            return ToolCalls(calls=self._pending)
        self.messages.append({"role": "assistant", "content": content})
        reading = read_reply(content)
        if reading.answer is not None and not is_placeholder_answer(reading.answer):
            return FinalAnswer(answer=reading.answer, reasoning=content)
        reason, detail = no_tool_reason(content, (reply or {}).get("finish_reason"), reading)
        feedback = no_tool_feedback(view, reason, self.style, detail)
        self._say(feedback)
        return NoToolStep(reason=reason, reply=content or None, feedback=feedback)

    # -- one model request -----------------------------------------------------------------
    def _maybe_compact(self, ctx: TurnContext) -> None:
        """Summary memory: replace earlier turns by a digest, every turn or once past `context_tokens`."""
        view = ctx.view
        if self.config.memory_mode != "summary" or not view.history or self._turn_start <= 1:
            return
        if self._compacted_for == view.turn:  # the current turn stays verbatim: nothing more to drop
            return
        cap = self.config.context_tokens
        if cap is not None and _estimate_tokens(self.messages) <= cap:
            return
        digest = digest_earlier_turns(view, chars=self.config.summary_chars)
        current = self.messages[self._turn_start:]
        self.messages = [self.messages[0]]
        self._say(digest.text)
        for m in current:  # the turn's opening user message joins the digest
            if m["role"] == "user":
                self._say(m["content"])
            else:
                self.messages.append(m)
        self._turn_start = 1
        self._compacted_for = view.turn
        ctx.record_memory(digest.compaction)

    async def _request(self, ctx: TurnContext, *, with_tools: bool) -> dict[str, Any] | None:
        view = ctx.view
        self._maybe_compact(ctx)
        fields: dict[str, Any] = {"model": self.config.model or "default", **decoding_kwargs(self.config)}
        if with_tools:
            fields["tools"] = _tool_schema(view)
            fields.update(tool_choice_field(self.config))
        # each message is encoded once per episode; the body is a join of bytes (no SDK walk of the history)
        body = ChatBody.build(fields, self._encoder.encode(self.messages))
        await ctx.model_slot()
        client = self._get_client()
        offered = view.tool_names if with_tools else []

        def failed(error: str, seconds: float) -> None:  # the body of an attempt that failed goes in the trace too
            ctx.record_model_call(model=self.config.model or "default", request=None, body=body, response=None,
                                  usage=TokenUsage(), latency_s=seconds, tools_offered=offered, error=error)

        try:
            resp = await call_with_retries(lambda: client.post(body), self.policy, ctx.record_retry, failed)
        except ProviderError as e:
            raise with_fix(e, fields.get("tool_choice"), carries_images(self.messages)) from e
        latency = client.last_latency_s  # the attempt that answered; failed attempts are recorded apart
        prompt_tokens, completion_tokens = token_counts(resp)
        ctx.record_model_call(
            model=self.config.model or "default",
            request=None,
            body=body,
            response=resp,
            usage=TokenUsage(input_tokens=prompt_tokens, output_tokens=completion_tokens),
            latency_s=latency,
            tools_offered=offered,
        )
        msg = first_message(resp)
        if msg is None:
            return None
        return {"content": msg.get("content"), "tool_calls": function_calls(msg), "finish_reason": finish_reason(resp)}
