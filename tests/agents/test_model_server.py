"""The scripted OpenAI-compatible server on its own: script files, matching, faults, the request log, the CLI."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import openai
import pytest
from typer.testing import CliRunner

from harness.cli import app
from sandbox.model_server import ScriptedModelServer, ScriptError, load_script


def test_script_files_in_all_three_shapes(tmp_path: Path):
    (tmp_path / "a.json").write_text(json.dumps([{"content": "one"}, {"content": "dflt", "default": True}]))
    (tmp_path / "b.json").write_text(json.dumps({"responses": [{"fault": "server_error"}], "default": {"content": "d"}}))
    (tmp_path / "c.jsonl").write_text('{"content": "x"}\n\n{"tool_calls": [{"name": "t", "arguments": "{bad"}]}\n')
    a, b, c = (load_script(tmp_path / n) for n in ("a.json", "b.json", "c.jsonl"))
    assert [r.content for r in a.responses] == ["one"] and a.default.content == "dflt"
    assert b.responses[0].fault == "server_error" and b.default.content == "d"
    assert c.responses[1].tool_calls[0].arguments == "{bad"
    (tmp_path / "bad.jsonl").write_text('{"content": "ok"}\n{"fault": "explode"}\n')
    with pytest.raises(ScriptError, match=r"bad.jsonl, line 2: fault"):
        load_script(tmp_path / "bad.jsonl")
    (tmp_path / "broken.jsonl").write_text('{"content": "ok"}\n{nope\n')
    with pytest.raises(ScriptError, match=r"line 2: not valid JSON"):
        load_script(tmp_path / "broken.jsonl")


def test_matching_defaults_images_and_log(tmp_path: Path):
    log = tmp_path / "requests.jsonl"
    items = [{"content": "no-tools answer", "match": {"tools_offered": False}}, {"content": "first"}]
    with ScriptedModelServer(items, log_path=log) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="k", max_retries=0)
        tool = {"type": "function", "function": {"name": "web_search", "parameters": {"type": "object", "properties": {}}}}
        r1 = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], tools=[tool])
        img = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
        r2 = client.chat.completions.create(model="m", messages=[{"role": "user", "content": [{"type": "text", "text": "see"}, img]}])
        r3 = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "again"}])
        assert client.models.list().data[0].id == "scripted"
    assert r1.choices[0].message.content == "first"  # the no-tools item waited for a request without tools
    assert r2.choices[0].message.content == "no-tools answer"
    assert r3.choices[0].message.content == "Final answer: (script exhausted)"
    assert r1.usage.prompt_tokens > 0
    reqs = srv.chat_requests
    assert [r.tools_offered for r in reqs] == [["web_search"], [], []]
    assert [r.n_images for r in reqs] == [0, 1, 0] and [r.served for r in reqs] == ["script[1]", "script[0]", "default"]
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(logged) == 4 and logged[1]["n_images"] == 1


def test_faults_look_like_real_failures():
    items = [{"fault": "rate_limit", "retry_after": 7}, {"fault": "server_error"}, {"fault": "truncated", "content": "x" * 200},
             {"tool_calls": [{"name": "web_search", "arguments": {"query": "q"}}], "fault": "malformed_tool_json"},
             {"fault": "empty"}, {"content": "slow", "delay_s": 0.3}]
    with ScriptedModelServer(items) as srv:
        url = f"{srv.base_url}/chat/completions"
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        r = httpx.post(url, json=body)
        assert r.status_code == 429 and r.headers["retry-after"] == "7"
        assert httpx.post(url, json=body).status_code == 500
        with pytest.raises(httpx.HTTPError):
            httpx.post(url, json=body)  # body cut short of its Content-Length
        args = httpx.post(url, json=body).json()["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
        with pytest.raises(json.JSONDecodeError):
            json.loads(args)
        msg = httpx.post(url, json=body).json()["choices"][0]["message"]
        assert msg["content"] == "" and "tool_calls" not in msg
        t0 = time.perf_counter()
        assert httpx.post(url, json=body).json()["choices"][0]["message"]["content"] == "slow"
        assert time.perf_counter() - t0 >= 0.3


def test_cli_refuses_a_bad_script_and_serves_a_good_one(tmp_path: Path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"contnt": "typo"}\n')
    result = CliRunner().invoke(app, ["sandbox", "model-server", "--script", str(bad), "--port", "0"])
    assert result.exit_code != 0
    proc = subprocess.run([sys.executable, "-m", "harness", "sandbox", "model-server", "--script", str(bad)],
                          capture_output=True, text=True, timeout=60)
    err = " ".join(proc.stderr.split())
    assert proc.returncode == 2 and "bad.jsonl, line 1: contnt" in err and "Traceback" not in err
    good = tmp_path / "good.jsonl"
    good.write_text('{"content": "Final answer: 42"}\n')
    srv = subprocess.Popen([sys.executable, "-m", "harness", "sandbox", "model-server", "--script", str(good), "--port", "0"],
                           stdout=subprocess.PIPE, text=True)
    try:
        line = srv.stdout.readline()  # "scripted model server: http://127.0.0.1:PORT/v1 ..."
        base = line.split()[3]
        client = openai.OpenAI(base_url=base, api_key="k", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
        assert reply.choices[0].message.content == "Final answer: 42"
    finally:
        srv.terminate()
        srv.wait(timeout=10)


def test_tool_loop_calls_the_tool_per_question_then_answers(tmp_path: Path):
    (tmp_path / "loop.json").write_text(json.dumps(
        {"loop": {"tool": "web_search", "calls": 2, "arguments": {"query": "{question} ({n})", "k": 3}, "content": "Final answer: 7"}}))
    script = load_script(tmp_path / "loop.json")
    tool = {"type": "function", "function": {"name": "web_search", "parameters": {"type": "object", "properties": {}}}}
    with ScriptedModelServer(script) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="k", max_retries=0)
        msgs: list = [{"role": "user", "content": "Turn 1.\nQuestion: Which   paper\nstudies charts?"}]
        queries = []
        for _ in range(3):
            reply = client.chat.completions.create(model="m", messages=msgs, tools=[tool]).choices[0].message
            if not reply.tool_calls:
                break
            tc = reply.tool_calls[0]
            queries.append(json.loads(tc.function.arguments))
            msgs += [{"role": "assistant", "content": None, "tool_calls": [tc.model_dump()]},
                     {"role": "tool", "tool_call_id": tc.id, "content": "result"}]
        assert queries == [{"query": "Which paper studies charts? (1)", "k": 3}, {"query": "Which paper studies charts? (2)", "k": 3}]
        assert reply.content == "Final answer: 7"
        msgs.append({"role": "user", "content": "Question: next one"})  # a new question starts the count again
        again = client.chat.completions.create(model="m", messages=msgs, tools=[tool]).choices[0].message
        assert again.tool_calls and json.loads(again.tool_calls[0].function.arguments)["query"] == "next one (1)"
        no_tools = client.chat.completions.create(model="m", messages=msgs).choices[0].message
        assert no_tools.content == "Final answer: 7"  # without tools offered it answers at once
    assert [r.served for r in srv.chat_requests] == ["loop"] * 5
    assert all(json.loads(r.raw) == r.body for r in srv.chat_requests)  # the bytes received are kept as they came


def test_code_writing_replies_arrive_as_a_codeagent_expects(tmp_path: Path):
    """A `code` item is served as a thought then the code in `<code>` tags (or a ```python fence); a script
    file may hold it too, and a bad `code_tags` is refused naming the line."""
    (tmp_path / "s.jsonl").write_text(json.dumps({"code": 'final_answer("42")'}) + "\n"
                                      + json.dumps({"content": "Thought: from memory.", "code": "print(1)", "code_tags": "markdown"}) + "\n")
    with ScriptedModelServer(load_script(tmp_path / "s.jsonl")) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="k", max_retries=0)
        got = [client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}]).choices[0].message
               for _ in range(2)]
    assert got[0].content == 'Thought: I will run this code.\n<code>\nfinal_answer("42")\n</code>' and not got[0].tool_calls
    assert got[1].content == "Thought: from memory.\n```python\nprint(1)\n```"
    (tmp_path / "bad.jsonl").write_text(json.dumps({"code": "x", "code_tags": "html"}) + "\n")
    with pytest.raises(ScriptError, match=r"bad.jsonl, line 1: code_tags"):
        load_script(tmp_path / "bad.jsonl")
