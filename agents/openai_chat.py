"""An agent over any OpenAI-compatible chat endpoint, with function calling and image input.

Memory across turns is the conversation itself (kept for the whole episode). With
`memory_mode="summary"` and `context_tokens` set, once the conversation grows past that size the
earlier turns are replaced by a deterministic digest built from the episode memory (no extra model
call), and the current turn is kept verbatim.

Recoverable model mistakes go back to the model as observations and count as steps: tool
arguments that are not JSON, an unknown tool name (the tool session refuses it), an empty reply
(sent as a call to the non-tool `__empty_message__`, which the session refuses), and repeated
identical calls (annotated as repeats). The step budget then ends the turn by the usual rules.
"""
from __future__ import annotations

import functools
import json
import ssl
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai

from harness.agent import (
    AgentConfig,
    EpisodeInfo,
    FinalAnswer,
    Observation,
    TokenUsage,
    ToolCall,
    TurnContext,
    TurnView,
)

from ._endpoint import api_key, decoding_kwargs, preflight_endpoint, retry_policy
from ._prompt import (
    FINAL_NO_TOOL_SUFFIX,
    SYSTEM_PROMPT,
    clean_final_answer,
    image_data_url,
    memory_digest,
    observation_text,
    strip_data_urls,
    turn_message_text,
)
from ._retry import call_with_retries

EMPTY_MESSAGE_TOOL = "__empty_message__"
_IMAGE_TOKENS = 800  # rough cost of one image when estimating context size


@dataclass
class _PendingCall:
    """A tool call the model asked for, handed to the harness one at a time."""

    tool: str
    args: dict[str, Any]
    call_id: str | None  # None: a synthetic action (empty reply), answered with a user message
    note: str = ""  # prefix for the observation text (e.g. "arguments were not JSON")
    reasoning: str | None = None


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


@functools.lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext:
    """One TLS context for every episode's client: loading the CA store costs ~20 ms each time."""
    return ssl.create_default_context()


class OpenAIChatAgent:
    """Chat completions with function calling against `config.base_url` (OpenAI, vLLM, Ollama, ...)."""

    name = "openai"
    uses_gold = False

    def __init__(self, config: AgentConfig):
        self.config = config
        self.policy = retry_policy(config)
        self.send_images = bool(config.extra.get("images", True))
        self._client: openai.AsyncOpenAI | None = None
        self._reset()

    def _reset(self) -> None:
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT}]
        self._turn = 0
        self._turn_start = 1  # index in messages where the current turn begins
        self._queue: list[_PendingCall] = []
        self._awaiting: _PendingCall | None = None
        self._mem_seen = 0
        self._batch_images: list[str] = []
        self._calls_made: list[tuple[str, str, int]] = []  # (tool, args json, step) this turn

    async def preflight(self) -> None:
        """Before the run: a model name, an API key and a reachable endpoint (ValueError otherwise)."""
        await preflight_endpoint(self.config)

    def _get_client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            self._client = openai.AsyncOpenAI(
                base_url=self.config.base_url, api_key=api_key(self.config),
                timeout=self.config.request_timeout_s, max_retries=0,
                http_client=openai.DefaultAsyncHttpxClient(verify=_ssl_context()),
            )
        return self._client

    async def start_episode(self, info: EpisodeInfo) -> None:
        self._reset()
        self._get_client()

    async def end_episode(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    # -- the turn loop ---------------------------------------------------------------------
    async def step(self, ctx: TurnContext) -> ToolCall | FinalAnswer:
        view = ctx.view
        if view.turn != self._turn:
            self._open_turn(view)
        self._absorb_observation(view)
        if view.fallback:
            self._close_queue("not run: the step budget for this turn was used up")
            self._flush_images()
            self.messages.append({"role": "user", "content": FINAL_NO_TOOL_SUFFIX})
            reply = await self._request(ctx, with_tools=False)
            content = (reply or {}).get("content") or ""
            self.messages.append({"role": "assistant", "content": content})
            return FinalAnswer(answer=clean_final_answer(content), reasoning=content or "empty reply to the final request")
        if self._queue:
            return self._issue(self._queue.pop(0), view)
        self._flush_images()
        reply = await self._request(ctx, with_tools=bool(view.tools))
        return self._act_on(reply, view)

    def _open_turn(self, view: TurnView) -> None:
        self._turn = view.turn
        self._queue.clear()
        self._awaiting = None
        self._calls_made = []
        self._mem_seen = len(view.memory)
        if len(self.messages) == 1 and view.history:
            # turns played by someone else (replay hand-over): start from what they gathered
            self.messages.append({"role": "user", "content": memory_digest(view, per_obs_chars=4000)})
        self._turn_start = len(self.messages)
        text = turn_message_text(view)
        if view.cue_image and self.send_images and Path(view.cue_image).is_file():
            content: Any = [{"type": "text", "text": text},
                            {"type": "image_url", "image_url": {"url": image_data_url(view.cue_image)}}]
        else:
            content = text
        self.messages.append({"role": "user", "content": content})

    def _issue(self, call: _PendingCall, view: TurnView) -> ToolCall:
        self._awaiting = call
        self._mem_seen = len(view.memory)
        return ToolCall(tool=call.tool, args=call.args, reasoning=call.reasoning, call_id=call.call_id)

    def _absorb_observation(self, view: TurnView) -> None:
        """Turn the result of the last action into a message (tool message, or user message for synthetic ones)."""
        call = self._awaiting
        if call is None:
            return
        self._awaiting = None
        new = [o for o in view.memory[self._mem_seen:] if o.turn == view.turn]
        self._mem_seen = len(view.memory)
        obs: Observation | None = new[-1] if new else None
        text = observation_text(obs) if obs else "(no result was recorded for this call)"
        if obs is not None:
            key = (obs.tool, json.dumps(obs.args, sort_keys=True))
            earlier = [s for t, a, s in self._calls_made if (t, a) == key]
            if earlier and call.call_id is not None:
                text = f"Note: you already made this exact call at step {earlier[0]}; repeating it does not help.\n" + text
            self._calls_made.append((key[0], key[1], obs.step))
            if self.send_images:
                self._batch_images += [im.path for im in obs.images if Path(im.path).is_file()]
        if call.note:
            text = f"{call.note}\n{text}"
        if call.call_id is not None:
            self.messages.append({"role": "tool", "tool_call_id": call.call_id, "content": text})
        else:
            self.messages.append({"role": "user", "content": text})

    def _close_queue(self, reason: str) -> None:
        for call in self._queue:
            if call.call_id is not None:
                self.messages.append({"role": "tool", "tool_call_id": call.call_id, "content": reason})
        self._queue.clear()

    def _flush_images(self) -> None:
        """Images from tool results go in a user message after the tool messages (tool messages carry text only)."""
        if not self._batch_images:
            return
        parts: list[dict[str, Any]] = [{"type": "text", "text": "Images returned by the tool calls above:"}]
        parts += [{"type": "image_url", "image_url": {"url": image_data_url(p)}} for p in self._batch_images]
        self._batch_images = []
        self.messages.append({"role": "user", "content": parts})

    def _act_on(self, reply: dict[str, Any] | None, view: TurnView) -> ToolCall | FinalAnswer:
        content = (reply or {}).get("content") or ""
        tool_calls = (reply or {}).get("tool_calls") or []
        if not tool_calls and not content.strip():
            self.messages.append({"role": "assistant", "content": ""})
            note = ("Your last reply was empty (no text and no tool call); this counted as a step. "
                    "Call a tool, or reply with `Final answer: <answer>`.")
            return self._issue(_PendingCall(EMPTY_MESSAGE_TOOL, {}, None, note=note,
                                            reasoning="the model returned an empty message"), view)
        if not tool_calls:
            self.messages.append({"role": "assistant", "content": content})
            return FinalAnswer(answer=clean_final_answer(content), reasoning=content)
        self.messages.append({"role": "assistant", "content": content or None, "tool_calls": tool_calls})
        for tc in tool_calls:
            fn = tc.get("function") or {}
            raw = fn.get("arguments") or ""
            note = ""
            try:
                args = json.loads(raw) if raw.strip() else {}
                if not isinstance(args, dict):
                    raise ValueError("not an object")
            except (ValueError, TypeError):
                args = {"__raw__": raw}
                note = f"Your arguments for {fn.get('name')!r} were not a JSON object: {raw[:300]!r}"
            self._queue.append(_PendingCall(fn.get("name") or "", args, tc.get("id") or "", note=note,
                                            reasoning=content or None))
        return self._issue(self._queue.pop(0), view)

    # -- one model request -----------------------------------------------------------------
    def _maybe_summarize(self, view: TurnView) -> None:
        cap = self.config.context_tokens
        if self.config.memory_mode != "summary" or not cap or self._turn_start <= 1:
            return
        if _estimate_tokens(self.messages) <= cap:
            return
        digest = memory_digest(view)
        current = self.messages[self._turn_start:]
        self.messages = [self.messages[0], {"role": "user", "content": digest}] + current
        self._turn_start = 2

    async def _request(self, ctx: TurnContext, *, with_tools: bool) -> dict[str, Any] | None:
        view = ctx.view
        self._maybe_summarize(view)
        kwargs: dict[str, Any] = {"model": self.config.model or "default", "messages": self.messages,
                                  **decoding_kwargs(self.config)}
        if with_tools:
            kwargs["tools"] = _tool_schema(view)
        slot = getattr(ctx, "model_slot", None)
        if slot is not None:
            await slot()
        client = self._get_client()
        t0 = time.perf_counter()
        resp = await call_with_retries(lambda: client.chat.completions.create(**kwargs), self.policy, ctx.record_retry)
        latency = time.perf_counter() - t0
        usage = getattr(resp, "usage", None)
        ctx.record_model_call(
            model=self.config.model or "default",
            request=strip_data_urls(kwargs),  # type: ignore[arg-type]
            response=resp.model_dump(mode="json"),
            usage=TokenUsage(input_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                             output_tokens=getattr(usage, "completion_tokens", 0) or 0),
            latency_s=latency,
            tools_offered=view.tool_names if with_tools else [],
        )
        if not resp.choices:
            return None
        msg = resp.choices[0].message
        calls = [{"id": tc.id, "type": "function", "function": {"name": tc.function.name, "arguments": tc.function.arguments}}
                 for tc in (msg.tool_calls or []) if getattr(tc, "function", None) is not None]
        return {"content": msg.content, "tool_calls": calls}
