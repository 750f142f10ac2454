"""A scripted OpenAI-compatible chat server on loopback, for testing agents over real HTTP.

It plays back a script of chat-completion responses (text, tool calls, code-writing replies) in
order, records every request it gets (body, tools offered, images received) and can inject latency
and faults: 429 with Retry-After, 500, a hang past the client timeout, tool arguments that are not
JSON, a cut-off body, an empty message. Like a real server it honours the request's `stop`
sequences (the text ends before the first one). When the script runs out it serves the script's
default response so loops end.

With a strict profile (`strict="llama-cpp"`, `"llama-server"`, `"vllm"`, `"ollama"`; sandbox/server_profiles.py)
the server checks each request the way that server does and answers its error (status and body) instead
of a completion, honours the tools only where that server would, and shapes replies as it does (tool
calls beside `content: null`); `context_tokens` is the server's context size.

A code-writing reply (`"code": "final_answer(\"42\")"`) is sent as the content a smolagents
CodeAgent expects: the item's `content` (a thought; "Thought: ..." by default), then the code in
`<code>` tags (or a ```python fence with `"code_tags": "markdown"`).

Script file: a JSON list of items, a JSON object `{"responses": [...], "default": {...}}`, or JSONL
(one item per line; a line with `"default": true` is the default). See `ScriptItem` for the fields.
"""
from __future__ import annotations

import json
import select
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .server_profiles import DEFAULT_CONTEXT_TOKENS, ServerProfile, get_profile

Fault = Literal["rate_limit", "server_error", "timeout", "malformed_tool_json", "truncated", "invalid_json", "empty"]


class ScriptError(ValueError):
    """A script file that cannot be used; the message names the file, line and field."""


class ScriptToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict, description="a dict, or a raw string sent as-is")


class ScriptMatch(BaseModel):
    """Serve this item only to a request that fits (otherwise it waits for a later request)."""

    model_config = ConfigDict(extra="forbid")

    tools_offered: bool | None = Field(default=None, description="True: only requests offering tools; False: only without")
    contains: str | None = Field(default=None, description="substring of the request's last user message text")


class ScriptItem(BaseModel):
    """One scripted response (or fault)."""

    model_config = ConfigDict(extra="forbid")

    content: str | None = None
    code: str | None = Field(default=None, description="a code-writing reply: this Python in a code block after `content`")
    code_tags: Literal["code", "markdown"] = Field(default="code", description="<code>...</code> or a ```python fence")
    tool_calls: list[ScriptToolCall] = Field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, int] | None = Field(default=None, description="prompt_tokens / completion_tokens; estimated if absent")
    fault: Fault | None = None
    retry_after: float = Field(default=1.0, description="Retry-After seconds sent with a rate_limit fault")
    delay_s: float = Field(default=0.0, ge=0, description="latency before answering (a timeout fault sleeps this long, default 30)")
    match: ScriptMatch | None = None
    default: bool = Field(default=False, description="JSONL only: marks the default response")

    def text(self) -> str | None:
        """The reply's text: `content`, followed by the code block of a code-writing reply."""
        if self.code is None:
            return self.content
        opening, closing = ("<code>", "</code>") if self.code_tags == "code" else ("```python", "```")
        thought = self.content if self.content is not None else "Thought: I will run this code."
        return f"{thought}\n{opening}\n{self.code}\n{closing}"


class RecordedRequest(BaseModel):
    """What one request looked like, as the server saw it."""

    method: str
    path: str
    body: dict[str, Any] | None = None
    tools_offered: list[str] = Field(default_factory=list)
    n_images: int = 0
    served: str = Field(default="", description="'script[i]', 'default', 'loop', the fault name, or 'refused' (strict profile)")
    error: str | None = Field(default=None, description="the error message a strict profile answered with")
    ts: float = Field(default_factory=time.time)
    abandoned_after_s: float | None = Field(
        default=None, description="the client closed the connection this long after sending, before the reply")
    raw: bytes | None = Field(default=None, exclude=True, description="the body bytes exactly as received (not logged)")


class ToolLoop(BaseModel):
    """A reply that depends on the conversation, so concurrent episodes each get the same exchange: while a
    request offers tools and fewer than `calls` tool results follow its last user message, call `tool`;
    then answer `content`. String arguments may use `{n}` (the call's number) and `{question}` (the
    last user message from its `Question:` on, whitespace folded, cut at 80 characters, about as long
    as a model's search query)."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    calls: int = Field(default=5, ge=0)
    arguments: dict[str, Any] = Field(default_factory=dict)
    content: str = "Final answer: (loop done)"
    delay_s: float = Field(default=0.0, ge=0, description="latency before each reply")

    def reply(self, body: dict[str, Any]) -> ScriptItem:
        messages = body.get("messages") or []
        last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
        done = sum(1 for m in messages[last_user + 1:] if m.get("role") == "tool")
        if not body.get("tools") or done >= self.calls:
            return ScriptItem(content=self.content, delay_s=self.delay_s)
        text = _last_user_text(body)
        question = " ".join(text.split("Question:", 1)[-1].split())[:80]
        args = {k: v.replace("{n}", str(done + 1)).replace("{question}", question) if isinstance(v, str) else v
                for k, v in self.arguments.items()}
        return ScriptItem(content=None, tool_calls=[ScriptToolCall(name=self.tool, arguments=args)], delay_s=self.delay_s)


class Script(BaseModel):
    responses: list[ScriptItem] = Field(default_factory=list)
    default: ScriptItem = Field(default_factory=lambda: ScriptItem(content="Final answer: (script exhausted)"))
    loop: ToolLoop | None = Field(default=None, description="when the scripted responses are used up, reply by this loop instead of the default")


def load_script(path: Path) -> Script:
    """Read a script file (JSON list, JSON object or JSONL); errors name file, line and field."""
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScriptError(f"script file {p} does not exist") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        data = None
    if isinstance(data, list):
        return _script_from_items([(i + 1, d) for i, d in enumerate(data)], p, "item")
    if isinstance(data, dict) and ("responses" in data or "default" in data or "loop" in data):
        try:
            return Script.model_validate(data)
        except ValidationError as e:
            raise ScriptError(f"{p}: {_errors(e)}") from None
    lines: list[tuple[int, Any]] = []
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            lines.append((n, json.loads(line)))
        except json.JSONDecodeError as e:
            raise ScriptError(f"{p}, line {n}: not valid JSON ({e.msg})") from None
    return _script_from_items(lines, p, "line")


def _script_from_items(items: list[tuple[int, Any]], p: Path, where: str) -> Script:
    script = Script()
    for n, d in items:
        try:
            item = ScriptItem.model_validate(d)
        except ValidationError as e:
            raise ScriptError(f"{p}, {where} {n}: {_errors(e)}") from None
        if item.default:
            script.default = item
        else:
            script.responses.append(item)
    return script


def _errors(e: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(x) for x in err['loc']) or '(item)'}: {err['msg']}" for err in e.errors())


def _last_user_text(body: dict[str, Any]) -> str:
    for m in reversed(body.get("messages") or []):
        if m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, str):
                return c
            if isinstance(c, list):
                return " ".join(str(p.get("text", "")) for p in c if isinstance(p, dict))
    return ""


def _cut_at_stop(text: str | None, stop: Any) -> str | None:
    """The text up to the first stop sequence of the request, as a real server ends generation there."""
    if text is None or not stop:
        return text
    for seq in [stop] if isinstance(stop, str) else list(stop):
        if isinstance(seq, str) and seq and seq in text:
            text = text.split(seq, 1)[0]
    return text


def _count_images(body: dict[str, Any]) -> int:
    n = 0
    for m in body.get("messages") or []:
        c = m.get("content")
        if isinstance(c, list):
            n += sum(1 for p in c if isinstance(p, dict) and p.get("type") == "image_url")
    return n


class _Listener(ThreadingHTTPServer):
    """A threading HTTP server whose listen queue holds a burst of new connections.

    socketserver's default backlog is 5: when 16 clients connect at once (a run at concurrency 16, each
    episode with its own connection), the kernel drops the rest of the SYNs and those clients retry after
    1 s, then 3 s, so the server would look seconds slower than any real endpoint."""

    request_queue_size = 128


class ScriptedModelServer:
    """Serve a Script on loopback: `start()`, `base_url`, `requests`, `stop()` (also a context manager)."""

    def __init__(self, script: Script | list[ScriptItem | dict[str, Any]], host: str = "127.0.0.1", port: int = 0,
                 log_path: Path | None = None, strict: str | ServerProfile | None = None,
                 context_tokens: int = DEFAULT_CONTEXT_TOKENS):
        if not isinstance(script, Script):
            script = Script(responses=[i if isinstance(i, ScriptItem) else ScriptItem.model_validate(i) for i in script])
        self.script = script
        self.host, self.port = host, port
        self.log_path = log_path
        self.profile = get_profile(strict) if isinstance(strict, str) else strict
        self.context_tokens = context_tokens
        self.requests: list[RecordedRequest] = []
        self._used = [False] * len(script.responses)
        self._lock = threading.Lock()
        self._httpd: _Listener | None = None
        self._thread: threading.Thread | None = None
        self._counter = 0

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> "ScriptedModelServer":
        handler = _make_handler(self)
        self._httpd = _Listener((self.host, self.port), handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="scripted-model-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "ScriptedModelServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def remaining(self) -> int:
        """Scripted responses not served yet."""
        with self._lock:
            return self._used.count(False)

    # -- request handling (called from handler threads) --
    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)
            if self.log_path is not None:
                with Path(self.log_path).open("a", encoding="utf-8") as f:
                    f.write(req.model_dump_json() + "\n")

    def _pick(self, body: dict[str, Any]) -> tuple[str, ScriptItem]:
        offered = bool(body.get("tools"))
        text = _last_user_text(body)
        with self._lock:
            self._counter += 1
            for i, item in enumerate(self.script.responses):
                if self._used[i]:
                    continue
                m = item.match
                if m is not None:
                    if m.tools_offered is not None and m.tools_offered != offered:
                        continue
                    if m.contains is not None and m.contains not in text:
                        continue
                self._used[i] = True
                return f"script[{i}]", item
        if self.script.loop is not None:
            return "loop", self.script.loop.reply(body)
        return "default", self.script.default

    def _completion(self, body: dict[str, Any], item: ScriptItem) -> dict[str, Any]:
        n = self._counter
        calls = []
        profile = self.profile
        # a server that ignores the tools of this request (llama-cpp without tool_choice) answers in text only
        scripted_calls = item.tool_calls if profile is None or profile.honours_tools(body) else []
        for j, tc in enumerate(scripted_calls):
            args = tc.arguments if isinstance(tc.arguments, str) else json.dumps(tc.arguments)
            if item.fault == "malformed_tool_json":
                args = args[: max(1, len(args) // 2)] if args.startswith("{") else "{" + args
            calls.append({"id": f"call_{n}_{j}", "type": "function", "function": {"name": tc.name, "arguments": args}})
        content = "" if item.fault == "empty" else _cut_at_stop(item.text(), body.get("stop"))
        if profile is not None and calls and item.fault != "empty":
            content = content if content and profile.text_beside_calls else (None if profile.null_content_with_calls else "")
        elif profile is not None and content is None:
            content = ""
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls and item.fault != "empty":
            message["tool_calls"] = calls
        finish = item.finish_reason or ("tool_calls" if "tool_calls" in message else "stop")
        prompt_chars = len(json.dumps(body.get("messages") or []))
        usage = {
            "prompt_tokens": profile.prompt_tokens(body) if profile is not None else prompt_chars // 4 + 1,
            "completion_tokens": len(json.dumps(message)) // 4 + 1,
        }
        usage.update(item.usage or {})
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return {
            "id": f"chatcmpl-{n}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model") or "scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": usage,
        }


def _make_handler(server: ScriptedModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # headers and body leave in one write, without Nagle's delay: otherwise every reply on a kept-alive
        # connection waits for the client's delayed ACK (~40 ms), which would swamp what clients cost
        wbufsize = -1
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            return

        def _send(self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None,
                  cut: bool = False, raw: bytes | None = None) -> None:
            data = raw if raw is not None else json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            if cut:
                self.send_header("Connection", "close")
            self.end_headers()
            try:
                self.wfile.write(data[: len(data) // 2] if cut else data)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            if cut:
                self.close_connection = True

        def _client_left_within(self, seconds: float) -> bool:
            """Wait up to `seconds` (the scripted latency); True as soon as the client closes the connection,
            as a client that gave up on its timeout does."""
            end = time.monotonic() + seconds
            while (left := end - time.monotonic()) > 0:
                ready, _, _ = select.select([self.connection], [], [], min(left, 0.05))
                if ready:
                    try:
                        if self.connection.recv(1, socket.MSG_PEEK) == b"":
                            return True
                    except OSError:
                        return True
                    time.sleep(min(left, 0.05))  # bytes of a next request wait in the buffer: keep waiting
            return False

        def do_GET(self) -> None:
            server._record(RecordedRequest(method="GET", path=self.path, served="models"))
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model", "owned_by": "sandbox"}]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                server._record(RecordedRequest(method="POST", path=self.path, served="bad_request"))
                self._send(400, {"error": {"message": "request body is not JSON", "type": "invalid_request_error"}})
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                server._record(RecordedRequest(method="POST", path=self.path, body=body, served="not_found"))
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                return
            tools = [t.get("function", {}).get("name", "") for t in body.get("tools") or []]
            if body.get("stream"):
                server._record(RecordedRequest(method="POST", path=self.path, body=body, tools_offered=tools, served="stream_refused"))
                self._send(400, {"error": {"message": "the scripted server does not stream", "type": "invalid_request_error"}})
                return
            if server.profile is not None and (refused := server.profile.check(body, server.context_tokens)) is not None:
                server._record(RecordedRequest(method="POST", path=self.path, body=body, tools_offered=tools,
                                               n_images=_count_images(body), served="refused", raw=raw,
                                               error=refused.message))
                self._send(refused.status, refused.payload)
                return
            label, item = server._pick(body)
            served = item.fault or label
            record = RecordedRequest(method="POST", path=self.path, body=body, tools_offered=tools,
                                     n_images=_count_images(body), served=served, raw=raw)
            server._record(record)
            delay = (item.delay_s or 30.0) if item.fault == "timeout" else item.delay_s
            if delay and self._client_left_within(delay):
                record.abandoned_after_s = round(time.time() - record.ts, 3)  # a real server stops generating here
                self.close_connection = True
                return
            if item.fault == "rate_limit":
                self._send(429, {"error": {"message": "rate limit (scripted)", "type": "rate_limit_error", "code": "rate_limit"}},
                           headers={"Retry-After": f"{item.retry_after:g}"})
            elif item.fault == "server_error":
                self._send(500, {"error": {"message": "internal error (scripted)", "type": "server_error"}})
            elif item.fault == "truncated":
                self._send(200, server._completion(body, item), cut=True)
            elif item.fault == "invalid_json":
                self._send(200, {}, raw=b'{"id": "chatcmpl-x", "choices": [')
            else:
                self._send(200, server._completion(body, item))

    return Handler
