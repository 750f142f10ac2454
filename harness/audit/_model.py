"""What an audit reports: one CheckResult per validity figure, each with its threshold and findings."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Status = Literal["pass", "fail", "report", "not checked"]


class Finding(BaseModel):
    """One offending item: where it is (episode, 1-based turn) and what is wrong."""

    episode: str
    turn: int | None = None
    message: str


class Breakdown(BaseModel):
    """A sub-count shown under a check, e.g. the cue-paste rate of turn 1 alone."""

    label: str
    count: int
    total: int


class CheckResult(BaseModel):
    """One validity figure of a benchmark and whether it keeps its threshold.

    `count` of `total` items are bad; `value` is what the threshold is compared with (a percentage, a count
    or a number of points); `status` is "report" for figures without a threshold and "not checked" when no
    item could be judged (e.g. no episode carries the annotation the check needs).
    """

    id: str = Field(description="stable name, e.g. 'figure_values_in_text'")
    title: str
    count: int = 0
    total: int = 0
    value: float | None = None
    shown: str = Field(description="the figure as printed, e.g. '86/156 (55.1%)'")
    threshold: str | None = Field(default=None, description="e.g. '<= 2%'; None for figures only reported")
    status: Status
    not_checked: int = Field(default=0, description="items skipped because they lack what the check needs")
    not_checked_why: str | None = None
    breakdown: list[Breakdown] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    note: str | None = None
    advisory: bool = Field(default=False, description="a broken threshold reported without failing the audit "
                           "(--learned-advisory: the learned adversaries, until the default benchmark passes them)")


class AuditReport(BaseModel):
    """The audit of one episode file over one corpus (`epi episodes audit --json` prints this)."""

    file: str
    sha256: str
    episodes: int
    turns: int
    corpus: str = Field(description="where the papers came from, e.g. the sandbox folder")
    papers: int = Field(description="papers in the corpus")
    checks: list[CheckResult]
    learned_from: str | None = Field(default=None, description="what the learned adversaries learned from, or why they could not")

    @property
    def passed(self) -> bool:
        return not any(c.status == "fail" and not c.advisory for c in self.checks)

    def check(self, check_id: str) -> CheckResult:
        for c in self.checks:
            if c.id == check_id:
                return c
        raise KeyError(check_id)


def pct(count: int, total: int) -> float:
    return 100.0 * count / total if total else 0.0


def rate_shown(count: int, total: int) -> str:
    return f"{count}/{total} ({pct(count, total):.1f}%)" if total else "0/0"
