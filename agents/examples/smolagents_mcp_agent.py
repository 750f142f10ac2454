"""A smolagents agent whose tools come from the bridge's MCP server:
`epi run --agent-cmd "python agents/examples/smolagents_mcp_agent.py" ...`.

The episode line names the MCP server (`mcp_url`, streamable HTTP; the episode token is the bearer key) and
the model endpoint (`base_url`); the harness counts, refuses and traces every tool call and model request.
The tools are loaded with the mcp SDK's client and wrapped as smolagents Tools (smolagents' own MCPClient
does the same through mcpadapt, whose 0.1.x releases need mcp<2). Turns arrive as JSON lines on stdin,
each answer goes back as one JSON line on stdout (harness/bridge/PROTOCOL.md); logs go to stderr.
"""
import asyncio
import json
import sys
import threading

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from smolagents import OpenAIServerModel, Tool, ToolCallingAgent
from smolagents.utils import AgentGenerationError

protocol, sys.stdout = sys.stdout, sys.stderr  # smolagents prints its progress: stdout carries answer lines only
episode = json.loads(sys.stdin.readline())
loop = asyncio.new_event_loop()  # the MCP client lives on its own event loop; smolagents' tools are sync
threading.Thread(target=loop.run_forever, daemon=True).start()


def run(coro):
    return asyncio.run_coroutine_threadsafe(coro, loop).result()


async def connect():
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {episode['token']}"}, timeout=900)
    return await Client(streamable_http_client(episode["mcp_url"], http_client=http)).__aenter__()


mcp = run(connect())


class McpTool(Tool):
    output_type = "string"
    skip_forward_signature_validation = True

    def __init__(self, spec):
        self.name, self.description = spec.name, spec.description or spec.name
        props, required = spec.input_schema.get("properties", {}), spec.input_schema.get("required", [])
        self.inputs = {k: {"type": p.get("type", "any"), "description": p.get("description", k),
                           **({} if k in required else {"nullable": True})} for k, p in props.items()}
        super().__init__()

    def forward(self, **kwargs):
        result = run(mcp.call_tool(self.name, {k: v for k, v in kwargs.items() if v is not None}))
        return "\n".join(c.text for c in result.content if c.type == "text")


model = OpenAIServerModel(model_id=episode["model"], api_base=episode["base_url"], api_key=episode["token"])
agent = ToolCallingAgent(tools=[McpTool(t) for t in run(mcp.list_tools()).tools], model=model, verbosity_level=0)

for line in sys.stdin:
    turn = json.loads(line)
    if turn["type"] == "end":
        break
    task = f"{turn['question']}\n{turn.get('cue_text') or ''}\nEnd with a line 'Final answer: <answer>'."
    if not turn["tools"]:  # a memory-only turn: one request without tools, from what the agent remembers
        answer = agent.provide_final_answer(task).content
    else:
        try:  # the budget's steps; past them smolagents asks once without tools, which the bridge forwards
            answer = agent.run(task, reset=turn["turn"] == 1, max_steps=turn["budget"]["max_steps"])
        except AgentGenerationError as e:  # the bridge refused a request with tools: the budget is used up
            print(f"bridge said: {e}", file=sys.stderr)
            answer = agent.provide_final_answer(task).content
    text = str(answer or "")
    answer = text.rsplit("Final answer:", 1)[-1].strip() if "Final answer:" in text else text.strip()
    print(json.dumps({"type": "answer", "turn": turn["turn"], "answer": answer}), file=protocol, flush=True)
run(mcp.__aexit__(None, None, None))
