"""Process and claim-level records: how an agent searched, read and reused (issue 17), as typed data.

`EpisodeProcess` goes on each line of episode_scores.jsonl (`EpisodeScore.process`), `ProcessSummary`
and `ClaimScores` on each split of scores.json. Every number here comes from the trace and the episode
file only (harness/README.md, "Process from the trace", defines each with an example). Ratios are 0-1.
Pydantic only, so the viewer and replay import it as cheaply as `model.py`.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

GroundingSource = Literal["observation", "earlier_answers", "figure", "figure_other", "none"]
UNGROUNDED: tuple[GroundingSource, ...] = ("figure_other", "none")


class Reformulation(BaseModel):
    """A web_search of a turn whose query differs from every earlier query of that turn."""

    step: int
    query: str
    previous_query: str = Field(description="the query of the turn's search just before this one")
    rank_before: int | None = Field(default=None, description="best rank of a target paper in the previous results (None: absent)")
    rank_after: int | None = Field(default=None, description="best rank of a target paper in these results (None: absent)")
    moved_up: bool | None = Field(
        default=None, description="a target paper ranks better than before (or appears); None when the turn names no paper")


class GroundingCheck(BaseModel):
    """Whether one answer's value can be traced in the trace (a hallucination signal)."""

    value: str = Field(description="the value checked, as read from the answer")
    source: GroundingSource
    where: str = Field(default="", description="where it was found: 'turn 1 step 2 table_extract', 'turn 1 - turn 3', ...")
    items_found: int | None = Field(default=None, description="set answers: items found in some observation")
    items: int | None = Field(default=None, description="set answers: items read from the answer")

    @property
    def grounded(self) -> bool:
        """Traced to something; `figure_other` (only a figure the turn does not require was open) is not."""
        return self.source not in UNGROUNDED


class TurnProcess(BaseModel):
    """The process metrics of one turn."""

    turn: int
    memory_only: bool = False
    queries: list[str] = Field(default_factory=list, description="distinct web_search queries (normalised), first-seen order")
    papers_surfaced: list[str] = Field(default_factory=list, description="paper ids in this turn's search results")
    papers_opened: list[str] = Field(default_factory=list, description="papers with a unit exposed by this turn's calls")
    units_read: list[str] = Field(default_factory=list, description="distinct units exposed by this turn's calls")
    float_reads: int = Field(default=0, description="calls that exposed a figure or table")
    text_reads: int = Field(default=0, description="calls that exposed text only")
    reformulations: list[Reformulation] = Field(default_factory=list)
    executed_calls: int = 0
    repeated_calls: list[int] = Field(default_factory=list, description="steps repeating an earlier error-free call (same tool, same args)")
    reread_units: int = Field(default=0, description="exposures of a (paper, unit, page) the episode had already exposed")
    redundant_calls: list[int] = Field(
        default_factory=list, description="steps that showed nothing new: a read of nothing unseen, a search with no new paper "
                                          "and no required paper moved up, or a repeat of another call")
    useful_calls: list[int] = Field(
        default_factory=list, description="steps not redundant and touching required evidence or a required paper, or on the checklist")
    efficiency: float | None = Field(default=None, description="useful / executed calls; None without calls")
    reuse_hit: int = Field(default=0, description="memory-only turns: required units already in memory")
    reuse_need: int = Field(default=0, description="memory-only turns: required units")
    reuse: float | None = Field(default=None, description="memory-only turns: reuse_hit / reuse_need")
    grounding: GroundingCheck | None = Field(default=None, description="None: no answer, a hedge, or a choice answer")


class JudgedProcess(BaseModel):
    """The MiroEval process dimensions (1-10) an LLM judge gave one episode from a rendering of its trace."""

    judge: str = Field(description="judge:<model>")
    scores: dict[str, float] = Field(default_factory=dict, description="dimension -> score 1-10")
    error: str | None = Field(default=None, description="no readable scores after a retry (not cached, not a score)")


class EpisodeProcess(BaseModel):
    """The process metrics of one episode: breadth, depth, refinement, redundancy, reuse, efficiency, grounding."""

    distinct_queries: int = 0
    papers_surfaced: int = 0
    papers_opened: int = 0
    units_read: int = 0
    units_per_paper: float | None = Field(default=None, description="units read / papers opened")
    float_reads: int = 0
    text_reads: int = 0
    reformulations: int = 0
    moved_up: int = Field(default=0, description="reformulations that moved a target paper up")
    executed_calls: int = 0
    repeated_calls: int = 0
    reread_units: int = 0
    redundant_calls: int = 0
    redundancy: float | None = Field(default=None, description="redundant / executed calls; None without calls")
    reuse_hit: int = 0
    reuse_need: int = 0
    reuse: float | None = Field(default=None, description="over memory-only turns: required units in memory / required units")
    useful_calls: int = 0
    efficiency: float | None = Field(default=None, description="useful / executed calls; None without calls")
    grounded: int = 0
    gradable: int = Field(default=0, description="answers whose grounding was checked")
    grounding: float | None = Field(default=None, description="grounded / gradable answers")
    ungrounded_turns: list[int] = Field(default_factory=list, description="turns whose answer is traceable to nothing")
    judged: JudgedProcess | None = Field(default=None, description="judged process quality, when scored with a process judge")
    turns: list[TurnProcess] = Field(default_factory=list)


class ProcessSummary(BaseModel):
    """Process metrics over a group of episodes: means per episode for breadth, pooled ratios otherwise."""

    episodes: int = 0
    queries_per_episode: float | None = None
    papers_surfaced_per_episode: float | None = None
    papers_opened_per_episode: float | None = None
    units_per_episode: float | None = None
    units_per_paper: float | None = Field(default=None, description="sum of units read / sum of papers opened")
    float_share: float | None = Field(default=None, description="figure/table reads / (figure/table + text reads)")
    reformulations: int = 0
    moved_up: int = 0
    moved_up_rate: float | None = Field(default=None, description="reformulations that moved a target up / reformulations with a target")
    repeated_calls: int = 0
    reread_units: int = 0
    redundancy: float | None = Field(default=None, description="redundant / executed calls (pooled)")
    reuse: float | None = Field(default=None, description="memory-only turns: required units in memory / required (pooled)")
    efficiency: float | None = Field(default=None, description="useful / executed calls (pooled)")
    grounding: float | None = Field(default=None, description="grounded / gradable answers (pooled)")
    ungrounded: int = Field(default=0, description="answers traceable to nothing")
    grounding_sources: dict[str, int] = Field(
        default_factory=dict, description="answers checked by where their value was found: observation, earlier_answers, figure, "
                                           "figure_other (not grounded), none")


class ClaimScores(BaseModel):
    """Claim-level scores of set answers (LiveDRBench): macro means over set turns, beside exact-set accuracy."""

    set_turns: int = 0
    answered: int = Field(default=0, description="set turns with an answer the matcher could read")
    precision: float | None = Field(default=None, description="mean over set turns; an unanswered turn counts 0")
    recall: float | None = None
    f1: float | None = None
    exact: float | None = Field(default=None, description="% of set turns answered with exactly the gold set")


class Correlation(BaseModel):
    """Spearman rank correlation of one process metric with success, with a bootstrap 95% interval."""

    metric: str
    level: Literal["episode", "turn"]
    n: int = Field(description="episodes (or turns) where the metric is defined")
    rho: float | None = None
    low: float | None = None
    high: float | None = None
    note: str = Field(default="", description="why rho is not defined, when it is not")


class JudgedProcessSummary(BaseModel):
    """Judged process quality over a run, and its agreement with the deterministic counterparts."""

    judge: str
    episodes: int = Field(default=0, description="episodes the judge scored")
    errors: int = Field(default=0, description="episodes without readable scores after a retry")
    means: dict[str, float | None] = Field(default_factory=dict, description="dimension -> mean score 1-10")
    agreement: list[Correlation] = Field(
        default_factory=list, description="Spearman rho of each judged dimension with its deterministic counterpart")
