"""The agents we trust, both ways (issue 30): the built-in openai and smol-tools agents run in process and as
agent programs through the bridge (harness.bridge.host) on the same scripted model, and leave the same trace:
event kinds, turn, step, tool, arguments, result text, provenance, request hashes, answers and their source.
Timestamps, durations, latencies and run ids are left out, and so is the agent's name."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import agent_config, events, run_agent, server_factory, two_turn_episode, write_episodes

ROOT = Path(__file__).resolve().parents[2]
TITLE = "Contrastive Pretraining of Chart Readers"
KEEP = {
    "turn_start": ("question", "allowed_tools", "budget", "memory_only"),
    "model_call": ("tools_offered", "purpose", "request_sha256", "error", "choices"),
    "tool_call": ("tool", "args", "raw_arguments", "result_text", "provenance", "executed", "counted", "error"),
    "budget_exhausted": ("budget", "unit", "ran_out", "tool_calls", "model_steps"),
    "final_answer": ("answer", "source"),
    "error": ("bucket", "message"),
    "episode_end": ("status", "model_calls", "tool_calls"),
}


def comparable(rd: Any, ep: str) -> list[tuple[Any, ...]]:
    out = []
    for e in events(rd, ep):
        fields = tuple(repr((e.response or {}).get("choices") if f == "choices" else getattr(e, f))
                       for f in KEEP.get(e.kind, ()))
        out.append((e.kind, e.turn, e.step, *fields))
    return out


CALL = {"tool_calls": [{"name": "web_search", "arguments": {"query": "chart readers"}}]}


def script(agent: str, story: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """`early`: one tool call, then the answer; `budget`: tool calls until the budget is used up, then the fallback."""
    no_tools = [{"content": f"Final answer: {TITLE}", "match": {"tools_offered": False}},
                {"content": "Final answer: A", "match": {"tools_offered": False}}]
    if story == "budget":
        return no_tools, CALL
    final = ({"tool_calls": [{"name": "final_answer", "arguments": {"answer": TITLE}}]} if agent == "smol-tools"
             else {"content": f"Final answer: {TITLE}"})
    return [CALL, final, no_tools[1]], CALL


@pytest.mark.parametrize("agent", ["openai", pytest.param("smol-tools", marks=pytest.mark.slow)])
@pytest.mark.parametrize("story, unit", [("early", "tool_call"), ("budget", "tool_call"), ("budget", "model_step")])
async def test_in_process_and_through_the_bridge_leave_the_same_trace(agent, story, unit, api_key_env, tmp_path):
    max_steps = 3
    eps = write_episodes(tmp_path / "eps.jsonl", [two_turn_episode("ep-0")])
    runs = {}
    for way in ("inproc", "bridge"):
        make = server_factory()
        items, default = script(agent, story)
        srv = next(make)(items, default=default)
        try:
            if way == "inproc":
                cfg = agent_config(srv, api_key_env)
                _, rd = await run_agent(agent, cfg, eps, tmp_path / way, max_steps=max_steps, budget_unit=unit)
            else:
                cfg = agent_config(srv, api_key_env, agent_cmd=f"python -m harness.bridge.host {agent}",
                                   agent_sandbox="none", agent_env=[f"PYTHONPATH={ROOT}"])
                _, rd = await run_agent("bridge", cfg, eps, tmp_path / way, max_steps=max_steps, budget_unit=unit)
        finally:
            next(make, None)
        runs[way] = comparable(rd, "ep-0")
    for a, b in zip(runs["bridge"], runs["inproc"]):
        assert a == b
    assert len(runs["bridge"]) == len(runs["inproc"])
    kinds = [e[0] for e in runs["inproc"]]
    assert kinds.count("budget_exhausted") == (story == "budget")
    assert kinds.count("tool_call") == (3 if story == "budget" else 1)
    assert ("final_answer", 2, runs["inproc"][-2][2], "'A'", "'agent'") in runs["inproc"]
