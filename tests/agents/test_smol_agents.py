"""smolagents CodeAgent and ToolCallingAgent end to end: real runner, real HTTP to the scripted server."""
from __future__ import annotations

import json

import pytest

from .conftest import agent_config, events, run_agent

EP = "ep-search-1"
TITLE = "Contrastive Pretraining of Chart Readers"
SEARCH = {"name": "web_search", "arguments": {"query": "contrastive pretraining chart readers"}}


def code(body: str) -> dict[str, str]:
    return {"content": f"Thought: I act.\n<code>\n{body}\n</code>"}


async def test_tool_calling_agent_completes_with_every_call_traced(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([
        {"content": "Plan: search first.", "tool_calls": [SEARCH]},
        {"tool_calls": [{"name": "final_answer", "arguments": {"answer": TITLE}}]},
        {"content": "Final answer: A"},  # memory-only turn: one request without tools
    ])
    summary, rd = await run_agent("smol-tools", agent_config(srv, api_key_env), episodes_file, tmp_path / "res")
    assert summary.outcomes[0].status == "completed", events(rd, EP, "error")
    assert summary.outcomes[0].answers == [TITLE, "A"]
    calls = events(rd, EP, "tool_call")
    assert [(c.tool, c.args) for c in calls] == [("web_search", SEARCH["arguments"])]
    mcalls = events(rd, EP, "model_call")
    assert len(mcalls) == 3 == len(srv.chat_requests)
    assert mcalls[0].tools_offered == ["web_search"] and mcalls[2].tools_offered == []
    assert "tools" not in srv.chat_requests[2].body
    # the search result reached the model, and smolagents' memory carries it into turn 2
    assert TITLE in json.dumps(srv.chat_requests[1].body["messages"])
    assert TITLE in json.dumps(srv.chat_requests[2].body["messages"])


async def test_tool_calling_agent_sends_bad_calls_to_the_session_and_stops_at_the_budget(
        model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([
        {"fault": "empty"},  # smolagents reports the unparseable step back to the model
        {"tool_calls": [{"name": "web_search", "arguments": "{'query': oops"}]},
        {"tool_calls": [{"name": "open_browser", "arguments": {"url": "x"}}]},
        {"tool_calls": [SEARCH]},
        {"content": f"Final answer: {TITLE}"},  # the no-tool fallback request
        {"content": "Final answer: A"},
    ])
    summary, rd = await run_agent("smol-tools", agent_config(srv, api_key_env), episodes_file, tmp_path / "res", max_steps=3)
    calls = events(rd, EP, "tool_call")
    assert [c.tool for c in calls] == ["web_search", "open_browser", "web_search"]
    assert calls[0].error and calls[0].raw_arguments == "{'query': oops" and calls[0].args == {}
    assert calls[0].error_kind == "bad_arguments" and not calls[0].executed and calls[0].counted
    assert calls[1].error_kind == "refused" and calls[2].error is None
    (empty,) = events(rd, EP, "no_tool_step")
    assert empty.turn == 1 and empty.reason == "empty"  # a step, but not one of the budget's tool calls
    assert len(events(rd, EP, "budget_exhausted")) == 1
    final = events(rd, EP, "final_answer")[0]
    assert final.source == "budget_fallback" and final.answer == TITLE
    assert len(srv.chat_requests) == 6  # no model request between the last allowed call and the fallback
    assert "tools" not in srv.chat_requests[4].body
    assert "tools" in srv.chat_requests[1].body and "parsing" in json.dumps(srv.chat_requests[1].body["messages"]).lower()


async def test_code_agent_runs_tools_from_code_in_the_local_executor(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([
        code("import os\nprint(os.listdir('/'))"),
        code("print(open('/etc/hostname').read())"),
        code("r = web_search(query='contrastive pretraining chart readers')\nprint(r)"),
        code(f"final_answer({TITLE!r})"),
        {"content": "Final answer: A"},
    ])
    summary, rd = await run_agent("smol-code", agent_config(srv, api_key_env), episodes_file, tmp_path / "res", max_steps=4)
    assert summary.outcomes[0].answers == [TITLE, "A"], events(rd, EP, "error")
    calls = events(rd, EP, "tool_call")
    assert [(c.tool, c.args) for c in calls] == [("web_search", {"query": "contrastive pretraining chart readers"})]
    msgs = [json.dumps(r.body["messages"]) for r in srv.chat_requests]
    assert "Import of os is not allowed" in msgs[1]  # refused and reported to the model
    assert "open" in msgs[2] and "Forbidden" in msgs[2]
    assert TITLE in msgs[3]  # the tool result came back into the code's output


async def test_smol_provider_failure_is_bucketed_provider(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([{"fault": "rate_limit", "retry_after": 0.05}], default={"fault": "server_error"})
    summary, rd = await run_agent("smol-code", agent_config(srv, api_key_env, max_retries=2), episodes_file, tmp_path / "res")
    assert summary.outcomes[0].bucket == "provider"
    retries = events(rd, EP, "retry")
    assert [r.attempt for r in retries] == [1, 2] and "429" in retries[0].error


@pytest.mark.slow
async def test_code_that_runs_forever_is_stopped(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([
        code("while True:\n    pass"),
        code(f"final_answer({TITLE!r})"),
        {"content": "Final answer: A"},
    ])
    cfg = agent_config(srv, api_key_env, extra={"code_timeout_s": 1})
    summary, rd = await run_agent("smol-code", cfg, episodes_file, tmp_path / "res")
    assert summary.outcomes[0].answers == [TITLE, "A"]
    assert "exceeded the maximum execution time" in json.dumps(srv.chat_requests[1].body["messages"])


async def test_empty_reply_on_a_memory_only_turn_is_a_counted_step(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([
        {"tool_calls": [{"name": "final_answer", "arguments": {"answer": TITLE}}]},
        {"fault": "empty"},
        {"content": "Final answer: A"},
    ])
    summary, rd = await run_agent("smol-tools", agent_config(srv, api_key_env), episodes_file, tmp_path / "res")
    assert summary.outcomes[0].answers == [TITLE, "A"]
    assert not events(rd, EP, "tool_call")
    (empty,) = events(rd, EP, "no_tool_step")
    assert empty.turn == 2 and empty.reason == "empty" and "was empty" in empty.feedback
    last = json.dumps(srv.chat_requests[2].body["messages"][-1])
    assert "was empty" in last and "Final answer:" in last  # the model is told, and how to answer
