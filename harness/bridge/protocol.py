"""The bridge's turn protocol, version 1: what an agent program reads on stdin and writes on stdout.

One JSON object per line, UTF-8, in both directions. The harness writes:

- `{"type": "episode", ...}` once, first: the protocol version, the episode id and number of turns, the
  per-episode token, the model endpoint (`base_url`, an OpenAI-compatible URL ending in /v1), the model
  name to send, the tool endpoints and every tool the run offers (OpenAI tool definitions);
- `{"type": "turn", ...}` per turn: the question, the cue text, the cue image (a PNG in the scratch
  folder, `path`, and the same bytes in `base64`), the tools offered on this turn (none on a memory-only
  turn), the budget and the form the answer takes;
- `{"type": "end"}` after the last turn: the program should exit (it is stopped soon after anyway).

The agent writes one line per turn: `{"type": "answer", "turn": N, "answer": "..."}` (optional
`"reasoning"`). Nothing else goes to stdout: logs go to stderr, whose tail the trace keeps when the
program fails. A line that is not such an object, an answer for another turn, or a line over
MAX_LINE bytes ends the episode as an agent error.

Every request to the bridge's endpoints carries the token as a bearer key (`Authorization: Bearer
<token>`); the episode line gives it and the environment has it as OPENAI_API_KEY, with
OPENAI_BASE_URL set to the endpoint, so an OpenAI SDK client made with no arguments is ready.
The full reference with the endpoints is harness/bridge/PROTOCOL.md.
"""
from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..agent import AnswerSpec, ToolSpec, TurnView

PROTOCOL_VERSION = 1
MAX_LINE = 1024 * 1024  # one answer line from the agent, at most


def openai_tools(specs: list[ToolSpec]) -> list[dict[str, Any]]:
    """Tools as the OpenAI chat API's `tools` field takes them."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in specs]


class CueImage(BaseModel):
    path: str = Field(description="the image in the agent's scratch folder, as the agent sees it")
    media_type: str = "image/png"
    base64: str = Field(description="the same bytes, base64")


class Budget(BaseModel):
    max_steps: int
    unit: Literal["tool_call", "model_step"]


class EpisodeLine(BaseModel):
    type: Literal["episode"] = "episode"
    protocol: int = PROTOCOL_VERSION
    episode_id: str
    n_turns: int
    token: str = Field(description="the bearer key of every request to the bridge for this episode")
    base_url: str = Field(description="OpenAI-compatible model endpoint (…/v1)")
    model: str = Field(description="the model name to send")
    tools_url: str = Field(description="GET: the tools of the current turn (OpenAI definitions)")
    tool_call_url: str = Field(description="POST {name, arguments}: run a tool through the harness")
    scratch: str = Field(description="a folder the agent may write in (its working folder)")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="every tool the run offers on tool turns")
    long_lived: bool = Field(default=False, description="after this episode's end line, the next episode line follows "
                                                         "(--agent-long-lived); else the program should exit")
    mcp_url: str | None = Field(default=None, description="the same tools as an MCP server (streamable HTTP)")
    mcp_stdio: dict[str, Any] | None = Field(
        default=None, description="the MCP server over stdio: run `args` with a Python that has the mcp SDK, with `env`")


class TurnLine(BaseModel):
    type: Literal["turn"] = "turn"
    turn: int
    n_turns: int
    question: str
    cue_text: str | None = None
    cue_image: CueImage | None = None
    tools: list[dict[str, Any]] = Field(default_factory=list, description="OpenAI tool definitions offered this turn")
    memory_only: bool = Field(default=False, description="answer from memory: requests with tools are refused")
    budget: Budget
    answer_spec: AnswerSpec


class AnswerLine(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: Literal["answer"]
    turn: int
    answer: str | None
    reasoning: str | None = None


class ProtocolViolation(ValueError):
    """What the agent wrote on stdout is not a line of this protocol; the message says what is wrong."""


def turn_line(view: TurnView, image_path: str | None, image_file: Path | None, media_type: str = "image/png") -> TurnLine:
    cue = None
    if image_file is not None and image_path is not None:
        cue = CueImage(path=image_path, media_type=media_type,
                       base64=base64.b64encode(image_file.read_bytes()).decode("ascii"))
    return TurnLine(
        turn=view.turn, n_turns=view.n_turns, question=view.question, cue_text=view.cue_text, cue_image=cue,
        tools=openai_tools(view.tools), memory_only=not view.tools,
        budget=Budget(max_steps=view.max_steps, unit=view.budget_unit), answer_spec=view.answer_spec,
    )


def dump_line(line: BaseModel) -> bytes:
    return line.model_dump_json().encode("utf-8") + b"\n"


def parse_answer(raw: bytes, turn: int) -> AnswerLine:
    """The agent's answer line for `turn`; ProtocolViolation naming what is wrong otherwise."""
    text = raw.decode("utf-8", "replace").strip()
    shown = text if len(text) <= 200 else text[:200] + " ..."
    try:
        data = json.loads(text)
    except ValueError:
        raise ProtocolViolation(f"stdout line is not JSON: {shown!r} (the protocol takes one JSON answer line per turn "
                                "on stdout; write logs to stderr)") from None
    if not isinstance(data, dict) or data.get("type") != "answer":
        raise ProtocolViolation(f'stdout line is not an answer object {{"type": "answer", "turn": N, "answer": ...}}: '
                                f"{shown!r}")
    try:
        line = AnswerLine.model_validate(data)
    except ValidationError as e:
        what = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors())
        raise ProtocolViolation(f"answer line does not fit the protocol ({what}): {shown!r}") from None
    if line.turn != turn:
        raise ProtocolViolation(f"answer line is for turn {line.turn}, but turn {turn} is open: {shown!r}")
    return line
