"""Timeouts and retries a user can read (issue 27 item 3 and its bad input): a timeout names its seconds, the
attempts and --request-timeout, and the abandoned request's connection is closed; a refusal that cannot succeed
on retry (a prompt past the context, a request the server's validation refused) is not retried and says why;
latency_s is the answering attempt's; the final error names the option most likely to fix it, once."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.provider import EndpointStatusError, classify
from sandbox.model_server import ScriptedModelServer

from .conftest import agent_config, events, run_agent, two_turn_episode, write_episodes
from .test_protocol_must_show import TITLE, answer, call

EP = "ep-search-1"
IMAGE = Path(__file__).resolve().parents[2] / "episodes" / "examples" / "images" / "P003-figure2.png"


@pytest.mark.parametrize("agent", ["openai", "smol-tools"])
async def test_a_timeout_names_its_seconds_attempts_and_option_and_closes_the_connection(
        agent, model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([], default={"fault": "timeout", "delay_s": 5.0})
    cfg = agent_config(srv, api_key_env, request_timeout_s=0.4, max_retries=1)
    summary, rd = await run_agent(agent, cfg, episodes_file, tmp_path / "res")
    (err,) = events(rd, EP, "error")
    assert err.bucket == "provider"
    assert ("request timed out after 2 attempts (each attempt waited 0.4 s); a slow server (a model on CPU) may need "
            "longer: raise --request-timeout (now 0.4)") in err.message
    assert [r.error for r in events(rd, EP, "retry")] == ["request timed out"]  # the retry says what happened, no advice
    # each abandoned request's connection was closed at the timeout: a server sees the client leave and stops
    assert len(srv.chat_requests) == 2
    assert all(r.abandoned_after_s is not None and 0.3 < r.abandoned_after_s < 3.0 for r in srv.chat_requests)


async def test_latency_is_the_answering_attempts_alone(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([{"fault": "timeout", "delay_s": 5.0}, {**call("openai"), "delay_s": 0.3},
                        answer("openai", TITLE), {"content": "Final answer: A"}])
    cfg = agent_config(srv, api_key_env, request_timeout_s=0.6, max_retries=2)
    summary, rd = await run_agent("openai", cfg, episodes_file, tmp_path / "res")
    assert summary.outcomes[0].answers == [TITLE, "A"]
    first = [m for m in events(rd, EP, "model_call") if m.response is not None][0]
    assert 0.3 <= first.latency_s < 0.6  # not the 0.6 s timeout and the wait before it
    (retry,) = events(rd, EP, "retry")
    assert retry.error == "request timed out"


def image_episode(folder: Path) -> Path:
    shutil.copy(IMAGE, folder / "cue.png")
    ep = two_turn_episode()
    ep["turns"][0]["cue"]["image"] = "cue.png"
    return write_episodes(folder / "eps.jsonl", [ep])


@pytest.mark.parametrize("agent", ["openai", "smol-tools"])
async def test_an_image_past_a_text_only_servers_context_is_not_retried_and_names_no_images(agent, api_key_env, tmp_path):
    """The issue's image-cue episode: llama-cpp-python renders the image into the prompt as text (11,353 tokens
    here, past a context of 8,192): one request, a 400 that says why it was not retried and what to pass; with
    --no-images the same episode runs."""
    eps = image_episode(tmp_path)
    with ScriptedModelServer([], strict="llama-cpp", context_tokens=8192) as srv:
        _, rd = await run_agent(agent, agent_config(srv, api_key_env), eps, tmp_path / "res")
    (err,) = events(rd, EP, "error")
    assert len(srv.chat_requests) == 1 and not events(rd, EP, "retry")
    assert "This model's maximum context length is 8192 tokens" in err.message
    assert "not retried: the request is longer than the model's context" in err.message
    assert "pass --no-images" in err.message
    items = [call(agent), answer(agent, TITLE), {"content": "Final answer: A"}]
    from sandbox.model_server import Script, ScriptItem

    with ScriptedModelServer(Script(responses=[ScriptItem.model_validate(i) for i in items]), strict="llama-cpp",
                             context_tokens=8192) as srv:
        summary, rd = await run_agent(agent, agent_config(srv, api_key_env, images=False), eps, tmp_path / "res2")
    assert summary.outcomes[0].answers == [TITLE, "A"] and not events(rd, EP, "error")


@pytest.mark.parametrize("agent", ["openai", "smol-tools"])
async def test_a_server_refusing_every_request_names_its_message_and_the_option_once(agent, api_key_env, episodes_file,
                                                                                    tmp_path):
    """llama-cpp-python answers tool_choice "required" with a 500 and no message: the final error says so and
    names --tool-choice, once; the retries carry the server's words only."""
    with ScriptedModelServer([], strict="llama-cpp") as srv:
        cfg = agent_config(srv, api_key_env, tool_choice="required", max_retries=1)
        summary, rd = await run_agent(agent, cfg, episodes_file, tmp_path / "res")
    (err,) = events(rd, EP, "error")
    assert ("HTTP 500 (the server gave no message) after 2 attempts; the server refused tool_choice 'required': pass "
            "--tool-choice auto (or omit)") in err.message
    assert [r.error for r in events(rd, EP, "retry")] == ["HTTP 500 (the server gave no message)"]
    assert [r.body.get("tool_choice") for r in srv.chat_requests] == ["required", "required"]


@pytest.mark.parametrize(("status", "message", "retried", "why"), [
    (500, "2 validation errors:\n  {'type': 'string_type', 'msg': 'Input should be a valid string', 'input': None}", False,
     "the server refused the request itself"),
    (500, "tools param requires --jinja flag", False, "the server refused the request itself"),
    (500, "CUDA error: out of memory", True, None),
    (400, "This model's maximum context length is 32768 tokens. However, you requested 42309 tokens", False,
     "the request is longer than the model's context"),
    (400, "request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it", False,
     "the request is longer than the model's context"),
    (400, "invalid message content type: <nil>", False, "a 400 refuses the request itself"),
    (429, "rate limit", True, None),
])
def test_what_is_retried_and_why_not(status, message, retried, why):
    verdict = classify(EndpointStatusError(status, message))
    assert verdict is not None and verdict.retryable is retried
    if why is not None:
        assert f"(not retried: {why}" in verdict.description


def test_the_step_timeout_outlasts_one_model_request_with_its_retries():
    """Left unset, the step timeout covers a request's own timeout and retries (a slow server is a timed-out
    request in the trace, not a stuck agent); set on the command line, it is the user's."""
    from harness.agent import AgentConfig
    from harness.settings import RunSettings

    slow = AgentConfig(request_timeout_s=300, max_retries=4)
    assert RunSettings(agent_config=slow).step_timeout_s >= 5 * 300 + 4 * 60
    assert RunSettings(agent_config=AgentConfig(request_timeout_s=10, max_retries=1)).step_timeout_s == 600
    assert RunSettings(agent_config=slow, step_timeout_s=30).step_timeout_s == 30
