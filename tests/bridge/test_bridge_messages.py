"""The bridge reads a growing conversation without parsing and encoding it all again (harness/bridge/messages.py),
and what it forwards and traces is byte for byte what parsing the whole request would give."""
from __future__ import annotations

import json

import pytest

from harness.bridge.messages import RequestReader
from harness.chat_body import ChatBody


def expected(raw: bytes) -> tuple[dict, bytes]:
    data = json.loads(raw)
    return data, ChatBody.from_request(data).encode()


def got(reader: RequestReader, raw: bytes) -> tuple[dict, bytes]:
    out = reader.read(raw)
    assert out is not None, raw
    data, parts = out
    return data, ChatBody.build({k: v for k, v in data.items() if k != "messages"}, parts).encode()


def conversation(n: int, sep: tuple[str, str] = (", ", ": ")) -> bytes:
    msgs = [{"role": "system", "content": "Answer. é ☃ \"q\" \\ \u2028"}]
    for i in range(n):
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "web_search", "arguments": '{"query": "x"}'}}]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"result {i} " * 20, "n": 1.5e300, "t": True})
    body = {"messages": msgs, "model": "m", "tools": [{"type": "function", "function": {"name": "web_search"}}]}
    return json.dumps(body, separators=sep, ensure_ascii=bool(n % 2)).encode()


def test_a_growing_conversation_reads_as_parsing_it_whole_and_reuses_the_messages_it_saw():
    reader = RequestReader()
    for n in range(6):
        raw = conversation(n)
        assert got(reader, raw) == expected(raw)
    before = reader.read(conversation(6))
    after = reader.read(conversation(8))  # written the same way (ensure_ascii alternates with n)
    assert before is not None and after is not None
    # the same bytes objects for the messages already sent: the trace's recorder hashes them once
    assert all(a is b for a, b in zip(before[1], after[1][:len(before[1])]))
    assert all(a is b for a, b in zip(before[0]["messages"], after[0]["messages"]))


@pytest.mark.parametrize("raw", [
    b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": false}',
    b' \n{ "messages" : [ {"role":"user","content":"hi"} , {"role":"user","content":"hi"} ] } \n',
    b'{"messages": [{"role": "user", "content": "a"}], "messages": [{"role": "user", "content": "b"}]}',
    b'{"messages": [], "model": "m"}',
    b'{"messages": [1, "two", null, {"role": "user", "content": "x"}]}',
    b'{"metadata": {"messages": [1]}, "messages": [{"role": "user", "content": "x"}]}',
])
def test_odd_but_valid_bodies_read_as_parsing_them_whole(raw):
    reader = RequestReader()
    reader.read(conversation(2))  # a conversation seen before must not leak into an unrelated request
    assert got(reader, raw) == expected(raw)


@pytest.mark.parametrize("raw", [
    b'not json', b'[1, 2]', b'{"messages": "hi"}', b'{"model": "m"}', b'{"messages": [{"a": 1}] trailing',
    b'{"messages": [{"a": 1}}', b'{"messages": [{"a": NaN}]}', b'', b'{"messages": [{"a": 1},]}',
])
def test_what_it_does_not_expect_is_left_to_the_usual_parse(raw):
    reader = RequestReader()
    reader.read(conversation(1))
    assert reader.read(raw) is None


def test_a_message_changed_in_the_middle_is_read_again():
    reader = RequestReader()
    first = conversation(3)
    reader.read(first)
    changed = first.replace(b"result 1 ", b"RESULT 1 ", 1)
    assert got(reader, changed) == expected(changed)
    # a message whose raw text is a prefix of another one (not a whole object) is not taken for it
    a = b'{"messages": [{"role": "user", "content": "x"}]}'
    b = b'{"messages": [{"role": "user", "content": "x"}, {"role": "user", "content": "x"}]}'
    reader2 = RequestReader()
    reader2.read(b)
    assert got(reader2, a) == expected(a)
