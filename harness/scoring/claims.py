"""Claim-level scores of set and list answers (LiveDRBench, seed 003), beside exact-set correctness.

Each item of a set answer is a claim. The matcher (`match_set.score_items`) already matches predicted
items to gold items greedily one to one (each gold item used once) and gives precision = matched /
predicted items, recall = matched / gold items and F1; it stays the one implementation. Here they are
gathered over the set turns of a group of episodes: macro means over set turns (each turn weighs the
same, as LiveDRBench averages over tasks), an unanswered or unreadable set turn counting 0, next to the
share of set turns answered with exactly the gold set. A judge-labelled run keeps the matcher's item
counts (a judge gives one label, not items). Items are atomic: the episode format has no sub-claims.
"""
from __future__ import annotations

from .model import AnswerVerdict, EpisodeScore, TurnScore
from .process_model import ClaimScores


def item_scores(turn: TurnScore) -> tuple[float, float, float] | None:
    """(precision, recall, F1) of a set turn's items; (0, 0, 0) when it has none; None for other formats."""
    if turn.format != "set":
        return None
    v: AnswerVerdict = turn.matcher_verdict or turn.verdict
    if v.precision is None or v.recall is None:
        return 0.0, 0.0, 0.0
    return v.precision, v.recall, v.f1 if v.f1 is not None else 0.0


def claim_scores(episodes: list[EpisodeScore]) -> ClaimScores | None:
    """Claim-level scores over every set turn of these episodes (None when there is no set turn)."""
    rows: list[tuple[TurnScore, tuple[float, float, float]]] = []
    for e in episodes:
        for t in e.turns:
            s = item_scores(t)
            if s is not None:
                rows.append((t, s))
    if not rows:
        return None
    n = len(rows)
    answered = sum(1 for t, _ in rows if t.answer and (t.matcher_verdict or t.verdict).parseable)
    return ClaimScores(
        set_turns=n, answered=answered,
        precision=sum(s[0] for _, s in rows) / n, recall=sum(s[1] for _, s in rows) / n, f1=sum(s[2] for _, s in rows) / n,
        exact=100.0 * sum(1 for t, _ in rows if t.correct) / n,
    )
