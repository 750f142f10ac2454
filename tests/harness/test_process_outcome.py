"""Process against outcome (issue 17, item 4): rank correlation of each process metric with success, with a
bootstrap interval, "not defined" where every episode succeeded or failed, in the report, the comparison
of several runs (episodes pooled) and a plot."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from harness.scoring import score_run, write_comparison
from harness.scoring.process_outcome import correlate, process_correlations, ranks, spearman
from harness.scoring.run import read_episode_scores

from .scoring_fixture import write_run
from .test_process import memory_only_final, reformulated_query, repeated_calls, untraceable


def test_spearman_with_ties_by_hand():
    assert list(ranks(np.array([3.0, 1.0, 3.0, 2.0]))) == [3.5, 1.0, 3.5, 2.0]
    # ranks x 1..4, y 1.5 1.5 3.5 3.5: centred (-1.5 -.5 .5 1.5) . (-1 -1 1 1) = 4, norms 5 and 4
    assert spearman(np.array([1.0, 2, 3, 4]), np.array([0.0, 0, 1, 1])) == pytest.approx(4 / math.sqrt(20))
    assert spearman(np.array([1.0, 1, 1]), np.array([0.0, 1, 1])) is None


def test_correlation_is_not_defined_when_every_episode_succeeded_or_the_metric_is_constant():
    assert correlate("m", "episode", [(1.0, True), (2.0, True), (3.0, True)]).note == "not defined: every episode succeeded"
    assert correlate("m", "turn", [(1.0, False)] * 4).note == "not defined: every turn was wrong"
    assert correlate("m", "episode", [(0.5, True), (0.5, False), (0.5, True)]).note == "not defined: the metric is 0.5 on every episode"
    assert "2 episodes" in correlate("m", "episode", [(1.0, True), (2.0, False)]).note
    c = correlate("m", "episode", [(float(i), i >= 5) for i in range(10)] + [(7.0, False), (2.0, True)])
    assert c.rho is not None and c.low is not None and c.high is not None
    assert -1.0 <= c.low <= c.rho <= c.high <= 1.0 and c.note == ""
    assert correlate("m", "episode", [(float(i), i >= 5) for i in range(10)] + [(7.0, False), (2.0, True)]) == c  # seeded


def _run(root: Path, run_id: str) -> Path:
    built = [repeated_calls(), reformulated_query(), memory_only_final(), untraceable()]
    root.mkdir(parents=True, exist_ok=True)
    run = write_run(root, [e for e, _ in built], {b.ep: b.lines() for _, b in built}, run_id=run_id)
    score_run(run)
    return run


def test_one_run_by_hand_and_several_runs_pooled(tmp_path: Path):
    a = _run(tmp_path / "a", "run-a")
    episodes = read_episode_scores(a)
    assert [e.success for e in episodes] == [True, True, True, False]  # U1 fails
    corrs = {(c.level, c.metric): c for c in process_correlations(episodes)}
    # grounding R1 1, F1 1, M1 1, U1 0 against success 1 1 1 0: the same order, rho 1
    assert corrs[("episode", "grounding")].rho == pytest.approx(1.0) and corrs[("episode", "grounding")].n == 4
    # redundancy R1 2/6, F1 1/6, M1 0, U1 0 (ranks 4, 3, 1.5, 1.5) against success ranks 3, 3, 3, 1: 2 / sqrt(4.5 * 3)
    assert corrs[("episode", "redundancy")].rho == pytest.approx(2 / 13.5 ** 0.5)
    assert corrs[("episode", "reuse")].note == "not defined: 2 episodes with this metric"  # M1 and U1 only
    report = (a / "report.md").read_text()
    assert "| episode | grounding | 4 | +1.00 |" in report and (a / "plots" / "process_vs_outcome.png").is_file()

    b = _run(tmp_path / "b", "run-b")
    md = write_comparison([a, b], tmp_path / "board").read_text()
    assert "## Process against outcome (episodes of all runs pooled)" in md
    assert "| episode | grounding | 8 | +1.00 |" in md
    assert "## Process from the trace (all episodes)" in md and "| run-a | 1.25 |" in md
    assert (tmp_path / "board" / "plots" / "process_vs_outcome.png").stat().st_size > 10_000
