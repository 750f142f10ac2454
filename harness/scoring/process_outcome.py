"""Process against outcome: how each process metric relates to success, over the episodes of one or more runs.

MiroEval (seed 000) reports that process quality predicts outcome; here that is measured, not assumed:
the Spearman rank correlation of each metric with episode success (1/0), and of each per-turn metric
with turn correctness, with a 95% percentile bootstrap interval over episodes (or turns; 1000
resamples, fixed seed, so a report is reproducible). Rank correlation is not defined when every episode
succeeded or every one failed, or when the metric has one value only: the row says which. With a binary
outcome rho is the rank-biserial correlation: positive means successes tend to have higher values.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .model import EpisodeScore
from .process_model import Correlation, EpisodeProcess, TurnProcess

BOOTSTRAP = 1000
SEED = 17
MIN_N = 3

EPISODE_METRICS: dict[str, Callable[[EpisodeProcess], float | None]] = {
    "distinct queries": lambda p: p.distinct_queries,
    "papers surfaced": lambda p: p.papers_surfaced,
    "papers opened": lambda p: p.papers_opened,
    "units read": lambda p: p.units_read,
    "units per paper": lambda p: p.units_per_paper,
    "figure/table share": lambda p: p.float_reads / (p.float_reads + p.text_reads) if p.float_reads + p.text_reads else None,
    "reformulations": lambda p: p.reformulations,
    "redundancy": lambda p: p.redundancy,
    "reuse": lambda p: p.reuse,
    "efficiency": lambda p: p.efficiency,
    "grounding": lambda p: p.grounding,
}
TURN_METRICS: dict[str, Callable[[TurnProcess], float | None]] = {
    "queries": lambda t: len(t.queries),
    "units read": lambda t: len(t.units_read),
    "reformulations": lambda t: len(t.reformulations),
    "redundant calls": lambda t: len(t.redundant_calls) if t.executed_calls else None,
    "efficiency": lambda t: t.efficiency,
    "reuse": lambda t: t.reuse,
    "grounded": lambda t: None if t.grounding is None else float(t.grounding.grounded),
}


def ranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing their mean rank."""
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    last = np.cumsum(counts)
    return (last - (counts - 1) / 2.0)[inverse]


def spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    """Spearman's rho (Pearson correlation of the ranks); None when either side is constant."""
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return None
    rx, ry = ranks(x) - (len(x) + 1) / 2, ranks(y) - (len(y) + 1) / 2
    return float((rx * ry).sum() / np.sqrt((rx * rx).sum() * (ry * ry).sum()))


def correlate(metric: str, level: str, pairs: list[tuple[float, bool]]) -> Correlation:
    """rho of metric against outcome over the pairs where the metric is defined, with a bootstrap interval."""
    n = len(pairs)
    out = Correlation(metric=metric, level=level, n=n)  # type: ignore[arg-type]
    what = "episode" if level == "episode" else "turn"
    if n < MIN_N:
        out.note = f"not defined: {n} {what}{'s' if n != 1 else ''} with this metric"
        return out
    x = np.array([p[0] for p in pairs], dtype=float)
    y = np.array([1.0 if p[1] else 0.0 for p in pairs])
    if np.all(y == 1.0) or np.all(y == 0.0):
        verdict = ("succeeded" if y[0] == 1.0 else "failed") if level == "episode" else ("was right" if y[0] == 1.0 else "was wrong")
        out.note = f"not defined: every {what} {verdict}"
        return out
    if np.all(x == x[0]):
        out.note = f"not defined: the metric is {x[0]:g} on every {what}"
        return out
    out.rho, out.low, out.high = rho_with_interval(x, y)
    return out


def rho_with_interval(x: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """Spearman's rho and its 95% percentile bootstrap interval (None where not defined)."""
    rho = spearman(x, y)
    if rho is None:
        return None, None, None
    n = len(x)
    boot = bootstrap_rhos(x, y, np.random.default_rng(SEED).integers(0, n, size=(BOOTSTRAP, n)))
    if not boot.size:
        return rho, None, None
    return rho, float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))


def bootstrap_rhos(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Spearman's rho of every resample (rows of `idx`) at once, resamples where it is undefined dropped.

    Each value of x is replaced by its dense rank, so a resample's tie-averaged ranks come from per-row
    counts (one bincount), not from sorting every row."""
    _, dense = np.unique(x, return_inverse=True)
    m = int(dense.max()) + 1
    b, n = idx.shape
    xs = dense[idx]
    counts = np.bincount((np.arange(b)[:, None] * m + xs).ravel(), minlength=b * m).reshape(b, m)
    avg = np.cumsum(counts, axis=1) - (counts - 1) / 2.0
    _, ydense = np.unique(y, return_inverse=True)
    yk = int(ydense.max()) + 1
    ycounts = np.bincount((np.arange(b)[:, None] * yk + ydense[idx]).ravel(), minlength=b * yk).reshape(b, yk)
    yavg = np.cumsum(ycounts, axis=1) - (ycounts - 1) / 2.0
    rx = np.take_along_axis(avg, xs, axis=1)
    ry = np.take_along_axis(yavg, ydense[idx], axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    den = np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))
    ok = den > 0
    return (rx * ry).sum(axis=1)[ok] / den[ok]


def process_correlations(episodes: list[EpisodeScore]) -> list[Correlation]:
    """Each episode metric against episode success, then each turn metric against turn correctness."""
    scored = [e for e in episodes if e.process is not None]
    out: list[Correlation] = []
    for name, get in EPISODE_METRICS.items():
        pairs = [(v, e.success) for e in scored if (v := get(e.process)) is not None]  # type: ignore[arg-type]
        out.append(correlate(name, "episode", pairs))
    turn_pairs: list[tuple[TurnProcess, bool]] = []
    for e in scored:
        correct = {t.turn: t.correct for t in e.turns if t.ran}
        turn_pairs += [(tp, correct[tp.turn]) for tp in e.process.turns if tp.turn in correct]  # type: ignore[union-attr]
    for name, get in TURN_METRICS.items():
        out.append(correlate(name, "turn", [(v, ok) for tp, ok in turn_pairs if (v := get(tp)) is not None]))
    return out
