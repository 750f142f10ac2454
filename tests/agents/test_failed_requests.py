"""Every request body is in the trace, failed attempts included (issue 22, item 5).

A request the provider answers with an error (a 5xx being retried, or one that outlasts the retries) used to
leave only a retry or error event: the body the server received was lost, and it is what one needs to debug
a 400 context-length error. Now each failed attempt is a `model_call` with `error` and no response, stored by
content hash like any request (its retry shares every stored part), counted apart from the model calls.
"""
from __future__ import annotations

import json

import pytest

from harness.scoring import score_run
from harness.trace import SCHEMA_VERSION, ModelCall, parse_event
from harness.trace_fold import fold_trace

from .conftest import agent_config, events, run_agent

EP = "ep-search-1"
SEARCH = {"name": "web_search", "arguments": {"query": "contrastive pretraining chart readers"}}
TITLE = "Contrastive Pretraining of Chart Readers"


@pytest.mark.parametrize("agent", ["openai", "smol-tools"])
async def test_a_failed_attempt_keeps_its_request_body_and_is_counted_apart(agent, model_server, api_key_env,
                                                                             episodes_file, tmp_path):
    answer = {"tool_calls": [{"name": "final_answer", "arguments": {"answer": TITLE}}]} if agent == "smol-tools" else \
        {"content": f"Final answer: {TITLE}"}
    last = {"tool_calls": [{"name": "final_answer", "arguments": {"answer": "A"}}]} if agent == "smol-tools" else \
        {"content": "Final answer: A"}
    srv = model_server([{"tool_calls": [SEARCH]}, {"fault": "server_error"}, answer, last])
    summary, rd = await run_agent(agent, agent_config(srv, api_key_env), episodes_file, tmp_path / "res", score=True)
    assert summary.outcomes[0].status == "completed"
    calls = events(rd, EP, "model_call")
    assert [c.error is not None for c in calls] == [False, True, False, False]
    failed = calls[1]
    assert failed.response is None and "500" in failed.error and failed.schema_version == SCHEMA_VERSION
    fold = fold_trace(rd.read_trace(EP))
    # the server received the failed request and its retry: both bodies are rebuilt byte for byte
    assert srv.chat_requests[1].raw == srv.chat_requests[2].raw
    assert fold.requests.body(failed.call) == srv.chat_requests[1].raw
    assert fold.requests.body(calls[2].call) == srv.chat_requests[2].raw
    assert calls[2].keep == len(json.loads(srv.chat_requests[2].raw)["messages"]) and not calls[2].blobs  # stored once
    assert (fold.model_calls, fold.failed_model_calls) == (3, 1)
    assert events(rd, EP, "episode_end")[0].model_calls == 3
    scores = json.loads((rd.path / "scores.json").read_text())["all"]
    assert (scores["model_calls"], scores["failed_model_calls"]) == (3, 1)


async def test_attempts_that_outlast_the_retries_are_all_in_the_trace(model_server, api_key_env, episodes_file, tmp_path):
    srv = model_server([], default={"fault": "server_error"})
    summary, rd = await run_agent("openai", agent_config(srv, api_key_env, max_retries=2), episodes_file, tmp_path / "res")
    assert summary.outcomes[0].bucket == "provider"
    calls = events(rd, EP, "model_call")
    assert len(calls) == 3 == len(srv.chat_requests) and all(c.error and c.response is None for c in calls)
    fold = fold_trace(rd.read_trace(EP))
    assert [fold.requests.body(c.call) for c in calls] == [r.raw for r in srv.chat_requests]
    assert (fold.model_calls, fold.failed_model_calls) == (0, 3)
    kinds = [e.kind for e in events(rd, EP) if e.kind in ("model_call", "retry", "error")]
    assert kinds == ["model_call", "retry", "model_call", "retry", "model_call", "error"]


def test_a_v4_model_call_reads_as_v5_with_no_error():
    line = json.dumps({"kind": "model_call", "schema_version": 4, "turn": 1, "step": 0, "call": 1, "keep": 0,
                       "messages": [], "head": None, "response": {"choices": []}})
    ev = parse_event(line)
    assert isinstance(ev, ModelCall) and ev.schema_version == SCHEMA_VERSION == 6 and ev.error is None and not ev.failed
