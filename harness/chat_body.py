"""A chat request body as the bytes sent: each message encoded to JSON once, the body put together from parts.

Why: re-serialising (or, worse, re-validating) the whole conversation on every request makes a run
quadratic in episode length. An agent keeps one `MessageEncoder` per episode, so each message is
encoded once, and the body is a join of byte strings. The trace stores the same parts by content
hash (`harness.trace_store`), so `epi trace export` rebuilds the body byte for byte.

Layout (fixed, so the parts determine the bytes): `{"messages":[<m1>,<m2>,...]` then the other fields
of the request as one JSON object whose opening brace is dropped (`"model":...,"tools":[...]}`).
JSON is compact (no spaces), UTF-8, non-ASCII kept as is.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence


def dumps(obj: Any) -> bytes:
    """Compact UTF-8 JSON; falls back to ASCII escapes when a string holds a lone surrogate."""
    try:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode("ascii")


def escaped(text: str) -> str:
    """A string as it appears inside `dumps` output, without its quotes (JSON escapes each character alone)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


@dataclass(frozen=True)
class ChatBody:
    """The parts of one chat request: `head` is every field but `messages`, as a JSON object."""

    head: bytes
    messages: tuple[bytes, ...]

    def encode(self) -> bytes:
        rest = self.head[1:].lstrip()
        tail = b"}" if rest == b"}" else b"," + rest
        return b'{"messages":[' + b",".join(self.messages) + b"]" + tail

    def to_dict(self) -> dict[str, Any]:
        """The body as JSON data (for readers; the bytes are what was sent)."""
        out: dict[str, Any] = json.loads(self.encode())
        return out

    @classmethod
    def build(cls, fields: Mapping[str, Any], messages: Sequence[bytes]) -> "ChatBody":
        """A body from the non-message fields and the already-encoded messages."""
        if "messages" in fields:
            raise ValueError("pass the messages apart from the other fields")
        return cls(head=dumps(dict(fields)), messages=tuple(messages))

    @classmethod
    def from_request(cls, request: Mapping[str, Any], encoder: "MessageEncoder | None" = None) -> "ChatBody":
        """A body from a request dict with a `messages` list (ValueError without one)."""
        messages = request.get("messages")
        if not isinstance(messages, list):
            raise ValueError("a chat request needs a `messages` list")
        encoded = (encoder or MessageEncoder()).encode(messages)
        return cls.build({k: v for k, v in request.items() if k != "messages"}, encoded)


class MessageEncoder:
    """Encodes a growing conversation, each message once.

    It remembers the messages of the last call by identity, with the identity of each top-level
    value as a check, so an unchanged prefix is never encoded again and a message whose fields were
    reassigned is. A message must not be changed deep inside (a nested list edited in place) after
    it was sent; build a new dict instead.
    """

    def __init__(self) -> None:
        self._seen: list[tuple[Any, tuple[int, ...], bytes]] = []

    @staticmethod
    def _stamp(message: Any) -> tuple[int, ...]:
        return tuple(id(v) for v in message.values()) if isinstance(message, dict) else ()

    def encode(self, messages: Sequence[Any]) -> tuple[bytes, ...]:
        out: list[bytes] = []
        fresh: list[tuple[Any, tuple[int, ...], bytes]] = []
        reuse = True
        for i, m in enumerate(messages):
            stamp = self._stamp(m)
            if reuse and i < len(self._seen):
                obj, old_stamp, data = self._seen[i]
                if obj is m and old_stamp == stamp:
                    out.append(data)
                    fresh.append(self._seen[i])
                    continue
            reuse = False
            data = dumps(m)
            out.append(data)
            fresh.append((m, stamp, data))
        self._seen = fresh
        return tuple(out)
