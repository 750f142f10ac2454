"""The OpenAI-compatible agent end to end: real runner, real HTTP to the scripted model server."""
from __future__ import annotations

import base64
import hashlib
import json
import socket

import pytest

from harness.runner import RunSetupError
from harness.trace_fold import fold_trace

from .conftest import agent_config, events, run_agent, two_turn_episode, write_episodes

EP = "ep-search-1"
SEARCH = {"name": "web_search", "arguments": {"query": "contrastive pretraining chart readers"}}
TITLE = "Contrastive Pretraining of Chart Readers"
# a 1x1 PNG
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


async def test_completes_episode_with_every_call_traced(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([
        {"content": "Plan: search for the chart paper.", "tool_calls": [SEARCH]},
        {"content": f"The top hit matches.\nFinal answer: {TITLE}"},
        {"content": "It is about charts.\nFinal answer: A"},
    ])
    cfg = agent_config(srv, api_key_env, temperature=0.0, max_tokens=256)
    summary, rd = await run_agent("openai", cfg, episodes_file, tmp_path / "res")
    assert summary.outcomes[0].status == "completed"
    assert summary.outcomes[0].answers == [TITLE, "A"]
    tool_calls = events(rd, EP, "tool_call")
    assert [(e.tool, e.args) for e in tool_calls] == [("web_search", SEARCH["arguments"])]
    assert tool_calls[0].budget_left == 3 and tool_calls[0].error is None
    calls = events(rd, EP, "model_call")
    assert len(calls) == 3 == len(srv.chat_requests)
    assert calls[0].tools_offered == ["web_search"] and calls[2].tools_offered == []
    assert all(c.usage.input_tokens > 0 and c.usage.output_tokens > 0 for c in calls)
    bodies = [r.body for r in srv.chat_requests]
    assert bodies[0]["temperature"] == 0.0 and bodies[0]["max_tokens"] == 256
    assert "tools" in bodies[0] and "tools" not in bodies[2]  # memory-only turn: no tools at all
    tool_msgs = [m for m in bodies[1]["messages"] if m["role"] == "tool"]
    assert len(tool_msgs) == 1 and TITLE in tool_msgs[0]["content"]
    # the conversation is the memory: turn 2 still sees turn 1's search result
    assert any(m["role"] == "tool" and TITLE in m["content"] for m in bodies[2]["messages"])


async def test_bad_model_actions_become_counted_error_steps(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([
        {"tool_calls": [{"name": "web_search", "arguments": {"query": "chart readers"}}], "fault": "malformed_tool_json"},
        {"tool_calls": [{"name": "browse_web", "arguments": {"url": "x"}}]},
        {"fault": "empty"},
        {"tool_calls": [SEARCH]},
        {"content": f"Final answer: {TITLE}", "match": {"tools_offered": False}},
        {"content": "Final answer: B"},
    ])
    summary, rd = await run_agent("openai", agent_config(srv, api_key_env), episodes_file, tmp_path / "res", max_steps=3)
    calls = [e for e in events(rd, EP, "tool_call") if e.turn == 1]
    assert [c.tool for c in calls] == ["web_search", "browse_web", "web_search"]
    assert calls[0].error and calls[0].args == {} and calls[0].raw_arguments.startswith('{"query"')  # not JSON: counted
    assert calls[0].error_kind == "bad_arguments" and not calls[0].executed
    assert calls[1].error_kind == "refused" and calls[2].error is None and calls[2].budget_left == 0
    (empty,) = events(rd, EP, "no_tool_step")
    assert empty.reason == "empty" and empty.no_tool_steps == 1  # a step, capped apart from the budget's tool calls
    assert len(events(rd, EP, "budget_exhausted")) == 1
    finals = events(rd, EP, "final_answer")
    assert finals[0].source == "budget_fallback" and finals[0].answer == TITLE
    turn1_calls = [c for c in events(rd, EP, "model_call") if c.turn == 1]
    assert len(turn1_calls) == 4 + 1  # one request per model step, then exactly one no-tool fallback request
    assert [c.purpose for c in turn1_calls] == ["step"] * 4 + ["budget_fallback"]
    fallback_req = srv.chat_requests[4].body
    assert "tools" not in fallback_req
    tool_texts = [m["content"] for m in fallback_req["messages"] if m["role"] == "tool"]
    assert "not a JSON object" in tool_texts[0] and "not available" in tool_texts[1]
    assert any(m["role"] == "user" and "reply was empty" in str(m["content"]) for m in fallback_req["messages"])
    assert summary.outcomes[0].status == "completed"


async def test_looping_on_the_same_call_ends_by_the_budget(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server(
        [{"content": "Final answer: unsure", "match": {"tools_offered": False}},
         {"content": "Final answer: A", "match": {"tools_offered": False}}],
        default={"tool_calls": [SEARCH]},
    )
    _, rd = await run_agent("openai", agent_config(srv, api_key_env), episodes_file, tmp_path / "res", max_steps=3)
    calls = events(rd, EP, "tool_call")
    assert len(calls) == 3 and {json.dumps(c.args) for c in calls} == {json.dumps(SEARCH["arguments"])}
    assert events(rd, EP, "final_answer")[0].source == "budget_fallback"
    last_tool_msg = [m for m in srv.chat_requests[3].body["messages"] if m["role"] == "tool"][-1]
    assert "already made this exact call" in last_tool_msg["content"]


async def test_rate_limit_is_retried_after_retry_after(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([
        {"fault": "rate_limit", "retry_after": 0.2},
        {"tool_calls": [SEARCH]},
        {"content": f"Final answer: {TITLE}"},
        {"content": "Final answer: A"},
    ])
    summary, rd = await run_agent("openai", agent_config(srv, api_key_env), episodes_file, tmp_path / "res")
    retries = events(rd, EP, "retry")
    assert len(retries) == 1 and retries[0].attempt == 1 and "429" in retries[0].error
    assert retries[0].wait_s == pytest.approx(0.2)
    assert summary.outcomes[0].status == "completed" and summary.outcomes[0].answers == [TITLE, "A"]


async def test_provider_failure_outlasting_retries_is_bucketed_provider(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([], default={"fault": "server_error"})
    summary, rd = await run_agent("openai", agent_config(srv, api_key_env, max_retries=2), episodes_file, tmp_path / "res")
    assert summary.outcomes[0].status == "failed" and summary.outcomes[0].bucket == "provider"
    assert len(events(rd, EP, "retry")) == 2 and len(srv.chat_requests) == 3
    err = events(rd, EP, "error")[0]
    assert err.bucket == "provider" and "500" in err.message
    assert events(rd, EP, "episode_end")[0].bucket == "provider"


@pytest.mark.slow
async def test_timeouts_and_cut_responses_are_retried(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([
        {"fault": "timeout", "delay_s": 2.0},
        {"fault": "truncated", "content": "x" * 400},
        {"fault": "invalid_json"},
        {"tool_calls": [SEARCH]},
        {"content": f"Final answer: {TITLE}"},
        {"content": "Final answer: A"},
    ])
    cfg = agent_config(srv, api_key_env, request_timeout_s=0.5, max_retries=4)
    summary, rd = await run_agent("openai", cfg, episodes_file, tmp_path / "res")
    errors = [r.error for r in events(rd, EP, "retry")]
    assert len(errors) == 3 and "timed out" in errors[0]
    assert summary.outcomes[0].answers == [TITLE, "A"]


async def test_missing_key_and_unreachable_endpoint_fail_before_the_run(model_server, episodes_file, tmp_path, monkeypatch):
    srv = model_server([])
    monkeypatch.delenv("EPI_NO_SUCH_KEY", raising=False)
    with pytest.raises(RunSetupError, match="EPI_NO_SUCH_KEY is not set"):
        await run_agent("openai", agent_config(srv, "EPI_NO_SUCH_KEY"), episodes_file, tmp_path / "res")
    monkeypatch.setenv("EPI_K", "x")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead_port = s.getsockname()[1]
    cfg = agent_config(srv, "EPI_K")
    cfg.base_url = f"http://127.0.0.1:{dead_port}/v1"
    with pytest.raises(RunSetupError, match="cannot reach the model endpoint"):
        await run_agent("openai", cfg, episodes_file, tmp_path / "res2")
    assert not (tmp_path / "res2" / "r1" / "traces").exists()  # nothing ran
    # no --base-url: the check asks where the episodes would post, OPENAI_BASE_URL (as the SDK), not OpenAI's
    cfg.base_url = None
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{dead_port}/v1")
    with pytest.raises(RunSetupError, match=f"cannot reach the model endpoint http://127.0.0.1:{dead_port}/v1"):
        await run_agent("openai", cfg, episodes_file, tmp_path / "res3")


async def test_cue_image_goes_to_the_model_and_summary_mode_compacts(model_server, api_key_env, tmp_path):
    (tmp_path / "cue.png").write_bytes(PNG)
    ep = two_turn_episode()
    ep["turns"][0]["cue"]["image"] = "cue.png"
    eps = write_episodes(tmp_path / "eps.jsonl", [ep])
    srv = model_server([{"tool_calls": [SEARCH]}, {"content": f"Final answer: {TITLE}"}, {"content": "Final answer: A"}])
    cfg = agent_config(srv, api_key_env, memory_mode="summary", context_tokens=60)
    summary, rd = await run_agent("openai", cfg, eps, tmp_path / "res")
    assert summary.outcomes[0].answers == [TITLE, "A"]
    assert srv.chat_requests[0].n_images == 1
    turn2 = srv.chat_requests[2].body["messages"]
    assert turn2[1]["role"] == "user" and turn2[1]["content"].startswith("Summary of earlier turns")
    assert TITLE in turn2[1]["content"] and not any(m["role"] == "tool" for m in turn2)
    # the image is stored once as a file named by its hash, not in the trace; every request (the summary
    # one too, which drops earlier messages) rebuilds to the bytes the server received
    payload = base64.b64encode(PNG).decode()
    assert payload not in rd.trace_path(EP).read_text()
    image = rd.assets_dir(EP) / f"{hashlib.sha256(PNG).hexdigest()}.png"
    assert image.read_bytes() == PNG
    fold = fold_trace(rd.read_trace(EP))
    assert [fold.requests.body(n, rd.assets_dir(EP)) for n in fold.requests.numbers()] == [r.raw for r in srv.chat_requests]
