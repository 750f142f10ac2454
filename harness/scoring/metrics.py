"""Per-episode scores from facts, and the per-split metrics (EpiBench Tables 2, 3 and 6; METRICS.md).

ESR: % of episodes with every turn correct. Acc_final: % of final turns correct. Acc_pre: % of all
non-final turns correct (pooled). EC: sum over correct turns of |E ∩ A| / sum over correct turns of |E|.
MG: mean of c_i / c*_i over successful episodes (None if none succeeded). Max-steps rate: % of turns
run that hit budget_exhausted. A turn never reached counts as wrong; a missing trace is a failed episode.
"""
from __future__ import annotations

from typing import Callable

from harness.episode import Answer, Episode
from harness.rundir import TraceRead

from .attribution import attribute_failure
from .facts import EpisodeFacts, read_facts
from .match import gold_display
from .model import (
    AnswerVerdict, BucketCounts, CostTotals, EpisodeScore, FailureCounts, SplitScores, TurnScore, UnitRef,
)

# A labeller gives a binary verdict on one answer: (question, gold, answer) -> verdict.
Labeller = Callable[[str, Answer, str], AnswerVerdict]


def _pct(num: float, den: float) -> float | None:
    return None if den == 0 else 100.0 * num / den


def score_turns(episode: Episode, facts: EpisodeFacts, label: Labeller) -> list[TurnScore]:
    """One TurnScore per annotated turn; turns the trace never reached are wrong and `ran=False`."""
    out: list[TurnScore] = []
    for i, gold_turn in enumerate(episode.turns, 1):
        tf = facts.turns.get(i)
        ran = tf is not None and (tf.started or tf.answered or bool(tf.calls))
        memory_only = gold_turn.memory_only or bool(tf and tf.memory_only)
        if tf is not None and tf.answered and tf.answer is not None and tf.answer.strip():
            verdict = label(gold_turn.question, gold_turn.answer, tf.answer)
        else:
            why = "turn never reached" if not ran else ("no final answer event" if not (tf and tf.answered) else "no answer")
            verdict = AnswerVerdict(correct=False, parseable=False, detail=why)
        accessed: dict[tuple[str, str], UnitRef] = {}
        if tf is not None:
            if memory_only:
                for u in facts.memory_before(i):
                    accessed.setdefault(u.key, u)
            for u in tf.units_this_turn:
                accessed.setdefault(u.key, u)
        required = [UnitRef(paper=r.paper, unit=r.unit) for r in gold_turn.evidence]
        hit = len({r.key for r in required} & set(accessed))
        out.append(TurnScore(
            turn=i, ran=ran, question=(tf.question if tf and tf.question else gold_turn.question),
            answer=tf.answer if tf else None, answer_source=tf.answer_source if tf else "none",
            answer_step=tf.answer_step if tf else 0, gold=gold_display(gold_turn.answer),
            format=gold_turn.answer.format, correct=verdict.correct, verdict=verdict, memory_only=memory_only,
            required=required, accessed=list(accessed.values()), evidence_hit=hit,
            tool_calls=len(tf.calls) if tf else 0, tool_errors=sum(1 for c in tf.calls if c.error) if tf else 0,
            budget_exhausted=bool(tf and tf.budget_exhausted), checklist_length=len(gold_turn.checklist),
        ))
    return out


def score_episode(episode: Episode, trace: TraceRead, label: Labeller, labeller_name: str = "matcher") -> EpisodeScore:
    """Score one episode from its trace (missing or truncated traces included, flagged)."""
    facts = read_facts(trace)
    turns = score_turns(episode, facts, label)
    success = all(t.correct for t in turns)
    unscorable = any(not t.verdict.parseable for t in turns)
    failed_end = facts.end is not None and (facts.end.status == "failed" or facts.end.bucket is not None)
    bucket = facts.reason_bucket() if (unscorable or failed_end or facts.missing) and not success else None
    if facts.missing:
        status = "missing"
    elif facts.truncated:
        status = "truncated"
    else:
        status = facts.end.status if facts.end else "truncated"
    c_star = episode.checklist_length
    start = facts.start
    return EpisodeScore(
        episode_id=episode.id, split=episode.split, task_type=episode.task_type, initiation=episode.initiation,
        n_turns=len(episode.turns), turns_run=sum(1 for t in turns if t.ran), status=status, success=success,
        final_correct=turns[-1].correct, turns=turns, tool_calls=facts.tool_call_count, checklist_length=c_star,
        mg_ratio=(facts.tool_call_count / c_star) if success and c_star > 0 else None, bucket=bucket,  # type: ignore[arg-type]
        failure=None if success else attribute_failure(facts, turns, bucket), cost=facts.cost,
        truncated=facts.truncated, missing=facts.missing, bad_lines=facts.bad_lines,
        uses_gold=bool(start and start.uses_gold), agent=start.agent if start else "", labeller=labeller_name,
    )


def split_scores(episodes: list[EpisodeScore]) -> SplitScores:
    """The metrics over a group of episodes (one split, or all)."""
    n = len(episodes)
    cost = CostTotals()
    failures = FailureCounts()
    pre_correct = pre_total = ec_hit = ec_need = turns_run = exhausted = 0
    mg_ratios: list[float] = []
    for e in episodes:
        cost = cost.plus(e.cost)
        if e.failure is not None:
            setattr(failures, e.failure.type, getattr(failures, e.failure.type) + 1)
        for t in e.turns[:-1]:
            pre_total += 1
            pre_correct += t.correct
        for t in e.turns:
            if t.correct:
                ec_hit += t.evidence_hit
                ec_need += len(t.required)
            if t.ran:
                turns_run += 1
                exhausted += t.budget_exhausted
        if e.success and e.mg_ratio is not None:
            mg_ratios.append(e.mg_ratio)
    successes = sum(1 for e in episodes if e.success)
    return SplitScores(
        **cost.model_dump(), episodes=n, successful_episodes=successes, turns_run=turns_run,
        esr=_pct(successes, n), acc_final=_pct(sum(1 for e in episodes if e.final_correct), n),
        acc_pre=_pct(pre_correct, pre_total), ec=_pct(ec_hit, ec_need),
        mg=(sum(mg_ratios) / len(mg_ratios)) if mg_ratios else None,
        max_steps_rate=_pct(exhausted, turns_run), failures=failures,
    )


def bucket_counts(episodes: list[EpisodeScore]) -> BucketCounts:
    counts = BucketCounts()
    for e in episodes:
        if e.bucket is not None:
            setattr(counts, e.bucket, counts.count(e.bucket) + 1)
    return counts
