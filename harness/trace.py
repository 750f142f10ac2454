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
"""
from __future__ import annotations

import json
import time
from typing import Annotated, Any, Callable, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter, model_validator

from tools import EvidenceUnit

SCHEMA_VERSION = 2

ReasonBucket = Literal["provider", "data_access", "pipeline", "model"]
AnswerSource = Literal["agent", "budget_fallback", "limit_fallback", "none"]


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
    cue_image: str | None = None
    allowed_tools: list[str]
    budget: int
    memory_only: bool = False


class ModelCall(_Event):
    kind: Literal["model_call"] = "model_call"
    model: str = ""
    tools_offered: list[str] = Field(default_factory=list)
    request: dict[str, Any] | None = Field(default=None, description="the full request, or None if stored by hash")
    request_sha256: str | None = None
    response: dict[str, Any] | None = None
    usage: TokenUsage = Field(default_factory=TokenUsage)
    latency_s: float = 0.0
    purpose: Literal["step", "budget_fallback", "limit_fallback", "judge", "summary"] = "step"


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

    @model_validator(mode="after")
    def _derive_executed(self) -> "ToolCallEvent":
        if self.executed is None:
            self.executed = self.error_kind != "refused"
        return self

    @property
    def exposed(self) -> list[EvidenceUnit]:
        """The units this call put in front of the agent: its provenance, unless it was refused or failed."""
        return list(self.provenance) if self.executed and self.error is None else []


class BudgetExhausted(_Event):
    kind: Literal["budget_exhausted"] = "budget_exhausted"
    budget: int


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


TraceEvent = Union[
    RunStart, EpisodeStart, TurnStart, ModelCall, Retry, ToolCallEvent, BudgetExhausted, LimitHit,
    FinalAnswerEvent, ErrorEvent, EpisodeEnd,
]
Event = Annotated[TraceEvent, Field(discriminator="kind")]
EVENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(Event)


def _v1_to_v2(d: dict[str, Any]) -> dict[str, Any]:
    if d.get("kind") == "tool_call" and "executed" not in d:
        d["executed"] = d.get("error_kind") != "refused"
    return d


# version -> the step that lifts a line of that version to the next one
UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2}


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
