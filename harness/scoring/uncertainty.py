"""The outcome numbers of a group of episodes reduced over epochs, and the 95% intervals of the headline numbers.

Per episode (ESR, Acc_final) or per turn (Acc_pre) the epochs' verdicts reduce to one value with the run's
reducer (`epochs.Reducer`); the proportion is pooled over episodes (over non-final turns for Acc_pre) and its
interval is Wilson (or Clopper-Pearson) at the effective number of units (`stats.proportion_interval`:
turns and epochs of one episode are clustered in it). EC is a proportion of evidence units (required units
accessed on correct turns, every epoch's trace) and gets the same interval, the units of an episode (all its
epochs) one cluster. MG is a ratio over every epoch's trace, with a percentile bootstrap over episodes, epochs
resampled inside their episode (`stats.bootstrap_ratio_interval`); where every episode has the same value the
interval is marked `all_equal` rather than given zero width.
The same per-episode values feed the paired comparison of two runs (`paired.py`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .epochs import Reducer, by_episode
from .interval import Interval
from .model import EpisodeScore, MetricIntervals, PassAtK

Clusters = list[list[float]]


@dataclass
class EpisodeValues:
    """Per episode (same order everywhere), what each headline number is made of."""

    ids: list[str] = field(default_factory=list)
    success: Clusters = field(default_factory=list)
    final: Clusters = field(default_factory=list)
    pre: Clusters = field(default_factory=list)  # an episode without non-final turns has []
    pre_right: Clusters = field(default_factory=list)  # per epoch (mean) or once: non-final turns right
    pre_turns: Clusters = field(default_factory=list)  # the same shape: non-final turns
    ec_hit: Clusters = field(default_factory=list)  # per epoch: required units accessed on correct turns
    ec_need: Clusters = field(default_factory=list)  # per epoch: required units of correct turns
    mg_calls: Clusters = field(default_factory=list)  # per epoch: c_i / c*_i on a successful episode, else 0
    mg_counted: Clusters = field(default_factory=list)  # per epoch: 1 where MG counts the episode, else 0

    @property
    def episodes(self) -> int:
        return len(self.ids)


def episode_values(scores: Sequence[EpisodeScore], reducer: Reducer) -> EpisodeValues:
    """The values of every episode in `scores` (one EpisodeScore per episode and epoch)."""
    out = EpisodeValues()
    for group in by_episode(scores):
        out.ids.append(group[0].episode_id)
        out.success.append(reducer.units([e.success for e in group]))
        out.final.append(reducer.units([e.final_correct for e in group]))
        pre_turns = min(len(e.turns) for e in group) - 1
        per_turn = [reducer.units([e.turns[t].correct for e in group]) for t in range(pre_turns)]
        out.pre.append([u for units in per_turn for u in units])
        if reducer.kind == "mean":  # the epochs stay apart, so a bootstrap can resample them
            out.pre_right.append([float(sum(e.turns[t].correct for t in range(pre_turns))) for e in group])
            out.pre_turns.append([float(pre_turns)] * len(group))
        else:
            out.pre_right.append([float(sum(u[0] for u in per_turn))])
            out.pre_turns.append([float(pre_turns)])
        out.ec_hit.append([float(sum(t.evidence_hit for t in e.turns if t.correct)) for e in group])
        out.ec_need.append([float(sum(len(t.required) for t in e.turns if t.correct)) for e in group])
        counted = [e.success and e.mg_ratio is not None for e in group]
        out.mg_calls.append([float(e.mg_ratio or 0.0) if c else 0.0 for e, c in zip(group, counted)])
        out.mg_counted.append([1.0 if c else 0.0 for c in counted])
    return out


def _pct(clusters: Clusters) -> float | None:
    units = sum(len(c) for c in clusters)
    return None if units == 0 else 100.0 * sum(sum(c) for c in clusters) / units


def _prop(clusters: Clusters, method: str) -> Interval | None:
    from .stats import proportion_interval

    kept = [c for c in clusters if c]
    return proportion_interval(kept, method=method).scaled(100.0) if kept else None


def _evidence(hit: Clusters, need: Clusters, method: str) -> Interval | None:
    """EC's interval: each required unit of a correct turn is a 0/1 unit (accessed or not), an episode's units
    (over all its epochs) one cluster; episodes with no correct turn carry no unit."""
    clusters = [[1.0] * int(round(sum(h))) + [0.0] * int(round(sum(n) - sum(h))) for h, n in zip(hit, need)]
    return _prop(clusters, method)


def _ratio(num: Clusters, den: Clusters, scale: float) -> Interval | None:
    from .stats import bootstrap_ratio_interval

    if not num or sum(sum(d) for d in den) <= 0:
        return None
    iv = bootstrap_ratio_interval(num, den)
    return iv.scaled(scale) if iv is not None else None


@dataclass
class Outcome:
    """ESR, Acc_final, Acc_pre (in %) after reduction, and the intervals of the five headline numbers."""

    esr: float | None
    acc_final: float | None
    acc_pre: float | None
    intervals: MetricIntervals


def outcome(scores: Sequence[EpisodeScore], reducer: Reducer, proportions: str = "wilson") -> Outcome:
    v = episode_values(scores, reducer)
    if not v.episodes:
        return Outcome(None, None, None, MetricIntervals())
    intervals = MetricIntervals(
        esr=_prop(v.success, proportions), acc_final=_prop(v.final, proportions), acc_pre=_prop(v.pre, proportions),
        ec=_evidence(v.ec_hit, v.ec_need, proportions), mg=_ratio(v.mg_calls, v.mg_counted, 1.0),
    )
    return Outcome(esr=_pct(v.success), acc_final=_pct(v.final), acc_pre=_pct(v.pre), intervals=intervals)


def pass_at_k_table(scores: Sequence[EpisodeScore], proportions: str = "wilson") -> list[PassAtK]:
    """pass@k and pass^k of episode success for k = 1..epochs, each with its interval over episodes (none
    for a single epoch, where both are the ESR)."""
    groups = by_episode(scores)
    n = min((len(g) for g in groups), default=1)
    if n < 2:
        return []
    out = []
    for k in range(1, n + 1):
        at = [[Reducer(kind="pass_at", k=k).reduce([e.success for e in g])] for g in groups]
        hat = [[Reducer(kind="pass_hat", k=k).reduce([e.success for e in g])] for g in groups]
        out.append(PassAtK(k=k, pass_at_k=_prop(at, proportions), pass_hat_k=_prop(hat, proportions)))  # type: ignore[arg-type]
    return out
