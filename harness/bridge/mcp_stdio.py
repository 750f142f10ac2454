"""The bridge's tools as an MCP server over stdio, for an agent program that spawns its MCP servers itself.

    python mcp_stdio.py      (env: EPI_BRIDGE_URL and EPI_BRIDGE_TOKEN, as in the episode line's `mcp_stdio`)

Run it with a Python that has the `mcp` SDK (the agent's own): the episode line's `mcp_stdio` gives its path
as the agent sees it (`args`) and the environment it needs (`env`); inside the sandbox it is bound read-only.
It holds nothing itself: `tools/list` is the bridge's `GET /v1/tools/all`, and every `tools/call` is a
`POST /v1/tools/call`, so the harness counts, refuses and traces it like any other call (see
harness/bridge/PROTOCOL.md). Standard library and the mcp SDK only: it must not need the harness.
"""
from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # run as a script from the checkout: this folder's http.py must not shadow the stdlib's
    sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import json  # noqa: E402
import urllib.error  # noqa: E402
import urllib.request  # noqa: E402
from typing import Any  # noqa: E402

import anyio  # noqa: E402
import mcp_types as types  # noqa: E402
from mcp.server.lowlevel import Server  # noqa: E402
from mcp.server.stdio import stdio_server  # noqa: E402


def mcp_result(status: int, result: dict[str, Any]) -> types.CallToolResult:
    """The bridge's tool answer (`POST /v1/tools/call`, or an error {"message", "code"}) as an MCP tool result:
    the text and images as content, a refusal or a tool error as `is_error`, and the provenance, refusal and
    budget left in `_meta` under `epi/`."""
    if status != 200:
        return types.CallToolResult(content=[types.TextContent(text=f"not run: {result.get('message')}")],
                                    is_error=True, _meta={"epi/refused": True, "epi/code": result.get("code")})
    content: list[Any] = [types.TextContent(text=result.get("content") or "")]
    for im in result.get("images") or []:
        content.append(types.ImageContent(data=im["base64"], mime_type=im.get("media_type") or "image/png"))
    return types.CallToolResult(
        content=content, is_error=bool(result.get("refused") or result.get("error")),
        _meta={"epi/refused": bool(result.get("refused")), "epi/error": result.get("error"),
               "epi/provenance": result.get("provenance") or [], "epi/budget_left": result.get("budget_left")})


class _Bridge:
    def __init__(self, url: str, token: str):
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
        data = json.dumps(body).encode("utf-8") if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, headers=self.headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=900) as resp:
                return resp.status, json.load(resp)
        except urllib.error.HTTPError as e:
            try:
                err = json.load(e).get("error") or {}
            except ValueError:
                err = {}
            return e.code, {"message": err.get("message") or f"HTTP {e.code}", "code": err.get("code") or "http_error"}


def build_server(bridge: _Bridge) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        status, data = await anyio.to_thread.run_sync(bridge.request, "GET", "/tools/all")
        if status != 200:
            raise RuntimeError(f"the bridge answered {status}: {data.get('message')}")
        return types.ListToolsResult(tools=[
            types.Tool(name=t["function"]["name"], description=t["function"].get("description") or "",
                       input_schema=t["function"].get("parameters") or {"type": "object", "properties": {}})
            for t in data["tools"]])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        status, data = await anyio.to_thread.run_sync(
            bridge.request, "POST", "/tools/call", {"name": params.name, "arguments": params.arguments or {}})
        return mcp_result(status, data)

    return Server("epi-bridge-tools", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    url, token = os.environ.get("EPI_BRIDGE_URL"), os.environ.get("EPI_BRIDGE_TOKEN")
    if not url or not token:
        sys.exit("mcp_stdio.py: EPI_BRIDGE_URL and EPI_BRIDGE_TOKEN must be set (the episode line's mcp_stdio.env)")
    server = build_server(_Bridge(url, token))
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
