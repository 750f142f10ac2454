"""Uncertainty for benchmark numbers: intervals, paired tests and repeat-based pass rates.

Pure functions over plain numbers; nothing here reads a trace or a run. Why each method:
- Proportions (ESR, Acc_final, Acc_pre) get Wilson or Clopper-Pearson intervals, which stay inside
  [0, 1] and give 0% and 100% an honest width, unlike the normal approximation. Where the units are
  clustered (turns or epochs of one episode), the interval counts the effective number of units
  (Kish's design effect, as Korn and Graubard do for Clopper-Pearson), never fewer than the episodes.
- EC is a proportion of evidence units (required units accessed on correct turns) and gets the same
  interval at the effective number of units: an episode's units are clustered in it.
- Means and ratios of per-episode values that are not proportions (MG) get a percentile bootstrap over
  episodes. With repeated runs (epochs) the epochs are resampled inside their own episode: episodes are the
  independent units, epochs are repeated measurements of one episode. A fixed seed makes every interval
  reproducible. A bootstrap over episodes that all have the same value has no spread to resample: its
  interval is marked `all_equal` (shown "all n equal"), never passed off as a zero-width interval.
- Two runs over the same episodes are paired: McNemar's exact (and mid-p) test on episode success,
  a paired bootstrap on the difference of means, and the minimal detectable difference that a
  benchmark of this size can see given how often the two runs disagree.

What is scipy's and what is ours: the exact binomial test (McNemar) is `scipy.stats.binomtest`; Clopper-Pearson
is scipy's beta quantile (`scipy.special.betaincinv`, what `proportion_ci(method="exact")` computes, for
fractional counts too). scipy's Wilson interval (`binomtest(k, n).proportion_ci`) takes whole counts only and an
effective number of units is fractional, so the Wilson formula is written out (the tests hold it equal to
scipy's on whole counts); it also keeps scipy.stats, slow to import, off every run's scoring. Our own code is
only what scipy has no equivalent for: Kish's design effect of clustered units, the cluster bootstrap
(episodes drawn, epochs drawn inside each drawn episode; `scipy.stats.bootstrap` resamples independent
observations only), the paired ratio bootstrap, Newcombe's paired interval and Connor's detectable
difference.
- pass@k and pass^k follow tau-bench: per episode with n trials and c successes, pass^k is
  C(c, k) / C(n, k) (all of k trials succeed) and pass@k is 1 - C(n - c, k) / C(n, k) (at least one
  does), averaged over episodes.
"""
from __future__ import annotations

import math
from typing import Callable, Iterator, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from statistics import NormalDist

from .interval import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval

EpisodeValues = Sequence[Sequence[float]]
"""Per episode, the value of each of its epochs (one item per epoch; at least one)."""


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
    """Mean of A minus mean of B over the same episodes, with a paired interval."""

    model_config = ConfigDict(frozen=True)

    estimate: float
    low: float
    high: float
    p_value: float = Field(description="two-sided p-value for a difference of zero (bootstrap, or McNemar exact)")
    episodes: int
    confidence: float = 0.95
    method: str = Field(default="paired-bootstrap", description="paired-bootstrap or newcombe (with McNemar's p)")
    all_equal: bool = Field(
        default=False, description="a paired bootstrap whose every replicate gave the same difference (the pairs never "
                                   "differed from one another): no interval, shown as 'all n pairs equal'")


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
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def _check_counts(successes: float, n: float) -> None:
    if n <= 0:
        raise ValueError(f"an interval needs at least one trial, got n={n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n={n}, got {successes}")


def wilson_interval(successes: float, n: float, confidence: float = 0.95) -> Interval:
    """Wilson score interval for a proportion, written out: scipy's (`binomtest(k, n).proportion_ci("wilson")`)
    takes whole counts only, and an effective number of units is fractional; the tests hold the two equal on whole
    counts. Not importing scipy.stats here keeps it (seconds to load on a busy machine) off every run's scoring."""
    _check_counts(successes, n)
    z = _z(confidence)
    p = successes / n
    denom = 1.0 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, center - half)  # exact ends, not 1 - 1e-16
    high = 1.0 if successes == n else min(1.0, center + half)
    return Interval(estimate=p, low=low, high=high, confidence=confidence, method="wilson", n=float(n))


def clopper_pearson_interval(successes: float, n: float, confidence: float = 0.95) -> Interval:
    """Exact (Clopper-Pearson) interval for a proportion: never narrower than it should be."""
    _check_counts(successes, n)
    a = 1.0 - confidence
    if not 0.0 < a < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    from scipy.special import betaincinv  # the beta quantile (scipy.stats' "exact" interval), fractional counts too

    low = 0.0 if successes == 0 else float(betaincinv(successes, n - successes + 1, a / 2))
    high = 1.0 if successes == n else float(betaincinv(successes + 1, n - successes, 1 - a / 2))
    return Interval(estimate=successes / n, low=low, high=high, confidence=confidence, method="clopper-pearson",
                    n=float(n))


PROPORTION_METHODS = ("wilson", "clopper-pearson")


def effective_units(clusters: EpisodeValues) -> tuple[float, float]:
    """(pooled proportion, effective number of units) of values in [0, 1] grouped by episode.

    Units of one episode (its turns, its epochs) are not independent. Kish's design effect compares the
    variance of the pooled proportion over episodes (the ratio estimator's) with that of as many
    independent units; the effective number is units / design effect, kept between the number of
    episodes (units of an episode all alike) and the number of units (all independent). One unit per
    episode gives the episodes exactly. At 0% or 100% the spread says nothing: the episodes count."""
    eps = _as_arrays(clusters, "proportion")
    sizes = np.array([len(e) for e in eps], dtype=float)
    sums = np.array([float(e.sum()) for e in eps])
    if np.any([np.any((e < 0) | (e > 1)) for e in eps]):
        raise ValueError("proportion: every value must be between 0 and 1")
    n, units = len(eps), float(sizes.sum())
    p = float(sums.sum() / units)
    if n < 2 or p <= 0.0 or p >= 1.0:
        return p, float(n)
    var_clustered = n / (n - 1) * float(((sums - p * sizes) ** 2).sum()) / units ** 2
    if var_clustered <= 0.0:
        return p, units
    return p, float(min(units, max(float(n), p * (1 - p) / var_clustered)))


def proportion_interval(clusters: EpisodeValues, *, method: str = "wilson", confidence: float = 0.95) -> Interval:
    """Interval for a proportion pooled over units grouped by episode (each value in [0, 1]): Wilson or
    Clopper-Pearson at the effective number of units (`effective_units`). With one 0/1 unit per episode this
    is the textbook interval over episodes; for values between 0 and 1 (an episode's pass^k) it is
    conservative, since a value in [0, 1] with mean p has variance at most p(1 - p)."""
    if method not in PROPORTION_METHODS:
        raise ValueError(f"proportion interval: method {method!r} is not one of {', '.join(PROPORTION_METHODS)}")
    p, n_eff = effective_units(clusters)
    make = wilson_interval if method == "wilson" else clopper_pearson_interval
    iv = make(min(n_eff, max(0.0, p * n_eff)), n_eff, confidence)
    return iv.model_copy(update={"estimate": p})


def _as_arrays(values: EpisodeValues, what: str) -> list[np.ndarray]:
    out = []
    for i, v in enumerate(values):
        arr = np.asarray(list(v), dtype=float)
        if arr.shape[0] == 0:
            raise ValueError(f"{what}: episode #{i} has no epochs")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{what}: episode #{i} has a value that is not a finite number")
        out.append(arr)
    if not out:
        raise ValueError(f"{what}: no episodes")
    return out


def _stack(num: EpisodeValues, den: EpisodeValues | None, what: str) -> list[np.ndarray]:
    """Per episode, an (epochs, 2) array of numerator and denominator (1 where there is no denominator)."""
    nums = _as_arrays(num, what)
    dens = [np.ones_like(x) for x in nums] if den is None else _as_arrays(den, what + " (denominators)")
    if len(dens) != len(nums):
        raise ValueError(f"{what}: {len(nums)} episodes of numerators, {len(dens)} of denominators")
    out = []
    for i, (x, d) in enumerate(zip(nums, dens)):
        if x.shape != d.shape:
            raise ValueError(f"{what}: episode #{i} has {x.shape[0]} numerators and {d.shape[0]} denominators")
        out.append(np.stack([x, d], axis=1))
    return out


def _draws(sizes: Sequence[int], picks: np.ndarray, rng: np.random.Generator
           ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray | None]]:
    """For each episode j that some replicate drew: the (replicate, slot) pairs that drew it, in row-major
    order, and for each such draw the indices of its resampled epochs (None when it has one epoch)."""
    flat = picks.ravel()
    order = np.argsort(flat, kind="stable")  # row-major order within each episode, as np.nonzero gives
    bounds = np.searchsorted(flat[order], np.arange(len(sizes) + 1))
    width = picks.shape[1]
    for j, size in enumerate(sizes):
        where = order[bounds[j]:bounds[j + 1]]
        if where.size == 0:
            continue
        rows, cols = np.divmod(where, width)
        draws = None if size == 1 else rng.integers(0, size, size=(where.size, size))
        yield j, rows, cols, draws


def _resampled_means(episodes: list[np.ndarray], picks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per replicate and drawn slot, the mean over the drawn episode's resampled epochs of each column.
    Shape: (replicates, episodes, columns)."""
    if all(ep.shape[0] == 1 for ep in episodes):  # single epochs: no draw inside an episode
        return np.stack([ep[0] for ep in episodes])[picks]
    reps, n = picks.shape
    out = np.empty((reps, n, episodes[0].shape[1]))
    for j, rows, cols, draws in _draws([ep.shape[0] for ep in episodes], picks, rng):
        ep = episodes[j]
        out[rows, cols] = ep[0] if draws is None else ep[draws].mean(axis=1)
    return out


def _replicate_ratios(episodes: list[np.ndarray], resamples: int, seed: int,
                      rng: np.random.Generator | None = None, picks: np.ndarray | None = None) -> np.ndarray:
    """Sum of numerators over sum of denominators of each replicate (nan where the denominators sum to 0)."""
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if rng is None:
        rng = np.random.default_rng(seed)
    if picks is None:
        picks = rng.integers(0, len(episodes), size=(resamples, len(episodes)))
    sums = _resampled_means(episodes, picks, rng).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sums[:, 1] > 0, sums[:, 0] / np.where(sums[:, 1] > 0, sums[:, 1], 1.0), np.nan)


def _point(episodes: list[np.ndarray]) -> float | None:
    """Sum over episodes of mean numerator over sum of mean denominator (None when nothing is counted)."""
    num = sum(float(ep[:, 0].mean()) for ep in episodes)
    den = sum(float(ep[:, 1].mean()) for ep in episodes)
    return None if den <= 0 else num / den


def bootstrap_replicates(
    values: EpisodeValues, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
    statistic: Callable[[np.ndarray], float] | None = None,
) -> np.ndarray:
    """The bootstrap distribution of `statistic` (default: the mean) over per-episode means.

    Each replicate draws episodes with replacement, then each drawn episode's epochs with
    replacement, and applies `statistic` to the resulting per-episode means."""
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    episodes = _stack(values, None, "bootstrap")
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(episodes), size=(resamples, len(episodes)))
    means = _resampled_means(episodes, picks, rng)[:, :, 0]
    if statistic is None:
        return means.mean(axis=1)
    return np.array([statistic(row) for row in means], dtype=float)


def bootstrap_interval(
    values: EpisodeValues, *, confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """Percentile bootstrap interval for the mean over episodes of each episode's mean over epochs."""
    iv = bootstrap_ratio_interval(values, None, confidence=confidence, resamples=resamples, seed=seed)
    assert iv is not None  # a denominator of 1 per episode is never 0
    return iv


def bootstrap_ratio_interval(
    numerators: EpisodeValues, denominators: EpisodeValues | None, *, confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
) -> Interval | None:
    """Percentile bootstrap interval for sum(numerators) / sum(denominators) over episodes (each episode
    its mean over epochs; numerator and denominator of an epoch are drawn together). None when the
    denominators sum to 0; replicates whose denominators sum to 0 (no defined ratio) are left out."""
    _z(confidence)
    episodes = _stack(numerators, denominators, "bootstrap")
    estimate = _point(episodes)
    if estimate is None:
        return None
    reps = _replicate_ratios(episodes, resamples, seed)
    reps = reps[~np.isnan(reps)]
    if not reps.size:
        return None
    carrying = float(sum(1 for ep in episodes if ep[:, 1].sum() > 0))
    if _no_spread(reps, estimate):
        return Interval(estimate=estimate, low=estimate, high=estimate, confidence=confidence,
                        method="bootstrap-percentile", n=carrying, all_equal=True)
    a = (1.0 - confidence) / 2
    low, high = np.quantile(reps, [a, 1 - a])
    return Interval(estimate=estimate, low=float(low), high=float(high), confidence=confidence,
                    method="bootstrap-percentile", n=carrying)


def _no_spread(reps: np.ndarray, estimate: float) -> bool:
    """Every replicate gave the estimate (up to rounding of sums): the episodes never differed."""
    return bool(np.all(np.abs(reps - estimate) <= 1e-9 * max(1.0, abs(estimate))))


def paired_bootstrap_difference(
    a: EpisodeValues, b: EpisodeValues, *, confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PairedDifference:
    """Mean(A) - mean(B) over the same episodes (same order), resampling episodes jointly.

    Each replicate draws one set of episode indices for both runs, so the pairing is kept; epochs
    are resampled inside each episode separately for A and for B (epochs are not paired)."""
    out = paired_bootstrap_ratio_difference(a, None, b, None, confidence=confidence, resamples=resamples, seed=seed)
    assert out is not None
    return out


def paired_bootstrap_ratio_difference(
    num_a: EpisodeValues, den_a: EpisodeValues | None, num_b: EpisodeValues, den_b: EpisodeValues | None, *,
    confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
) -> PairedDifference | None:
    """Ratio(A) - ratio(B) over the same episodes (same order), each ratio sum(numerators) / sum(denominators)
    as in `bootstrap_ratio_interval`; one draw of episodes serves both runs. None when either ratio is
    undefined on the episodes as observed; replicates where one is undefined are left out."""
    _z(confidence)
    ea, eb = _stack(num_a, den_a, "paired bootstrap (A)"), _stack(num_b, den_b, "paired bootstrap (B)")
    if len(ea) != len(eb):
        raise ValueError(f"paired bootstrap: A has {len(ea)} episodes, B has {len(eb)}; pair the same episodes")
    pa, pb = _point(ea), _point(eb)
    if pa is None or pb is None:
        return None
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(ea), size=(resamples, len(ea)))
    diffs = (_replicate_ratios(ea, resamples, seed, rng=rng, picks=picks)
             - _replicate_ratios(eb, resamples, seed, rng=rng, picks=picks))
    diffs = diffs[~np.isnan(diffs)]
    if not diffs.size:
        return None
    if _no_spread(diffs, pa - pb):
        return PairedDifference(estimate=pa - pb, low=pa - pb, high=pa - pb, p_value=1.0 if pa == pb else 0.0,
                                episodes=len(ea), confidence=confidence, all_equal=True)
    q = (1.0 - confidence) / 2
    low, high = np.quantile(diffs, [q, 1 - q])
    p = min(1.0, 2.0 * min(float(np.mean(diffs <= 0)), float(np.mean(diffs >= 0))))
    return PairedDifference(estimate=pa - pb, low=float(low), high=float(high), p_value=p, episodes=len(ea),
                            confidence=confidence)


def bootstrap_counts(sizes: Sequence[int], *, resamples: int = 1000, seed: int = DEFAULT_SEED) -> np.ndarray:
    """How often each unit is drawn in each replicate, for statistics that are not means (a rank
    correlation). Units are numbered episode by episode (`sizes[j]` units in episode j); the draws are
    those of the other functions here. Shape: (resamples, sum(sizes))."""
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if not sizes or min(sizes) < 1:
        raise ValueError("bootstrap: every episode needs at least one unit")
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(sizes), size=(resamples, len(sizes)))
    counts = np.zeros((resamples, int(sum(sizes))))
    for j, rows, _cols, draws in _draws(list(sizes), picks, rng):
        if draws is None:
            np.add.at(counts, (rows, offsets[j]), 1.0)
        else:
            np.add.at(counts, (np.repeat(rows, draws.shape[1]), (offsets[j] + draws).ravel()), 1.0)
    return counts


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
    from scipy.stats import binom, binomtest

    k = min(n10, n01)
    exact = min(1.0, float(binomtest(k, n, 0.5).pvalue))
    mid = 1.0 if n10 == n01 else exact - float(binom.pmf(k, n, 0.5))  # 2 P(X < k) + P(X = k)
    return McNemarResult(n10=n10, n01=n01, p_exact=exact, p_mid=mid)


def newcombe_paired_difference(a: Sequence[bool], b: Sequence[bool], confidence: float = 0.95) -> PairedDifference:
    """P(A succeeds) - P(B succeeds) over the same episodes with Newcombe's hybrid score interval for paired
    proportions (1998, method 10): the Wilson intervals of both rates, combined with the correlation phi of
    the 2x2 table (a positive one reduced by n/2, as Newcombe recommends). It keeps honest coverage on small benchmarks, where a percentile bootstrap of 0/1
    differences is too narrow; its p-value is McNemar's exact one."""
    n10, n01 = _paired_counts(a, b)
    n = len(a)
    if n == 0:
        raise ValueError("paired difference: no episodes")
    n11 = sum(1 for x, y in zip(a, b) if x and y)
    n00 = n - n11 - n10 - n01
    p1, p2 = (n11 + n10) / n, (n11 + n01) / n
    w1, w2 = wilson_interval(n11 + n10, n, confidence), wilson_interval(n11 + n01, n, confidence)
    den = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    cross = n11 * n00 - n10 * n01  # phi as Newcombe corrects it: a positive association shrunk by n/2
    phi = 0.0 if den == 0 or 0 <= cross <= n / 2 else (cross - (n / 2 if cross > 0 else 0)) / math.sqrt(den)
    d1, u1, d2, u2 = p1 - w1.low, w1.high - p1, p2 - w2.low, w2.high - p2
    below = math.sqrt(max(0.0, d1 * d1 - 2 * phi * d1 * u2 + u2 * u2))
    above = math.sqrt(max(0.0, u1 * u1 - 2 * phi * u1 * d2 + d2 * d2))
    theta = p1 - p2
    return PairedDifference(estimate=theta, low=max(-1.0, theta - below), high=min(1.0, theta + above),
                            p_value=mcnemar(a, b).p_exact, episodes=n, confidence=confidence, method="newcombe")


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
    za, zb = NormalDist().inv_cdf(1 - alpha / 2), NormalDist().inv_cdf(power)
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


def episode_pass_hat_k(successes: int, trials: int, k: int) -> float:
    """One episode's pass^k: the chance that k of its trials, drawn without replacement, all succeed."""
    _check_one(successes, trials, k)
    return _comb_ratio(successes, trials, k)


def episode_pass_at_k(successes: int, trials: int, k: int) -> float:
    """One episode's pass@k: the chance that at least one of k of its trials succeeds."""
    _check_one(successes, trials, k)
    return 1.0 - _comb_ratio(trials - successes, trials, k)


def _check_one(successes: int, trials: int, k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if trials < k:
        raise ValueError(f"{trials} trials; pass@{k} and pass^{k} need at least {k}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be between 0 and {trials}, got {successes}")


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
