"""Must show (issue 30): agent programs through the bridge, seen from the model server's side and from the trace.

The plain openai-SDK example (agents/examples) on 3 episodes with --max-steps 3: every tool turn sends exactly 3
requests with tools, then exactly one without; the memory-only turn none with tools. A rogue program that overruns
the budget, calls tools on a memory-only turn, leaves out the token and reads the episode file, the corpus and the
harness's environment is refused, and every refusal is in the trace. Each runs unconfined and in the sandbox."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from harness.bridge.sandbox import sandbox_unavailable_reason
from tests.agents.conftest import agent_config, events, run_agent, two_turn_episode, write_episodes

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "agents" / "examples"
PROGRAMS = Path(__file__).resolve().parent / "programs"
TITLE = "Contrastive Pretraining of Chart Readers"
SANDBOXES = ["none", pytest.param("bwrap", marks=pytest.mark.skipif(
    sandbox_unavailable_reason() is not None, reason=f"no sandbox here: {sandbox_unavailable_reason()}"))]


def three_episodes(tmp_path: Path) -> Path:
    return write_episodes(tmp_path / "eps.jsonl", [two_turn_episode(f"ep-{i}") for i in range(3)])


def script_for(n: int) -> list[dict]:
    """Per episode: the fallback answer (turn 1's question, no tools), then the memory-only answer."""
    return [{"content": f"Final answer: {TITLE}", "match": {"tools_offered": False, "contains": "Which paper"}},
            {"content": "Final answer: A", "match": {"tools_offered": False, "contains": "Is the paper"}}] * n


CALL = {"tool_calls": [{"name": "web_search", "arguments": {"query": "chart readers"}}]}


def run_bridge(srv, key_env, cmd, tmp_path, sandbox, episodes=None, **kw):
    cfg = agent_config(srv, key_env, agent_cmd=cmd, agent_sandbox=sandbox, **kw.pop("cfg", {}))
    return run_agent("bridge", cfg, episodes or three_episodes(tmp_path), tmp_path / "res", max_steps=3, **kw)


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", SANDBOXES)
async def test_openai_example_three_requests_with_tools_then_exactly_one_without(sandbox, model_server, api_key_env,
                                                                                 tmp_path):
    srv = model_server(script_for(3), default=CALL)
    summary, rd = await run_bridge(srv, api_key_env, f"python {EXAMPLES / 'openai_sdk_agent.py'}", tmp_path, sandbox)
    for o in summary.outcomes:
        assert o.status == "completed" and o.answers == [TITLE, "A"], events(rd, o.episode_id, "error")
    with_tools = [bool(r.body.get("tools")) for r in srv.chat_requests]
    # per episode: 3 requests with tools, the one fallback request without, the memory-only turn's without
    assert with_tools == [True, True, True, False, False] * 3
    for i in range(3):
        calls = events(rd, f"ep-{i}", "model_call")
        turn1 = [c for c in calls if c.turn == 1]
        assert [(bool(c.tools_offered), c.purpose, c.error is None) for c in turn1] == [
            (True, "step", True)] * 3 + [(True, "budget_fallback", False), (False, "budget_fallback", True)]
        assert "budget_exhausted" in turn1[3].error  # the refused request is traced, with why
        assert [c.tools_offered for c in calls if c.turn == 2] == [[]]
        assert [e.source for e in events(rd, f"ep-{i}", "final_answer")] == ["budget_fallback", "agent"]
        assert len(events(rd, f"ep-{i}", "budget_exhausted")) == 1
        tools = events(rd, f"ep-{i}", "tool_call")
        assert [t.executed for t in tools] == [True] * 3 and all(TITLE in (t.result_text or "") for t in tools)
        assert events(rd, f"ep-{i}", "episode_start")[0].agent == ("bridge" if sandbox == "bwrap" else "bridge-unconfined")


@pytest.mark.parametrize("sandbox", SANDBOXES)
async def test_rogue_program_is_refused_and_traced(sandbox, model_server, api_key_env, tmp_path, monkeypatch):
    monkeypatch.setenv("EPI_CANARY_KEY", "sk-canary")
    episodes = write_episodes(tmp_path / "eps.jsonl", [two_turn_episode("ep-0")])
    corpus = Path(os.environ.get("EPI_SANDBOX_DIR") or ROOT / "sandbox" / "build")
    corpus_file = next(p for p in sorted(corpus.rglob("*")) if p.is_file())
    srv = model_server([], default={"content": "Final answer: x"})
    secrets = [str(episodes), str(corpus_file), str(ROOT / "pyproject.toml")]
    summary, rd = await run_bridge(srv, api_key_env, f"python {PROGRAMS / 'rogue.py'}", tmp_path, sandbox,
                                   episodes=episodes, cfg={"agent_env": ["ROGUE_PATHS=" + ":".join(secrets),
                                                                    f"ROGUE_DIRECT={srv.base_url}"]})
    (o,) = summary.outcomes
    assert o.status == "completed", events(rd, "ep-0", "error")
    t1, t2 = (json.loads(a) for a in o.answers)
    assert t1["no_token"] == 401 and t2["no_token"] == 401
    assert t1["tool_calls"] == [False, False, False, True, True]  # past the budget of 3: refused
    assert t1["with_tools"] == "budget_exhausted" and t1["fallback"] == 200 and t1["after"] == "turn_over"
    assert t2["with_tools"] == "no_tools_this_turn" and "not available" in t2["tool"] and t2["plain"] == 200
    assert t1["reads"]["env"] == []  # the harness's environment is not the program's
    if sandbox == "bwrap":
        assert all(t1["reads"][p].startswith("refused:") for p in secrets), t1["reads"]
        assert t1["reads"]["direct"].startswith("refused:")  # no network but the bridge's
    else:  # unconfined: nothing stops it (the run is labelled so)
        assert all(t1["reads"][p].startswith("read:") for p in secrets)
        assert t1["reads"]["direct"].startswith("reached:")
    # from the server's side: one request reached it per turn, none with tools
    assert [bool(r.body.get("tools")) for r in srv.chat_requests] == [False, False]
    tools = events(rd, "ep-0", "tool_call")
    assert [(t.turn, t.executed, t.counted) for t in tools] == [(1, True, True)] * 3 + [(1, False, False)] * 2 + [
        (2, False, True)]
    refused = [c for c in events(rd, "ep-0", "model_call") if c.error]
    assert [c.error.split(")")[0] for c in refused] == [
        "refused by the bridge (budget_exhausted", "refused by the bridge (turn_over",
        "refused by the bridge (no_tools_this_turn"]
    assert refused[2].tools_offered == ["web_search"] and refused[2].turn == 2


@pytest.mark.parametrize("sandbox", SANDBOXES)
async def test_node_example_keeps_the_same_protocol(sandbox, model_server, api_key_env, tmp_path):
    """The agent in another language: the same requests from the server's side, the same answers."""
    srv = model_server(script_for(3), default=CALL)
    summary, rd = await run_bridge(srv, api_key_env, f"node {EXAMPLES / 'node_agent.mjs'}", tmp_path, sandbox)
    for o in summary.outcomes:
        assert o.status == "completed" and o.answers == [TITLE, "A"], events(rd, o.episode_id, "error")
    assert [bool(r.body.get("tools")) for r in srv.chat_requests] == [True, True, True, False, False] * 3
    for i in range(3):
        assert [t.executed for t in events(rd, f"ep-{i}", "tool_call")] == [True] * 3


async def test_an_unconfined_run_says_so_in_its_scores_and_report(model_server, api_key_env, tmp_path):
    srv = model_server(script_for(1), default=CALL)
    episodes = write_episodes(tmp_path / "eps.jsonl", [two_turn_episode("ep-0")])
    _, rd = await run_bridge(srv, api_key_env, f"node {EXAMPLES / 'node_agent.mjs'}", tmp_path, "none",
                             episodes=episodes, score=True)
    scores = json.loads((rd.path / "scores.json").read_text())
    assert scores["agent"] == "bridge-unconfined"
    assert "bridge-unconfined" in (rd.path / "report.md").read_text()
    # the program is the user's, run out of process: never labelled built-in (nor in-process, trusted)
    assert scores["agent_origin"] == "agent program (bridge)", scores["agent_origin"]
    assert json.loads((rd.path / "run.json").read_text())["agent_origin"]["kind"] == "agent program (bridge)"


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("long_lived", [False, True])
async def test_a_long_lived_program_takes_episode_after_episode_and_is_labelled(sandbox, long_lived, model_server,
                                                                                api_key_env, tmp_path):
    srv = model_server([], default={"content": "Final answer: x"})
    summary, rd = await run_bridge(srv, api_key_env, f"python {PROGRAMS / 'long_lived.py'}", tmp_path, sandbox,
                                   cfg={"agent_long_lived": long_lived}, score=True)
    seen = [[json.loads(a) for a in o.answers] for o in sorted(summary.outcomes, key=lambda o: o.episode_id)]
    assert all(o.status == "completed" for o in summary.outcomes)
    pids = {t["pid"] for ep in seen for t in ep}
    if long_lived:  # one program, three episodes in turn, each with its own token (the one before is refused)
        assert len(pids) == 1 and [ep[0]["episodes"] for ep in seen] == [1, 2, 3]
        assert [ep[0]["first_token"] for ep in seen] == [200, 401, 401]
    else:  # the default: a program per episode
        assert len(pids) == 3 and [ep[0]["episodes"] for ep in seen] == [1, 1, 1]
    assert all(t["token"] == 200 and t["long_lived"] is long_lived for ep in seen for t in ep)
    name = ("bridge" if sandbox == "bwrap" else "bridge-unconfined") + ("-long-lived" if long_lived else "")
    assert events(rd, "ep-0", "episode_start")[0].agent == name
    scores = json.loads((rd.path / "scores.json").read_text())
    assert scores["agent"] == name and name in (rd.path / "report.md").read_text()


async def test_a_long_lived_program_that_fails_an_episode_is_replaced(model_server, api_key_env, tmp_path):
    srv = model_server([], default={"content": "Final answer: x"})
    summary, rd = await run_bridge(srv, api_key_env, f"python {PROGRAMS / 'long_lived.py'}", tmp_path, "none",
                                   cfg={"agent_long_lived": True, "agent_env": ["LL_DIE_IN=ep-1"]})
    by_id = {o.episode_id: o for o in summary.outcomes}
    assert by_id["ep-1"].status == "failed" and by_id["ep-1"].bucket == "model"
    assert "dying in ep-1" in events(rd, "ep-1", "error")[0].detail
    first, after = (json.loads(by_id[e].answers[0]) for e in ("ep-0", "ep-2"))
    assert json.loads(by_id["ep-1"].answers[0])["pid"] == first["pid"]  # the same program took ep-0 and ep-1
    assert after["pid"] != first["pid"] and after["episodes"] == 1  # a new one took ep-2
    assert by_id["ep-2"].status == "completed"
