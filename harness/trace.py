"""Trace events: typed, tagged records, one JSON object per line in results/<run>/traces/<episode>.jsonl.

Every event carries the schema version, run and episode ids, turn and step (0 where not applicable),
a wall-clock timestamp and a duration. The trace is the source of truth for scoring, replay and reports.
"""
from __future__ import annotations

import time
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter

SCHEMA_VERSION = 1

ReasonBucket = Literal["provider", "data_access", "pipeline", "model"]
AnswerSource = Literal["agent", "budget_fallback", "limit_fallback", "none"]


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


class TokenUsage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens


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
    kind: Literal["tool_call"] = "tool_call"
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    reasoning: str | None = None
    result_summary: str = ""
    result_text: str | None = Field(default=None, description="full text shown to the model")
    images: list[str] = Field(default_factory=list, description="image files saved next to the trace")
    provenance: list[dict[str, Any]] = Field(default_factory=list)
    error: str | None = None
    error_kind: str | None = None
    budget_left: int = 0


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


Event = Annotated[
    Union[
        RunStart, EpisodeStart, TurnStart, ModelCall, Retry, ToolCallEvent, BudgetExhausted, LimitHit,
        FinalAnswerEvent, ErrorEvent, EpisodeEnd,
    ],
    Field(discriminator="kind"),
]
EVENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(Event)


def parse_event(line: str) -> Any:
    """Parse one trace line into its typed event (raises pydantic.ValidationError on bad lines)."""
    return EVENT_ADAPTER.validate_json(line)
