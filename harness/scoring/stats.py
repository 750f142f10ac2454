"""Uncertainty for benchmark numbers: intervals, paired tests and repeat-based pass rates.

Pure functions over plain numbers; nothing here reads a trace or a run. Why each method:
- Proportions (ESR, Acc_final, Acc_pre) get Wilson or Clopper-Pearson intervals, which stay inside
  [0, 1] and give 0% and 100% an honest width, unlike the normal approximation.
- Means of per-episode values (EC, MG) get a percentile bootstrap over episodes. With repeated runs
  (epochs) the epochs are resampled inside their own episode: episodes are the independent units,
  epochs are repeated measurements of one episode. A fixed seed makes every interval reproducible.
- Two runs over the same episodes are paired: McNemar's exact (and mid-p) test on episode success,
  a paired bootstrap on the difference of means, and the minimal detectable difference that a
  benchmark of this size can see given how often the two runs disagree.
- pass@k and pass^k follow tau-bench: per episode with n trials and c successes, pass^k is
  C(c, k) / C(n, k) (all of k trials succeed) and pass@k is 1 - C(n - c, k) / C(n, k) (at least one
  does), averaged over episodes.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from scipy import stats as _sp

DEFAULT_SEED = 20240917
DEFAULT_RESAMPLES = 10_000

EpisodeValues = Sequence[Sequence[float]]
"""Per episode, the value of each of its epochs (one item per epoch; at least one)."""


class Interval(BaseModel):
    """A point estimate with a two-sided interval at `confidence`."""

    model_config = ConfigDict(frozen=True)

    estimate: float
    low: float
    high: float
    confidence: float = 0.95
    method: str = Field(description="wilson, clopper-pearson or bootstrap-percentile")


class McNemarResult(BaseModel):
    """McNemar's test on paired success. n10: A succeeded where B failed; n01: the reverse."""

    model_config = ConfigDict(frozen=True)

    n10: int
    n01: int
    p_exact: float = Field(description="two-sided exact binomial p-value on the discordant pairs")
    p_mid: float = Field(description="two-sided mid-p value: less conservative, close to nominal size")

    @property
    def discordant(self) -> int:
        return self.n10 + self.n01


class PairedDifference(BaseModel):
    """Mean of A minus mean of B over the same episodes, with a paired bootstrap interval."""

    model_config = ConfigDict(frozen=True)

    estimate: float
    low: float
    high: float
    p_value: float = Field(description="two-sided bootstrap p-value for a difference of zero")
    episodes: int
    confidence: float = 0.95


class DetectableDifference(BaseModel):
    """The smallest success-rate difference a paired comparison of `episodes` can detect."""

    model_config = ConfigDict(frozen=True)

    episodes: int
    discordance: float = Field(description="share of episodes where the two runs disagree on success")
    alpha: float
    power: float
    mdd: float | None = Field(
        description="None when the runs never disagree (nothing to size it from) or no possible difference reaches the power"
    )


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return float(_sp.norm.ppf(0.5 + confidence / 2.0))


def _check_counts(successes: int, n: int) -> None:
    if n <= 0:
        raise ValueError(f"an interval needs at least one trial, got n={n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n={n}, got {successes}")


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval for a proportion."""
    _check_counts(successes, n)
    z = _z(confidence)
    p = successes / n
    denom = 1.0 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, center - half)  # exact ends, not 1 - 1e-16
    high = 1.0 if successes == n else min(1.0, center + half)
    return Interval(estimate=p, low=low, high=high, confidence=confidence, method="wilson")


def clopper_pearson_interval(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """Exact (Clopper-Pearson) interval for a proportion: never narrower than it should be."""
    _check_counts(successes, n)
    a = 1.0 - confidence
    if not 0.0 < a < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    low = 0.0 if successes == 0 else float(_sp.beta.ppf(a / 2, successes, n - successes + 1))
    high = 1.0 if successes == n else float(_sp.beta.ppf(1 - a / 2, successes + 1, n - successes))
    return Interval(estimate=successes / n, low=low, high=high, confidence=confidence, method="clopper-pearson")


def _as_arrays(values: EpisodeValues, what: str) -> list[np.ndarray]:
    out = []
    for i, v in enumerate(values):
        arr = np.asarray(list(v), dtype=float)
        if arr.size == 0:
            raise ValueError(f"{what}: episode #{i} has no epochs")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{what}: episode #{i} has a value that is not a finite number")
        out.append(arr)
    if not out:
        raise ValueError(f"{what}: no episodes")
    return out


def _resample_episode_means(
    episodes: list[np.ndarray], picks: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """For each bootstrap replicate (row of `picks`), the per-episode means with epochs resampled
    with replacement inside each picked episode. Shape: (replicates, episodes)."""
    reps, n = picks.shape
    out = np.empty((reps, n))
    for j, ep in enumerate(episodes):
        rows = np.nonzero(picks == j)  # where episode j was picked
        if rows[0].size == 0:
            continue
        if ep.size == 1:
            out[rows] = ep[0]
        else:
            draws = rng.integers(0, ep.size, size=(rows[0].size, ep.size))
            out[rows] = ep[draws].mean(axis=1)
    return out


def bootstrap_replicates(
    values: EpisodeValues, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
    statistic: Callable[[np.ndarray], float] | None = None,
) -> np.ndarray:
    """The bootstrap distribution of `statistic` (default: the mean) over per-episode means.

    Each replicate draws episodes with replacement, then each drawn episode's epochs with
    replacement, and applies `statistic` to the resulting per-episode means."""
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    episodes = _as_arrays(values, "bootstrap")
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(episodes), size=(resamples, len(episodes)))
    means = _resample_episode_means(episodes, picks, rng)
    if statistic is None:
        return means.mean(axis=1)
    return np.array([statistic(row) for row in means], dtype=float)


def bootstrap_interval(
    values: EpisodeValues, *, confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """Percentile bootstrap interval for the mean over episodes of each episode's mean over epochs."""
    _z(confidence)
    episodes = _as_arrays(values, "bootstrap")
    estimate = float(np.mean([ep.mean() for ep in episodes]))
    reps = bootstrap_replicates(values, resamples=resamples, seed=seed)
    a = (1.0 - confidence) / 2
    low, high = np.quantile(reps, [a, 1 - a])
    return Interval(estimate=estimate, low=float(low), high=float(high), confidence=confidence,
                    method="bootstrap-percentile")


def paired_bootstrap_difference(
    a: EpisodeValues, b: EpisodeValues, *, confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PairedDifference:
    """Mean(A) - mean(B) over the same episodes (same order), resampling episodes jointly.

    Each replicate draws one set of episode indices for both runs, so the pairing is kept; epochs
    are resampled inside each episode separately for A and for B (epochs are not paired)."""
    _z(confidence)
    ea, eb = _as_arrays(a, "paired bootstrap (A)"), _as_arrays(b, "paired bootstrap (B)")
    if len(ea) != len(eb):
        raise ValueError(f"paired bootstrap: A has {len(ea)} episodes, B has {len(eb)}; pair the same episodes")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(ea), size=(resamples, len(ea)))
    diffs = _resample_episode_means(ea, picks, rng).mean(axis=1) - _resample_episode_means(eb, picks, rng).mean(axis=1)
    estimate = float(np.mean([x.mean() for x in ea]) - np.mean([y.mean() for y in eb]))
    q = (1.0 - confidence) / 2
    low, high = np.quantile(diffs, [q, 1 - q])
    p = min(1.0, 2.0 * min(float(np.mean(diffs <= 0)), float(np.mean(diffs >= 0))))
    return PairedDifference(estimate=estimate, low=float(low), high=float(high), p_value=p, episodes=len(ea),
                            confidence=confidence)


def _paired_counts(a: Sequence[bool], b: Sequence[bool]) -> tuple[int, int]:
    if len(a) != len(b):
        raise ValueError(f"paired success: A has {len(a)} episodes, B has {len(b)}; pair the same episodes")
    n10 = sum(1 for x, y in zip(a, b) if x and not y)
    n01 = sum(1 for x, y in zip(a, b) if y and not x)
    return n10, n01


def mcnemar(a: Sequence[bool], b: Sequence[bool]) -> McNemarResult:
    """McNemar's test on episode success of two runs over the same episodes (same order).

    Under no difference each discordant episode is equally likely to favour A or B, so the smaller
    discordant count is Binomial(n10 + n01, 1/2). Exact p = 2 P(X <= k), capped at 1; mid-p
    subtracts P(X = k) from it."""
    n10, n01 = _paired_counts(a, b)
    n = n10 + n01
    if n == 0:
        return McNemarResult(n10=0, n01=0, p_exact=1.0, p_mid=1.0)
    k = min(n10, n01)
    exact = min(1.0, 2.0 * float(_sp.binom.cdf(k, n, 0.5)))
    mid = min(1.0, 2.0 * float(_sp.binom.cdf(k, n, 0.5)) - float(_sp.binom.pmf(k, n, 0.5)))
    return McNemarResult(n10=n10, n01=n01, p_exact=exact, p_mid=mid)


def discordance(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Share of paired episodes on which the two runs disagree about success."""
    n10, n01 = _paired_counts(a, b)
    if not a:
        raise ValueError("discordance: no episodes")
    return (n10 + n01) / len(a)


def minimal_detectable_difference(
    episodes: int, discordance: float, *, alpha: float = 0.05, power: float = 0.8
) -> DetectableDifference:
    """Smallest |p_A - p_B| a two-sided paired (McNemar) test detects with this power.

    Uses Connor's (1987) sample-size relation for McNemar's test, solved for the difference d at a
    given discordance psi = p10 + p01 and number of episodes n:
        sqrt(n) * d = z_(1-alpha/2) * sqrt(psi) + z_power * sqrt(psi - d^2).
    The left side grows and the right side shrinks in d, so the root on (0, psi] is unique."""
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    if not 0.0 <= discordance <= 1.0:
        raise ValueError(f"discordance must be between 0 and 1, got {discordance}")
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0:
        raise ValueError(f"alpha and power must be between 0 and 1, got {alpha} and {power}")
    common = dict(episodes=episodes, discordance=discordance, alpha=alpha, power=power)
    if discordance == 0.0:
        return DetectableDifference(**common, mdd=None)
    za, zb = float(_sp.norm.ppf(1 - alpha / 2)), float(_sp.norm.ppf(power))
    sn = math.sqrt(episodes)

    def gap(d: float) -> float:
        return sn * d - za * math.sqrt(discordance) - zb * math.sqrt(max(0.0, discordance - d * d))

    hi = math.sqrt(discordance)  # the largest d with psi - d^2 >= 0
    if gap(hi) < 0:  # too few episodes: no difference at all reaches this power
        return DetectableDifference(**common, mdd=None)
    lo = 0.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if gap(mid) < 0:
            lo = mid
        else:
            hi = mid
    # a paired difference can never exceed the discordance (p10 - p01 <= p10 + p01)
    return DetectableDifference(**common, mdd=hi if hi <= discordance else None)


def _comb_ratio(good: int, n: int, k: int) -> float:
    """C(good, k) / C(n, k): the chance that k of n trials drawn without replacement are all 'good'."""
    return math.comb(good, k) / math.comb(n, k)


def _check_trials(trials: Sequence[Sequence[bool]], k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not trials:
        raise ValueError("pass@k / pass^k: no episodes")
    for i, t in enumerate(trials):
        if len(t) < k:
            raise ValueError(f"episode #{i} has {len(t)} epochs; pass@{k} and pass^{k} need at least {k}")


def pass_hat_k(trials: Sequence[Sequence[bool]], k: int) -> float:
    """tau-bench's pass^k: mean over episodes of C(c, k) / C(n, k), all k of k trials succeed."""
    _check_trials(trials, k)
    return float(np.mean([_comb_ratio(sum(map(bool, t)), len(t), k) for t in trials]))


def pass_at_k(trials: Sequence[Sequence[bool]], k: int) -> float:
    """pass@k: mean over episodes of 1 - C(n - c, k) / C(n, k), at least one of k trials succeeds."""
    _check_trials(trials, k)
    return float(np.mean([1.0 - _comb_ratio(len(t) - sum(map(bool, t)), len(t), k) for t in trials]))
