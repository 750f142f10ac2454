"""`epi trace export`: the bytes the model server received are exactly what the export gives back."""
from __future__ import annotations

import base64

from typer.testing import CliRunner

from harness.cli import app

from .conftest import agent_config, run_agent, two_turn_episode, write_episodes

EP = "ep-search-1"
SEARCH = {"name": "web_search", "arguments": {"query": "contrastive pretraining chart readers"}}
TITLE = "Contrastive Pretraining of Chart Readers"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _export(run, *args: str):
    return CliRunner().invoke(app, ["trace", "export", str(run), *args], catch_exceptions=False)


async def _run(agent: str, model_server, api_key_env, tmp_path, replies):
    (tmp_path / "cue.png").write_bytes(PNG)
    ep = two_turn_episode()
    ep["turns"][0]["cue"]["image"] = "cue.png"
    eps = write_episodes(tmp_path / "eps.jsonl", [ep])
    srv = model_server(replies)
    summary, rd = await run_agent(agent, agent_config(srv, api_key_env), eps, tmp_path / "res")
    assert summary.outcomes[0].status == "completed"
    return srv, rd


async def test_export_gives_the_exact_bytes_each_request_sent(model_server, api_key_env, tmp_path):
    srv, rd = await _run("openai", model_server, api_key_env, tmp_path, [
        {"content": "Plan: search.", "tool_calls": [SEARCH]},
        {"content": f"Final answer: {TITLE}"},
        {"content": "Final answer: A"},
    ])
    received = [r.raw for r in srv.chat_requests]
    assert len(received) == 3 and all(received)
    for n, raw in enumerate(received, 1):
        out = tmp_path / f"call{n}.json"
        r = _export(rd.path, EP, "--call", str(n), "--out", str(out))
        assert r.exit_code == 0, r.output
        assert out.read_bytes() == raw
    assert base64.b64encode(PNG) in received[0]  # the cue image really went out, and came back from its file
    r = _export(rd.path, EP, "--call", "3")  # to standard output
    assert r.stdout_bytes == received[2]
    listing = _export(rd.path, EP)
    assert listing.exit_code == 0 and "model calls of ep-search-1" in listing.stdout
    assert f"{len(received[2]):,}" in listing.stdout
    beyond = CliRunner().invoke(app, ["trace", "export", str(rd.path), EP, "--call", "9"])
    assert beyond.exit_code != 0 and "no model call 9" in str(beyond.exception) and "1 to 3" in str(beyond.exception)


async def test_export_of_smolagents_requests(model_server, api_key_env, tmp_path):
    srv, rd = await _run("smol-tools", model_server, api_key_env, tmp_path, [
        {"tool_calls": [SEARCH]},
        {"tool_calls": [{"name": "final_answer", "arguments": {"answer": TITLE}}]},
        {"content": "Final answer: A"},
    ])
    received = [r.raw for r in srv.chat_requests]
    for n, raw in enumerate(received, 1):
        r = _export(rd.path, EP, "--call", str(n))
        assert r.exit_code == 0 and r.stdout_bytes == raw


def test_export_names_what_is_wrong(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(app, ["trace", "export", str(tmp_path), "nope"])
    assert missing.exit_code != 0 and "no trace for episode 'nope'" in str(missing.exception)
    no_run = runner.invoke(app, ["trace", "export", str(tmp_path / "absent"), "ep", "--results", str(tmp_path)])
    assert no_run.exit_code != 0 and "no run" in str(no_run.exception)
