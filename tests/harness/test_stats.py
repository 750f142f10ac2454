"""harness.scoring.stats against values worked out by hand (the working is in each comment)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from harness.scoring import stats

Z = 1.959963984540054  # the 97.5% point of the standard normal


def test_wilson_gives_zero_and_full_scores_an_honest_width():
    # k=0, n=10: center = (z^2/2n) / (1 + z^2/n) = 0.192073 / 1.384146 = 0.138767 and the half-width is
    # the same, so the interval is [0, 0.277533]
    iv = stats.wilson_interval(0, 10)
    assert iv.estimate == 0.0 and iv.low == 0.0
    assert iv.high == pytest.approx(0.277533, abs=1e-6)
    # k=10 mirrors it
    full = stats.wilson_interval(10, 10)
    assert full.high == 1.0 and full.low == pytest.approx(1 - 0.277533, abs=1e-6)
    # k=7: center (0.7 + 0.192073) / 1.384146 = 0.644494; half z*sqrt(0.021 + 0.0096036)/1.384146 = 0.247716
    mid = stats.wilson_interval(7, 10)
    assert (mid.low, mid.high) == (pytest.approx(0.396778, abs=1e-5), pytest.approx(0.892210, abs=1e-5))
    assert mid.method == "wilson" and mid.confidence == 0.95


def test_clopper_pearson_matches_the_closed_form_at_the_edges_and_the_table_inside():
    # 0 of n: upper = 1 - (alpha/2)^(1/n) = 1 - 0.025^(1/10) = 0.308497
    iv = stats.clopper_pearson_interval(0, 10)
    assert iv.low == 0.0 and iv.high == pytest.approx(1 - 0.025 ** 0.1, abs=1e-9)
    assert iv.high == pytest.approx(0.308497, abs=1e-6)
    full = stats.clopper_pearson_interval(10, 10)
    assert full.high == 1.0 and full.low == pytest.approx(0.025 ** 0.1, abs=1e-9)
    # 7 of 10: the published exact interval (0.3475, 0.9333)
    mid = stats.clopper_pearson_interval(7, 10)
    assert (round(mid.low, 4), round(mid.high, 4)) == (0.3475, 0.9333)
    # never narrower than Wilson at the edges
    assert iv.high > stats.wilson_interval(0, 10).high


@pytest.mark.parametrize("call", [lambda: stats.wilson_interval(1, 0), lambda: stats.wilson_interval(11, 10),
                                  lambda: stats.clopper_pearson_interval(-1, 5),
                                  lambda: stats.wilson_interval(1, 5, confidence=1.5)])
def test_impossible_counts_are_refused(call):
    with pytest.raises(ValueError):
        call()


def test_mcnemar_exact_and_mid_p_on_the_discordant_pairs():
    # A wins 5 discordant episodes, B wins 1: X ~ Bin(6, 1/2), P(X <= 1) = 7/64, exact p = 14/64,
    # mid-p = 14/64 - P(X = 1) = 14/64 - 6/64 = 8/64
    a = [True] * 5 + [False] * 1 + [True] * 3 + [False] * 2
    b = [False] * 5 + [True] * 1 + [True] * 3 + [False] * 2
    r = stats.mcnemar(a, b)
    assert (r.n10, r.n01, r.discordant) == (5, 1, 6)
    assert r.p_exact == pytest.approx(14 / 64) and r.p_mid == pytest.approx(8 / 64)
    # 6 to 0: exact 2/64, mid-p 1/64
    r = stats.mcnemar([True] * 6, [False] * 6)
    assert r.p_exact == pytest.approx(2 / 64) and r.p_mid == pytest.approx(1 / 64)
    # 3 to 3: no evidence either way, both capped at 1
    r = stats.mcnemar([True, True, True, False, False, False], [False, False, False, True, True, True])
    assert r.p_exact == 1.0 and r.p_mid == pytest.approx(1.0)
    # identical runs: nothing discordant
    assert stats.mcnemar([True, False], [True, False]).p_exact == 1.0
    with pytest.raises(ValueError, match="pair the same episodes"):
        stats.mcnemar([True], [True, False])


def test_minimal_detectable_difference_solves_connors_relation():
    # n = 100, discordance 0.2: solve 10 d = z*sqrt(0.2) + 0.841621*sqrt(0.2 - d^2); by hand d = 0.12382
    r = stats.minimal_detectable_difference(100, 0.2)
    assert r.mdd == pytest.approx(0.12382, abs=2e-4)
    # put back into the sample-size formula it needs exactly 100 episodes
    zb = 0.8416212335729143
    n = (Z * math.sqrt(0.2) + zb * math.sqrt(0.2 - r.mdd ** 2)) ** 2 / r.mdd ** 2
    assert n == pytest.approx(100, rel=1e-6)
    # more episodes see smaller differences; more disagreement needs larger ones
    assert stats.minimal_detectable_difference(400, 0.2).mdd < r.mdd < stats.minimal_detectable_difference(100, 0.4).mdd
    assert stats.discordance([True, True, False, False], [True, False, True, False]) == 0.5
    # two runs that never disagree give nothing to size a difference from
    assert stats.minimal_detectable_difference(110, 0.0).mdd is None
    # three episodes cannot reach 80% power for any difference
    assert stats.minimal_detectable_difference(3, 0.5).mdd is None


def test_pass_hat_k_and_pass_at_k_as_tau_bench_defines_them():
    # episode A: 2 of 4 trials succeed; B: 4 of 4.
    trials = [[True, True, False, False], [True, True, True, True]]
    # pass^2: A C(2,2)/C(4,2) = 1/6, B 1 -> 7/12; pass@2: A 1 - C(2,2)/C(4,2) = 5/6, B 1 -> 11/12
    assert stats.pass_hat_k(trials, 2) == pytest.approx(7 / 12)
    assert stats.pass_at_k(trials, 2) == pytest.approx(11 / 12)
    # k = 1 both are the mean success rate: (0.5 + 1) / 2
    assert stats.pass_hat_k(trials, 1) == stats.pass_at_k(trials, 1) == pytest.approx(0.75)
    # k = n: pass^4 needs all four (A 0, B 1); pass@4 needs one (both 1)
    assert stats.pass_hat_k(trials, 4) == pytest.approx(0.5) and stats.pass_at_k(trials, 4) == pytest.approx(1.0)
    # 2 of 3 trials, k = 2: C(2,2)/C(3,2) = 1/3
    assert stats.pass_hat_k([[True, False, True]], 2) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="episode #0 has 4 epochs; pass@5 and pass\\^5 need at least 5"):
        stats.pass_hat_k(trials, 5)


def test_bootstrap_resamples_epochs_inside_their_episode():
    # one episode with epochs (0, 1): resampling its epochs gives 0, 0.5, 1 with chance 1/4, 1/2, 1/4
    reps = stats.bootstrap_replicates([[0.0, 1.0]], resamples=20_000, seed=1)
    values, counts = np.unique(reps, return_counts=True)
    assert list(values) == [0.0, 0.5, 1.0]
    assert counts / counts.sum() == pytest.approx([0.25, 0.5, 0.25], abs=0.015)
    # two episodes, each constant across its epochs: episodes are resampled, but epochs never cross
    # episodes, so every replicate is 0, 0.5 or 1 (pooling epochs would also give 0.25 and 0.75)
    reps = stats.bootstrap_replicates([[0.0, 0.0], [1.0, 1.0]], resamples=20_000, seed=2)
    values, counts = np.unique(reps, return_counts=True)
    assert list(values) == [0.0, 0.5, 1.0]
    assert counts / counts.sum() == pytest.approx([0.25, 0.5, 0.25], abs=0.015)


def test_bootstrap_interval_by_hand_and_reproducible_from_its_seed():
    # 3 episodes (0, 0, 1): the resampled mean is k/3 with k ~ Bin(3, 1/3): P = 8/27, 12/27, 6/27, 1/27.
    # The 2.5% point is 0 (P(0) = 0.30); the 97.5% point is 1 (P(<= 2/3) = 26/27 = 0.963 < 0.975)
    iv = stats.bootstrap_interval([[0.0], [0.0], [1.0]])
    assert (iv.estimate, iv.low, iv.high) == (pytest.approx(1 / 3), 0.0, 1.0)
    assert iv == stats.bootstrap_interval([[0.0], [0.0], [1.0]]), "the default seed makes it reproducible"
    # 10 episodes, 3 successes: the bootstrap standard error is the plug-in sqrt(0.3 * 0.7 / 10) = 0.1449
    reps = stats.bootstrap_replicates([[1.0]] * 3 + [[0.0]] * 7, resamples=20_000, seed=3)
    assert reps.std() == pytest.approx(math.sqrt(0.21 / 10), abs=0.004)
    # per-episode means of epochs: (1, 0) and (1, 1) give 0.5 and 1 -> estimate 0.75
    assert stats.bootstrap_interval([[1.0, 0.0], [1.0, 1.0]]).estimate == pytest.approx(0.75)
    with pytest.raises(ValueError, match="episode #1 has no epochs"):
        stats.bootstrap_interval([[1.0], []])


def test_paired_bootstrap_keeps_the_pairing():
    # per-episode differences (1, 1, 1, 0): the resampled mean difference is Bin(4, 3/4) / 4, so
    # P(0) = 1/256, P(<= 0.25) = 13/256 = 0.051: the 2.5% point is 0.25; P(<= 0.75) = 175/256 = 0.68:
    # the 97.5% point is 1. Two-sided p = 2 P(diff <= 0) = 2/256
    r = stats.paired_bootstrap_difference([[1.0], [1.0], [1.0], [0.0]], [[0.0], [0.0], [0.0], [0.0]])
    assert (r.estimate, r.low, r.high) == (pytest.approx(0.75), 0.25, 1.0)
    assert r.p_value == pytest.approx(2 / 256, abs=0.004) and r.episodes == 4
    # identical runs: every replicate difference is exactly 0, however the episodes vary
    same = [[0.0], [1.0], [1.0], [0.0], [1.0]]
    r = stats.paired_bootstrap_difference(same, same)
    assert (r.estimate, r.low, r.high, r.p_value) == (0.0, 0.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="A has 2 episodes, B has 1"):
        stats.paired_bootstrap_difference([[1.0], [0.0]], [[1.0]])
