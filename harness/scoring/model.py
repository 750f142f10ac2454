"""Scoring results as typed records: what scores.json, episode_scores.jsonl, replay and the viewer read.

`RunScores` is written to results/<run>/scores.json (its per-split keys `esr`, `acc_final`, `acc_pre`,
`ec`, `mg`, `max_steps_rate` (episode-level since scorer 5), `budget_exhausted_rate`, `wrong_after_exhaustion_rate`,
`failures`, `episodes` and the cost totals are a public contract; `intervals`,
`epochs`, `reducer`, `uncertainty`, `pass_k` are additive); one `EpisodeScore` per episode and epoch goes to
episode_scores.jsonl. Percentages are 0-100; `mg` is a ratio; intervals are in the number's own unit.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from harness.trace import ReasonBucket
from sandbox.corpus.identity import CorpusIdentity
from tools import EvidenceUnit

from .behaviour import ModelBehaviour
from .interval import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval
from harness.reports._model import ReportScore, ReportSummary
from .process_model import ClaimScores, EpisodeProcess, JudgedProcessSummary, ProcessSummary

# The scorer's version: matcher rules, attribution rule and metric definitions together. Bump it when any
# of them changes a number; reports and score files name it, and `epi score RUN` re-scores an old run.
# 1: the first scorer (files without the field). 2: careful-grader matcher (hedges, identifiers, units),
# attribution at the first error, MG over executed calls, max-steps error rate as in the paper, EC credits
# memory on every turn, judge errors kept apart. 3: process metrics from the trace and claim-level scores of
# set answers added (issue 17; the numbers of version 2 are unchanged). 4: every epoch of a repeated run scored and
# reduced per episode (mean by default), 95% intervals of ESR, Acc_final, Acc_pre, EC, MG (issue 16; single-epoch
# numbers of version 3 unchanged). 5: issue 22: the matcher reads the whole span after the last answer marker clause by
# clause (negated answers wrong, reasons and comparisons naming other options are not hedges, next-line and text
# hedges caught, sets in sentences, fractions); grounding only from required evidence; redundancy and efficiency
# from what a call showed that was new; calls failing a tool's schema refused (not executed: MG, cost);
# `max_steps_rate` is episode-level (first error a max-step termination), the turn-level rate is
# `wrong_after_exhaustion_rate`; `failed_model_calls` counted apart from `model_calls`. 6: the report claim extractor
# reads more sentence patterns (issue 32; report metrics may move, every other number of version 5 is unchanged).
# 7: issue 27: `refused_calls` counts only well-formed calls the rules refused (before: every step that ran no tool),
# `behaviour` counts what the model did (steps without a tool call by kind, malformed calls, tool errors, retries,
# timeouts, failed requests, fallbacks); an answer that only repeats the instructions' placeholder is no answer; a
# paper a failed call located is not labelled "never reached".
# 8: errors are not failures (METRICS.md, failure accounting; issue 21): an episode whose first error is a provider,
# data-access or pipeline error with no wrong turn before it is `errored`, counted apart and left out of every number
# but the cost and the behaviour (ESR, the accuracies, EC, MG, max-steps, failure types, process, reports) unless scored with errors as
# failures (then every number is version 7's); per split `episodes` counts the episodes scored, `errored` the ones left out.
# 9: grounding reads "section 4.3" and other dotted reference numbers in observations as references, not values, and
# an earlier answer grounds a later one only if it was grounded itself (repeating a guess is no trace).
# 10: the report claim extractor reads more sentence patterns (ratios, "the better of the two", a second setting, "the
# top result", ties, "a 3.5-point deficit to"; "converges fastest" and "the lowest label rate" are no ranks): report
# metrics may move, every other number of version 9 is unchanged.
# 11: issue 29, intervals honest at any n: EC's interval is Wilson (or Clopper-Pearson) on evidence units at Kish's
# effective number (was a percentile bootstrap, zero width on a few episodes); a bootstrap interval (MG, paired
# differences) over episodes that all have the same value is marked `all_equal` ("all n equal"), not zero width;
# a paired row whose interval and exact test disagree says the test decides. Point estimates are version 10's.
# 12: issue 28: what the harness noticed an agent do against the protocol (`agent_check` trace events: a second model
# call in a step, more model calls than steps + 1 in a turn, a fallback claiming tools, a tool call in the fallback, a
# tool run or a world built outside the tool session) is counted per episode (`agent_checks`) and per run
# (`agent_checks`, `flagged_episodes`); the run names where its agent came from (`agent_origin`). A tool call asked for
# during the fallback request is now a refused `tool_call` event (before: none), so it counts in `refused_calls`;
# every other number of version 11 is unchanged.
# 13: issue 31: the report claim extractor reads more grammar (report metrics may move; every other number is 12's).
# 14: issue 22 (verified): a value or option a parenthesis labels with something else ("77.2 (NorloDet: 70.1)",
# "77.2 (70.1 for NorloDet)", "D (C: 70.1)") and a value a number rose or fell from ("77.2, up from 70.1") are remarks,
# not alternatives (were hedged); "77.2 (70.1)" and "77.2 (or NorloDet: 70.1)" stay hedged. No other number moves.
# 15: issue 22 (verified): a search repeating an earlier one of the episode up to the query's case, spacing and
# punctuation (same other arguments) is redundant even when the engine lists another paper in its tail; stored
# queries fold punctuation at the ends of words. The built-in agents' scores on sandbox-v3 do not move.
# 16: issue 22 (verified): after the committed answer a condition's consequent that reads as an answer offers another
# ("Final answer: 77.2\nIf the test split is meant, 84.7." is hedged, every format; "..., the full model reaches 79.1"
# is not); inside the answer what a condition names is not offered ("D (if we ignore C)" answers D). No other number
# moves.
# 17: issue 31 item 3: the report claim extractor derives names from the episode's own quantity and setting names
# (acronyms and their words, units in brackets and their spelled-out forms, head words, the setting a unit names) and
# reads more grammar (held-out 4's causes); a time or memory cost column of a table is a quantity. Only report
# metrics may move; every other number of version 16 is unchanged.
# 18: issue 31 item 3: the report claim extractor reads settings written as a phrase around their number, differences
# stated beside a value, group objects and the phrasing of model-written reports (markdown tables with their header,
# "Compared to B (v)", a change of value over a change of setting; held-out 5's causes); a sentence that cites only
# tables states its claims at no setting. Only report metrics may move; every other number of version 17 is unchanged.
# 19: issue 31 item 3: the report claim extractor reads held-out 6's causes as general grammar: settings named by a
# noun phrase, a verb or a second "at N"; rank words of other writers, and no rank over a fronted or qualified subset,
# for an ordinal place or a margin; quantities named by a verb ("forgets") or a fronted "X-wise"; "D v, D v" lists;
# comparisons with two objects, a plural pronoun or a passive; numbers that are no results (p-values, counts glued to a
# noun, "the top 1,000"); "followed by B" compares nothing (the held-out sets' convention). Only report metrics may move;
# every other number of version 18 is unchanged.
# 20: issue 31 item 3: the report claim extractor reads held-out 7's causes as general mechanisms: quantities named by
# their own head word in any inflection, a hyphen-qualified modifier or an abbreviation ("R-1"); a glued magnitude
# ("412K", "1.5M") in the magnitude its quantity counts ("Params (K)"); a cost's dataset only when stated on it; more
# rank words, second objects, elided wins, settings named like a test's level. Only report metrics may move; every
# other number of version 19 is unchanged.
SCORER_VERSION = "20"

FailureType = Literal["retrieve", "perception", "reading_memory", "reasoning", "others"]
FAILURE_TYPES: tuple[FailureType, ...] = ("retrieve", "perception", "reading_memory", "reasoning", "others")
FAILURE_NAMES = {"retrieve": "Retrieve", "perception": "Perception", "reading_memory": "Reading-Memory",
                 "reasoning": "Reasoning", "others": "Others"}  # as the paper names them (report, plots)
BUCKETS: tuple[ReasonBucket, ...] = ("provider", "data_access", "pipeline", "model")
BUCKET_WEIGHTS: dict[str, float] = {"provider": 0.8, "data_access": 0.9, "pipeline": 0.5, "model": 0.0}
EpisodeStatus = Literal["completed", "failed", "truncated", "missing"]
ORACLE_NOTE = "oracle: answers with gold labels, a self-test of the harness"
# Agents that see the gold episode (uses_gold) and how every report must describe them.
GOLD_NOTES: dict[str, str] = {
    "oracle": ORACLE_NOTE,
    "text-only": ("text-only adversary: navigates with the gold checklists, answers from tool text alone "
                  "(never an image); its figure-turn accuracy bounds what text alone buys"),
}
GOLD_TAGS: dict[str, str] = {"oracle": "oracle", "text-only": "gold checklist, text only"}


def gold_note(agent: str) -> str:
    """How a report describes a run of an agent that saw the gold episode."""
    return GOLD_NOTES.get(agent, f"{agent}: saw the gold episode (gold checklists or labels), not a candidate agent")


def gold_tag(agent: str) -> str:
    """The short tag a leaderboard row of a gold-using agent carries."""
    return GOLD_TAGS.get(agent, "uses gold")


class AnswerVerdict(BaseModel):
    """One labeller's binary verdict on one answer, with set-answer precision/recall/F1 when they apply."""

    correct: bool
    detail: str = Field(default="", description="one line: what was parsed and compared")
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    parseable: bool = Field(default=True, description="False when the answer is None or could not be parsed")
    hedged: bool = Field(default=False, description="True when the answer offers alternatives, a range or a list for one value")
    judge_error: bool = Field(default=False, description="the judge gave no readable verdict (after one retry); not a label")


class TurnScore(BaseModel):
    """One turn of one episode: the answer, its verdict, and the evidence it touched."""

    turn: int = Field(description="1-based turn index")
    ran: bool = Field(description="False if the trace stops before this turn (truncated) or is missing")
    question: str = ""
    answer: str | None = None
    answer_source: str = Field(default="none", description="agent, budget_fallback, limit_fallback or none")
    answer_step: int = Field(default=0, description="step index of the final_answer event (0 if none)")
    gold: str = Field(default="", description="the gold answer as shown to a reader")
    format: str = ""
    correct: bool = False
    verdict: AnswerVerdict = Field(default_factory=lambda: AnswerVerdict(correct=False, parseable=False))
    matcher_verdict: AnswerVerdict | None = Field(default=None, description="the matcher's verdict when a judge labelled the run")
    labelled_by: str = Field(default="matcher", description="who gave `correct`: 'matcher' or 'judge:<model>'")
    memory_only: bool = False
    required: list[EvidenceUnit] = Field(default_factory=list, description="E(i,t), the annotated required units")
    exposed: list[EvidenceUnit] = Field(default_factory=list, description="units this turn's executed tool calls exposed")
    accessed: list[EvidenceUnit] = Field(
        default_factory=list, description="A(i,t): units exposed this turn plus those already in the episode's memory")
    evidence_hit: int = Field(default=0, description="|E(i,t) ∩ A(i,t)|")
    tool_calls: int = Field(default=0, description="executed tool calls of this turn")
    refused_calls: int = Field(default=0, description="well-formed calls the rules refused: not offered, past the budget")
    tool_errors: int = 0
    budget_exhausted: bool = False
    checklist_length: int = 0


class FailureLabel(BaseModel):
    """The one error label of a failed episode, and where in the trace it fired (for replay/viewer)."""

    type: FailureType
    turn: int = Field(description="1-based turn where the first failure was found (0 if no turn ran)")
    step: int = Field(default=0, description="step index of the tool call or final answer where it fired")
    why: str = Field(description="one line a reader understands")


class CostTotals(BaseModel):
    """Tokens, calls and time (EpiBench Table 6), per episode or summed."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    model_calls: int = 0
    failed_model_calls: int = Field(default=0, description="requests the provider answered with an error (retried or "
                                                           "not); their bodies are in the trace, they are not model calls")
    tool_calls: int = 0
    wall_time_s: float = 0.0

    def plus(self, other: "CostTotals") -> "CostTotals":
        return CostTotals(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            model_calls=self.model_calls + other.model_calls,
            failed_model_calls=self.failed_model_calls + other.failed_model_calls,
            tool_calls=self.tool_calls + other.tool_calls,
            wall_time_s=self.wall_time_s + other.wall_time_s,
        )


class EpisodeScore(BaseModel):
    """Everything scoring concluded about one episode (one line of episode_scores.jsonl)."""

    episode_id: str
    epoch: int = Field(default=1, description="which repeat of the episode (1-based; 1 in single runs)")
    split: str
    task_type: str = ""
    initiation: str = ""
    n_turns: int
    turns_run: int = 0
    status: EpisodeStatus
    success: bool = Field(description="every turn correct")
    final_correct: bool = False
    turns: list[TurnScore] = Field(default_factory=list)
    tool_calls: int = Field(default=0, description="c_i: tool calls executed in the episode")
    refused_calls: int = Field(default=0, description="well-formed calls the rules refused (not offered, past the budget); "
                                                      "malformed calls and steps without a tool call are in `behaviour`")
    behaviour: ModelBehaviour = Field(default_factory=ModelBehaviour, description="what the model did (scorer 7 on)")
    checklist_length: int = Field(default=0, description="c*_i: length of the annotated minimal checklist")
    mg_ratio: float | None = Field(default=None, description="c_i / c*_i on a successful episode, else None")
    bucket: ReasonBucket | None = Field(
        default=None, description="reason bucket when the first wrong turn has no scorable answer (who left it unanswered)")
    failure: FailureLabel | None = None
    errored: bool = Field(
        default=False, description="the first error is a provider, data_access or pipeline error with no wrong turn before "
                                   "it: not a failure; left out of the scores unless errors count as failures (scorer 8 on)")
    cost: CostTotals = Field(default_factory=CostTotals)
    truncated: bool = False
    missing: bool = False
    bad_lines: list[int] = Field(default_factory=list)
    uses_gold: bool = False
    agent: str = ""
    labeller: str = "matcher"
    scorer_version: str = Field(default="1", description="the scorer that wrote this (SCORER_VERSION)")
    process: EpisodeProcess | None = Field(default=None, description="process metrics from the trace (scorer 3 on)")
    report: ReportScore | None = Field(default=None, description="report episodes: the report turn's metrics (issue 31)")
    agent_checks: dict[str, int] = Field(
        default_factory=dict, description="agent_check events of the trace by check (the agent broke the protocol; "
                                          "scorer 12 on): the episode is marked")


class FailureCounts(BaseModel):
    retrieve: int = 0
    perception: int = 0
    reading_memory: int = 0
    reasoning: int = 0
    others: int = 0

    def total(self) -> int:
        return self.retrieve + self.perception + self.reading_memory + self.reasoning + self.others


class MetricIntervals(BaseModel):
    """95% intervals of a split's headline numbers, in the numbers' own units (% or, for MG, a ratio).

    ESR, Acc_final, Acc_pre: Wilson (or Clopper-Pearson) over episodes, at the effective number of units
    where an episode contributes several (its turns, its epochs). EC: the same over evidence units. MG:
    percentile bootstrap over episodes with epochs resampled inside their episode, fixed seed (`all_equal`
    where every episode has the same value). None where the number is n/a."""

    esr: Interval | None = None
    acc_final: Interval | None = None
    acc_pre: Interval | None = None
    ec: Interval | None = None
    mg: Interval | None = None


class SplitScores(CostTotals):
    """The metrics of one split (easy, hard or all), like EpiBench Tables 2, 3 and 6. The cost totals count every
    episode run; every other number counts the episodes scored (errored ones left out, unless they count as failures)."""

    episodes: int = Field(default=0, description="episodes scored (errored ones are left out unless they count as failures)")
    errored: int = Field(default=0, description="errored episode traces (provider, data_access, pipeline error before any "
                                                "wrong turn): left out of the numbers, or counted as failed with "
                                                "errors_as_failures")
    esr: float | None = Field(default=None, description="episode success rate, %")
    acc_final: float | None = Field(default=None, description="final-turn accuracy, %")
    acc_pre: float | None = Field(default=None, description="accuracy over all non-final turns, %; None if there are none")
    ec: float | None = Field(default=None, description="evidence correctness, %; None if no correct turn needs evidence")
    mg: float | None = Field(default=None, description="minimality gap over successful episodes; None if none succeeded")
    max_steps_rate: float | None = Field(
        default=None, description="max-steps error rate (EpiBench Fig. 6b, scorer 5 on): % of episodes run whose first error "
                                  "is a turn whose step budget ran out and whose answer was wrong")
    budget_exhausted_rate: float | None = Field(default=None, description="budget-exhausted rate: % of turns run whose step budget ran out")
    wrong_after_exhaustion_rate: float | None = Field(
        default=None, description="wrong after exhaustion: % of turns run whose step budget ran out and whose answer was wrong "
                                  "(what max_steps_rate measured before scorer 5)")
    episodes_run: int = Field(default=0, description="episodes (each epoch) with at least one turn run: max_steps_rate's denominator")
    failures: FailureCounts = Field(default_factory=FailureCounts)
    successful_episodes: int = 0
    turns_run: int = 0
    refused_calls: int = Field(default=0, description="well-formed calls the rules refused: steps, not tool calls")
    behaviour: ModelBehaviour = Field(default_factory=ModelBehaviour, description="what the model did, summed (scorer 7 on)")
    process: ProcessSummary | None = Field(default=None, description="process metrics from the trace (scorer 3 on)")
    claims: ClaimScores | None = Field(default=None, description="claim-level precision/recall/F1 of set answers")
    intervals: MetricIntervals | None = Field(default=None, description="95% intervals of esr, acc_final, acc_pre, ec, mg")


class BucketCounts(BaseModel):
    """Episodes without a scorable answer by reason bucket, with the validity weights (MMDR-Bench A.5)."""

    provider: int = 0
    data_access: int = 0
    pipeline: int = 0
    model: int = 0
    weights: dict[str, float] = Field(default_factory=lambda: dict(BUCKET_WEIGHTS))

    def count(self, bucket: str) -> int:
        return int(getattr(self, bucket))

    def total(self) -> int:
        return self.provider + self.data_access + self.pipeline + self.model

    @property
    def weighted(self) -> float:
        """Sum of count x validity weight: how much of the failure mass is still a valid model signal."""
        return sum(self.count(b) * self.weights.get(b, 0.0) for b in BUCKETS)


class AblationSettings(BaseModel):
    """The run options that distinguish ablation runs (read from run.json)."""

    max_steps: int | None = None
    final_turn_tools: bool | None = None
    disable_tools: list[str] = Field(default_factory=list)
    images: bool = Field(default=True, description="False: a text-only run (--no-images), no image sent to the model")

    def label(self) -> str:
        parts = [f"steps={self.max_steps}" if self.max_steps is not None else "steps=?"]
        if not self.images:
            parts.append("text-only (--no-images)")
        if self.final_turn_tools is not None:
            parts.append("final-tools " + ("on" if self.final_turn_tools else "off"))
        if self.disable_tools:
            parts.append("without " + ",".join(sorted(self.disable_tools)))
        return ", ".join(parts)


class Uncertainty(BaseModel):
    """How the intervals in scores.json were made, so a reader can reproduce them."""

    confidence: float = 0.95
    proportions: str = Field(
        default="wilson", description="interval of ESR, Acc_final, Acc_pre: wilson or clopper-pearson, over episodes "
                                      "(effective number of units where an episode has several turns or epochs)")
    evidence: str = Field(default="bootstrap-percentile",
                          description="interval of EC: since scorer 11 `<proportions>-effective-units`, the proportions' "
                                      "method over evidence units (required units of correct turns) at Kish's effective "
                                      "number, an episode's units one cluster; files without the key (scorer 8 and "
                                      "before) used the bootstrap")
    means: str = Field(default="bootstrap-percentile", description="interval of MG: bootstrap over episodes, "
                                                                   "epochs resampled inside their episode; 'all n equal' "
                                                                   "where every episode has the same value")
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED


class PassAtK(BaseModel):
    """Episode success over repeated epochs, tau-bench style: pass@k (at least one of k) and pass^k (all k)."""

    k: int
    pass_at_k: Interval = Field(description="mean over episodes of 1 - C(n-c, k) / C(n, k), in %")
    pass_hat_k: Interval = Field(description="mean over episodes of C(c, k) / C(n, k), in %")


class RunScores(BaseModel):
    """scores.json: the public summary of one scored run."""

    run_id: str
    agent: str = ""
    agent_origin: str | None = Field(
        default=None, description="built-in, or in-process (trusted): the user's own code (a file, a module, an entry "
                                  "point) run inside the harness's process (run.json; runs made before have none)")
    agent_source: str | None = Field(default=None, description="where an in-process agent came from (file and sha256, "
                                                               "module or entry point)")
    model: str | None = None
    uses_gold: bool = False
    note: str | None = Field(default=None, description="the oracle note when uses_gold")
    labeller: str = Field(default="matcher", description="'matcher' or 'judge:<model>'")
    scorer_version: str = Field(default="1", description="the scorer that produced these numbers (SCORER_VERSION)")
    search_engine: str | None = Field(default=None, description="the search engine the run used (run.json), when the world named it")
    corpus: CorpusIdentity | None = Field(default=None, description="the corpus the run searched (run.json; runs made "
                                                                    "before it was recorded have none)")
    judge_errors: int = Field(default=0, description="turns the judge could not label (scored by the matcher instead)")
    easy: SplitScores = Field(default_factory=SplitScores)
    hard: SplitScores = Field(default_factory=SplitScores)
    all: SplitScores = Field(default_factory=SplitScores)
    buckets: BucketCounts = Field(default_factory=BucketCounts)
    errors_as_failures: bool = Field(
        default=False, description="errored episodes counted as failed (the paper's convention; `epi score "
                                   "--score-errors-as-failures`) instead of left out of the scores")
    errored_episodes: list[str] = Field(
        default_factory=list, description="episodes whose first error was a provider, data_access or pipeline error "
                                          "(`epi retry RUN` runs them again)")
    truncated_episodes: list[str] = Field(default_factory=list)
    missing_episodes: list[str] = Field(default_factory=list)
    damaged_traces: dict[str, list[int]] = Field(
        default_factory=dict, description="episode id -> line numbers of trace lines that could not be read (skipped)")
    unknown_traces: list[str] = Field(default_factory=list, description="trace files of episodes not in the episode file (not scored)")
    agent_checks: dict[str, int] = Field(
        default_factory=dict, description="agent_check events of every trace by check: what the harness noticed the agent "
                                          "do against the protocol (refused, charged to the budget or flagged)")
    flagged_episodes: list[str] = Field(default_factory=list, description="episodes with an agent_check event")
    episodes_path: str | None = None
    episodes_sha256: str | None = None
    episodes_mismatch: bool = Field(default=False, description="episode file hash differs from run.json (scored with --allow-mismatch)")
    ablation: AblationSettings = Field(default_factory=AblationSettings)
    judged_process: JudgedProcessSummary | None = Field(
        default=None, description="judged process quality (MiroEval dimensions), when scored with a process judge")
    scored_at: str = Field(description="ISO-8601 UTC time of scoring")
    epochs: int = Field(default=1, description="repeats of each episode scored (each its own trace)")
    reducer: str = Field(default="mean", description="how an episode's epochs reduce for ESR, Acc_final, Acc_pre: "
                                                      "mean, majority, pass@k or pass^k")
    uncertainty: Uncertainty = Field(default_factory=Uncertainty, description="how the 95% intervals were made")
    pass_k: list[PassAtK] = Field(default_factory=list, description="pass@k and pass^k of episode success, k = 1..epochs "
                                                                   "(runs with more than one epoch)")
    report: ReportSummary | None = Field(default=None, description="report episodes: the report metrics, apart from ESR "
                                                                  "and the accuracies (harness/reports)")

    def split(self, name: str) -> SplitScores:
        return {"easy": self.easy, "hard": self.hard, "all": self.all}[name]
