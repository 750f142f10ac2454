"""Trace v4 requests: each message stored once by hash, images as files, every request rebuilt byte for byte."""
from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from harness.chat_body import ChatBody, MessageEncoder
from harness.rundir import RunDir
from harness.trace import SCHEMA_VERSION, ModelCall, TraceVersionError, parse_event
from harness.trace_fold import fold_events, fold_trace
from harness.trace_store import RequestIndex, RequestRecorder, TraceRequestError
from harness.tracewriter import TraceWriter

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
IMAGE_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()
TOOLS = [{"type": "function", "function": {"name": "web_search", "description": "search", "parameters": {"type": "object"}}}]


def conversation(n_steps: int) -> list[list[dict]]:
    """The message lists of n_steps growing requests: a cue image, then tool call and result pairs."""
    msgs: list[dict] = [{"role": "system", "content": "You are a research assistant. ünïcode ✓"},
                        {"role": "user", "content": [{"type": "text", "text": "Turn 1: find the paper."},
                                                     {"type": "image_url", "image_url": {"url": IMAGE_URL}}]}]
    out = [list(msgs)]
    for i in range(1, n_steps):
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "web_search", "arguments": json.dumps({"query": f"q{i}"})}}]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"result {i}: " + "words of a search result " * 40})
        out.append(list(msgs))
    return out


def write_calls(tmp_path: Path, requests: list[list[dict]]) -> tuple[Path, list[bytes]]:
    """Record each request through a real TraceWriter; returns the trace and the bodies as sent."""
    w = TraceWriter(tmp_path / "traces" / "ep.jsonl", run_id="r", episode_id="ep")
    enc, sent = MessageEncoder(), []
    for msgs in requests:
        body = ChatBody.build({"model": "m", "tools": TOOLS, "temperature": 0.0}, enc.encode(msgs))
        sent.append(body.encode())
        w.write(ModelCall(turn=1, model="m", response={"choices": []}, **w.request_fields(None, body)))
    w.commit()
    return w.final_path, sent


def read(path: Path) -> list:
    return [parse_event(line) for line in path.read_text().splitlines()]


def test_body_is_the_json_of_the_request_with_messages_first():
    req = {"model": "m", "messages": [{"role": "user", "content": "hé"}], "tools": TOOLS, "max_tokens": 5}
    body = ChatBody.from_request(req)
    assert json.loads(body.encode()) == req
    assert body.encode().startswith(b'{"messages":[{"role":"user","content":"h\xc3\xa9"}],"model":"m"')
    assert ChatBody.from_request({"messages": []}).encode() == b'{"messages":[]}'
    with pytest.raises(ValueError, match="messages"):
        ChatBody.from_request({"model": "m"})


def test_encoder_reuses_unchanged_messages_and_sees_reassigned_fields():
    enc = MessageEncoder()
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    first = enc.encode(msgs)
    msgs.append({"role": "assistant", "content": "a"})
    second = enc.encode(msgs)
    assert second[0] is first[0] and second[1] is first[1]  # not encoded again
    msgs[1]["content"] = "changed"
    assert json.loads(enc.encode(msgs)[1]) == {"role": "user", "content": "changed"}
    msgs[1] = {"role": "user", "content": "new dict"}
    assert json.loads(enc.encode(msgs)[1])["content"] == "new dict"


def test_every_request_rebuilds_byte_for_byte_and_each_message_is_stored_once(tmp_path):
    path, sent = write_calls(tmp_path, conversation(12))
    events = read(path)
    assert all(e.schema_version == SCHEMA_VERSION == 6 for e in events)
    index = fold_events("ep", events).requests
    images = tmp_path / "traces" / "ep"
    assert [index.body(n, images) for n in index.numbers()] == sent
    # one blob per distinct message plus one head, across all calls; each call names only its new messages
    assert sum(len(e.blobs) for e in events) == 2 + 2 * 11 + 1
    assert [len(e.messages) for e in events] == [2] + [2] * 11
    assert [e.keep for e in events] == [0] + [2 * i for i in range(1, 12)]
    # the image is a file named by the hash of its bytes, not in the trace
    assert (images / f"{hashlib.sha256(PNG).hexdigest()}.png").read_bytes() == PNG
    assert base64.b64encode(PNG).decode() not in path.read_text()


def test_bytes_per_call_stay_flat_as_the_episode_grows(tmp_path):
    path, sent = write_calls(tmp_path, conversation(40))
    lines = path.read_text().splitlines()
    assert len(sent[-1]) > 15 * len(sent[1])  # the requests themselves grow
    assert max(len(x) for x in lines[2:]) < 1.2 * min(len(x) for x in lines[2:])  # their trace lines do not


def test_a_shortened_conversation_keeps_only_the_shared_prefix(tmp_path):
    reqs = conversation(4)
    summary = [reqs[-1][0], {"role": "user", "content": "Summary of earlier turns: ..."}, {"role": "user", "content": "Turn 2"}]
    path, sent = write_calls(tmp_path, reqs + [summary])
    events = read(path)
    assert events[-1].parent == 4 and events[-1].keep == 1 and len(events[-1].messages) == 2
    index = fold_events("ep", events).requests
    assert index.body(5, tmp_path / "traces" / "ep") == sent[-1]
    assert index.request(5, tmp_path / "traces" / "ep")["messages"] == summary


def test_image_payload_that_does_not_round_trip_stays_inline(tmp_path):
    odd = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AB=="}}]}
    path, sent = write_calls(tmp_path, [[odd]])
    assert "AB==" in path.read_text()  # 'AB==' decodes to bytes that encode as 'AA==': kept as text
    assert fold_events("ep", read(path)).requests.body(1) == sent[0]


def test_damaged_parts_are_reported_not_rebuilt_wrong(tmp_path):
    path, _ = write_calls(tmp_path, conversation(3))
    images = tmp_path / "traces" / "ep"
    index = fold_events("ep", read(path)).requests
    with pytest.raises(TraceRequestError, match="image"):
        index.body(1)  # the folder holding the image was not given
    image = images / f"{hashlib.sha256(PNG).hexdigest()}.png"
    image.unlink()
    with pytest.raises(TraceRequestError, match="missing"):
        index.body(1, images)
    with pytest.raises(TraceRequestError, match="no model call 9"):
        index.body(9, images)
    image.write_bytes(PNG)
    text = path.read_text().replace("words of a search result", "words of a changed result", 1)
    path.write_text(text)
    index = fold_events("ep", read(path)).requests
    with pytest.raises(TraceRequestError, match="does not match"):
        index.body(2, images)


@pytest.mark.parametrize("version", [2, 3])
def test_older_traces_keep_their_whole_request(tmp_path, version):
    v2 = {"schema_version": version, "kind": "model_call", "turn": 1, "model": "m",
          "request": {"model": "m", "messages": [{"role": "user", "content": "hi"}]}}
    second = {**v2, "request": {"model": "m", "messages": [{"role": "user", "content": "again"}]}}
    events = [parse_event(json.dumps(v2)), parse_event(json.dumps(second))]
    index = fold_events("ep", events).requests
    assert index.numbers() == [1, 2]  # numbered by their order in the trace
    assert index.stored_whole(1) and index.request(1) == v2["request"] and index.request(2) == second["request"]
    with pytest.raises(TraceRequestError, match="before v4"):
        index.body(1)
    with pytest.raises(TraceVersionError):
        parse_event(json.dumps({**v2, "schema_version": SCHEMA_VERSION + 1}))


def test_a_request_without_messages_is_stored_whole(tmp_path):
    w = TraceWriter(tmp_path / "ep.jsonl", run_id="r", episode_id="ep")
    assert w.request_fields({"prompt": "x"}, None) == {"request": {"prompt": "x"}}
    assert w.request_fields(None, None) == {"request": None}
    w.abandon()


def test_turn_fold_rebuilds_its_calls_requests_from_a_run_folder(tmp_path):
    rd = RunDir(tmp_path)
    path, sent = write_calls(tmp_path, conversation(3))
    assert path == rd.trace_path("ep")
    fold = fold_trace(rd.read_trace("ep"))
    tf = fold.turn(1)
    assert tf.request(2, rd.assets_dir("ep")) == json.loads(sent[2])
    assert RequestIndex().numbers() == []


def test_a_tool_result_is_stored_once_though_the_tool_call_and_the_request_both_carry_it(tmp_path):
    from harness.trace import ToolCallEvent

    result = "1. A paper \"quoted\" — ünïcode\n   paper id: P001\n" * 20
    w = TraceWriter(tmp_path / "traces" / "ep.jsonl", run_id="r", episode_id="ep")
    enc, sent = MessageEncoder(), []
    msgs = [{"role": "user", "content": "find it"}]
    for i in range(3):
        body = ChatBody.build({"model": "m"}, enc.encode(msgs))
        sent.append(body.encode())
        w.write(ModelCall(turn=1, model="m", **w.request_fields(None, body)))
        w.write(ToolCallEvent(turn=1, step=i + 1, tool="web_search", result_text=result + str(i)))
        msgs += [{"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "type": "function",
                  "function": {"name": "web_search", "arguments": "{}"}}]},
                 {"role": "tool", "tool_call_id": f"c{i}", "content": f"Note: a prefix.\n{result}{i}"}]
    w.commit()
    text = w.final_path.read_text()
    assert text.count("paper id: P001") == 3 * 20  # once per result: in its tool_call, not again in a request
    index = fold_trace(RunDir(tmp_path).read_trace("ep")).requests
    assert [index.body(n) for n in index.numbers()] == sent


def test_a_tool_result_the_agent_cut_short_is_referred_to_up_to_the_cut(tmp_path):
    from harness.trace import ToolCallEvent

    paper = "".join(f"Section {i}: text of a long paper, with \"quotes\" and a tab\t.\n" for i in range(400))
    shown = paper[:12000] + "\n... [truncated]"
    w = TraceWriter(tmp_path / "traces" / "ep.jsonl", run_id="r", episode_id="ep")
    enc = MessageEncoder()
    w.write(ToolCallEvent(turn=1, step=1, tool="pdf_extract", result_text=paper))
    body = ChatBody.build({"model": "m"}, enc.encode([{"role": "tool", "tool_call_id": "c", "content": shown}]))
    w.write(ModelCall(turn=1, model="m", **w.request_fields(None, body)))
    w.commit()
    assert w.final_path.read_text().count("Section 10:") == 1
    index = fold_trace(RunDir(tmp_path).read_trace("ep")).requests
    assert index.body(1) == body.encode()
