"""The human player driven by scripted input, and the replay agent reproducing its run."""
from __future__ import annotations

import io

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
    out = io.StringIO()
    cfg = AgentConfig(extra={"input": io.StringIO(SESSION), "output": out})
    summary, rd = await run_agent("human", cfg, episodes_file, tmp_path / "res", run_id=run_id)
    return summary, rd, out.getvalue()


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
