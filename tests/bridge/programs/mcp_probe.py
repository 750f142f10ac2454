"""An agent program that uses the bridge's tools only through MCP, over streamable HTTP and over stdio (the
server it spawns itself, as the episode line's `mcp_stdio` says), and answers each turn with a JSON report of
what the servers listed and answered. On a tool turn it calls web_search twice over each transport (one call
past a budget of 3); on the memory-only turn once over each. It also sends one MCP request without the token."""
import asyncio
import json
import os
import sys
import urllib.error
import urllib.request

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client


def no_token(url):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    req = urllib.request.Request(url, body, {"Content-Type": "application/json",
                                             "Accept": "application/json, text/event-stream"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def seen(result):
    meta = result.meta or {}
    return {"error": result.is_error, "refused": meta.get("epi/refused"), "provenance": len(meta.get("epi/provenance") or []),
            "text": " ".join(c.text for c in result.content if c.type == "text")[:300]}


async def main():
    episode = json.loads(sys.stdin.readline())
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {episode['token']}"})
    stdio = StdioServerParameters(command=sys.executable, args=episode["mcp_stdio"]["args"],
                                  env=episode["mcp_stdio"]["env"])
    async with Client(streamable_http_client(episode["mcp_url"], http_client=http)) as over_http, \
            Client(stdio) as over_stdio:
        listed = {"http": [t.name for t in (await over_http.list_tools()).tools],
                  "stdio": [t.name for t in (await over_stdio.list_tools()).tools]}
        while raw := await asyncio.to_thread(sys.stdin.readline):
            turn = json.loads(raw)
            if turn["type"] == "end":
                break
            calls = []
            for client in ([over_http, over_http, over_stdio, over_stdio] if turn["tools"] else [over_http, over_stdio]):
                calls.append(seen(await client.call_tool("web_search", {"query": "chart readers"})))
            report = {"listed": listed, "calls": calls, "no_token": no_token(episode["mcp_url"]),
                      "stdio_script_readable": os.access(episode["mcp_stdio"]["args"][0], os.R_OK)}
            print(json.dumps({"type": "answer", "turn": turn["turn"], "answer": json.dumps(report)}), flush=True)


asyncio.run(main())
