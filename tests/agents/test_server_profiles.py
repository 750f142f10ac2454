"""The scripted server's strict profiles answer the way the real servers do (issue 27): llama-cpp-python's
server refuses the request shapes the agents sent before (content null beside tool calls, a system message as
parts, tool_choice "required") with its HTTP 500, ignores the tools when no tool_choice is sent, and refuses an
over-long prompt with its 400; llama-server, vLLM and Ollama refuse what they refuse."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from sandbox.model_server import ScriptedModelServer
from sandbox.server_profiles import PROFILES, estimate_prompt_tokens

TOOL = {"type": "function", "function": {"name": "web_search", "description": "Search for papers.",
                                          "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}
CALL = {"id": "call_1", "type": "function", "function": {"name": "web_search", "arguments": '{"query": "charts"}'}}
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "iVBORw0KGgo" * 20000}}

# what the openai agent sent before issue 27: content null beside its tool calls, no tool_choice
OPENAI_BEFORE = {"model": "m", "tools": [TOOL], "messages": [
    {"role": "system", "content": "You are a research assistant."}, {"role": "user", "content": "Question: which paper?"},
    {"role": "assistant", "content": None, "tool_calls": [CALL]}, {"role": "tool", "tool_call_id": "call_1", "content": "1. P001"}]}
# what the smolagents adapters sent: every content a list of parts (system included), tool_choice "required"
SMOL_BEFORE = {"model": "m", "tools": [TOOL], "tool_choice": "required", "messages": [
    {"role": "system", "content": [{"type": "text", "text": "You are a research assistant."}]},
    {"role": "user", "content": [{"type": "text", "text": "New task:\nQuestion: which paper?"}]}]}
# the shapes sent now: strings where there is no image, "" beside tool calls, tool_choice auto
NOW = {"model": "m", "tools": [TOOL], "tool_choice": "auto", "messages": [
    {"role": "system", "content": "You are a research assistant."}, {"role": "user", "content": "Question: which paper?"},
    {"role": "assistant", "content": "", "tool_calls": [CALL]}, {"role": "tool", "tool_call_id": "call_1", "content": "1. P001"}]}


def post(srv: ScriptedModelServer, body: dict) -> httpx.Response:
    return httpx.post(f"{srv.base_url}/chat/completions", json=body, timeout=10)


def test_llama_cpp_refuses_the_shapes_the_agents_sent_before_and_takes_todays():
    items = [{"tool_calls": [{"name": "web_search", "arguments": {"query": "x"}}], "content": "Thought: search."}] * 4
    with ScriptedModelServer(items, strict="llama-cpp") as srv:
        r = post(srv, OPENAI_BEFORE)
        assert r.status_code == 500
        err = first = r.json()["error"]
        assert err["type"] == "internal_server_error" and err["code"] is None
        assert "('body', 'messages', 2, 'ChatCompletionRequestAssistantMessage', 'content')" in err["message"]
        assert "Input should be a valid string" in err["message"] and "'input': None" in err["message"]
        r = post(srv, SMOL_BEFORE)
        assert r.status_code == 500
        assert "('body', 'messages', 0, 'ChatCompletionRequestSystemMessage', 'content')" in r.json()["error"]["message"]
        r = post(srv, {**SMOL_BEFORE, "messages": [{"role": "user", "content": "q"}]})  # strings, still "required"
        assert r.status_code == 500 and r.json()["error"]["message"] == ""  # the handler's bare assertion
        no_choice = post(srv, {k: v for k, v in NOW.items() if k != "tool_choice"})
        assert no_choice.status_code == 200
        msg = no_choice.json()["choices"][0]["message"]
        assert "tool_calls" not in msg and msg["content"] == "Thought: search."  # the tools were ignored
        ok = post(srv, NOW)
        assert ok.status_code == 200
        msg = ok.json()["choices"][0]["message"]
        assert msg["content"] is None and msg["tool_calls"][0]["function"]["name"] == "web_search"
    assert [r.served for r in srv.chat_requests] == ["refused", "refused", "refused", "script[0]", "script[1]"]
    assert srv.chat_requests[0].error == first["message"]  # the request log keeps what the server said


def test_llama_cpp_names_a_missing_tool_and_takes_a_named_choice():
    with ScriptedModelServer([{"tool_calls": [{"name": "web_search", "arguments": {}}]}], strict="llama-cpp") as srv:
        named = {**NOW, "tool_choice": {"type": "function", "function": {"name": "pdf_rag"}}}
        r = post(srv, named)
        assert r.status_code == 500 and r.json()["error"]["message"] == "Tool with name 'pdf_rag' not found in tools"
        named["tool_choice"]["function"]["name"] = "web_search"
        assert post(srv, named).json()["choices"][0]["message"]["tool_calls"]


def test_an_image_sent_as_text_overflows_the_context_with_each_servers_400():
    body = {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "Cue image:"}, IMAGE]}]}
    tokens = estimate_prompt_tokens(body, images_as_text=True)
    assert tokens > 32768  # llama-cpp-python renders the part list into the prompt: the base64 counts
    with ScriptedModelServer([], strict="llama-cpp") as srv:
        r = post(srv, body)
    err = r.json()["error"]
    assert r.status_code == 400 and err["code"] == "context_length_exceeded"
    assert err["message"] == (f"This model's maximum context length is 32768 tokens. However, you requested {tokens} "
                              f"tokens ({tokens} in the messages, None in the completion). Please reduce the length of "
                              "the messages or completion.")
    text = {"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "x" * 4000}]}
    with ScriptedModelServer([], strict="vllm", context_tokens=1000) as srv:
        r = post(srv, text)
    assert r.status_code == 400 and r.json()["type"] == "BadRequestError"
    assert "maximum context length is 1000 tokens. However, you requested 1102 tokens (1002 in the messages, 100 in " \
           "the completion)" in r.json()["message"]
    with ScriptedModelServer([], strict="llama-server", context_tokens=1000) as srv:
        r = post(srv, text)
    err = r.json()["error"]
    assert r.status_code == 400 and err["type"] == "exceed_context_size_error" and (err["n_prompt_tokens"], err["n_ctx"]) == (1002, 1000)


@pytest.mark.parametrize(("profile", "body", "status", "message"), [
    ("llama-server", {"messages": [{"role": "user", "content": [{"type": "text", "text": "see"}, IMAGE]}]}, 400,
     "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"),
    ("llama-server", {"messages": [{"role": "user"}]}, 400, "All non-assistant messages must contain 'content'"),
    ("llama-server", {"messages": [{"role": "user", "content": 3}]}, 400, "Expected 'content' to be a string or an array"),
    ("llama-server", {"messages": [{"role": "user", "content": "q"}], "tools": [TOOL], "tool_choice": "any"}, 400,
     "Invalid tool_choice: any"),
    ("vllm", {"messages": [{"role": "user", "content": "q"}], "tool_choice": "auto"}, 400,
     "When using `tool_choice`, `tools` must be set."),
    ("vllm", {"messages": [{"role": "user", "content": "q"}], "tools": [TOOL], "tool_choice": "any"}, 400,
     'Invalid value for `tool_choice`: any! Only named tools, "none", "auto" or "required" are supported.'),
    ("ollama", {"messages": [{"role": "assistant", "content": None}]}, 400, "invalid message content type: <nil>"),
])
def test_each_profile_refuses_what_its_server_refuses(profile, body, status, message):
    with ScriptedModelServer([], strict=profile) as srv:
        r = post(srv, {"model": "m", **body})
    assert r.status_code == status
    assert srv.chat_requests[0].error == message and srv.chat_requests[0].served == "refused"


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_profile_takes_the_shapes_sent_now(profile):
    with ScriptedModelServer([{"tool_calls": [{"name": "web_search", "arguments": {}}]}], strict=profile) as srv:
        r = post(srv, NOW)
        assert r.status_code == 200 and r.json()["choices"][0]["message"]["tool_calls"]
        fallback = {"model": "m", "messages": NOW["messages"] + [{"role": "user", "content": "Answer now."}]}
        assert post(srv, fallback).status_code == 200  # no tools, no tool_choice


def test_cli_serves_a_profile_and_refuses_an_unknown_one(tmp_path: Path):
    script = tmp_path / "s.jsonl"
    script.write_text('{"content": "Final answer: 42"}\n')
    proc = subprocess.run([sys.executable, "-m", "harness", "sandbox", "model-server", "--script", str(script),
                           "--strict", "llama-ccp"], capture_output=True, text=True, timeout=60)
    err = " ".join(proc.stderr.split())
    assert proc.returncode == 2 and "unknown server profile 'llama-ccp'" in err and "llama-cpp" in err
    srv = subprocess.Popen([sys.executable, "-m", "harness", "sandbox", "model-server", "--script", str(script),
                            "--port", "0", "--strict", "llama-cpp", "--context-tokens", "2048"], stdout=subprocess.PIPE, text=True)
    try:
        line = srv.stdout.readline()
        assert "strict llama-cpp" in line and "context 2048 tokens" in line
        base = line.split()[3]
        r = httpx.post(f"{base}/chat/completions", json=OPENAI_BEFORE, timeout=10)
        assert r.status_code == 500
        assert httpx.post(f"{base}/chat/completions", json=NOW, timeout=10).json()["choices"][0]["message"]["content"] == \
            "Final answer: 42"
    finally:
        srv.terminate()
        srv.wait(timeout=10)
    assert json.loads(json.dumps(NOW))  # the bodies above are plain JSON
