"""Episode schema: the public contract for benchmark files (JSONL, one episode per line).

Field names here are stable: users write episodes by hand. See episodes/README.md.
A report episode adds `report` (a `ReportTurn`, run after the answer turns as the episode's last turn):
the research question, an optional persona, the gold claim set and the unit facts that verify claims
(`harness/reports/` scores it).
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tools import EvidenceUnit, Unit

from .terminal_text import has_control

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


ClaimKind = Literal["value", "compare", "rank"]
Relation = Literal["=", ">", "<", "max", "min"]
CITATION_SYNTAX = "[P0123, Figure 2], [P0123, Table 1], [P0123] (its text); several: [P0123, Table 1; P0456, Figure 2]"


class Claim(_Strict):
    """One atomic claim about named methods, with the units it cites: a gold claim, or one read from a report.

    `value`: subject's quantity is `value`. `compare`: subject's value is greater (`>`) or smaller (`<`) than
    object's, raw values (a lower FID is `<`), `value` the stated difference if any. `rank`: subject has the
    highest (`max`) or lowest (`min`) value of what its source compares. A figure claim names its setting
    (`x_label`, `x`) for line charts; a bar chart's bars are datasets."""

    kind: ClaimKind
    subject: str = Field(min_length=1, description="a method, as its paper names it")
    object: str | None = Field(default=None, description="compare: the other method")
    relation: Relation = "="
    quantity: str | None = Field(default=None, description='metric or table column, e.g. "FID", "Params (M)"')
    dataset: str | None = None
    x_label: str | None = Field(default=None, description="figures: the swept quantity, e.g. \"pretraining epochs\"")
    x: float | None = Field(default=None, description="figures: the setting on x_label")
    value: float | None = Field(default=None, description="value claims: the value; compare: the stated difference")
    unit: str | None = Field(default=None, description='"%" for percentages')
    tolerance: float | None = Field(default=None, description="absolute; gold claims carry the unit's reading tolerance")
    cites: list[EvidenceRef] = Field(default_factory=list)
    sentence: str | None = Field(default=None, description="the report sentence a claim was read from")

    @model_validator(mode="after")
    def _shape(self) -> "Claim":
        if self.kind == "value" and (self.relation != "=" or self.value is None):
            raise ValueError("a value claim has relation '=' and a value")
        if self.kind == "compare" and (self.relation not in (">", "<") or not self.object):
            raise ValueError("a compare claim has relation '>' or '<' and an object")
        if self.kind == "rank" and self.relation not in ("max", "min"):
            raise ValueError("a rank claim has relation 'max' or 'min'")
        if self.tolerance is not None and self.tolerance < 0:
            raise ValueError("tolerance must be >= 0")
        return self


class SeriesFacts(_Strict):
    """A plotted series (figures) as the ground truth has it: its label, the method it stands for, its points."""

    label: str
    method: str | None = Field(default=None, description='the method a label such as "Ours" stands for')
    x: list[float | str] = Field(description="line charts: settings; bar charts: the bars (datasets)")
    y: list[float]

    @model_validator(mode="after")
    def _same_length(self) -> "SeriesFacts":
        if len(self.x) != len(self.y):
            raise ValueError(f"series {self.label!r} has {len(self.x)} x values and {len(self.y)} y values")
        return self


class UnitFacts(_Strict):
    """What one evidence unit states, so that a claim citing it can be checked without the PDF."""

    paper: str
    unit: Unit = Field(description='"figure:N" | "table:N"')
    kind: Literal["line", "bar", "table"]
    metric: str | None = Field(default=None, description="figures and result tables: the metric (y axis)")
    higher_is_better: bool = True
    dataset: str | None = Field(default=None, description="line charts: the dataset plotted")
    x_label: str | None = None
    tolerance: float = Field(ge=0, description="reading tolerance of a value: a share of the y axis; 0.005 for tables")
    series: list[SeriesFacts] = Field(default_factory=list, description="figures")
    columns: list[str] = Field(default_factory=list, description="tables: the header; the first names the rows")
    rows: list[list[str]] = Field(default_factory=list, description="tables: cells as printed")
    lower_is_better: list[str] = Field(default_factory=list, description="tables: columns where lower is better "
                                                                         "(Params, GFLOPs)")


class PaperFacts(_Strict):
    """A paper's facts a persona constraint or a name needs: its method, venue and year."""

    paper: str
    method: str
    venue: str | None = None
    year: int | None = None
    title: str | None = None


class PersonaConstraint(_Strict):
    """A constraint the corpus can check: an efficiency column bound, a dataset, or a publication year."""

    text: str = Field(min_length=1, description="as the reader states it")
    field: str = Field(min_length=1, description='"dataset", "year", or a table column such as "Params (M)"')
    op: Literal["<=", ">=", "=="]
    value: float | str


class Persona(_Strict):
    """Who the report is for (PDR-style): role, expertise, what they care about, constraints, context."""

    role: str = Field(min_length=1)
    expertise: str = Field(min_length=1)
    cares_about: list[str] = Field(min_length=1)
    constraints: list[PersonaConstraint] = Field(default_factory=list)
    context: str = Field(min_length=1)


class ReportTurn(_Strict):
    """The last turn of a report episode: a cited markdown report on a research question.

    Tools stay available with the turn's own budget. Never shown to agents: `gold`, `facts`, `papers`,
    `checklist`, `evidence`, `note`."""

    question: str = Field(min_length=1)
    persona: Persona | None = None
    max_words: int = Field(default=1500, ge=50)
    budget: int = Field(default=10, ge=1, description="the report turn's own step budget")
    gold: list[Claim] = Field(min_length=1, description="the claims a complete, faithful report states")
    facts: list[UnitFacts] = Field(default_factory=list, description="every unit a claim may cite, as data")
    papers: list[PaperFacts] = Field(default_factory=list, description="the papers of the facts (method, venue, year)")
    evidence: list[EvidenceRef] = Field(default_factory=list, description="units the gold claims cite")
    checklist: list[ChecklistStep] = Field(default_factory=list, description="calls opening cited units no earlier "
                                                                            "turn opened")
    note: str | None = None

    @model_validator(mode="after")
    def _gold_cites_facts(self) -> "ReportTurn":
        have = {(f.paper, f.unit) for f in self.facts} | {(p.paper, "text") for p in self.papers}
        for i, c in enumerate(self.gold):
            if c.tolerance is None:
                raise ValueError(f"gold[{i}] needs a tolerance")
            if not c.cites:
                raise ValueError(f"gold[{i}] cites nothing")
            for u in c.cites:
                if u.key not in have:
                    raise ValueError(f"gold[{i}] cites {u.paper} {u.unit}, which has no entry in facts")
        return self


class Episode(_Strict):
    id: str = Field(min_length=1)
    split: Split
    task_type: TaskType
    initiation: Initiation
    area: str
    turns: list[Turn] = Field(min_length=1)
    source: str | None = Field(default=None, description="how this episode was made (generator version, author)")

    @field_validator("id")
    @classmethod
    def _plain_id(cls, v: str) -> str:
        if has_control(v):
            raise ValueError("an episode id is a name: no control characters or bidi marks (it is printed and "
                             "becomes a file name)")
        return v

    @field_validator("turns")
    @classmethod
    def _turn_count(cls, v: list[Turn]) -> list[Turn]:
        if len(v) == 0:
            raise ValueError("an episode needs at least one turn")
        return v

    report: ReportTurn | None = Field(default=None, description="a report turn, run after `turns` as the last turn")

    @property
    def n_turns(self) -> int:
        """Turns the agent runs: the answer turns and, for a report episode, the report turn after them."""
        return len(self.turns) + (1 if self.report is not None else 0)

    @property
    def requires_reuse(self) -> bool:
        return self.turns[-1].memory_only

    @property
    def checklist_length(self) -> int:
        """c*: the minimal tool calls of the episode, a report turn's included."""
        return sum(len(t.checklist) for t in self.turns) + (len(self.report.checklist) if self.report else 0)

    @property
    def papers(self) -> list[str]:
        seen: list[str] = []
        for t in self.turns:
            for e in t.evidence:
                if e.paper not in seen:
                    seen.append(e.paper)
        return seen
