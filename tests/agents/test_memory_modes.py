"""Honest memory modes: summary memory tells the model what it dropped, the trace records what the model
could still see, EC counts only units it still had; agents without a model context refuse the mode; an
image is sent once in a conversation, where it was produced."""
from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from harness.episode import Episode
from harness.runner import RunSetupError
from harness.scoring.facts import read_episode_fold
from harness.scoring.metrics import score_episode

from .conftest import agent_config, events, run_agent, two_turn_episode, write_episodes

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
TITLE = "Contrastive Pretraining of Chart Readers"
SEARCH = {"name": "web_search", "arguments": {"query": "contrastive pretraining chart readers"}}


def _tiny_episode(tiny_episodes: Path) -> dict[str, Any]:
    return json.loads(tiny_episodes.read_text().splitlines()[0])


def _calls(agent: str, tool: str, **args: Any) -> dict[str, Any]:
    if agent == "smol-code":
        return {"code": f"print({tool}({', '.join(f'{k}={v!r}' for k, v in args.items())}))"}
    return {"tool_calls": [{"name": tool, "arguments": args}]}


def _answer(agent: str, value: Any) -> dict[str, Any]:
    if agent == "smol-tools":
        return {"tool_calls": [{"name": "final_answer", "arguments": {"answer": str(value)}}]}
    if agent == "smol-code":
        return {"code": f"final_answer({str(value)!r})"}
    return {"content": f"Final answer: {value}"}


@pytest.mark.parametrize("agent", ["openai", "smol-tools", "smol-code"])
@pytest.mark.parametrize("chars, table_kept", [(50, False), (100_000, True)])
async def test_summary_memory_says_what_it_dropped_and_ec_counts_only_what_was_kept(
        agent, chars, table_kept, model_server, api_key_env, tiny_sandbox, tiny_episodes, tmp_path, monkeypatch):
    from sandbox.world import SandboxWorld

    monkeypatch.setenv("EPI_SANDBOX_DIR", str(tiny_sandbox))
    ep = _tiny_episode(tiny_episodes)
    eps = write_episodes(tmp_path / "eps.jsonl", [ep])
    paper = ep["turns"][0]["evidence"][0]["paper"]
    table = int(ep["turns"][1]["evidence"][0]["unit"].split(":")[1])
    gold = [t["answer"]["value"] for t in ep["turns"]]
    srv = model_server([
        _calls(agent, "pdf_extract", paper=paper), _answer(agent, gold[0]),
        _calls(agent, "table_extract", paper=paper, table=table), _answer(agent, gold[1]),
        {"content": f"Final answer: {gold[2]}"},
    ])
    cfg = agent_config(srv, api_key_env, memory_mode="summary", summary_chars=chars)
    summary, rd = await run_agent(agent, cfg, eps, tmp_path / "res", world=SandboxWorld(tiny_sandbox), disable_tools=[],
                                  max_steps=4)
    assert summary.outcomes[0].answers == [str(g) for g in gold], events(rd, ep["id"], "error")
    compactions = events(rd, ep["id"], "memory_compacted")
    assert [c.turn for c in compactions] == [2, 3]  # every new turn, no --context-tokens needed
    last = compactions[-1]
    table_unit = (paper, f"table:{table}")
    assert (table_unit in {u.key for u in last.kept}) is table_kept
    assert (table_unit in {u.key for u in last.dropped}) is not table_kept
    assert ((paper, "text") in {u.key for u in last.dropped}) is not table_kept  # the paper's text: cut at 50 only
    # the model was told, in the request of the memory-only turn
    final_request = json.dumps(srv.chat_requests[-1].body["messages"])
    assert "Summary of earlier turns" in final_request
    assert ("can no longer see in full" in final_request) is not table_kept
    assert (f"{paper}/table:{table}" in final_request.split("still shown in full")[0]) is not table_kept
    # EC: the memory-only turn's required table counts only if the model still had it
    fold = read_episode_fold(rd, ep["id"])
    assert (table_unit in {u.key for u in fold.memory_before(3)}) is table_kept
    scored = score_episode(Episode.model_validate(ep), fold)
    assert scored.turns[2].correct and scored.turns[2].evidence_hit == (1 if table_kept else 0)


async def test_conversation_mode_keeps_everything_and_records_no_compaction(
        model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([{"tool_calls": [SEARCH]}, {"content": f"Final answer: {TITLE}"}, {"content": "Final answer: A"}])
    _, rd = await run_agent("openai", agent_config(srv, api_key_env), episodes_file, tmp_path / "res")
    assert not events(rd, "ep-search-1", "memory_compacted")
    assert any(m["role"] == "tool" for m in srv.chat_requests[2].body["messages"])


async def test_context_tokens_compacts_only_past_the_cap(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([{"tool_calls": [SEARCH]}, {"content": f"Final answer: {TITLE}"}, {"content": "Final answer: A"}])
    cfg = agent_config(srv, api_key_env, memory_mode="summary", context_tokens=100_000)
    _, rd = await run_agent("openai", cfg, episodes_file, tmp_path / "res")
    assert not events(rd, "ep-search-1", "memory_compacted")  # the conversation stayed under the cap


@pytest.mark.parametrize("agent", ["heuristic", "oracle", "text-only", "human", "replay"])
async def test_agents_without_a_model_context_refuse_summary_memory(agent, episodes_file, tmp_path):
    from harness.agent import AgentConfig

    with pytest.raises(RunSetupError, match=f"agent '{agent}' does not support --memory-mode summary.*openai"):
        await run_agent(agent, AgentConfig(memory_mode="summary", replay_run=tmp_path), episodes_file, tmp_path / "res")
    assert not (tmp_path / "res").exists()


@pytest.mark.parametrize("agent", ["openai", "smol-tools", "smol-code"])
async def test_the_cue_image_is_sent_once_per_conversation(agent, model_server, api_key_env, tmp_path):
    (tmp_path / "cue.png").write_bytes(PNG)
    ep = two_turn_episode()
    ep["turns"][0]["cue"]["image"] = "cue.png"
    eps = write_episodes(tmp_path / "eps.jsonl", [ep])
    query = SEARCH["arguments"]["query"]
    srv = model_server([_calls(agent, "web_search", query=query), _calls(agent, "web_search", query="again"),
                        _answer(agent, TITLE), {"content": "Final answer: A"}])
    summary, _ = await run_agent(agent, agent_config(srv, api_key_env), eps, tmp_path / "res")
    assert summary.outcomes[0].answers == [TITLE, "A"]
    assert [r.n_images for r in srv.chat_requests] == [1, 1, 1, 1]  # never repeated per step
