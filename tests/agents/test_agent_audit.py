"""Gaps found by the agents audit: how smolagents agents are told to answer, what their trace says was
offered, the order of parallel calls, set answers written as lists, and the human player's screen."""
from __future__ import annotations

import asyncio
import json

from harness.agent import AgentConfig

from agents._prompt import clean_final_answer, system_prompt, FINAL_BY_TEXT

from .conftest import TinyWorld, agent_config, events, run_agent

EP = "ep-search-1"
TITLE = "Contrastive Pretraining of Chart Readers"
SEARCH = {"name": "web_search", "arguments": {"query": "contrastive pretraining chart readers"}}


class SlowFirstSearchWorld(TinyWorld):
    """The first query answers late: calls run in parallel would finish (and be traced) out of order."""

    async def search(self, query: str, k: int):  # type: ignore[no-untyped-def]
        if query.startswith("contrastive"):
            await asyncio.sleep(0.4)
        return await super().search(query, k)


def test_a_set_answer_written_as_a_list_under_final_answer_keeps_every_item():
    reply = "The two baselines qualify.\nFinal answer:\n- One-stage baseline\n- Two-stage baseline"
    assert clean_final_answer(reply) == "One-stage baseline; Two-stage baseline"
    assert clean_final_answer("Final answer:\n1. X\n2) Y") == "X; Y"
    assert clean_final_answer("Final answer: -3.5") == "-3.5"
    assert clean_final_answer("Final answer: 1\nFinal answer: -3.5") == "-3.5"  # the last marker wins


def test_lines_after_a_one_line_answer_stay_with_it_so_the_grader_reads_them():
    """Issue 22: `Final answer: 77.2\nor 84.7` hedges on its next line; keeping only the first line hid that."""
    from harness.episode import Answer
    from harness.scoring.match import match_answer

    gold = Answer(format="number", value=77.36, tolerance=0.005)
    explained = clean_final_answer("Final answer: 77.36\nThat is the Cora value; the full model has 79.1.")
    hedged = clean_final_answer("Reading Table 2.\nFinal answer: 77.36\nor 79.1")
    assert explained == "Final answer: 77.36\nThat is the Cora value; the full model has 79.1."
    assert match_answer(explained, gold).correct
    assert hedged == "Final answer: 77.36\nor 79.1"
    v = match_answer(hedged, gold)
    assert not v.correct and v.hedged


async def test_tool_calling_agent_is_told_to_answer_with_the_final_answer_tool_and_runs_calls_in_order(
        model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([
        {"tool_calls": [SEARCH, {"name": "web_search", "arguments": {"query": "budgeted tool use"}},
                        {"name": "web_search", "arguments": {"query": "sparse mixture routing"}}]},
        {"tool_calls": [{"name": "final_answer", "arguments": {"answer": TITLE}}]},
        {"content": "Final answer: A"},
    ])
    summary, rd = await run_agent("smol-tools", agent_config(srv, api_key_env), episodes_file, tmp_path / "res",
                                  world=SlowFirstSearchWorld(tmp_path / "cache"))
    assert summary.outcomes[0].answers == [TITLE, "A"]
    system = json.dumps(srv.chat_requests[0].body["messages"][0])
    assert "call the `final_answer` tool" in system and "reply with no tool call" not in system
    calls = events(rd, EP, "tool_call")
    # parallel calls run one after another, in the model's order: trace order == step order == request order
    assert [c.args["query"] for c in calls] == ["contrastive pretraining chart readers", "budgeted tool use",
                                                "sparse mixture routing"]
    assert [c.step for c in calls] == [1, 2, 3]


async def test_code_agent_trace_names_the_tools_its_code_may_call(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([
        {"content": 'Thought: search.\n<code>\nprint(web_search(query="contrastive pretraining chart readers"))\n</code>'},
        {"content": f'Thought: done.\n<code>\nfinal_answer("{TITLE}")\n</code>'},
        {"content": "Final answer: A"},
    ])
    summary, rd = await run_agent("smol-code", agent_config(srv, api_key_env), episodes_file, tmp_path / "res")
    assert summary.outcomes[0].answers == [TITLE, "A"]
    mcalls = events(rd, EP, "model_call")
    assert [m.tools_offered for m in mcalls] == [["web_search"], ["web_search"], []]
    system = json.dumps(srv.chat_requests[0].body["messages"][0])
    assert 'call `final_answer(\\"<answer>\\")` in your code' in system
    assert "Final answer:" in system  # the prompt of text-answering agents is unchanged
    assert "reply with no tool call" in system_prompt(FINAL_BY_TEXT)


async def test_human_sees_the_result_of_each_call_in_full(tmp_path, episodes_file):
    (tmp_path / "session.txt").write_text('web_search query="chart readers" k=3\n'
                                          f"answer {TITLE}\nanswer A\n")
    out = tmp_path / "screen.txt"
    cfg = AgentConfig(extra={"input": str(tmp_path / "session.txt"), "output": str(out)})
    summary, _ = await run_agent("human", cfg, episodes_file, tmp_path / "res", run_id="human")
    assert summary.outcomes[0].answers == [TITLE, "A"]
    shown = out.read_text()
    assert "result of web_search (step 1)" in shown
    # the whole hit list is on screen without `show`, including the third hit's paper id
    block = shown.split("result of web_search (step 1)", 1)[1]
    assert "P001" in block and "P002" in block and "P003" in block
    assert shown.count("what it does") == 1  # the tools table is shown once per turn with tools
