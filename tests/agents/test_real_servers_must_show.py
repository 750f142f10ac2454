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
from .test_protocol_must_show import AGENTS, TITLE, answer, call

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
                                  episode_ids=["ep-1"])
    assert summary.outcomes[0].answers == [TITLE, "A"]
    sent = json.dumps([r.body for r in srv.chat_requests])
    assert all(r.n_images == 0 for r in srv.chat_requests) and "image_url" not in sent
    assert "Cue image: not available in this run (text only)" in sent and "attached below" not in sent
