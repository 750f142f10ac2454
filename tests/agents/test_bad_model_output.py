"""Bad model output (scripted server, real HTTP): an empty reply, arguments cut mid-JSON, an unknown tool,
arguments of the wrong type, code that raises. Each is one recorded step whose error the model reads in
its next request; none crashes the episode or the run."""
from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import agent_config, events, run_agent, two_turn_episode, write_episodes

EP = "ep-search-1"
TITLE = "Contrastive Pretraining of Chart Readers"
QUERY = "contrastive pretraining chart readers"
SEARCH = {"name": "web_search", "arguments": {"query": QUERY}}


def finish(agent: str) -> list[dict[str, Any]]:
    """After the bad step: a good search, the answer, and the memory-only turn's answer."""
    if agent == "smol-code":
        return [{"code": f"print(web_search(query={QUERY!r}))"}, {"code": f"final_answer({TITLE!r})"},
                {"content": "Final answer: A"}]
    if agent == "smol-tools":
        return [{"tool_calls": [SEARCH]}, {"tool_calls": [{"name": "final_answer", "arguments": {"answer": TITLE}}]},
                {"content": "Final answer: A"}]
    return [{"tool_calls": [SEARCH]}, {"content": f"Final answer: {TITLE}"}, {"content": "Final answer: A"}]


# (agent, bad reply, what the trace records, text the model reads next)
CASES = [
    ("openai", {"fault": "empty"}, ("no_tool_step", "empty"), "reply was empty"),
    ("smol-tools", {"fault": "empty"}, ("no_tool_step", "empty"), "was empty"),
    ("smol-code", {"fault": "empty"}, ("no_tool_step", "empty"), "was empty"),
    ("openai", {"tool_calls": [SEARCH], "fault": "malformed_tool_json"}, ("tool_call", "bad_arguments"), "not a JSON object"),
    ("smol-tools", {"tool_calls": [SEARCH], "fault": "malformed_tool_json"}, ("tool_call", "bad_arguments"), "not a JSON object"),
    ("smol-code", {"code": 'print(web_search(query="contrastive'}, ("no_tool_step", "code_error"), "SyntaxError"),
    ("openai", {"tool_calls": [{"name": "open_browser", "arguments": {"url": "x"}}]}, ("tool_call", "refused"), "not available"),
    ("smol-tools", {"tool_calls": [{"name": "open_browser", "arguments": {"url": "x"}}]}, ("tool_call", "refused"), "not available"),
    ("smol-code", {"code": "open_browser(url='x')"}, ("no_tool_step", "code_error"), "open_browser"),
    ("openai", {"tool_calls": [{"name": "web_search", "arguments": {"query": ["x"], "k": "many"}}]},
     ("tool_call", "bad_arguments"), "bad arguments"),
    ("smol-tools", {"tool_calls": [{"name": "web_search", "arguments": {"query": ["x"], "k": "many"}}]},
     ("tool_call", "bad_arguments"), "bad arguments"),
    ("smol-code", {"code": "print(web_search(query=123, k='many'))"}, ("tool_call", "bad_arguments"), "bad arguments"),
    ("smol-code", {"code": "x = 1 / 0"}, ("no_tool_step", "code_error"), "ZeroDivisionError"),
]


@pytest.mark.parametrize("agent, bad, recorded, shown", CASES, ids=[f"{c[0]}-{c[2][1]}-{i}" for i, c in enumerate(CASES)])
async def test_bad_output_is_one_recorded_step_the_model_reads(agent, bad, recorded, shown, model_server, api_key_env,
                                                                episodes_file, tmp_path):
    srv = model_server([bad, *finish(agent)])
    summary, rd = await run_agent(agent, agent_config(srv, api_key_env), episodes_file, tmp_path / "res", max_steps=4)
    out = summary.outcomes[0]
    assert out.status == "completed" and out.answers == [TITLE, "A"], events(rd, EP, "error")
    kind, what = recorded
    first = next(e for e in events(rd, EP) if e.kind in ("tool_call", "no_tool_step"))
    assert first.kind == kind and first.turn == 1
    if kind == "tool_call":
        assert first.error_kind == what and first.error and first.counted
    else:
        assert first.reason == what
    assert shown in json.dumps(srv.chat_requests[1].body["messages"])
    assert len(srv.chat_requests) == 4  # the bad step, the search, the answer, turn 2: nothing retried or lost


async def test_a_run_of_bad_episodes_keeps_going(model_server, api_key_env, tmp_path):
    """Two episodes, the first fed only garbage until its budgets run out: both finish, each with a trace."""
    eps = write_episodes(tmp_path / "eps.jsonl", [two_turn_episode("ep-a"), two_turn_episode("ep-b")])
    srv = model_server([{"fault": "empty"}] * 2 + [{"content": "Final answer: ?", "match": {"contains": "is used up"}},
                                                   {"content": "Final answer: A"}]
                       + [{"tool_calls": [SEARCH]}, {"content": f"Final answer: {TITLE}"}, {"content": "Final answer: A"}])
    summary, rd = await run_agent("openai", agent_config(srv, api_key_env), eps, tmp_path / "res", max_steps=2)
    assert [o.status for o in summary.outcomes] == ["completed", "completed"]
    assert {o.episode_id: o.answers for o in summary.outcomes} == {"ep-a": ["?", "A"], "ep-b": [TITLE, "A"]}
    assert [s.reason for s in events(rd, "ep-a", "no_tool_step")] == ["empty", "empty"]
