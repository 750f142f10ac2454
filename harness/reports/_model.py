"""Report scores as typed records: one `ReportScore` per report episode (episode_scores.jsonl, under `report`)
and one `ReportSummary` per run and split (scores.json, under `report`), apart from ESR and the accuracies."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from harness.episode import Claim
from harness.scoring.interval import Interval

from ._judged_model import JudgedReport, JudgedReportSummary

Label = Literal["right", "wrong", "unknown"]


class ClaimVerdict(BaseModel):
    """What scoring found about one claim of a report."""

    claim: Claim
    label: Label = Field(description="MiroEval-style: right (some unit of the episode's facts supports it), wrong "
                                     "(units resolve it and none supports it), unknown (no unit speaks to it)")
    cited: bool = False
    paper_supported: bool = Field(default=False, description="a cited paper supports it (PDR's factual accuracy)")
    unit_supported: bool = Field(default=False, description="a cited unit supports it (TRACE's citation fidelity)")
    opened_supported: bool = Field(default=False, description="a cited unit the agent opened supports it")
    cites_figure: bool = False
    figure_supported: bool = Field(default=False, description="a cited figure's plotted data supports it (MOSAIC)")
    gold: int | None = Field(default=None, description="index of the gold claim it covers (greedy one-to-one)")
    violates: str | None = Field(default=None, description="the persona constraint it violates")
    extracted_by: str = Field(default="rules", description="'rules', or the judge that read it from a sentence the "
                                                           "rules could not parse (its truth is still checked by rules)")


class ReportScore(BaseModel):
    """The report metrics of one report turn, as counts (rates come from them) and what was wrong."""

    turn: int
    ran: bool = False
    words: int = 0
    max_words: int = 1500
    problems: list[str] = Field(default_factory=list, description="why the report lost points: empty, over-long, "
                                                                  "malformed or unknown citations, ...")
    claims: int = 0
    right: int = 0
    wrong: int = 0
    unknown: int = 0
    cited: int = 0
    paper_supported: int = 0
    unit_supported: int = 0
    opened_supported: int = 0
    citations: int = Field(default=0, description="distinct (claim, cited unit) pairs")
    citations_opened: int = Field(default=0, description="of those, units the agent opened in the episode")
    unread: list[str] = Field(default_factory=list, description="cited units the trace shows were never opened")
    figure_claims: int = 0
    figure_supported: int = 0
    gold: int = 0
    gold_covered: int = 0
    recommendations: int = 0
    persona_checked: bool = False
    persona_violations: int = 0
    details: list[ClaimVerdict] = Field(default_factory=list)
    extraction: str = Field(default="rules", description="who read the claims: 'rules', or 'rules + judge:<model> "
                                                         "(<prompt version>)'")
    judged: JudgedReport | None = Field(default=None, description="what a report judge added (issue 32)")


class ReportMetric(BaseModel):
    """One report metric over a group of reports: pooled ratio in %, its counts and its 95% interval."""

    value: float | None = None
    num: int = 0
    den: int = 0
    interval: Interval | None = None


class ReportSummary(BaseModel):
    """The report table of a run (or split): every metric pooled over its reports, with a bootstrap interval
    over episodes. Source names: right ratio (MiroEval), FA and CC (Personalized Deep Research), FID and
    MOSAIC's chart accuracy (MMDeepResearch-Bench), claim precision and recall (LiveDRBench)."""

    reports: int = 0
    answered: int = Field(default=0, description="report turns with a non-empty report")
    over_limit: int = 0
    claim_correctness: ReportMetric = Field(default_factory=ReportMetric)
    factual_accuracy: ReportMetric = Field(default_factory=ReportMetric)
    citation_fidelity: ReportMetric = Field(default_factory=ReportMetric)
    citation_coverage: ReportMetric = Field(default_factory=ReportMetric)
    trace_verified_citations: ReportMetric = Field(default_factory=ReportMetric)
    trace_verified_fidelity: ReportMetric = Field(default_factory=ReportMetric)
    visual_integrity: ReportMetric = Field(default_factory=ReportMetric)
    coverage_precision: ReportMetric = Field(default_factory=ReportMetric)
    coverage_recall: ReportMetric = Field(default_factory=ReportMetric)
    coverage_f1: float | None = None
    persona_violation_rate: ReportMetric = Field(default_factory=ReportMetric)
    persona_violations: int = 0
    unread_citations: int = 0
    claims: int = 0
    problems: dict[str, int] = Field(default_factory=dict, description="reports per kind of problem")
    extraction: str = "rules"
    judged: JudgedReportSummary | None = Field(default=None, description="judged numbers with their judge and its "
                                                                         "calibration (issue 32)")
