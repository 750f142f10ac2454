"""The protocol seen from the model's side (scripted server, real HTTP), for openai, smol-tools and smol-code:
no tools on memory-only turns, budget-many requests with tools then exactly one without, refused calls and
steps without a tool call counted and capped, answers in every form recorded as the value. Every test runs twice:
against the lenient scripted server and against its strict llama-cpp profile (llama-cpp-python's checks)."""
from __future__ import annotations

import json
from typing import Any

import pytest

from tools import get_tool

from .conftest import agent_config, events, run_agent, server_factory

EP = "ep-search-1"
TITLE = "Contrastive Pretraining of Chart Readers"
QUERY = "contrastive pretraining chart readers"
AGENTS = ["openai", "smol-tools", "smol-code"]
FALLBACK = {"contains": "is used up"}  # the fallback prompt, whatever the agent's form
TURN2 = {"contains": "Turn 2 of 2"}


@pytest.fixture(params=[None, "llama-cpp"], ids=["lenient", "strict-llama-cpp"])
def model_server(request: pytest.FixtureRequest) -> Any:
    """The scripted server, lenient or checking requests as llama-cpp-python's server does."""
    yield from server_factory(request.param)


def call(agent: str, tool: str = "web_search", **args: Any) -> dict[str, Any]:
    """A reply that calls one tool, in the agent's own form."""
    args = args or {"query": QUERY}
    if agent == "smol-code":
        return {"code": f"print({tool}({', '.join(f'{k}={v!r}' for k, v in args.items())}))"}
    return {"tool_calls": [{"name": tool, "arguments": args}]}


def answer(agent: str, value: str) -> dict[str, Any]:
    """A reply that answers in a turn with tools, in the agent's own form."""
    if agent == "smol-tools":
        return {"tool_calls": [{"name": "final_answer", "arguments": {"answer": value}}]}
    if agent == "smol-code":
        return {"code": f"final_answer({value!r})"}
    return {"content": f"Final answer: {value}"}


def offered_tools(agent: str, body: dict[str, Any]) -> bool:
    """Whether a request puts tools in front of the model: a tools list, or (CodeAgent) tool descriptions."""
    if agent != "smol-code":
        return bool(body.get("tools"))
    return get_tool("web_search").description in json.dumps(body["messages"])


def turn_calls(rd: Any, kind: str, turn: int) -> list[Any]:
    return [e for e in events(rd, EP, kind) if e.turn == turn]


@pytest.mark.parametrize("agent", AGENTS)
async def test_memory_only_turn_sends_no_tools_and_no_tool_descriptions(agent, model_server, api_key_env,
                                                                         episodes_file, tmp_path):
    srv = model_server([call(agent), answer(agent, TITLE), {"content": "It is about charts.\nFinal answer: A"}])
    summary, rd = await run_agent(agent, agent_config(srv, api_key_env), episodes_file, tmp_path / "res")
    assert summary.outcomes[0].answers == [TITLE, "A"], events(rd, EP, "error")
    reqs = srv.chat_requests
    assert len(reqs) == 3
    assert offered_tools(agent, reqs[0].body) and not offered_tools(agent, reqs[2].body)
    assert "tools" not in reqs[2].body
    description = get_tool("web_search").description
    assert description not in json.dumps(reqs[2].body)  # neither as a tool nor in a system prompt
    (mc,) = turn_calls(rd, "model_call", 2)
    assert mc.tools_offered == [] and mc.purpose == "step"
    assert TITLE in json.dumps(reqs[2].body["messages"])  # the memory is there, the tools are not


@pytest.mark.parametrize("agent", AGENTS)
async def test_budget_many_requests_with_tools_then_exactly_one_without(agent, model_server, api_key_env,
                                                                        episodes_file, tmp_path):
    srv = model_server([{"content": f"Final answer: {TITLE}", "match": FALLBACK},
                        {"content": "Final answer: A", "match": TURN2}], default=call(agent))
    summary, rd = await run_agent(agent, agent_config(srv, api_key_env), episodes_file, tmp_path / "res", max_steps=3)
    assert summary.outcomes[0].answers == [TITLE, "A"], events(rd, EP, "error")
    turn1 = [r for r in srv.chat_requests if "Turn 2 of 2" not in json.dumps(r.body["messages"])]
    assert [offered_tools(agent, r.body) for r in turn1] == [True, True, True, False]
    assert [c.purpose for c in turn_calls(rd, "model_call", 1)] == ["step"] * 3 + ["budget_fallback"]
    assert len(turn_calls(rd, "tool_call", 1)) == 3
    (ex,) = events(rd, EP, "budget_exhausted")
    assert ex.turn == 1 and ex.unit == "tool_call" and ex.ran_out == "budget" and ex.tool_calls == 3
    assert turn_calls(rd, "final_answer", 1)[0].source == "budget_fallback"
    ts = turn_calls(rd, "turn_start", 1)[0]
    assert ts.budget == 3 and ts.budget_unit == "tool_call"


@pytest.mark.parametrize("agent", AGENTS)
async def test_a_refused_tool_counts_as_a_step(agent, model_server, api_key_env, episodes_file, tmp_path):
    """On the memory-only turn the model asks for a tool twice: both are refused, both use the budget of 2,
    and the turn ends with the one fallback request."""
    srv = model_server([answer(agent, TITLE), call(agent), call(agent, query="again"),
                        {"content": "Final answer: A", "match": FALLBACK}])
    if srv.profile is not None and agent != "smol-code":
        pytest.skip("llama-cpp-python never returns a function call to a request that offers no tools")
    summary, rd = await run_agent(agent, agent_config(srv, api_key_env), episodes_file, tmp_path / "res", max_steps=2)
    assert summary.outcomes[0].answers == [TITLE, "A"], events(rd, EP, "error")
    refused = turn_calls(rd, "tool_call", 2)
    assert [(c.tool, c.error_kind, c.executed, c.counted) for c in refused] == [("web_search", "refused", False, True)] * 2
    assert [c.budget_left for c in refused] == [1, 0]
    (ex,) = events(rd, EP, "budget_exhausted")
    assert ex.turn == 2 and ex.tool_calls == 2
    assert [c.purpose for c in turn_calls(rd, "model_call", 2)] == ["step", "step", "budget_fallback"]
    assert "not available" in json.dumps(srv.chat_requests[2].body["messages"])  # the refusal reached the model


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("tags", ["code", "markdown"])
async def test_final_answer_code_block_on_a_memory_only_turn_is_recorded_as_its_value(
        agent, tags, model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([answer(agent, TITLE), {"content": "Thought: from memory.", "code": 'final_answer("42")',
                                               "code_tags": tags}])
    summary, rd = await run_agent(agent, agent_config(srv, api_key_env), episodes_file, tmp_path / "res")
    assert summary.outcomes[0].answers == [TITLE, "42"], events(rd, EP, "error")
    (fa,) = turn_calls(rd, "final_answer", 2)
    assert fa.answer == "42" and fa.source == "agent"
    assert len(srv.chat_requests) == 2


@pytest.mark.parametrize("agent", AGENTS)
async def test_steps_without_a_tool_call_are_capped_and_end_in_the_recorded_fallback(
        agent, model_server, api_key_env, episodes_file, tmp_path):
    plan = {"content": "Plan: I will search for the chart paper, then read its title."}
    srv = model_server([{"content": f"Final answer: {TITLE}", "match": FALLBACK},
                        {"content": "Final answer: A", "match": TURN2}], default=plan)
    summary, rd = await run_agent(agent, agent_config(srv, api_key_env), episodes_file, tmp_path / "res", max_steps=3)
    assert summary.outcomes[0].answers == [TITLE, "A"], events(rd, EP, "error")
    idle = turn_calls(rd, "no_tool_step", 1)
    assert [s.reason for s in idle] == ["plan"] * 3 and [s.no_tool_steps for s in idle] == [1, 2, 3]
    assert not turn_calls(rd, "tool_call", 1)
    (ex,) = events(rd, EP, "budget_exhausted")
    assert ex.ran_out == "no_tool_steps" and ex.no_tool_steps == 3 and ex.tool_calls == 0
    assert [c.purpose for c in turn_calls(rd, "model_call", 1)] == ["step"] * 3 + ["budget_fallback"]
    assert turn_calls(rd, "final_answer", 1)[0].source == "budget_fallback"
    # the request after a plan reminds the model of the two ways to act
    second = json.dumps(srv.chat_requests[1].body["messages"])
    assert "counted as a step" in second and "call one of the tools" in second
    assert ("final_answer" if agent != "openai" else "Final answer:") in idle[0].feedback


async def test_code_that_only_prints_is_a_step_without_a_tool_call(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([{"code": "print('thinking about it')"}, {"code": "print(1 + 1)"},
                        {"content": f"Final answer: {TITLE}", "match": FALLBACK}, {"content": "Final answer: A"}])
    summary, rd = await run_agent("smol-code", agent_config(srv, api_key_env), episodes_file, tmp_path / "res",
                                  max_steps=2)
    assert summary.outcomes[0].answers == [TITLE, "A"], events(rd, EP, "error")
    assert [s.reason for s in turn_calls(rd, "no_tool_step", 1)] == ["code_without_tool"] * 2
    assert "thinking about it" in json.dumps(srv.chat_requests[1].body["messages"])
    assert events(rd, EP, "budget_exhausted")[0].ran_out == "no_tool_steps"


@pytest.mark.parametrize("agent", AGENTS)
async def test_model_step_unit_counts_model_steps(agent, model_server, api_key_env, episodes_file, tmp_path):
    """With --budget-unit model_step a plan uses the budget too: plan, search, then the budget of 2 is used."""
    srv = model_server([{"content": "Plan: search."}, call(agent),
                        {"content": f"Final answer: {TITLE}", "match": FALLBACK}, {"content": "Final answer: A"}])
    summary, rd = await run_agent(agent, agent_config(srv, api_key_env), episodes_file, tmp_path / "res",
                                  max_steps=2, budget_unit="model_step")
    assert summary.outcomes[0].answers == [TITLE, "A"], events(rd, EP, "error")
    (ex,) = events(rd, EP, "budget_exhausted")
    assert ex.unit == "model_step" and ex.model_steps == 2 and ex.tool_calls == 1 and ex.no_tool_steps == 1
    assert [c.purpose for c in turn_calls(rd, "model_call", 1)] == ["step", "step", "budget_fallback"]


@pytest.mark.parametrize("agent", ["openai", "smol-tools"])
async def test_calls_of_one_reply_past_the_budget_are_refused_not_run(agent, model_server, api_key_env,
                                                                     episodes_file, tmp_path):
    three = {"tool_calls": [{"name": "web_search", "arguments": {"query": q}} for q in (QUERY, "budgeted", "sparse")]}
    srv = model_server([three, {"content": f"Final answer: {TITLE}", "match": FALLBACK}, {"content": "Final answer: A"}])
    summary, rd = await run_agent(agent, agent_config(srv, api_key_env), episodes_file, tmp_path / "res", max_steps=2)
    assert summary.outcomes[0].answers == [TITLE, "A"], events(rd, EP, "error")
    calls = turn_calls(rd, "tool_call", 1)
    assert [(c.args["query"], c.executed, c.counted) for c in calls] == [
        (QUERY, True, True), ("budgeted", True, True), ("sparse", False, False)]
    assert "not run" in (calls[2].error or "")
    assert len(srv.chat_requests) == 3  # the reply, the fallback, turn 2


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("reply", [
    {"content": f"The search showed it.\nFinal answer: {TITLE}"},
    {"content": json.dumps({"name": "final_answer", "arguments": {"answer": TITLE}})},
])
async def test_every_answer_form_ends_a_tool_turn(agent, reply, model_server, api_key_env, episodes_file, tmp_path):
    """A `Final answer:` line or the final-answer tool call written as text answers a turn with tools too,
    whatever the agent framework's own format."""
    srv = model_server([call(agent), reply, {"content": "Final answer: A"}])
    summary, rd = await run_agent(agent, agent_config(srv, api_key_env), episodes_file, tmp_path / "res")
    assert summary.outcomes[0].answers == [TITLE, "A"], events(rd, EP, "error")
    assert not events(rd, EP, "no_tool_step") and len(srv.chat_requests) == 3
    assert turn_calls(rd, "final_answer", 1)[0].source == "agent"
    turn2 = json.dumps(srv.chat_requests[2].body["messages"])
    assert TITLE in turn2 and "Error" not in turn2  # the accepted answer is no error later
