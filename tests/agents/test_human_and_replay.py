"""The human player driven by scripted input, and the replay agent reproducing its run."""
from __future__ import annotations

import pytest

from harness.agent import AgentConfig
from harness.runner import RunSetupError

from agents.human import CommandError, parse_args

from .conftest import events, run_agent

EP = "ep-search-1"
TITLE = "Contrastive Pretraining of Chart Readers"

SESSION = "\n".join([
    "frobnicate now",                      # not a tool: explained, asked again, no step
    'web_search {"query": oops}',          # bad JSON: explained, asked again
    'web_search query="chart readers" k=3',
    "show 1",
    f"answer {TITLE}",
    'web_search query="more"',             # memory-only turn: refused before reaching the session
    "answer A",
]) + "\n"


async def _human_run(tmp_path, episodes_file, run_id="human"):
    (tmp_path / "session.txt").write_text(SESSION)
    out = tmp_path / f"{run_id}-screen.txt"
    cfg = AgentConfig(extra={"input": str(tmp_path / "session.txt"), "output": str(out)})
    summary, rd = await run_agent("human", cfg, episodes_file, tmp_path / "res", run_id=run_id)
    return summary, rd, out.read_text()


async def test_human_plays_an_episode_through_the_tools(tmp_path, episodes_file):
    summary, rd, shown = await _human_run(tmp_path, episodes_file)
    assert summary.outcomes[0].answers == [TITLE, "A"]
    calls = events(rd, EP, "tool_call")
    assert [(c.tool, c.args) for c in calls] == [("web_search", {"query": "chart readers", "k": 3})]
    assert "Which paper studies chart readers?" in shown and "Budget left: 4 of 4" in shown
    assert "unknown command or tool 'frobnicate'" in shown
    assert "not valid JSON" in shown
    assert "memory item 1" in shown and TITLE in shown  # `show 1` printed the search result
    assert "no tools can be called now" in shown


def test_parse_args_accepts_json_and_key_value():
    assert parse_args('{"paper": "P001", "table": 2}') == {"paper": "P001", "table": 2}
    assert parse_args('paper=P001 table=2 query="two words"') == {"paper": "P001", "table": 2, "query": "two words"}
    with pytest.raises(CommandError, match="not key=value"):
        parse_args("paper P001")


async def test_replay_reproduces_the_recorded_actions(tmp_path, episodes_file):
    _, src, _ = await _human_run(tmp_path, episodes_file)
    cfg = AgentConfig(replay_run=src.path)
    summary, rd = await run_agent("replay", cfg, episodes_file, tmp_path / "res", run_id="replayed")
    assert summary.outcomes[0].answers == [TITLE, "A"]
    orig = [(c.turn, c.tool, c.args, c.result_text) for c in events(src, EP, "tool_call")]
    again = [(c.turn, c.tool, c.args, c.result_text) for c in events(rd, EP, "tool_call")]
    assert again == orig


async def test_replay_until_turn_and_missing_run(tmp_path, episodes_file):
    _, src, _ = await _human_run(tmp_path, episodes_file)
    cfg = AgentConfig(replay_run=src.path, extra={"until_turn": 1})
    summary, _ = await run_agent("replay", cfg, episodes_file, tmp_path / "res", run_id="partial")
    assert summary.outcomes[0].answers == [TITLE, None]
    with pytest.raises(RunSetupError, match="no run to replay"):
        await run_agent("replay", AgentConfig(replay_run=tmp_path / "nope"), episodes_file, tmp_path / "res", run_id="x")


async def test_model_agent_taking_over_after_replayed_turns_sees_what_they_gathered(
        tmp_path, episodes_file, model_server, api_key_env):
    from harness.runner import HandoverAgent, run_episodes
    from harness.settings import RunSettings

    from agents.openai_chat import OpenAIChatAgent
    from agents.replay import ReplayAgent

    from .conftest import NON_SEARCH_TOOLS, TinyWorld, agent_config

    _, src, _ = await _human_run(tmp_path, episodes_file)
    srv = model_server([{"content": "Final answer: A"}])
    cfg = agent_config(srv, api_key_env)

    def factory():
        replay = ReplayAgent(AgentConfig(replay_run=src.path, extra={"until_turn": 1}))
        return HandoverAgent(replay, OpenAIChatAgent(cfg), from_turn=2)

    settings = RunSettings(agent="openai", episodes=episodes_file, results=tmp_path / "res", run_id="handover",
                           disable_tools=NON_SEARCH_TOOLS, score=False, agent_config=cfg)
    summary = await run_episodes(settings, agent_factory=factory, world=TinyWorld(tmp_path))
    assert summary.outcomes[0].answers == [TITLE, "A"]
    (req,) = srv.chat_requests
    digest = req.body["messages"][1]["content"]
    assert digest.startswith("Summary of earlier turns") and TITLE in digest and "web_search" in digest
