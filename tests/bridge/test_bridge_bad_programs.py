"""Bad agent programs (issue 30): one that exits mid-episode, hangs, writes garbage on stdout, answers the wrong
turn or runs out of memory ends its episode as the agent's error (bucket model: a crash is no way out of the
score) with its stderr tail in the trace; the run goes on. A command that cannot start is refused before the run."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.run_record import RunSetupError
from tests.agents.conftest import agent_config, events, run_agent, two_turn_episode, write_episodes

from .test_bridge_must_show import SANDBOXES

PROGRAMS = Path(__file__).resolve().parent / "programs"
KINDS = ["ep-exit", "ep-hang", "ep-garbage", "ep-memory", "ep-wrong-turn", "ep-ok"]


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", SANDBOXES)
async def test_each_bad_program_fails_its_episode_and_the_run_goes_on(sandbox, model_server, api_key_env, tmp_path):
    srv = model_server([], default={"content": "Final answer: A"})
    eps = write_episodes(tmp_path / "eps.jsonl", [two_turn_episode(k) for k in KINDS])
    cfg = agent_config(srv, api_key_env, agent_cmd=f"python {PROGRAMS / 'bad.py'}", agent_sandbox=sandbox,
                       agent_timeout_s=2.0, agent_memory_mb=512)
    summary, rd = await run_agent("bridge", cfg, eps, tmp_path / "res")
    by_id = {o.episode_id: o for o in summary.outcomes}
    assert by_id["ep-ok"].status == "completed" and by_id["ep-ok"].answers == ["A", "A"]
    expect = {
        "ep-exit": ("agent program exited with code 3 during turn 2", "boom: giving up"),
        "ep-hang": ("gave no answer for turn 1 within 2 s (--agent-timeout)", "ep-hang: working on turn 1"),
        "ep-garbage": ("broke the protocol in turn 1: stdout line is not JSON: 'Thinking about the answer...'",
                       "ep-garbage: working"),
        "ep-memory": ("agent program exited with code 1 during turn 1", "MemoryError"),
        "ep-wrong-turn": ("answer line is for turn 7, but turn 1 is open", "ep-wrong-turn: working"),
    }
    for ep_id, (message, in_stderr) in expect.items():
        o = by_id[ep_id]
        assert o.status == "failed" and o.bucket == "model", ep_id
        (err,) = events(rd, ep_id, "error")
        assert message in err.message, (ep_id, err.message)
        assert err.detail and in_stderr in err.detail, (ep_id, err.detail)
    assert by_id["ep-exit"].answers == ["A", None]  # the turn answered before the exit is kept


async def test_a_command_that_cannot_start_is_refused_before_the_run(model_server, api_key_env, tmp_path):
    srv = model_server([], default={"content": "Final answer: A"})
    eps = write_episodes(tmp_path / "eps.jsonl", [two_turn_episode("ep-0")])
    cfg = agent_config(srv, api_key_env, agent_cmd="/nonexistent/agent --go", agent_sandbox="none")
    with pytest.raises(RunSetupError, match="agent command /nonexistent/agent: no such program"):
        await run_agent("bridge", cfg, eps, tmp_path / "res")
    assert srv.chat_requests == []
