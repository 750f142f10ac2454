"""Trace events: typed, tagged records, one JSON object per line in results/<run>/traces/<episode>.jsonl.

Every event carries the schema version, run and episode ids, turn and step (0 where not applicable),
a wall-clock timestamp and a duration. The trace is the source of truth for scoring, replay and reports;
`harness.trace_fold` folds it into per-turn records, the one place that does.

Versions. `parse_event` reads every version this code knows: an older line is lifted to the current
schema by the steps in `UPGRADES` (one function per version, dict in -> dict out), a newer one is
refused with a message that says so. A change of the format bumps SCHEMA_VERSION and adds one step.
- v1: the first format.
- v2: `tool_call.executed` says whether the tool ran (False for a call the session refused: a tool not
  offered, or the pseudo-call written for an empty model reply). Provenance items are `EvidenceUnit`s
  and token usage is `TokenUsage` everywhere (same JSON as v1).
- v3: no magic keys. A model step that called no tool (empty reply, a plan, unparseable output, code
  that called no tool or raised) is a `no_tool_step` event (v2 wrote a refused `__empty_message__`
  tool call); tool arguments that were not a JSON object are `tool_call.raw_arguments` (v2: an args
  dict `{"__raw__": ...}`); `tool_call.counted` is False for a call asked for after the budget ran
  out (refused, not run). `turn_start.budget_unit` and `budget_exhausted.unit` / `.ran_out` say
  what the budget counted and what ran out; `memory_compacted` records what a summary memory mode
  dropped from the model's view (the fold takes those units out of memory).
- v4: a `model_call` stores its request by content hash instead of whole: `call` numbers it, `parent`
  and `keep` say which earlier call's first messages it repeats, `messages` lists the hashes of the
  messages after those, `head` the hash of the rest of the body (model, tools, decoding); `blobs`
  holds the JSON text of every message or head this trace had not stored before. Image payloads in
  messages are files named by their hash in the episode's folder beside the trace, and a tool result
  already in a tool_call's `result_text` is referred to by its hash. `request_sha256`
  is the hash of the exact body bytes. `harness.trace_store` writes and rebuilds this; a line of an
  earlier version (whole `request`) reads as before.
- v5 (issue 22): every request body is in the trace, failed attempts included: a request the provider
  answered with an error (a 5xx being retried, a 400, a timeout) is a `model_call` with `error` set and
  no `response`, stored like any other request, counted apart from the model calls (cost). A tool call
  whose arguments fail the tool's schema is refused, not run (`executed` False, like a tool not offered);
  the step from v4 marks such calls of older traces the same way (their error is the schema's message),
  so an old run re-scores as a new one would.
- v6 (issue 28): an `agent_check` event records what the harness noticed an agent do against the protocol
  (harness.agent): a second model call in one step, more model calls in a turn than its steps and the
  fallback, a fallback request that claims tools, a tool call during the fallback, a tool run or a world
  built by the agent itself outside the tool session; each refused, charged to the budget or flagged.
  Only a new kind: a line of v5 reads unchanged.
"""
from __future__ import annotations

import json
import re
import time
from typing import Annotated, Any, Callable, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from tools import EvidenceUnit

SCHEMA_VERSION = 6

ReasonBucket = Literal["provider", "data_access", "pipeline", "model"]
AnswerSource = Literal["agent", "budget_fallback", "limit_fallback", "none"]
BudgetUnit = Literal["tool_call", "model_step"]
NoToolReason = Literal["empty", "plan", "over_long", "unparseable", "code_error", "code_without_tool", "other"]


class TraceVersionError(ValueError):
    """A trace line written by a newer epiharness than this one."""


class TokenUsage(BaseModel):
    """Tokens of one model request, or summed over many: the project's one usage type."""

    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: "TokenUsage") -> "TokenUsage":
        return TokenUsage(input_tokens=self.input_tokens + other.input_tokens,
                          output_tokens=self.output_tokens + other.output_tokens)


class _Event(BaseModel):
    schema_version: int = SCHEMA_VERSION
    run_id: str = ""
    episode_id: str = ""
    turn: int = 0
    step: int = 0
    ts: float = Field(default_factory=time.time)
    duration_s: float = 0.0


class RunStart(_Event):
    kind: Literal["run_start"] = "run_start"
    config: dict[str, Any] = Field(default_factory=dict)


class EpisodeStart(_Event):
    kind: Literal["episode_start"] = "episode_start"
    n_turns: int
    split: str
    task_type: str
    initiation: str
    agent: str
    uses_gold: bool = False
    epoch: int = Field(default=1, ge=1, description="which repeat of the episode this trace is (epi run --epochs)")


class TurnStart(_Event):
    kind: Literal["turn_start"] = "turn_start"
    question: str
    cue_text: str | None = None
    cue_image: str | None = Field(
        default=None, description="the cue image's copy in the run, relative to the run folder (traces/<episode>/<sha256>.<ext>); "
                                  "older traces: an absolute path into the episode file's folder")
    allowed_tools: list[str]
    budget: int
    budget_unit: BudgetUnit = Field(
        default="tool_call", description="what the budget counts: tool calls (paper sec. 5.5) or model steps (smolagents)")
    memory_only: bool = False


class ImageRef(BaseModel):
    """An image payload cut out of a stored message: the file beside the trace holding its bytes."""

    model_config = ConfigDict(extra="forbid")

    image: str = Field(description="file name in the episode's folder: <sha256 of the bytes>.<ext>")


class ToolResultRef(BaseModel):
    """A tool's result text cut out of a stored message: it is the `result_text` of an earlier tool_call."""

    model_config = ConfigDict(extra="forbid")

    tool_result: str = Field(description="sha256 of that result_text (UTF-8); it stands for the text JSON-escaped")
    chars: int | None = Field(default=None, ge=1, description="only the first `chars` characters of it (an agent cut the text short)")


# A stored message or head: its JSON text, or the text in pieces around what was cut out of it
Blob = Union[str, list[Union[str, ImageRef, ToolResultRef]]]


class ModelCall(_Event):
    kind: Literal["model_call"] = "model_call"
    model: str = ""
    tools_offered: list[str] = Field(default_factory=list)
    request: dict[str, Any] | None = Field(
        default=None, description="v1-v3: the whole request (image data left out); v4: only a request without messages")
    request_sha256: str | None = Field(default=None, description="sha256 of the exact request body bytes")
    call: int = Field(default=0, ge=0, description="this request's number in the episode, from 1 (0: before v4)")
    parent: int | None = Field(default=None, description="the earlier call whose first `keep` messages this one repeats")
    keep: int = Field(default=0, ge=0)
    messages: list[str] = Field(default_factory=list, description="hashes of the messages after the kept ones")
    head: str | None = Field(default=None, description="hash of the body without its messages")
    blobs: dict[str, Blob] = Field(default_factory=dict, description="text first stored here: hash -> JSON")
    response: dict[str, Any] | None = None
    error: str | None = Field(
        default=None, description="v5: the provider error of a failed attempt (then no response); counted apart from model calls")
    usage: TokenUsage = Field(default_factory=TokenUsage)
    latency_s: float = 0.0
    purpose: Literal["step", "budget_fallback", "limit_fallback", "judge", "summary"] = "step"

    @property
    def failed(self) -> bool:
        """A request the provider answered with an error: its body is stored, it is not a model call."""
        return self.error is not None


class Retry(_Event):
    kind: Literal["retry"] = "retry"
    attempt: int
    error: str
    wait_s: float


class ToolCallEvent(_Event):
    """One step of a turn: a tool call the agent asked for, run or refused by the tool session."""

    kind: Literal["tool_call"] = "tool_call"
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = Field(
        default=None, description="the arguments as the model wrote them, when they were not a JSON object (args is then empty)")
    reasoning: str | None = None
    result_summary: str = ""
    result_text: str | None = Field(default=None, description="full text shown to the model")
    images: list[str] = Field(default_factory=list, description="image files saved next to the trace")
    provenance: list[EvidenceUnit] = Field(default_factory=list, description="the evidence units the result exposed")
    error: str | None = None
    error_kind: str | None = None
    budget_left: int = 0
    executed: bool | None = Field(
        default=None, description="the tool ran (False: refused, a step but not a tool call); derived from error_kind if absent")

    counted: bool = Field(
        default=True, description="the call used a step of the budget (False: asked for after the budget ran out; not run)")

    @model_validator(mode="after")
    def _derive_executed(self) -> "ToolCallEvent":
        if self.executed is None:
            self.executed = self.error_kind != "refused"
        return self

    @property
    def exposed(self) -> list[EvidenceUnit]:
        """The units this call put in front of the agent: its provenance, unless it was refused or failed."""
        return list(self.provenance) if self.executed and self.error is None else []


class NoToolStep(_Event):
    """A model step that called no tool and gave no final answer: a plan, an empty or unparseable reply,
    code that called no tool or raised. With the tool_call unit it does not use the budget but is capped."""

    kind: Literal["no_tool_step"] = "no_tool_step"
    reason: NoToolReason
    reply: str | None = Field(default=None, description="what the model wrote (cut to 2,000 characters)")
    feedback: str = Field(default="", description="what the model was told about this step in its next request")
    no_tool_steps: int = Field(default=0, description="steps without a tool call in this turn so far, this one included")
    cap: int = Field(default=0, description="how many such steps the turn allows")


class BudgetExhausted(_Event):
    kind: Literal["budget_exhausted"] = "budget_exhausted"
    budget: int
    unit: BudgetUnit = "tool_call"
    ran_out: Literal["budget", "no_tool_steps"] = Field(
        default="budget", description="the budget itself, or the cap on model steps without a tool call")
    tool_calls: int = Field(default=0, description="tool calls of the turn that used the budget")
    model_steps: int = Field(default=0, description="model steps of the turn")
    no_tool_steps: int = Field(default=0, description="model steps of the turn that called no tool")


class MemoryCompacted(_Event):
    """A summary memory mode replaced earlier turns by a digest: what the model can still see, and what not."""

    kind: Literal["memory_compacted"] = "memory_compacted"
    mode: Literal["summary"] = "summary"
    turns: list[int] = Field(default_factory=list, description="the turns the digest replaced")
    kept: list[EvidenceUnit] = Field(default_factory=list, description="units whose tool result is still shown in full")
    dropped: list[EvidenceUnit] = Field(
        default_factory=list, description="units whose tool result was cut or whose image was removed: no longer in memory")
    images_dropped: int = 0
    results_cut: int = Field(default=0, description="tool results shortened in the digest")
    note: str = Field(default="", description="what the model was told about the compaction")


AgentCheckKind = Literal[
    "model_call_in_step", "model_calls_in_turn", "fallback_tools_offered", "tool_call_in_fallback",
    "tool_outside_session", "world_outside_session",
]
AGENT_CHECKS: tuple[str, ...] = (
    "model_call_in_step", "model_calls_in_turn", "fallback_tools_offered", "tool_call_in_fallback",
    "tool_outside_session", "world_outside_session",
)


class AgentCheck(_Event):
    """Something an agent did against the protocol, seen from outside it (the tool session checks what the agent
    reports and what it asks for). `outcome`: refused (not run), charged (counted against the turn's budget as
    the step it is) or flagged (it had happened already; the episode is marked and the run counts it)."""

    kind: Literal["agent_check"] = "agent_check"
    check: AgentCheckKind
    outcome: Literal["refused", "charged", "flagged"]
    detail: str = ""


class LimitHit(_Event):
    kind: Literal["limit_hit"] = "limit_hit"
    limit: Literal["tokens", "wall_time"]
    value: float
    cap: float


class FinalAnswerEvent(_Event):
    kind: Literal["final_answer"] = "final_answer"
    answer: str | None
    source: AnswerSource = "agent"
    reasoning: str | None = None


class ErrorEvent(_Event):
    kind: Literal["error"] = "error"
    bucket: ReasonBucket
    message: str
    detail: str | None = None


class EpisodeEnd(_Event):
    kind: Literal["episode_end"] = "episode_end"
    status: Literal["completed", "failed"] = "completed"
    bucket: ReasonBucket | None = None
    model_calls: int = 0
    tool_calls: int = 0
    usage: TokenUsage = Field(default_factory=TokenUsage)
    agent_checks: int = Field(default=0, description="v6: agent_check events of the episode (the agent broke the protocol)")


TraceEvent = Union[
    RunStart, EpisodeStart, TurnStart, ModelCall, Retry, ToolCallEvent, NoToolStep, BudgetExhausted, LimitHit,
    MemoryCompacted, FinalAnswerEvent, ErrorEvent, EpisodeEnd, AgentCheck,
]
Event = Annotated[TraceEvent, Field(discriminator="kind")]
EVENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(Event)


def _v1_to_v2(d: dict[str, Any]) -> dict[str, Any]:
    if d.get("kind") == "tool_call" and "executed" not in d:
        d["executed"] = d.get("error_kind") != "refused"
    return d


_V2_EMPTY_MESSAGE = "__empty_message__"  # v2's pseudo-tool for an empty model reply
_V2_RAW = "__raw__"  # v2's args key for arguments that were not a JSON object


def _v2_to_v3(d: dict[str, Any]) -> dict[str, Any]:
    if d.get("kind") != "tool_call":
        return d
    if d.get("tool") == _V2_EMPTY_MESSAGE:
        keep = {k: d[k] for k in ("schema_version", "run_id", "episode_id", "turn", "step", "ts", "duration_s") if k in d}
        return {**keep, "kind": "no_tool_step", "reason": "empty", "reply": None,
                "feedback": d.get("result_text") or d.get("error") or ""}
    args = d.get("args")
    if isinstance(args, dict) and set(args) == {_V2_RAW}:
        d["raw_arguments"] = str(args[_V2_RAW])
        d["args"] = {}
    return d


def _v3_to_v4(d: dict[str, Any]) -> dict[str, Any]:
    return d  # v4 only adds fields: an earlier model_call keeps its whole `request` and has call 0


# the message `tools.Tool.validate` gives arguments that fail the schema ("web_search: bad arguments (k: ...)")
_SCHEMA_ERROR = re.compile(r"^[\w\-]+: (?:bad arguments \(|arguments must be a JSON object)")


def _v4_to_v5(d: dict[str, Any]) -> dict[str, Any]:
    if (d.get("kind") == "tool_call" and d.get("error_kind") == "bad_arguments" and d.get("executed", True)
            and _SCHEMA_ERROR.match(str(d.get("error") or ""))):
        d["executed"] = False  # v4 ran the tool only to have it refuse the arguments: a refused call now
    return d


def _v5_to_v6(d: dict[str, Any]) -> dict[str, Any]:
    return d  # v6 only adds the agent_check kind


# version -> the step that lifts a line of that version to the next one
UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4, 4: _v4_to_v5, 5: _v5_to_v6}


def upgrade_event(d: dict[str, Any]) -> dict[str, Any]:
    """Lift one decoded trace line to SCHEMA_VERSION (raises TraceVersionError for a newer one)."""
    version = d.get("schema_version", 1)
    if not isinstance(version, int) or version < 1:
        raise ValueError(f"schema_version must be a positive integer, got {version!r}")
    if version > SCHEMA_VERSION:
        raise TraceVersionError(f"trace schema version {version} is newer than this epiharness reads ({SCHEMA_VERSION}); upgrade it")
    while version < SCHEMA_VERSION:
        d = UPGRADES[version](d)
        version += 1
    d["schema_version"] = SCHEMA_VERSION
    return d


def parse_event(line: str | bytes) -> TraceEvent:
    """Parse one trace line of any known version into its typed event.

    Raises ValueError (json), pydantic.ValidationError (a bad event) or TraceVersionError (too new).
    """
    d = json.loads(line)
    if not isinstance(d, dict):
        raise ValueError(f"a trace line must be a JSON object, got {type(d).__name__}")
    return EVENT_ADAPTER.validate_python(upgrade_event(d))
