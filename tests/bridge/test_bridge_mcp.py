"""The tools as an MCP server (issue 30): over streamable HTTP (the bridge's /mcp) and over stdio (the server an
agent spawns, harness/bridge/mcp_stdio.py), every call goes through the turn's tool session: counted, refused
past the budget and on a memory-only turn, traced with provenance, tied to the episode's token. And the
smolagents example that loads its tools from the MCP server, on the same three episodes as the other examples."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agents.conftest import agent_config, events, run_agent, two_turn_episode, write_episodes

from .test_bridge_must_show import CALL, EXAMPLES, SANDBOXES, TITLE, run_bridge, script_for

PROGRAMS = Path(__file__).resolve().parent / "programs"


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", SANDBOXES)
async def test_mcp_tool_calls_go_through_the_tool_session(sandbox, model_server, api_key_env, tmp_path):
    srv = model_server([], default={"content": "Final answer: x"})
    episodes = write_episodes(tmp_path / "eps.jsonl", [two_turn_episode("ep-0")])
    summary, rd = await run_bridge(srv, api_key_env, f"python {PROGRAMS / 'mcp_probe.py'}", tmp_path, sandbox,
                                   episodes=episodes)
    (o,) = summary.outcomes
    assert o.status == "completed", events(rd, "ep-0", "error")
    t1, t2 = (json.loads(a) for a in o.answers)
    # both transports list every tool the run offers (MCP clients list once), here web_search alone
    assert t1["listed"] == {"http": ["web_search"], "stdio": ["web_search"]}
    assert t1["no_token"] == 401 and t2["no_token"] == 401
    # turn 1, budget 3: http, http, stdio run with their provenance; the fourth (stdio) is refused
    assert [(c["error"], c["refused"]) for c in t1["calls"]] == [(False, False)] * 3 + [(True, True)]
    assert all(TITLE in c["text"] for c in t1["calls"][:3])
    assert "budget" in t1["calls"][3]["text"]
    # the memory-only turn: refused over both transports
    assert [(c["error"], c["refused"]) for c in t2["calls"]] == [(True, True)] * 2
    tools = events(rd, "ep-0", "tool_call")
    assert [(t.turn, t.executed) for t in tools] == [(1, True)] * 3 + [(1, False), (2, False), (2, False)]
    assert all(TITLE in (t.result_text or "") for t in tools[:3])
    # what the MCP result carries in _meta is the trace's provenance (web_search's is empty; mcp_result's test below)
    assert [c["provenance"] for c in t1["calls"][:3]] == [len(t.provenance) for t in tools[:3]]
    assert srv.chat_requests == []  # tools only: nothing reached the model
    assert t1["stdio_script_readable"]


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", SANDBOXES)
async def test_smolagents_mcp_example_three_requests_with_tools_then_exactly_one_without(sandbox, model_server,
                                                                                         api_key_env, tmp_path):
    srv = model_server(script_for(3), default=CALL)
    summary, rd = await run_bridge(srv, api_key_env, f"python {EXAMPLES / 'smolagents_mcp_agent.py'}", tmp_path,
                                   sandbox)
    for o in summary.outcomes:
        assert o.status == "completed" and o.answers == [TITLE, "A"], events(rd, o.episode_id, "error")
    # per episode: 3 requests with tools, the one fallback request without, the memory-only turn's without
    assert [bool(r.body.get("tools")) for r in srv.chat_requests] == [True, True, True, False, False] * 3
    for i in range(3):
        tools = events(rd, f"ep-{i}", "tool_call")
        assert [(t.turn, t.executed) for t in tools] == [(1, True)] * 3
        assert [e.source for e in events(rd, f"ep-{i}", "final_answer")] == ["budget_fallback", "agent"]
        assert [c.tools_offered for c in events(rd, f"ep-{i}", "model_call") if c.turn == 2] == [[]]


def test_an_mcp_result_carries_the_text_images_provenance_and_refusal():
    from harness.bridge.mcp_stdio import mcp_result

    unit = {"paper_id": "P002", "kind": "table", "ref": "Table 2"}
    r = mcp_result(200, {"content": "row 1", "error": None, "refused": False, "budget_left": 2, "provenance": [unit],
                         "images": [{"media_type": "image/png", "base64": "iVBORw0K", "caption": "Figure 1"}]})
    assert not r.is_error and [c.type for c in r.content] == ["text", "image"] and r.content[1].data == "iVBORw0K"
    assert r.meta["epi/provenance"] == [unit] and r.meta["epi/budget_left"] == 2 and r.meta["epi/refused"] is False
    refused = mcp_result(200, {"content": "not run: budget used up", "error": "budget used up", "refused": True})
    assert refused.is_error and refused.meta["epi/refused"] is True
    no_turn = mcp_result(409, {"message": "no turn is open", "code": "no_turn_open"})
    assert no_turn.is_error and no_turn.content[0].text == "not run: no turn is open"


async def test_the_mcp_server_is_started_and_closed_from_different_tasks_cleanly():
    """The runner starts an episode and ends it from different tasks; the SDK's task group must still be left in
    the task that entered it, and nothing of the episode's MCP server may be left running."""
    import asyncio

    from harness.agent import ToolSpec
    from harness.bridge.mcp_server import McpTools

    before = set(asyncio.all_tasks())
    m = McpTools(None, [ToolSpec(name="web_search", description="d", parameters={"type": "object", "properties": {}})])
    await asyncio.ensure_future(m.start())
    task = m._task
    await asyncio.ensure_future(m.close())
    assert task is not None and task.done() and task.exception() is None
    assert set(asyncio.all_tasks()) - before == {asyncio.current_task()} - before
