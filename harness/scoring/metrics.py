"""Per-episode scores from a folded trace, and the per-split metrics (EpiBench Tables 2, 3, 6; METRICS.md).

ESR: % of episodes with every turn correct. Acc_final: % of final turns correct. Acc_pre: % of all
non-final turns correct (pooled). EC: sum over correct turns of |E ∩ A| / sum over correct turns of |E|,
where A (accessed) is what the turn's calls exposed plus what the episode's memory already held.
MG: mean of c_i / c*_i over successful episodes, c_i = executed tool calls (refused calls and
empty-reply pseudo-calls are steps, not tool calls). Max-steps error rate (Fig. 6b, "failures caused by
exceeding the step limit"): % of episodes run whose first error (the turn attribution fires on) is a turn
whose step budget ran out and whose answer was wrong. Its turn-level companions keep their own names:
`budget_exhausted_rate`, % of turns run whose budget ran out, and `wrong_after_exhaustion_rate`, % of turns
run whose budget ran out and whose answer was wrong. A turn never reached counts as wrong; a missing trace
is a failed episode.
With repeated runs (one EpisodeScore per episode and epoch), ESR, Acc_final and Acc_pre reduce each
episode's epochs with the run's reducer (`epochs.py`); every other number counts every epoch's trace.
Each split carries the 95% intervals of its five headline numbers (`uncertainty.py`).
Errors are not failures (METRICS.md, failure accounting): an errored episode (its first error a provider,
data-access or pipeline error, no wrong turn before it) is counted apart and left out of every number but
the cost, unless the run is scored with errors as failures (the paper's convention).
"""
from __future__ import annotations

from typing import Protocol

from harness.episode import Answer, Episode
from harness.reports import score_report
from harness.trace import AgentCheck
from harness.trace_fold import EpisodeFold, unique_units

from .attribution import INFRA, attribute_failure, failure_bucket
from .behaviour import ModelBehaviour, behaviour_of
from .claims import claim_scores
from .epochs import Reducer
from .facts import cost_of
from .match import gold_display, match_answer
from .model import SCORER_VERSION, AnswerVerdict, BucketCounts, CostTotals, EpisodeScore, FailureCounts, SplitScores, TurnScore
from .process import process_of, summarize_process


class Labeller(Protocol):
    """Gives a binary verdict on one answer. The matcher is always run too; a judge is optional."""

    name: str

    def __call__(self, question: str, gold: Answer, answer: str) -> AnswerVerdict: ...


def _pct(num: float, den: float) -> float | None:
    return None if den == 0 else 100.0 * num / den


def score_turns(episode: Episode, fold: EpisodeFold, judge: Labeller | None = None) -> list[TurnScore]:
    """One TurnScore per annotated turn; turns the trace never reached are wrong and `ran=False`.

    The matcher labels every answer; with a judge, the judge's label counts unless it could not give one
    (`judge_error`), in which case the matcher's does and `labelled_by` says so.
    """
    out: list[TurnScore] = []
    for i, gold_turn in enumerate(episode.turns, 1):
        tf = fold.turns.get(i)
        ran = tf is not None and tf.ran
        answer = tf.answer_text if tf else None
        if answer is not None and answer.strip():
            matcher = match_answer(answer, gold_turn.answer, gold_turn.question)
        else:
            why = "turn never reached" if not ran else ("no final answer event" if not (tf and tf.answer) else "no answer")
            matcher = AnswerVerdict(correct=False, parseable=False, detail=why)
        verdict, labelled_by, matcher_verdict = matcher, "matcher", None
        if judge is not None:
            matcher_verdict = matcher
            if answer is not None and answer.strip():
                verdict = judge(gold_turn.question, gold_turn.answer, answer)
                labelled_by = judge.name if not verdict.judge_error else "matcher"
        correct = verdict.correct if labelled_by != "matcher" else matcher.correct
        exposed = tf.exposed if tf else []
        accessed = unique_units(list(fold.memory_before(i)) + list(exposed)) if tf else []
        required = list(gold_turn.evidence)
        hit = len({r.key for r in required} & {a.key for a in accessed})
        out.append(TurnScore(
            turn=i, ran=ran, question=(tf.start.question if tf and tf.start else gold_turn.question),
            answer=answer, answer_source=tf.answer_source if tf else "none", answer_step=tf.answer_step if tf else 0,
            gold=gold_display(gold_turn.answer), format=gold_turn.answer.format, correct=correct, verdict=verdict,
            matcher_verdict=matcher_verdict, labelled_by=labelled_by,
            memory_only=gold_turn.memory_only or bool(tf and tf.memory_only),
            required=required, exposed=exposed, accessed=accessed, evidence_hit=hit,
            tool_calls=len(tf.executed_calls) if tf else 0, refused_calls=len(tf.refused_calls) if tf else 0,
            tool_errors=sum(1 for c in tf.executed_calls if c.error) if tf else 0,
            budget_exhausted=bool(tf and tf.budget_exhausted), checklist_length=len(gold_turn.checklist),
        ))
    return out


def score_episode(episode: Episode, fold: EpisodeFold, judge: Labeller | None = None, epoch: int = 1) -> EpisodeScore:
    """Score one episode (one epoch of it) from its folded trace (missing or truncated traces included, flagged)."""
    turns = score_turns(episode, fold, judge)
    success = all(t.correct for t in turns)
    bucket = None if success else failure_bucket(fold, turns)
    if fold.missing:
        status = "missing"
    elif fold.truncated:
        status = "truncated"
    else:
        status = fold.end.status if fold.end else "truncated"
    c_star = episode.checklist_length
    start = fold.start
    errored = bucket in INFRA
    return EpisodeScore(
        episode_id=episode.id, epoch=epoch, split=episode.split, task_type=episode.task_type, initiation=episode.initiation,
        n_turns=len(episode.turns), turns_run=sum(1 for t in turns if t.ran), status=status, success=success,
        final_correct=turns[-1].correct, turns=turns, tool_calls=fold.tool_calls, refused_calls=fold.refused_calls,
        behaviour=behaviour_of(fold),
        checklist_length=c_star, mg_ratio=(fold.tool_calls / c_star) if success and c_star > 0 else None,
        bucket=bucket,  # type: ignore[arg-type]
        failure=None if success else attribute_failure(fold, turns), errored=errored, cost=cost_of(fold),
        truncated=fold.truncated, missing=fold.missing, bad_lines=fold.bad_lines,
        uses_gold=bool(start and start.uses_gold), agent=start.agent if start else "",
        labeller=judge.name if judge is not None else "matcher", scorer_version=SCORER_VERSION,
        process=None if fold.missing else process_of(episode, fold),
        report=score_report(episode.report, fold, len(episode.turns) + 1) if episode.report is not None else None,
        agent_checks=agent_checks_of(fold),
    )


def agent_checks_of(fold: EpisodeFold) -> dict[str, int]:
    """The trace's agent_check events by check (empty: the agent kept to the protocol, as far as the harness saw)."""
    out: dict[str, int] = {}
    for ev in fold.events:
        if isinstance(ev, AgentCheck):
            out[ev.check] = out.get(ev.check, 0) + 1
    return out


def max_step_termination(e: EpisodeScore) -> bool:
    """The episode failed by exceeding the step limit: its first error is a turn whose budget ran out and
    whose (fallback) answer was wrong (EpiBench Fig. 6b)."""
    if e.failure is None or not 1 <= e.failure.turn <= len(e.turns):
        return False
    t = e.turns[e.failure.turn - 1]
    return t.budget_exhausted and not t.correct


def counted(episodes: list[EpisodeScore], errors_as_failures: bool = False) -> list[EpisodeScore]:
    """The episode scores the numbers are made of: all of them when errors count as failures, else all but
    the errored ones."""
    return list(episodes) if errors_as_failures else [e for e in episodes if not e.errored]


def split_scores(episodes: list[EpisodeScore], reducer: Reducer | None = None, proportions: str = "wilson",
                 errors_as_failures: bool = False) -> SplitScores:
    """The metrics over a group of episodes (one split, or all), each episode once per epoch. The cost totals and
    the model's behaviour count every episode; every other number only the episodes `counted` keeps."""
    from .uncertainty import outcome

    cost, behaviour = CostTotals(), ModelBehaviour()
    for e in episodes:  # what was spent and what the model did (retries, timeouts, failed requests): every episode
        cost = cost.plus(e.cost)
        behaviour = behaviour.plus(e.behaviour)
    errored = sum(1 for e in episodes if e.errored)
    episodes = counted(episodes, errors_as_failures)
    failures = FailureCounts()
    ec_hit = ec_need = turns_run = exhausted = exhausted_wrong = refused = episodes_run = max_step_failures = 0
    mg_ratios: list[float] = []
    for e in episodes:
        refused += e.refused_calls
        episodes_run += e.turns_run > 0
        max_step_failures += max_step_termination(e)
        if e.failure is not None:
            setattr(failures, e.failure.type, getattr(failures, e.failure.type) + 1)
        for t in e.turns:
            if t.correct:
                ec_hit += t.evidence_hit
                ec_need += len(t.required)
            if t.ran:
                turns_run += 1
                exhausted += t.budget_exhausted
                exhausted_wrong += t.budget_exhausted and not t.correct
        if e.success and e.mg_ratio is not None:
            mg_ratios.append(e.mg_ratio)
    successes = sum(1 for e in episodes if e.success)
    out = outcome(episodes, reducer or Reducer(), proportions)
    return SplitScores(
        **cost.model_dump(), episodes=len({e.episode_id for e in episodes}), errored=errored, successful_episodes=successes,
        turns_run=turns_run, refused_calls=refused, behaviour=behaviour, esr=out.esr, acc_final=out.acc_final, acc_pre=out.acc_pre,
        ec=_pct(ec_hit, ec_need), intervals=out.intervals,
        mg=(sum(mg_ratios) / len(mg_ratios)) if mg_ratios else None,
        max_steps_rate=_pct(max_step_failures, episodes_run), budget_exhausted_rate=_pct(exhausted, turns_run),
        wrong_after_exhaustion_rate=_pct(exhausted_wrong, turns_run), episodes_run=episodes_run,
        failures=failures, process=summarize_process(episodes), claims=claim_scores(episodes),
    )


def bucket_counts(episodes: list[EpisodeScore]) -> BucketCounts:
    counts = BucketCounts()
    for e in episodes:
        if e.bucket is not None:
            setattr(counts, e.bucket, counts.count(e.bucket) + 1)
    return counts
