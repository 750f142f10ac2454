"""Episode schema: the public contract for benchmark files (JSONL, one episode per line).

Field names here are stable: users write episodes by hand. See episodes/README.md.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tools import EvidenceUnit, Unit

Split = Literal["easy", "hard"]
TaskType = Literal["constraint", "comparison", "aggregation"]
Initiation = Literal["direct_title", "citation", "indirect_hint"]
AnswerFormat = Literal["choice", "number", "text", "set"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Cue(_Strict):
    """The seed cue of a turn: a bibliographic hint and/or an image (path relative to the episode file)."""

    text: str | None = None
    image: str | None = Field(default=None, description="image file, relative to the episode file's folder")


class Answer(_Strict):
    """The gold answer and how to match it."""

    format: AnswerFormat
    value: str | float | int | list[str] = Field(description="choice letter, number, string, or list for sets")
    tolerance: float | None = Field(default=None, description="absolute tolerance for numbers")
    unit: str | None = Field(default=None, description="unit of a number, e.g. '%'")
    aliases: list[str] = Field(default_factory=list, description="other accepted strings (text) or item aliases")
    choices: dict[str, str] | None = Field(default=None, description="for choice answers: letter -> option text")

    @model_validator(mode="after")
    def _check_value(self) -> "Answer":
        v = self.value
        if self.format == "number":
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                try:
                    self.value = float(str(v))
                except ValueError:
                    raise ValueError(f"a number answer needs a numeric value, got {v!r}") from None
            if self.tolerance is not None and self.tolerance < 0:
                raise ValueError("tolerance must be >= 0")
        elif self.format == "set":
            if not isinstance(v, list) or not v:
                raise ValueError("a set answer needs a non-empty list value")
        elif self.format == "choice":
            if not isinstance(v, str) or not v.strip():
                raise ValueError("a choice answer needs a letter such as 'B'")
            if self.choices is not None and v not in self.choices:
                raise ValueError(f"choice {v!r} is not one of the options {sorted(self.choices)}")
        elif self.format == "text":
            if not isinstance(v, str) or not v.strip():
                raise ValueError("a text answer needs a non-empty string value")
        return self


# A required evidence unit: a paper id and `figure:N`, `table:N` or `text` (unknown keys are refused).
# It is the project's one evidence type; the name stays for the episode contract.
EvidenceRef = EvidenceUnit


class ChecklistStep(_Strict):
    """One tool call of the minimal solution path."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class ValueRead(_Strict):
    """A value the turn's answer depends on, where it was read, and under which setting.

    An annotation for audits and annotators (`epi episodes audit`), never shown to agents.
    """

    paper: str
    unit: Unit = Field(description='"figure:N" | "table:N" | "text"')
    turn: int | None = Field(default=None, description="on a final (or any later) turn: the 1-based earlier turn where "
                                                       "this value was read; None = read in this turn")
    series: str | None = Field(default=None, description="method / curve / bar series / table row label, exactly as printed")
    column: str | None = Field(default=None, description="table column label, exactly as printed (tables only)")
    dataset: str | None = Field(default=None, description="dataset the value is measured on")
    metric: str | None = Field(default=None, description='metric name, e.g. "accuracy (%)"')
    x: float | None = Field(default=None, description="figures: the x-axis setting the value is read at (None for bar charts)")
    x_label: str | None = Field(default=None, description='figures: the x-axis quantity, e.g. "training epochs"')
    value: float | str | None = Field(default=None, description="the true value (number) or label (text) read")


class Condition(_Strict):
    """One condition of a constraint question and the candidates that satisfy it."""

    text: str
    passes: list[str] = Field(description="candidate names (as in Derivation.candidates) that satisfy this condition")


class Derivation(_Strict):
    """How the gold answer follows from the reads (finals, and any computed turn). Never shown to agents."""

    op: str = Field(description='e.g. "difference", "ratio", "sum", "mean", "count", "argmax", "argmin", "filter"')
    candidates: list[str] = Field(default_factory=list, description="for constraint/choice questions: every candidate considered")
    conditions: list[Condition] = Field(default_factory=list, description="constraint questions: the answer = candidates "
                                                                          "passing ALL conditions (then `op` picks from them)")

    @model_validator(mode="after")
    def _passes_are_candidates(self) -> "Derivation":
        known = set(self.candidates)
        for ci, cond in enumerate(self.conditions):
            unknown = [p for p in cond.passes if p not in known]
            if unknown:
                raise ValueError(f"conditions[{ci}].passes names {', '.join(map(repr, unknown))}, "
                                 f"not among the candidates {self.candidates}")
        return self


class Turn(_Strict):
    question: str = Field(min_length=1)
    cue: Cue | None = None
    answer: Answer
    evidence: list[EvidenceRef] = Field(default_factory=list)
    memory_only: bool = False
    checklist: list[ChecklistStep] = Field(default_factory=list)
    note: str | None = Field(default=None, description="free text for annotators; never shown to agents")
    reads: list[ValueRead] = Field(default_factory=list, description="annotation: the values the answer depends on; never shown to agents")
    derivation: Derivation | None = Field(default=None, description="annotation: how the answer follows from the reads; never shown to agents")

    @model_validator(mode="after")
    def _memory_only_has_no_calls(self) -> "Turn":
        if self.memory_only and self.checklist:
            raise ValueError("a memory_only turn cannot have checklist tool calls")
        return self


class Episode(_Strict):
    id: str = Field(min_length=1)
    split: Split
    task_type: TaskType
    initiation: Initiation
    area: str
    turns: list[Turn] = Field(min_length=1)
    source: str | None = Field(default=None, description="how this episode was made (generator version, author)")

    @field_validator("turns")
    @classmethod
    def _turn_count(cls, v: list[Turn]) -> list[Turn]:
        if len(v) == 0:
            raise ValueError("an episode needs at least one turn")
        return v

    @property
    def requires_reuse(self) -> bool:
        return self.turns[-1].memory_only

    @property
    def checklist_length(self) -> int:
        return sum(len(t.checklist) for t in self.turns)

    @property
    def papers(self) -> list[str]:
        seen: list[str] = []
        for t in self.turns:
            for e in t.evidence:
                if e.paper not in seen:
                    seen.append(e.paper)
        return seen
