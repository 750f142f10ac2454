"""Issue 27's must-shows on the agents' side: every agent completes episodes against the strict llama-cpp profile
(llama-cpp-python's server as its source checks requests), with tools called and answers recorded, sending the
wire shapes every common server takes; a text-only run (--no-images) sends no image and says so."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sandbox.model_server import Script, ScriptedModelServer, ScriptItem

from .conftest import agent_config, events, run_agent, two_turn_episode, write_episodes

EP = "ep-search-1"
from .test_protocol_must_show import AGENTS, FALLBACK, TITLE, TURN2, answer, call

IMAGE = Path(__file__).resolve().parents[2] / "episodes" / "examples" / "images" / "P003-figure2.png"


def three_episodes(folder: Path) -> Path:
    """Three two-turn episodes (a search turn, a memory-only turn); the first has a cue image."""
    shutil.copy(IMAGE, folder / "cue.png")
    eps = [two_turn_episode(f"ep-{i}") for i in (1, 2, 3)]
    eps[0]["turns"][0]["cue"]["image"] = "cue.png"
    return write_episodes(folder / "eps.jsonl", eps)


def shape_problems(body: dict[str, Any]) -> list[str]:
    """What in a request body one of the common servers refuses or mishandles (empty: none)."""
    problems = []
    for i, m in enumerate(body["messages"]):
        content = m.get("content")
        if content is None:
            problems.append(f"message {i} ({m['role']}): content null")
        elif isinstance(content, list) and not any(p.get("type") == "image_url" for p in content):
            problems.append(f"message {i} ({m['role']}): parts without an image")
        if i and m["role"] == "user" and body["messages"][i - 1]["role"] == "user":
            problems.append(f"message {i}: two user messages in a row")
    if body.get("tools") and body.get("tool_choice") != "auto":
        problems.append(f"tools offered with tool_choice {body.get('tool_choice')!r}")
    if not body.get("tools") and "tool_choice" in body:
        problems.append("tool_choice without tools")
    return problems


@pytest.mark.parametrize("agent", AGENTS)
async def test_each_agent_completes_three_episodes_against_the_strict_llama_cpp_profile(agent, api_key_env, tmp_path):
    items = [item for _ in range(3) for item in (call(agent), answer(agent, TITLE), {"content": "Final answer: A"})]
    with ScriptedModelServer(Script(responses=[ScriptItem.model_validate(i) for i in items]), strict="llama-cpp") as srv:
        summary, rd = await run_agent(agent, agent_config(srv, api_key_env), three_episodes(tmp_path), tmp_path / "res")
    for ep in ("ep-1", "ep-2", "ep-3"):
        assert not events(rd, ep, "error"), events(rd, ep, "error")
        calls = events(rd, ep, "tool_call")
        assert [(c.turn, c.tool, c.executed, c.error) for c in calls] == [(1, "web_search", True, None)]
        assert [(f.answer, f.source) for f in events(rd, ep, "final_answer")] == [(TITLE, "agent"), ("A", "agent")]
    assert [o.answers for o in summary.outcomes] == [[TITLE, "A"]] * 3
    reqs = srv.chat_requests
    assert len(reqs) == 9 and all(r.served.startswith("script[") for r in reqs), [r.error for r in reqs]
    assert {i: shape_problems(r.body) for i, r in enumerate(reqs) if shape_problems(r.body)} == {}
    assert reqs[0].n_images == 1  # the cue image went as a part of the turn's user message, the rest as strings
    if agent != "smol-code":
        assert reqs[0].body["tool_choice"] == "auto"
        (search,) = [t["function"] for t in reqs[0].body["tools"] if t["function"]["name"] == "web_search"]
        k = search["parameters"]["properties"]["k"]  # the bounds the prose states, for a grammar-constrained server
        assert (k["minimum"], k["maximum"]) == (1, 20)


async def test_no_images_sends_no_image_and_says_the_image_is_not_available(model_server, api_key_env, tmp_path):
    srv = model_server([call("openai"), answer("openai", TITLE), {"content": "Final answer: A"}])
    eps = three_episodes(tmp_path)
    summary, rd = await run_agent("openai", agent_config(srv, api_key_env, images=False), eps, tmp_path / "res",
                                  episode_ids=["ep-1"], score=True)
    assert summary.outcomes[0].answers == [TITLE, "A"]
    sent = json.dumps([r.body for r in srv.chat_requests])
    assert all(r.n_images == 0 for r in srv.chat_requests) and "image_url" not in sent
    assert "Cue image: not available in this run (text only)" in sent and "attached below" not in sent
    report = (rd.path / "report.md").read_text()
    assert "**text-only run** (`--no-images`)" in report and "text-only (--no-images)" in report
    from harness.scoring.run import read_run_scores

    assert read_run_scores(rd.path).ablation.images is False


async def test_the_report_counts_what_the_model_did_as_the_trace_shows_it(model_server, api_key_env, episodes_file, tmp_path):
    """Issue 27's scripted run: replies that are empty, a plan, cut off at the length limit, a malformed call (not
    JSON, and one past the schema's k <= 20), a tool call written as text, and the instructions' placeholders
    echoed. The counts in scores.json and report.md match the trace's events; refused_calls is 0 (nothing was
    refused by the rules); the echoed `Final answer: <answer>` is scored as no answer."""
    from harness.scoring.run import read_episode_scores, read_run_scores
    from harness.trace import NoToolStep, ToolCallEvent

    srv = model_server([
        {"fault": "empty"},
        {"content": "Plan: search for the chart paper, then read its title."},
        {"content": "Let me think about this at length " * 20, "finish_reason": "length"},
        {"tool_calls": [{"name": "web_search", "arguments": '{"query": "chart readers'}]},  # not JSON
        {"tool_calls": [{"name": "web_search", "arguments": {"query": "chart readers", "k": 50}}]},  # k past 20
        {"content": '{"name": "web_search", "arguments": {"query": "chart readers"}}'},  # a call written as text
        {"content": "Final answer: <answer>", "match": FALLBACK},  # the fallback echoes the placeholder
        {"content": "Final answer: <letter>", "match": TURN2},  # echoed again: no answer, a step
        {"content": "It is about charts.\nFinal answer: A"},
    ])
    summary, rd = await run_agent("openai", agent_config(srv, api_key_env), episodes_file, tmp_path / "res", max_steps=4,
                                  score=True)
    trace = events(rd, EP)
    steps = [e for e in trace if isinstance(e, NoToolStep)]
    calls = [e for e in trace if isinstance(e, ToolCallEvent)]
    assert [s.reason for s in steps] == ["empty", "plan", "over_long", "unparseable", "unparseable"]
    assert [(c.executed, c.error_kind) for c in calls] == [(False, "bad_arguments")] * 2
    scores = read_run_scores(rd.path)
    b = scores.all.behaviour
    assert (b.no_tool_steps, b.empty, b.plan, b.over_long, b.unparseable, b.other_no_tool) == (len(steps), 1, 1, 1, 2, 0)
    assert (b.malformed_calls, b.refused_calls, b.fallbacks, b.retries, b.timeouts) == (len(calls), 0, 1, 0, 0)
    assert scores.all.refused_calls == 0
    (ep,) = read_episode_scores(rd.path)
    assert ep.behaviour == b and ep.refused_calls == 0
    t1 = ep.turns[0]
    assert t1.answer == "<answer>" and not t1.verdict.parseable and "placeholder" in t1.verdict.detail
    assert ep.bucket == "model" and ep.failure.type == "others"
    assert ep.turns[1].answer == "A" and ep.turns[1].correct
    report = (rd.path / "report.md").read_text()
    assert "| All | 5 | 1 | 1 | 1 | 2 | 0 | 2 | 0 | 0 | 0 | 0 | 0 | 1 |" in report
    assert "no-tool 5: empty 1, plan 1, over-long 1, unparseable 2; malformed 2; fallbacks 1" in report


@pytest.mark.parametrize("agent", AGENTS)
async def test_the_last_no_tool_feedback_and_the_fallback_prompt_are_one_user_message(agent, model_server, api_key_env,
                                                                                       episodes_file, tmp_path):
    plan = {"content": "Plan: I will search for the chart paper, then read its title."}
    srv = model_server([plan, plan, {"content": f"Final answer: {TITLE}", "match": FALLBACK}, {"content": "Final answer: A"}])
    summary, rd = await run_agent(agent, agent_config(srv, api_key_env), episodes_file, tmp_path / "res", max_steps=2)
    assert summary.outcomes[0].answers == [TITLE, "A"]
    fallback = srv.chat_requests[2].body
    assert shape_problems(fallback) == []
    last = fallback["messages"][-1]
    assert last["role"] == "user" and "is used up" in last["content"]
    assert "the last one allowed without a tool call" in last["content"]  # the feedback on the step, same message
    assert "call one of the tools" not in last["content"]  # and it does not ask for a tool it cannot call
