"""Judged report scores as typed records (issue 32): what an LLM judge added to a report's deterministic scores
(claims it extracted, FLAE quality, PDR personalization, claim support read from the cited source) and how far
that judge can be trusted (its support verdicts' agreement with the deterministic ones on the sandbox).

Every judged number names its judge and prompt version, and carries a `Calibration` or the words "not calibrated".
"""
from __future__ import annotations

from pydantic import BaseModel, Field

from harness.scoring.interval import Interval

NOT_CALIBRATED = "not calibrated"
FLAE_DIMENSIONS = ("read", "insh", "stru")  # readability, insightfulness, structural completeness (MMDR-Bench)
PDR_DIMENSIONS = ("goal_alignment", "content_alignment", "presentation_fit", "actionability")  # PDR-Bench P-Score


class SupportAgreement(BaseModel):
    """Judged support verdicts against the deterministic ones over (claim, cited unit) pairs the agent read.

    `both`: both say supported; `rules_only`: only the unit facts support it; `judge_only`: only the judge does;
    `neither`. Cohen's kappa with a 95% percentile bootstrap interval over episodes (pairs of one report are not
    independent)."""

    judge: str = ""
    prompt_version: str = ""
    n: int = 0
    episodes: int = 0
    both: int = 0
    rules_only: int = 0
    judge_only: int = 0
    neither: int = 0
    no_verdict: int = Field(default=0, description="pairs the judge gave no readable verdict (not counted)")
    agreement: float | None = None
    p_e: float | None = None
    kappa: float | None = None
    interval: Interval | None = Field(default=None, description="of kappa")
    by_unit: dict[str, "SupportAgreement"] = Field(default_factory=dict, description="table / figure / text")


class Calibration(BaseModel):
    """The agreement measured for one judge model and support prompt on a sandbox run (`epi agreement --on support`)."""

    judge: str
    prompt_version: str
    run_id: str
    measured_at: str
    n: int
    agreement: float | None = None
    kappa: float | None = None
    low: float | None = None
    high: float | None = None

    def label(self) -> str:
        if self.kappa is None:
            return f"support agreement undefined on sandbox run {self.run_id} ({self.n} pairs)"
        iv = f" [{self.low:.2f}, {self.high:.2f}]" if self.low is not None and self.high is not None else ""
        return f"support kappa {self.kappa:.2f}{iv} over {self.n} claim-source pairs of sandbox run {self.run_id}"


def calibration_label(c: Calibration | None) -> str:
    return c.label() if c is not None else NOT_CALIBRATED


class JudgedExtraction(BaseModel):
    """Claims the judge read from sentences the rules could not parse; their truth is still checked by rules."""

    judge: str
    prompt_version: str
    sentences: int = Field(default=0, description="sentences sent to the judge")
    claims: int = Field(default=0, description="claims added to the report's claims")
    refused: list[str] = Field(default_factory=list, description="judge claims refused and why (a number the sentence "
                                                                 "does not print, a method nobody named, a bad shape)")
    errors: int = Field(default=0, description="sentences without a readable reply after a retry")


class SupportJudgement(BaseModel):
    """The judge's verdict on one (claim, cited unit) pair, read against the text the agent saw of that unit."""

    claim: int = Field(description="index of the claim in the report's details")
    unit: str = Field(description="the cited unit, 'P0123 table:1'")
    judged: bool | None = Field(default=None, description="SUPPORTED / UNSUPPORTED; None: no verdict (see why)")
    rules: bool | None = Field(default=None, description="the unit facts' verdict (sandbox); None in the live world")
    kind: str = Field(default="text", description="table / figure / text")
    why: str | None = None


class FlaeScore(BaseModel):
    """FLAE (MMDeepResearch-Bench): per dimension s_d = alpha * formula + (1 - alpha) * judge, FLAE = 100 sum_d W_d s_d."""

    features: dict[str, float] = Field(default_factory=dict, description="phi(R): the text features")
    formula: dict[str, float] = Field(default_factory=dict, description="the formula channel per dimension, in [0, 1]")
    judged: dict[str, float] | None = Field(default=None, description="the judge channel per dimension, in [0, 1]")
    weights: dict[str, float] | None = Field(default=None, description="task-adaptive W_d from the judge, sum 1")
    alpha: float | None = Field(default=None, description="the fusion coefficient from the judge (the paper's default)")
    alpha_det: float = Field(description="the deterministic alpha of the paper's Eq. 8, for comparison")
    fused: dict[str, float] | None = None
    value: float | None = Field(default=None, description="0-100")
    error: str | None = None


class Criterion(BaseModel):
    text: str
    explanation: str = ""
    weight: float
    score: float | None = Field(default=None, description="0-10 from the scoring judge")
    analysis: str | None = None


class PersonaDimension(BaseModel):
    weight: float
    criteria: list[Criterion] = Field(default_factory=list)
    score: float | None = Field(default=None, description="sum of criterion weight x score, 0-10")


class PersonalizationScore(BaseModel):
    """PDR's P-Score: judge-set dimension weights, judge-written criteria per persona and task, judge scores 0-10."""

    dimensions: dict[str, PersonaDimension] = Field(default_factory=dict)
    value: float | None = Field(default=None, description="sum_d w_d S_d, 0-10")
    error: str | None = None


class JudgedReport(BaseModel):
    """What the judge added to one report (episode_scores.jsonl, report.judged)."""

    judge: str
    prompt_versions: dict[str, str] = Field(default_factory=dict)
    calibration: Calibration | None = None
    calibration_label: str = NOT_CALIBRATED
    extraction: JudgedExtraction | None = None
    flae: FlaeScore | None = None
    personalization: PersonalizationScore | None = None
    support: list[SupportJudgement] = Field(default_factory=list)
    cited: int = Field(default=0, description="cited claims")
    judged_supported: int = Field(default=0, description="cited claims the judge found supported by a source they "
                                                         "cite that the agent read (PDR's FA, judged)")


class JudgedMean(BaseModel):
    value: float | None = None
    n: int = 0
    interval: Interval | None = None


class JudgedReportSummary(BaseModel):
    """The judged report numbers of a run, each beside its judge and the judge's calibration."""

    judge: str
    prompt_versions: dict[str, str] = Field(default_factory=dict)
    calibration: Calibration | None = None
    calibration_label: str = NOT_CALIBRATED
    judged_claims: int = Field(default=0, description="claims the judge extracted (verified by rules)")
    flae: JudgedMean = Field(default_factory=JudgedMean)
    flae_dimensions: dict[str, float | None] = Field(default_factory=dict, description="mean fused score per dimension")
    personalization: JudgedMean = Field(default_factory=JudgedMean)
    personalization_dimensions: dict[str, float | None] = Field(default_factory=dict)
    judged_fa_num: int = 0
    judged_fa_den: int = 0
    judged_fa: float | None = Field(default=None, description="% of cited claims judged supported by a read source")
    support_agreement: SupportAgreement | None = Field(default=None, description="in this run (sandbox only)")
    errors: int = 0
