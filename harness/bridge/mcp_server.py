"""The run's tools as an MCP server (the `mcp` SDK), served by the bridge at `/mcp` beside its other routes.

Streamable HTTP, stateless, JSON responses: every MCP request is one POST answered with one JSON body, so the
bridge's own HTTP server (harness/bridge/http.py) hands it to the SDK's session manager through a few lines
of ASGI below and gets the whole answer back. The bearer token is checked by the bridge before the SDK sees
anything, like every other route: an MCP client must send `Authorization: Bearer <episode token>`.

`tools/list` gives every tool the run offers (MCP clients list once, at connect); `tools/call` goes through
`Endpoints.run_tool`, the same path as `POST /v1/tools/call`: the turn's tool session counts it, refuses it
past the budget, in the fallback and on a memory-only turn (then `isError` with the reason, and
`_meta["epi/refused"]`), and traces it with provenance (also in `_meta["epi/provenance"]`). A call between
turns is an error result saying no turn is open. Agents that spawn their MCP server over stdio run
harness/bridge/mcp_stdio.py, which forwards to the same tool endpoint.
"""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from ..agent import ToolSpec
from .http import MAX_BODY, Request, Response
from .mcp_stdio import mcp_result

if TYPE_CHECKING:
    from .endpoints import Endpoints

class McpTools:
    """One episode's MCP server; `start()` before the first request, `close()` at the end of the episode."""

    def __init__(self, endpoints: "Endpoints", tools: list[ToolSpec]):
        self.endpoints = endpoints
        self.tools = [types.Tool(name=t.name, description=t.description,
                                 input_schema=t.parameters or {"type": "object", "properties": {}}) for t in tools]
        self.server: Server[Any] = Server("epi-bridge-tools", version="1", on_list_tools=self._list,
                                          on_call_tool=self._call)
        self.manager = StreamableHTTPSessionManager(self.server, stateless=True, json_response=True,
                                                    max_request_body_size=MAX_BODY)
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Run the SDK's session manager in a task of its own for the episode: its anyio task group must be left in
        the task it was entered in (the runner starts and ends an episode from different tasks)."""
        started = asyncio.Event()

        async def serve() -> None:
            async with self.manager.run():
                started.set()
                await self._stop.wait()

        self._task = asyncio.ensure_future(serve())
        ready = asyncio.ensure_future(started.wait())
        try:
            await asyncio.wait([self._task, ready], return_when=asyncio.FIRST_COMPLETED)
        finally:
            ready.cancel()
        if not started.is_set():
            await self._task  # it ended before it served: raise what ended it

    async def close(self) -> None:
        self._stop.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, 5.0)
            except (asyncio.TimeoutError, Exception):
                pass
            self._task = None

    async def _list(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    async def _call(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        status, result = await self.endpoints.run_tool(params.name, params.arguments or {})
        return mcp_result(status, result)

    async def handle(self, req: Request) -> Response:
        """One HTTP request to /mcp, through the SDK's ASGI handler."""
        path, _, query = req.path.partition("?")
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": req.method,
                 "scheme": "http", "path": path, "raw_path": path.encode("latin-1"), "root_path": "",
                 "query_string": query.encode("latin-1"), "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 0),
                 "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in req.headers.items()]}
        done = asyncio.Event()
        sent_body = False
        status = 500
        headers: dict[str, str] = {}
        content_type = "application/json"
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            nonlocal sent_body
            if not sent_body:
                sent_body = True
                return {"type": "http.request", "body": req.body, "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status, content_type
            if message["type"] == "http.response.start":
                status = int(message["status"])
                for k, v in message.get("headers") or []:
                    name, value = k.decode("latin-1").lower(), v.decode("latin-1")
                    if name == "content-type":
                        content_type = value
                    elif name not in ("content-length", "transfer-encoding", "connection"):
                        headers[name] = value
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body") or b"")
                if not message.get("more_body"):
                    done.set()

        try:
            await self.manager.handle_request(scope, receive, send)
        finally:
            done.set()
        return Response(status, b"".join(chunks), content_type=content_type, headers=headers)
