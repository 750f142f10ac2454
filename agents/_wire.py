"""Sending a prebuilt chat body: the exact bytes, with no SDK walking the conversation.

Why: `client.chat.completions.create(messages=...)` runs the openai SDK's request transform over the
whole conversation on every request, which made a multi-turn run quadratic and cost a third of its
time; importing the SDK alone costs a second of CPU per process. The OpenAI agent therefore posts
the body (`harness.chat_body`) with httpx itself (`ChatEndpoint`): bearer key, JSON content type,
the configured timeout, one connection pool per episode. A status of 400 and up raises
`harness.provider.EndpointStatusError` (with Retry-After), which `classify` there sorts like the SDK's own errors;
a body that is not a JSON object raises JSONDecodeError (retried as a cut-off body). smolagents
owns an SDK client, so its recording model posts the same bytes through the SDK's raw request path
(`post_chat_sdk`), which skips the transform too. The recorded response is what the server sent.
"""
from __future__ import annotations

import json
import ssl
import time
from typing import Any

import httpx

from harness.chat_body import ChatBody
from harness.provider import EndpointStatusError, error_message_of, retry_after

from ._endpoint import endpoint_url

_PATH = "/chat/completions"
_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}


def _error_message(resp: httpx.Response) -> str:
    try:
        data = resp.json()
    except ValueError:
        return resp.text[:300] or resp.reason_phrase
    said = error_message_of(data)
    return json.dumps(data)[:300] if said is None else said


def parse_completion(raw: bytes) -> dict[str, Any]:
    """A chat completion as JSON data; an unreadable body raises JSONDecodeError."""
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise json.JSONDecodeError(f"a chat completion must be a JSON object, got {type(data).__name__}",
                                   raw.decode("utf-8", "replace"), 0)
    return data


class ChatEndpoint:
    """An OpenAI-compatible /chat/completions endpoint spoken to with httpx: one per episode."""

    def __init__(self, base_url: str | None, api_key: str, timeout_s: float, verify: ssl.SSLContext | bool = True):
        self.url = endpoint_url(base_url) + _PATH
        self.last_latency_s = 0.0
        self._client = httpx.AsyncClient(
            headers={**_HEADERS, "Authorization": f"Bearer {api_key}"}, timeout=httpx.Timeout(timeout_s), verify=verify)

    async def post(self, body: ChatBody) -> dict[str, Any]:
        """POST the body's exact bytes; the decoded completion, or EndpointStatusError / an httpx error.
        `last_latency_s` is then the time of this attempt alone (not of the failed attempts before it). A request
        abandoned on its timeout has its connection closed by httpx, so the server sees the client leave."""
        t0 = time.perf_counter()
        resp = await self._client.post(self.url, content=body.encode())
        raw = await resp.aread()
        if resp.status_code >= 400:
            raise EndpointStatusError(resp.status_code, _error_message(resp), retry_after(resp.headers))
        completion = parse_completion(raw)
        self.last_latency_s = time.perf_counter() - t0
        return completion

    async def aclose(self) -> None:
        await self._client.aclose()


def post_chat_sdk(client: Any, body: ChatBody) -> dict[str, Any]:
    """POST through an openai SDK client's raw path (`post(..., content=)`): no transform of the messages."""
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


def finish_reason(completion: Any) -> str | None:
    """Why the first choice stopped (`stop`, `length`, `tool_calls`), when the completion says."""
    choices = completion.get("choices") if isinstance(completion, dict) else None
    if not choices or not isinstance(choices[0], dict):
        return None
    reason = choices[0].get("finish_reason")
    return reason if isinstance(reason, str) else None


def plain_text_content(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages whose content is a list of text parts only, as one string (the parts joined by newlines).

    A message stays a list of parts only where it carries an image: llama-cpp-python refuses a system
    message as parts, and a chat template without vision prints a part list into the prompt as text."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in content):
            m = {**m, "content": "\n".join(str(p.get("text", "")) for p in content)}
        out.append(m)
    return out


def token_counts(completion: dict[str, Any]) -> tuple[int, int]:
    """(prompt tokens, completion tokens) from the completion's usage; zeros when absent."""
    usage = completion.get("usage") or {}
    if not isinstance(usage, dict):
        return 0, 0
    return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
