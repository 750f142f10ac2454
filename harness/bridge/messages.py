"""Reading an agent's chat requests without parsing and encoding its whole conversation again each time.

An agent resends its conversation with every request, so request k+1 starts with the messages of request k,
written the same way. `RequestReader` keeps, per episode, each message of the last request as the agent
wrote it (its raw JSON text), as parsed, and as the harness encodes it (`chat_body.dumps`). A message of the
next request whose text starts with the same raw text at the same place is taken from there: no parsing,
no encoding, and the same bytes object, which the trace's request recorder already hashed (it keys its
hashes by identity). Only the new messages are parsed and encoded, so the bridge's cost per request stays
flat as the conversation grows (the in-process agents get the same from `chat_body.MessageEncoder`).

A JSON object is self-delimiting, so raw text that starts with a whole message object at a position is that
message; only objects are reused. Anything this reader does not expect (not a JSON object at the top, a
`messages` that is not a list, a value `dumps` refuses) gives None and the caller parses the usual way.
"""
from __future__ import annotations

import json
import re
from typing import Any

from ..chat_body import dumps

_WS = re.compile(r"[ \t\n\r]*")
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]


class RequestReader:
    def __init__(self) -> None:
        self._decoder = json.JSONDecoder()
        # (raw text, parsed, encoded) per message of the last request; raw None: not reusable (not an object)
        self._last: list[tuple[str | None, Any, bytes]] = []

    def read(self, raw: bytes) -> tuple[dict[str, Any], tuple[bytes, ...]] | None:
        """(the request as parsed, its messages encoded) or None when the body is not as expected."""
        try:
            return self._read(raw.decode("utf-8"))
        except (ValueError, IndexError, TypeError, RecursionError):
            return None

    def _ws(self, text: str, i: int) -> int:
        m = _WS.match(text, i)
        return m.end() if m else i

    def _read(self, text: str) -> tuple[dict[str, Any], tuple[bytes, ...]] | None:
        i = self._ws(text, 0)
        if text[i] != "{":
            return None
        i = self._ws(text, i + 1)
        out: dict[str, Any] = {}
        parts: tuple[bytes, ...] | None = None
        seen: list[tuple[str | None, Any, bytes]] | None = None
        if text[i] == "}":
            return None
        while True:
            if text[i] != '"':
                return None
            key, i = _scanstring(text, i + 1)
            i = self._ws(text, i)
            if text[i] != ":":
                return None
            i = self._ws(text, i + 1)
            if key == "messages" and text[i] == "[":
                seen, i = self._messages(text, i + 1)
                out[key] = [obj for _, obj, _ in seen]
                parts = tuple(enc for _, _, enc in seen)
            else:
                out[key], i = self._decoder.raw_decode(text, i)
                if key == "messages":
                    return None
            i = self._ws(text, i)
            if text[i] == ",":
                i = self._ws(text, i + 1)
                continue
            if text[i] == "}":
                break
            return None
        if self._ws(text, i + 1) != len(text) or parts is None or seen is None:
            return None
        self._last = seen
        return out, parts

    def _messages(self, text: str, i: int) -> tuple[list[tuple[str | None, Any, bytes]], int]:
        out: list[tuple[str | None, Any, bytes]] = []
        i = self._ws(text, i)
        if text[i] == "]":
            return out, i + 1
        last, k = self._last, 0
        while True:
            known = last[k][0] if k < len(last) else None
            if known is not None and text.startswith(known, i):
                out.append(last[k])
                i += len(known)
                k += 1
            else:
                k = len(last)  # the conversation changed here: parse the rest
                obj, end = self._decoder.raw_decode(text, i)
                out.append((text[i:end] if isinstance(obj, dict) else None, obj, dumps(obj)))
                i = end
            i = self._ws(text, i)
            if text[i] == ",":
                i = self._ws(text, i + 1)
                continue
            if text[i] == "]":
                return out, i + 1
            raise ValueError("messages: expected ',' or ']'")
