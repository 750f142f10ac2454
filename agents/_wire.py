"""Sending a prebuilt chat body through the openai SDK's raw request path.

Why: `client.chat.completions.create(messages=...)` runs the SDK's request transform over the whole
conversation on every request, which made a multi-turn run quadratic and cost a third of its time.
Here the body is bytes already (`harness.chat_body`), posted with the client's `post(..., content=)`,
so the SDK keeps what it is good at (base URL, auth headers, timeout, status errors mapped to its
exception types, which `_retry.classify` reads) and never walks the messages. The reply is read as
bytes and decoded once with `json`: the recorded response is exactly what the server sent.
"""
from __future__ import annotations

import json
from typing import Any

import openai

from harness.chat_body import ChatBody

_PATH = "/chat/completions"
_HEADERS = {"Content-Type": "application/json"}


def parse_completion(raw: bytes) -> dict[str, Any]:
    """A chat completion as JSON data; an unreadable body raises JSONDecodeError (retried as a cut-off body)."""
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise json.JSONDecodeError(f"a chat completion must be a JSON object, got {type(data).__name__}", raw.decode("utf-8", "replace"), 0)
    return data


async def post_chat(client: openai.AsyncOpenAI, body: ChatBody) -> dict[str, Any]:
    """POST the body's exact bytes to /chat/completions; the decoded completion."""
    raw = await client.post(_PATH, cast_to=bytes, content=body.encode(), options={"headers": _HEADERS})
    return parse_completion(raw)


def post_chat_sync(client: openai.OpenAI, body: ChatBody) -> dict[str, Any]:
    """The same for a synchronous client (smolagents runs in a worker thread)."""
    raw = client.post(_PATH, cast_to=bytes, content=body.encode(), options={"headers": _HEADERS})
    return parse_completion(raw)


def first_message(completion: dict[str, Any]) -> dict[str, Any] | None:
    """The first choice's message, or None when the completion has no choices."""
    choices = completion.get("choices") or []
    if not choices or not isinstance(choices[0], dict):
        return None
    msg = choices[0].get("message")
    return msg if isinstance(msg, dict) else {}


def function_calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The message's function tool calls as {id, type, function: {name, arguments}} (others dropped)."""
    out = []
    for tc in message.get("tool_calls") or []:
        fn = tc.get("function") if isinstance(tc, dict) else None
        if not isinstance(fn, dict):
            continue
        out.append({"id": tc.get("id") or "", "type": "function",
                    "function": {"name": fn.get("name") or "", "arguments": fn.get("arguments") or ""}})
    return out


def token_counts(completion: dict[str, Any]) -> tuple[int, int]:
    """(prompt tokens, completion tokens) from the completion's usage; zeros when absent."""
    usage = completion.get("usage") or {}
    if not isinstance(usage, dict):
        return 0, 0
    return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
