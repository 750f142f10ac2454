"""Model-call requests in a trace: stored once by content hash, rebuilt byte for byte.

Why: storing every request whole makes a trace quadratic in episode length (each call repeats the
conversation so far). A v4 `model_call` names its parent call, how many of the parent's messages it
keeps, and the hashes of its new messages; each message's JSON text is written once, in the first
event that sends it, and image payloads go to files named by their hash in the episode's folder.

`RequestRecorder` is the writer's side (one per episode trace); `RequestIndex` the readers' side,
filled from the events by `harness.trace_fold`.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from .chat_body import ChatBody, escaped
from .safe_paths import PathOutside, resolve_inside
from .trace import Blob, ImageRef, ModelCall, ToolCallEvent, ToolResultRef

# A base64 image payload inside a message's JSON text (the closing quote is not part of it).
_DATA_URL = re.compile(r"data:(image/[A-Za-z0-9.+-]+);base64,([A-Za-z0-9+/]+={0,2})")
_EXT = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
_MIN_SHARED_TEXT = 64  # shorter tool results are cheaper to store again than to refer to
_PENDING_RESULTS = 64  # tool results waiting to be sent, at most (an agent sends them in its next request)


class TraceRequestError(ValueError):
    """A request cannot be rebuilt from the trace (a part it names is missing or altered)."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_once(path: Path, data: bytes) -> None:
    """Write a content-named file unless it is there; a crash never leaves half a file under the name."""
    if path.is_file():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _shared_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix (binary search over slice comparisons, which run in C)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class RequestRecorder:
    """Turns each request of an episode into the v4 fields of its model_call event."""

    def __init__(self, images_dir: Path):
        self.images_dir = images_dir
        self._stored: set[str] = set()
        # id(part) -> (part, hash) for the last call's parts: an agent resends the same bytes objects
        self._hash_of: dict[int, tuple[bytes, str]] = {}
        self._next_hash_of: dict[int, tuple[bytes, str]] = {}
        self._last: list[str] = []
        self._calls = 0
        self._pending: dict[str, str] = {}  # tool result texts not yet seen in a request: escaped -> sha256

    def note_tool_result(self, text: str | None) -> None:
        """A tool_call's result_text was written: a message that carries it will refer to it, not repeat it."""
        if text and len(text) >= _MIN_SHARED_TEXT:
            self._pending[escaped(text)] = sha256(text.encode("utf-8"))
            while len(self._pending) > _PENDING_RESULTS:
                self._pending.pop(next(iter(self._pending)))

    def _hash(self, part: bytes) -> str:
        hit = self._hash_of.get(id(part))
        h = hit[1] if hit is not None and hit[0] is part else sha256(part)
        self._next_hash_of[id(part)] = (part, h)
        return h

    def _store(self, part: bytes, blobs: dict[str, Blob]) -> str:
        h = self._hash(part)
        if h not in self._stored:
            blobs[h] = self._blob(part)
            self._stored.add(h)
        return h

    def _blob(self, part: bytes) -> Blob:
        """The part's text, with each base64 image payload moved to a file (only where it decodes back
        to exactly the same text) and each tool result already in the trace referred to by its hash."""
        text = part.decode("utf-8")
        pieces: list[str | ImageRef | ToolResultRef] = []
        at = 0
        for m in _DATA_URL.finditer(text):
            payload = m.group(2)
            try:
                data = base64.b64decode(payload, validate=True)
            except (binascii.Error, ValueError):
                continue
            if base64.b64encode(data).decode("ascii") != payload:
                continue
            name = f"{sha256(data)}.{_EXT.get(m.group(1), 'img')}"
            write_once(self.images_dir / name, data)
            pieces += [*self._cut_results(text[at:m.start(2)]), ImageRef(image=name)]
            at = m.end(2)
        pieces += self._cut_results(text[at:])
        if len(pieces) == 1 and isinstance(pieces[0], str):
            return pieces[0]
        return [p for p in pieces if p != ""]

    def _cut_results(self, text: str) -> list[str | ImageRef | ToolResultRef]:
        """Pieces of `text` with each pending tool result in it (whole, or cut short) as a reference."""
        for esc, h in self._pending.items():
            at = text.find(esc[:_MIN_SHARED_TEXT])
            if at < 0:
                continue
            n = _shared_prefix(esc, text[at:at + len(esc)])
            del self._pending[esc]
            ref = ToolResultRef(tool_result=h, chars=None if n == len(esc) else n)
            return [*self._cut_results(text[:at]), ref, *self._cut_results(text[at + n:])]
        return [text]

    def record(self, body: ChatBody) -> dict[str, Any]:
        """The model_call fields that store `body`: call number, parent, kept prefix, new hashes, blobs."""
        self._calls += 1
        blobs: dict[str, Blob] = {}
        hashes = [self._store(m, blobs) for m in body.messages]
        head = self._store(body.head, blobs)
        keep = 0
        if self._calls > 1:
            for a, b in zip(self._last, hashes):
                if a != b:
                    break
                keep += 1
        self._last = hashes
        self._hash_of, self._next_hash_of = self._next_hash_of, {}
        return {
            "call": self._calls, "parent": self._calls - 1 if self._calls > 1 else None, "keep": keep,
            "messages": hashes[keep:], "head": head, "blobs": blobs, "request_sha256": sha256(body.encode()),
        }


class RequestIndex:
    """Every model call of one episode's trace by number, and every stored part: rebuilds requests."""

    def __init__(self) -> None:
        self.blobs: dict[str, Blob] = {}
        self.calls: dict[int, ModelCall] = {}
        self._number: dict[int, int] = {}  # id(event) -> its number
        self._hashes: dict[int, list[str]] = {}
        self.tool_results: dict[str, str] = {}  # sha256 -> a tool_call's result_text

    def add_tool_result(self, ev: ToolCallEvent) -> None:
        """File a tool_call's result text, which stored messages may refer to."""
        if ev.result_text:
            self.tool_results.setdefault(sha256(ev.result_text.encode("utf-8")), ev.result_text)

    def add(self, ev: ModelCall) -> None:
        """File a model_call (in trace order); calls before v4 are numbered by their order."""
        n = ev.call or len(self.calls) + 1
        self.calls[n] = ev
        self._number[id(ev)] = n
        for h, b in ev.blobs.items():
            self.blobs.setdefault(h, b)

    def number_of(self, ev: ModelCall) -> int:
        """The number of a call filed here (TraceRequestError for another trace's event)."""
        n = self._number.get(id(ev))
        if n is None or self.calls.get(n) is not ev:
            raise TraceRequestError("this model call is not part of the folded trace")
        return n

    def numbers(self) -> list[int]:
        return sorted(self.calls)

    def get(self, n: int) -> ModelCall:
        ev = self.calls.get(n)
        if ev is None:
            have = f"calls 1 to {max(self.calls)}" if self.calls else "no model calls"
            raise TraceRequestError(f"no model call {n} in this trace (it has {have})")
        return ev

    def stored_whole(self, n: int) -> bool:
        """True for a call whose request was stored whole (before v4, or a request without messages)."""
        ev = self.get(n)
        return ev.head is None

    def message_hashes(self, n: int) -> list[str]:
        """The hashes of call n's messages, in order, following its parents."""
        chain: list[int] = []
        k: int | None = n
        while k is not None and k not in self._hashes:
            ev = self.get(k)
            if ev.head is None:
                raise TraceRequestError(f"model call {k} was stored whole (trace before v4): it has no message hashes")
            chain.append(k)
            if ev.parent is not None and ev.parent >= k:
                raise TraceRequestError(f"model call {k} names a later call {ev.parent} as its parent")
            k = ev.parent
        for k in reversed(chain):
            ev = self.calls[k]
            base = self._hashes[ev.parent] if ev.parent is not None else []
            if ev.keep > len(base):
                raise TraceRequestError(f"model call {k} keeps {ev.keep} messages of call {ev.parent}, which has {len(base)}")
            self._hashes[k] = base[:ev.keep] + list(ev.messages)
        return self._hashes[n]

    def _part(self, h: str, images_dir: Path | None, n: int) -> bytes:
        blob = self.blobs.get(h)
        if blob is None:
            raise TraceRequestError(f"model call {n}: the trace holds no part with hash {h[:16]}...")
        if isinstance(blob, str):
            return blob.encode("utf-8")
        out: list[bytes] = []
        for piece in blob:
            if isinstance(piece, str):
                out.append(piece.encode("utf-8"))
                continue
            if isinstance(piece, ToolResultRef):
                text = self.tool_results.get(piece.tool_result)
                if text is None:
                    raise TraceRequestError(f"model call {n}: no tool_call result with hash {piece.tool_result[:16]}...")
                esc = escaped(text)
                out.append((esc if piece.chars is None else esc[:piece.chars]).encode("utf-8"))
                continue
            if images_dir is None:
                raise TraceRequestError(f"model call {n} sent an image ({piece.image}): give the folder that holds it")
            try:  # a trace is data: it names a file of the episode's folder, never another path
                path = resolve_inside(images_dir, piece.image)
            except PathOutside as e:
                raise TraceRequestError(f"model call {n}: image {e}: not read") from None
            try:
                data = path.read_bytes()
            except OSError:
                raise TraceRequestError(f"model call {n}: image file {path} is missing") from None
            out.append(base64.b64encode(data))
        return b"".join(out)

    def body(self, n: int, images_dir: Path | None = None) -> bytes:
        """The exact bytes of call n's request body (checked against its recorded hash)."""
        ev = self.get(n)
        if ev.head is None:
            raise TraceRequestError(f"model call {n} was stored whole (trace before v4): only its JSON is known")
        parts = [self._part(h, images_dir, n) for h in self.message_hashes(n)]
        data = ChatBody(head=self._part(ev.head, images_dir, n), messages=tuple(parts)).encode()
        if ev.request_sha256 and sha256(data) != ev.request_sha256:
            raise TraceRequestError(f"model call {n}: the rebuilt body does not match its recorded hash (a part was altered)")
        return data

    def request(self, n: int, images_dir: Path | None = None) -> dict[str, Any]:
        """Call n's request as JSON data: rebuilt for v4, as stored for older traces."""
        ev = self.get(n)
        if ev.head is None:
            return dict(ev.request or {})
        out: dict[str, Any] = json.loads(self.body(n, images_dir))
        return out
