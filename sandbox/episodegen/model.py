"""What the episode generator writes: one JSON object per episode in the public episode format.

The sandbox room may not import the harness, so these models mirror the field names of
`harness.episode.Episode` (the public contract); tests load every generated line with that schema.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

AnswerFormat = Literal["choice", "number", "text", "set"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DraftAnswer(_Strict):
    format: AnswerFormat
    value: str | float | int | list[str]
    tolerance: float | None = None
    unit: str | None = None
    aliases: list[str] = Field(default_factory=list)
    choices: dict[str, str] | None = None


class DraftRef(_Strict):
    paper: str
    unit: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.paper, self.unit)


class DraftStep(_Strict):
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class DraftCue(_Strict):
    text: str | None = None
    image: str | None = None


class CueFigure(_Strict):
    """The figure an image cue shows (kept out of the JSON; used to render the PNG)."""

    paper: str
    figure: int


class DraftRead(_Strict):
    """Mirrors harness.episode.ValueRead (the episode annotations of issue 13)."""

    paper: str
    unit: str
    turn: int | None = None
    series: str | None = None
    column: str | None = None
    dataset: str | None = None
    metric: str | None = None
    x: float | None = None
    x_label: str | None = None
    value: float | str | None = None


class DraftCondition(_Strict):
    text: str
    passes: list[str]


class DraftDerivation(_Strict):
    """Mirrors harness.episode.Derivation."""

    op: str
    candidates: list[str] = Field(default_factory=list)
    conditions: list[DraftCondition] = Field(default_factory=list)


class DraftTurn(_Strict):
    question: str
    cue: DraftCue | None = None
    answer: DraftAnswer
    evidence: list[DraftRef]
    memory_only: bool = False
    checklist: list[DraftStep] = Field(default_factory=list)
    note: str | None = None
    reads: list[DraftRead] | None = None  # None (not []) so that sandbox-v1's lines stay byte for byte
    derivation: DraftDerivation | None = None


class DraftEpisode(_Strict):
    id: str
    split: Literal["easy", "hard"]
    task_type: Literal["constraint", "comparison", "aggregation"]
    initiation: Literal["direct_title", "citation", "indirect_hint"]
    area: str
    turns: list[DraftTurn]
    source: str
    cue_figure: CueFigure | None = Field(default=None, exclude=True)

    def to_json_line(self) -> str:
        return self.model_dump_json(exclude_none=True)
