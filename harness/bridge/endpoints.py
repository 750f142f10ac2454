"""What the bridge serves an agent program: the model endpoint and the tools, through the turn's tool session.

Routes (every one needs `Authorization: Bearer <episode token>`; without it: 401, nothing else happens):
- `POST /v1/chat/completions`: forwarded to the real model (`--model`, `--base-url`, the user's key, which
  the agent never sees) under the turn's budget, and recorded in the trace (the body as forwarded, the
  response as received, failed attempts and retries too);
- `GET /v1/models`: the one model;
- `GET /v1/tools`: the tools of the current turn as OpenAI tool definitions (none on a memory-only turn);
  `GET /v1/tools/all`: every tool the run offers (what the MCP servers list);
- `POST /v1/tools/call` `{"name", "arguments", "id"?}`: one tool call through the tool session (counted,
  refused past the budget, on a memory-only turn and in the fallback, traced with provenance);
- `/mcp`: the same tools as an MCP server (streamable HTTP, mcp_server.py), every call through `run_tool`.

The budget, from outside the agent: each model request opens a model step (`ToolSession.begin_step`).
Once none may begin, the runner is told (it writes `budget_exhausted` and enters the fallback); then a
request with tools gets a 400 the agent can read ("budget used up: answer now without tools"), exactly
one request without tools is forwarded as the fallback, and anything after it is refused. On a turn that
offers no tools, a request with tools is refused the same way. Every refused request is in the trace as
a `model_call` whose `error` says why (not a model call: not counted, nothing was sent to the model).
"""
from __future__ import annotations

import asyncio
import base64
import hmac
import json
from typing import Any

from ..agent import BudgetExhaustedError, ProviderError, TokenUsage, ToolSpec, TurnContext
from ..chat_body import ChatBody
from ..session import PipelineError
from .http import Request, Response
from .messages import RequestReader
from .protocol import openai_tools

BUDGET_MESSAGE = "budget used up: answer now without tools (send one more request without `tools`)"
NO_TOOLS_MESSAGE = "this turn offers no tools (memory-only turn): answer from memory, without tools"
TURN_OVER_MESSAGE = "the turn's last request (the one without tools after the budget ran out) was already made: " \
                    "write your answer line now"
NO_TURN_MESSAGE = "no turn is open: wait for the next turn line on stdin"
MCP_PATH = "/mcp"


class TurnGate:
    """One turn's state as the endpoints see it, and the signals to the agent's `run_turn`."""

    def __init__(self, ctx: TurnContext):
        self.ctx = ctx
        self.exhausted = asyncio.Event()  # the budget ran out: run_turn hands the turn back to the runner
        self.in_fallback = asyncio.Event()  # the runner entered the fallback
        self.closed = asyncio.Event()  # the turn has its answer (or failed)
        self.fallback_used = False
        self.failure: BaseException | None = None  # a provider error or a bug: ends the episode
        self.failed = asyncio.Event()

    def fail(self, exc: BaseException) -> None:
        if self.failure is None:
            self.failure = exc
        self.failed.set()

    async def wait_fallback(self) -> bool:
        """Tell run_turn the budget is used up and wait until the runner enters the fallback (False: the turn closed)."""
        self.exhausted.set()
        if self.in_fallback.is_set():
            return True
        waiters = [asyncio.ensure_future(self.in_fallback.wait()), asyncio.ensure_future(self.closed.wait())]
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()
        return self.in_fallback.is_set()


def _tool_names(tools: Any) -> list[str]:
    names = []
    for t in tools if isinstance(tools, list) else []:
        fn = t.get("function") if isinstance(t, dict) else None
        names.append(str(fn.get("name")) if isinstance(fn, dict) else "?")
    return names


class Endpoints:
    """The routes for one episode; `gate` is the open turn's (None between turns)."""

    def __init__(self, *, token: str, model: str, client: Any, policy: Any, tools: list[ToolSpec] | None = None):
        self.token = token
        self.run_tools = openai_tools(tools) if tools is not None else []  # every tool the run offers (GET /v1/tools/all)
        # the run's tools: what a forwarded request's `tools_offered` lists
        self.known_tools = {t.name for t in tools} if tools is not None else None
        self._specs = list(tools or [])
        self.model = model
        self.client = client  # agents._wire.ChatEndpoint to the real model
        self.policy = policy
        self.gate: TurnGate | None = None
        self.last_ctx: TurnContext | None = None  # for tracing requests that come between turns
        self.refused_unauthorised = 0
        self.reader = RequestReader()  # the conversation's messages as parsed and encoded, reused request to request
        self.mcp: Any = None  # mcp_server.McpTools, started at the first request to /mcp (the mcp SDK is slow to import)
        self._mcp_lock = asyncio.Lock()

    async def handle(self, req: Request) -> Response:
        auth = req.headers.get("authorization", "")
        if not hmac.compare_digest(auth.encode("utf-8", "replace"), f"Bearer {self.token}".encode()):
            self.refused_unauthorised += 1
            return Response.error(401, "missing or wrong episode token (send it as the bearer key)", "invalid_api_key",
                                  "authentication_error")
        path = req.path.split("?", 1)[0].rstrip("/")
        if path == "/v1/chat/completions" and req.method == "POST":
            return await self.chat(req.body)
        if path == "/v1/tools/call" and req.method == "POST":
            return await self.tool_call(req.body)
        if path == "/v1/tools" and req.method == "GET":
            gate = self.gate
            return Response.json(200, {"tools": openai_tools(gate.ctx.view.tools) if gate else []})
        if path == MCP_PATH:
            return await (await self._mcp_server()).handle(req)
        if path == "/v1/tools/all" and req.method == "GET":
            return Response.json(200, {"tools": self.run_tools})
        if path == "/v1/models" and req.method == "GET":
            return Response.json(200, {"object": "list", "data": [{"id": self.model, "object": "model", "owned_by": "epi"}]})
        return Response.error(404, f"no route {req.method} {path} (see harness/bridge/PROTOCOL.md)", "not_found")

    async def _mcp_server(self) -> Any:
        async with self._mcp_lock:
            if self.mcp is None:
                from .mcp_server import McpTools

                server = McpTools(self, self._specs)
                await server.start()
                self.mcp = server
        return self.mcp

    async def close(self) -> None:
        """The end of the episode: its MCP server stops (if the program used it)."""
        async with self._mcp_lock:
            if self.mcp is not None:
                await self.mcp.close()
                self.mcp = None

    # -- the model ------------------------------------------------------------------------------------
    def _refuse(self, ctx: TurnContext | None, data: dict[str, Any] | None, raw: bytes, message: str, code: str,
                status: int = 400) -> Response:
        """Answer the agent with an error it can read, and put the request it sent in the trace."""
        if ctx is not None:
            body = None
            request: dict[str, Any] | None = None
            if data is not None:
                try:
                    body = ChatBody.from_request(data)
                except (ValueError, TypeError):
                    request = {"unreadable": raw[:2000].decode("utf-8", "replace")}
            else:
                request = {"unreadable": raw[:2000].decode("utf-8", "replace")}
            ctx.record_model_call(model=self.model, request=request, body=body, response=None, usage=TokenUsage(),
                                  latency_s=0.0, tools_offered=_tool_names((data or {}).get("tools")),
                                  error=f"refused by the bridge ({code}): {message}")
        return Response.error(status, message, code)

    async def chat(self, raw: bytes) -> Response:
        gate = self.gate
        ctx = gate.ctx if gate is not None else self.last_ctx
        read = self.reader.read(raw)
        parts: tuple[bytes, ...] | None = None
        if read is not None:
            data, parts = read
        else:
            try:
                data = json.loads(raw)
            except ValueError:
                data = None
        if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
            return self._refuse(ctx, None, raw, "the body must be a JSON object with a `messages` list", "bad_request")
        if gate is None or gate.closed.is_set():
            return self._refuse(ctx, data, raw, NO_TURN_MESSAGE, "no_turn_open", 409)
        if data.get("stream"):
            return self._refuse(ctx, data, raw, "the bridge does not stream: send `stream: false`", "stream_unsupported")
        tools = data.get("tools") or []
        if gate.fallback_used:
            return self._refuse(ctx, data, raw, TURN_OVER_MESSAGE, "turn_over")
        if not gate.in_fallback.is_set():
            if tools and not gate.ctx.view.tools:
                return self._refuse(ctx, data, raw, NO_TOOLS_MESSAGE, "no_tools_this_turn")
            try:
                gate.ctx.begin_step()
            except BudgetExhaustedError:
                if not await gate.wait_fallback():
                    return self._refuse(ctx, data, raw, NO_TURN_MESSAGE, "no_turn_open", 409)
        if gate.in_fallback.is_set():
            if tools:
                return self._refuse(ctx, data, raw, BUDGET_MESSAGE, "budget_exhausted")
            if gate.fallback_used:
                return self._refuse(ctx, data, raw, TURN_OVER_MESSAGE, "turn_over")
            gate.fallback_used = True
        return await self._forward(gate, data, tools, parts)

    async def _forward(self, gate: TurnGate, data: dict[str, Any], tools: list[Any],
                       parts: tuple[bytes, ...] | None = None) -> Response:
        from harness.provider import call_with_retries

        from agents._wire import token_counts

        ctx = gate.ctx
        if data.get("model") != self.model:
            data["model"] = self.model
        body = (ChatBody.build({k: v for k, v in data.items() if k != "messages"}, parts) if parts is not None
                else ChatBody.from_request(data))
        # the harness's tools it offered (a program's own, such as smolagents' final_answer, are not the harness's)
        offered = [n for n in _tool_names(tools) if self.known_tools is None or n in self.known_tools]
        await ctx.model_slot()

        def failed(error: str, seconds: float) -> None:
            ctx.record_model_call(model=self.model, request=None, body=body, response=None, usage=TokenUsage(),
                                  latency_s=seconds, tools_offered=offered, error=error)

        try:
            resp = await call_with_retries(lambda: self.client.post(body), self.policy, ctx.record_retry, failed)
        except ProviderError as e:
            gate.fail(e)
            return Response.error(502, f"the model provider failed: {e}", "provider_error", "server_error")
        prompt_tokens, completion_tokens = token_counts(resp)
        latency = self.client.last_latency_s

        def record() -> None:  # once the response is on its way, before anything else on the loop (http.Response)
            try:
                ctx.record_model_call(model=self.model, request=None, body=body, response=resp,
                                      usage=TokenUsage(input_tokens=prompt_tokens, output_tokens=completion_tokens),
                                      latency_s=latency, tools_offered=offered)
            except Exception as e:  # the trace could not be written: the episode ends with the error
                gate.fail(e)

        out = Response.json(200, resp)
        out.after = record
        return out

    # -- the tools ------------------------------------------------------------------------------------
    async def tool_call(self, raw: bytes) -> Response:
        try:
            data = json.loads(raw)
        except ValueError:
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            if self.gate is None or self.gate.closed.is_set():
                return Response.error(409, NO_TURN_MESSAGE, "no_turn_open")
            return Response.error(400, 'the body must be a JSON object {"name": ..., "arguments": {...}}', "bad_request")
        call_id = data.get("id") if isinstance(data.get("id"), str) else None
        reasoning = data.get("reasoning") if isinstance(data.get("reasoning"), str) else None
        status, result = await self.run_tool(data["name"], data.get("arguments"), call_id=call_id, reasoning=reasoning)
        if status == 200:
            return Response.json(200, result)
        return Response.error(status, result["message"], result["code"], "server_error" if status >= 500 else
                              "invalid_request_error")

    async def run_tool(self, name: str, arguments: Any, *, call_id: str | None = None,
                       reasoning: str | None = None) -> tuple[int, dict[str, Any]]:
        """One tool call through the open turn's tool session, for the HTTP tool endpoint and the MCP server alike:
        (200, the result) or (an HTTP status, {"message", "code"}) when no turn is open or the tool failed in the
        harness. A refusal (past the budget, in the fallback, on a memory-only turn) is a result with `refused`."""
        gate = self.gate
        if gate is None or gate.closed.is_set():
            return 409, {"message": NO_TURN_MESSAGE, "code": "no_turn_open"}
        args: Any = arguments or {}
        raw_arguments = None
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError:
                raw_arguments, args = args, {}
        if not isinstance(args, dict):
            raw_arguments, args = json.dumps(args), {}
        ctx = gate.ctx
        try:
            obs = await ctx.call_tool(name, args, reasoning, raw_arguments=raw_arguments, call_id=call_id)
        except BudgetExhaustedError as e:
            return 200, {"content": f"not run: {e}", "error": str(e), "refused": True, "images": [], "provenance": [],
                         "budget_left": 0}
        except PipelineError as e:
            gate.fail(e)
            return 500, {"message": f"the tool failed in the harness: {e}", "code": "tool_failed"}
        images = []
        for im in obs.images:
            try:
                with open(im.path, "rb") as f:
                    images.append({"media_type": "image/png", "base64": base64.b64encode(f.read()).decode("ascii"),
                                   "caption": im.caption})
            except OSError:
                continue
        # not run: past the budget (not counted), or a tool this turn does not offer (a memory-only turn)
        refused = not obs.counted or name not in {t.name for t in ctx.view.tools}
        return 200, {
            "content": obs.text, "error": obs.error, "refused": refused, "images": images,
            "provenance": [p.model_dump(mode="json") for p in obs.provenance], "budget_left": ctx.view.budget_left,
        }
