"""The agents we trust, both ways (issue 30): the built-in openai and smol-tools agents run in process and as
agent programs through the bridge (harness.bridge.host) on the same scripted model, and leave the same trace:
event kinds, turn, step, tool, arguments, result text, provenance, request hashes, answers and their source.
Timestamps, durations, latencies and run ids are left out, and so is the agent's name."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.bridge.sandbox import sandbox_unavailable_reason
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


def comparable(rd: Any, ep: str, code: bool = False) -> list[tuple[Any, ...]]:
    """`code`: a code agent's requests carry no `tools` (its tools are functions its code calls): in process it
    reports the turn's tools as offered, the bridge records what the request offered; that field is left out."""
    out = []
    for e in events(rd, ep):
        fields = tuple(repr((e.response or {}).get("choices") if f == "choices" else getattr(e, f))
                       for f in KEEP.get(e.kind, ()) if not (code and f == "tools_offered"))
        out.append((e.kind, e.turn, e.step, *fields))
    return out


CALL = {"tool_calls": [{"name": "web_search", "arguments": {"query": "chart readers"}}]}
CODE_CALL = {"content": 'Thought: search.\n<code>\nprint(web_search(query="chart readers"))\n</code>'}


def script(agent: str, story: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """`early`: one tool call, then the answer; `budget`: tool calls until the budget is used up, then the fallback."""
    call = CODE_CALL if agent == "smol-code" else CALL
    no_tools = [{"content": f"Final answer: {TITLE}", "match": {"tools_offered": False}},
                {"content": "Final answer: A", "match": {"tools_offered": False}}]
    if story == "budget" and agent == "smol-code":  # its requests never offer tools: the replies in their order
        return [call, call, call, {"content": f"Final answer: {TITLE}"}, {"content": "Final answer: A"}], call
    if story == "budget":
        return no_tools, call
    final = {"smol-tools": {"tool_calls": [{"name": "final_answer", "arguments": {"answer": TITLE}}]},
             "smol-code": {"content": f'Thought: done.\n<code>\nfinal_answer("{TITLE}")\n</code>'}}.get(
        agent, {"content": f"Final answer: {TITLE}"})
    return [call, final, no_tools[1]], call


@pytest.mark.parametrize("agent", ["openai", pytest.param("smol-tools", marks=pytest.mark.slow),
                                   pytest.param("smol-code", marks=pytest.mark.slow)])
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
        runs[way] = comparable(rd, "ep-0", code=agent == "smol-code")
    for a, b in zip(runs["bridge"], runs["inproc"]):
        assert a == b, (a, b)
    assert len(runs["bridge"]) == len(runs["inproc"])
    kinds = [e[0] for e in runs["inproc"]]
    assert kinds.count("budget_exhausted") == (story == "budget")
    assert kinds.count("tool_call") == (3 if story == "budget" else 1)
    assert ("final_answer", 2, runs["inproc"][-2][2], "'A'", "'agent'") in runs["inproc"]


@pytest.mark.slow
@pytest.mark.skipif(sandbox_unavailable_reason() is not None, reason="no bubblewrap sandbox here")
async def test_smol_code_through_the_bridge_runs_its_code_in_the_programs_sandbox(api_key_env, tmp_path):
    """The harness installed where the sandbox can see it (a copy of its packages, bound read-only): smol-code runs
    as a confined agent program, its model's code executed by smolagents in that program (a jail cannot start in
    the sandbox), every tool call it makes through the bridge."""
    copy = tmp_path / "harness-install"
    skip = shutil.ignore_patterns("build", "build-v1", "__pycache__", "*.pdf")
    for pkg in ("harness", "agents", "tools", "sandbox"):
        shutil.copytree(ROOT / pkg, copy / pkg, ignore=skip, symlinks=False)
    eps = write_episodes(tmp_path / "eps.jsonl", [two_turn_episode("ep-0")])
    make = server_factory()
    items, default = script("smol-code", "budget")
    srv = next(make)(items, default=default)
    try:
        cfg = agent_config(srv, api_key_env, agent_cmd="python -m harness.bridge.host smol-code", agent_sandbox="bwrap",
                           agent_dir=[copy], agent_env=[f"PYTHONPATH={copy}"])
        summary, rd = await run_agent("bridge", cfg, eps, tmp_path / "res", max_steps=3)
    finally:
        next(make, None)
    (o,) = summary.outcomes
    assert o.status == "completed" and o.answers == [TITLE, "A"], events(rd, "ep-0", "error")
    assert events(rd, "ep-0", "episode_start")[0].agent == "bridge"  # confined
    tools = events(rd, "ep-0", "tool_call")
    assert [(t.turn, t.tool, t.executed) for t in tools] == [(1, "web_search", True)] * 3
    assert all(TITLE in (t.result_text or "") for t in tools)
