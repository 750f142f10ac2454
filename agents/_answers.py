"""Final answers in every form the agent frameworks use, read from a model's reply.

Three markers count as an answer: a `final_answer(...)` call in a code block (`<code>` tags or a
```python fence; smolagents' CodeAgent form), the smolagents final-answer tool call written as text
(`{"name": "final_answer", "arguments": {"answer": ...}}`), and a `Final answer: ...` line. A reply
with none of them is not an answer (a plan, say): the caller treats it as a step without a tool call.
A `final_answer(x)` whose argument is not a literal needs the code to run; only the code agent can
do that, so the reading says so instead of guessing.
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from harness.agent import NoToolReason, is_placeholder_answer

from ._prompt import clean_final_answer

CODE_TAGS = ("<code>", "</code>")
_FENCE = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)\n?```", re.S)
_FINAL_LINE = re.compile(r"final\s*answer\s*[:：]", re.I)
_BLOB = re.compile(r"\{.*\}", re.S)

Form = Literal["code", "tool_text", "line"]


@dataclass(frozen=True)
class ReplyReading:
    """What a reply says about the answer: `answer` when a marker holds a value; `code` when a code block
    calls final_answer with a computed value (the code must run to know it)."""

    answer: str | None = None
    form: Form | None = None
    code: str | None = None

    @property
    def found(self) -> bool:
        return self.answer is not None or self.code is not None


def answer_value_text(value: Any) -> str | None:
    """A final_answer value as answer text: lists become `a; b` (set answers), numbers keep their digits."""
    if value is None:
        return None
    if isinstance(value, (list, tuple, set)):
        return "; ".join(str(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = str(value).strip()
    return text or None


def code_blocks(text: str, tags: tuple[str, str] = CODE_TAGS) -> list[str]:
    """Every code block of a reply, in order: between the agent's tags, else in ``` fences."""
    opening, closing = (re.escape(t) for t in tags)
    blocks = re.findall(rf"{opening}(.*?){closing}", text, re.S)
    if not blocks and tags[0] in text:  # the closing tag is a stop sequence: the server may cut it off
        blocks = [text.split(tags[0], 1)[1]]
    if not blocks:
        blocks = _FENCE.findall(text)
    return [b.strip("\n") for b in blocks if b.strip()]


def _final_call(code: str) -> ast.Call | None:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == "final_answer"]
    return calls[-1] if calls else None


def _literal_argument(call: ast.Call) -> tuple[bool, Any]:
    """(True, value) when final_answer's argument is a literal; (False, None) otherwise."""
    node = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "answer"), None)
    if node is None:
        return True, None
    try:
        return True, ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return False, None


def _from_code(text: str, tags: tuple[str, str]) -> ReplyReading | None:
    for block in reversed(code_blocks(text, tags)):
        call = _final_call(block)
        if call is None:
            continue
        literal, value = _literal_argument(call)
        if literal:
            return ReplyReading(answer=answer_value_text(value), form="code")
        return ReplyReading(form="code", code=block)
    return None


def _from_tool_text(text: str) -> ReplyReading | None:
    """The final-answer tool call written as JSON text, as smolagents' tool-calling prompts show it."""
    m = _BLOB.search(text)
    if m is None or "final_answer" not in m.group(0):
        return None
    try:
        blob = json.loads(m.group(0))
    except json.JSONDecodeError:
        return None
    if not isinstance(blob, dict) or blob.get("name") != "final_answer":
        return None
    args = blob.get("arguments")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return ReplyReading(answer=answer_value_text(args), form="tool_text")
    value = args.get("answer") if isinstance(args, dict) else args
    return ReplyReading(answer=answer_value_text(value), form="tool_text")


def _bare_call(text: str) -> ReplyReading | None:
    """`final_answer("...")` written in prose, outside any code block."""
    m = re.search(r"final_answer\((.*)\)", text, re.S)
    if m is None:
        return None
    call = _final_call(f"final_answer({m.group(1)})")
    if call is None:
        return None
    literal, value = _literal_argument(call)
    return ReplyReading(answer=answer_value_text(value), form="code") if literal else None


def read_reply(text: str | None, tags: tuple[str, str] = CODE_TAGS) -> ReplyReading:
    """The answer a reply gives, if it gives one in any recognised form (an empty reading if not)."""
    if not text or not text.strip():
        return ReplyReading()
    for reading in (_from_code(text, tags), _from_tool_text(text)):
        if reading is not None:
            return reading
    if _FINAL_LINE.search(text):
        return ReplyReading(answer=clean_final_answer(text), form="line")
    return _bare_call(text) or ReplyReading()


def last_chance_answer(text: str | None, tags: tuple[str, str] = CODE_TAGS) -> str | None:
    """The answer of a fallback reply: a marker if there is one, else the last line of its prose (code
    blocks are never an answer by themselves)."""
    reading = read_reply(text, tags)
    if reading.answer is not None or reading.code is not None or not text:
        return reading.answer
    opening, closing = (re.escape(t) for t in tags)
    prose = re.sub(rf"{opening}.*?(?:{closing}|$)", "", text, flags=re.S)
    prose = _FENCE.sub("", prose)
    return clean_final_answer(prose)


_CALL_AS_TEXT = re.compile(r"\A\s*(?:```(?:json)?\s*)?\{|<tool_call>|^\s*functions\.\w+\s*:", re.I | re.M)


def no_tool_reason(text: str, finish_reason: str | None, reading: ReplyReading) -> tuple[NoToolReason, str]:
    """Why a reply with no tool call gives no answer, and what to tell the model beyond that: cut off at the
    length limit (over_long), nothing written (empty), an answer that only repeats the instructions'
    placeholder or a tool call written as text (unparseable), else a plan."""
    if finish_reason == "length":
        return "over_long", "Keep replies short: one tool call, or the final answer line."
    if not text.strip():
        return "empty", ""
    if reading.answer is not None and is_placeholder_answer(reading.answer):
        return "unparseable", (f"Its final answer {reading.answer!r} only repeats the placeholder of the instructions: "
                               "write the value itself in its place.")
    if reading.code is not None:
        return "plan", ("Its final_answer(...) call computes the answer in code, which this agent cannot run: write "
                        "the value itself.")
    if _CALL_AS_TEXT.search(text):
        return "unparseable", "It looks like a tool call written as text; call the tool itself instead."
    return "plan", ""
