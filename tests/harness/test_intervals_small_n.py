"""Issue 29, item 4: intervals that never claim a certainty the data cannot give.

On 1 to 3 episodes, and for two runs that agree on every episode, no interval has zero width: EC is a
proportion of evidence units with a Wilson interval at Kish's effective number; a bootstrap with nothing to
resample (every episode alike) says "all n equal". Where an interval and the exact test disagree about zero,
the exact test decides and the comparison says so.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.scoring import SCORER_VERSION, score_run
from harness.scoring.stats import clopper_pearson_interval, mcnemar, wilson_interval

from .scoring_fixture import NUM, TraceBuilder, episode, turn, write_run
from .test_run_cli import epi
from .test_scoring_paired import _run

ZERO_WIDTH = re.compile(r"\[([+-]?\d+\.\d+), \1\]")  # "[100.00, 100.00]", "[+0.0, +0.0]"


def _right_run(root: Path, n: int, run_id: str = "small") -> Path:
    """n one-turn episodes, each answered right after reading its one required table (EC 100, MG 1.0)."""
    ids = [f"E{i}" for i in range(1, n + 1)]
    eps = [episode(e, "easy", [turn("t1", NUM, [(f"P{e}", "table:1")], checklist=1)]) for e in ids]
    traces = {e: TraceBuilder(e, n_turns=1).turn().call("table_extract", (f"P{e}", "table:1")).answer("35.2").end().lines()
              for e in ids}
    return write_run(root, eps, traces, run_id=run_id)


@pytest.mark.parametrize("n, ec_low", [(1, 20.6543), (3, 43.8503)])
def test_ec_and_mg_on_one_to_three_episodes_have_no_zero_width_interval(tmp_path: Path, n: int, ec_low: float):
    run = _right_run(tmp_path, n)
    s = score_run(run)
    iv = s.all.intervals
    assert (s.all.ec, s.all.mg) == (100.0, 1.0)
    # EC: n of n evidence units right, one per episode: Wilson n of n, as wide as the episodes allow
    assert (iv.ec.method, iv.ec.n, iv.ec.high) == ("wilson", float(n), 100.0)
    assert iv.ec.low == pytest.approx(ec_low, abs=1e-3)
    # MG: every successful episode made 1 call for a checklist of 1: the bootstrap has nothing to resample
    assert iv.mg.all_equal and iv.mg.n == n and iv.mg.low == iv.mg.high == 1.0
    report = (run / "report.md").read_text()
    said = "only 1 episode" if n == 1 else f"all {n} equal"
    assert f"1.00 [{said}]" in report
    assert not ZERO_WIDTH.search(report), ZERO_WIDTH.search(report)
    saved = json.loads((run / "scores.json").read_text())
    assert saved["scorer_version"] == SCORER_VERSION and saved["all"]["intervals"]["mg"]["all_equal"] is True


def test_ec_counts_units_of_one_episode_as_one_cluster(tmp_path: Path):
    """Two episodes with two required units each: E1 reads both, E2 neither (its answer is right all the same).
    Four units, two clusters that are all alike inside: the effective number is 2 (the episodes), not 4."""
    eps, traces = [], {}
    for e, reads in (("E1", True), ("E2", False)):
        eps.append(episode(e, "easy", [turn("t1", NUM, [(f"P{e}", "table:1"), (f"P{e}", "table:2")], checklist=2)]))
        tb = TraceBuilder(e, n_turns=1).turn()
        if reads:
            tb.call("table_extract", (f"P{e}", "table:1")).call("table_extract", (f"P{e}", "table:2"))
        traces[e] = tb.answer("35.2").end().lines()
    s = score_run(write_run(tmp_path, eps, traces))
    iv = s.all.intervals.ec
    assert s.all.ec == 50.0 and iv.n == 2.0
    w = wilson_interval(1, 2)
    assert (iv.low, iv.high) == (pytest.approx(100 * w.low), pytest.approx(100 * w.high))


def test_identical_runs_print_all_pairs_equal_not_a_zero_width_difference(tmp_path: Path, capsys, monkeypatch):
    a = _run(tmp_path, "half-right", {"E4", "E5", "E6"})
    (tmp_path / "copy").mkdir()
    b = _run(tmp_path / "copy", "half-again", {"E4", "E5", "E6"})
    code, out = epi(["compare", str(a), str(b), "--out", str(tmp_path / "cmp")], capsys, monkeypatch)
    assert code == 0, out
    md = (tmp_path / "cmp" / "comparison.md").read_text()
    for text in (out, md):
        assert not ZERO_WIDTH.search(text), ZERO_WIDTH.search(text)
        assert "+0.0 [all 6 pairs equal]" in text  # EC and Acc: the bootstrap of the paired difference
    code, out = epi(["compare", str(a), str(b), "--json"], capsys, monkeypatch)
    (c,) = json.loads(out[out.index("{"):])["paired"]
    ec = next(r for r in c["rows"] if r["metric"] == "EC")
    assert ec["difference"]["all_equal"] is True and ec["detectable"] is False


def test_where_the_interval_and_the_exact_test_disagree_the_test_decides_and_says_so(tmp_path: Path, capsys, monkeypatch):
    """4 of 6 episodes succeed only in the run: Newcombe's interval is [+13.1, +90.3] (excludes 0), McNemar's exact
    p = 2 x (1/2)^4 = 0.125 (does not reject). The verdict follows the test and says why they differ."""
    base = _run(tmp_path, "none", set())
    run = _run(tmp_path, "four", {"E3", "E4", "E5", "E6"})
    code, out = epi(["compare", str(base), str(run), "--json"], capsys, monkeypatch)
    (c,) = json.loads(out[out.index("{"):])["paired"]
    esr = c["rows"][0]
    assert esr["p_value"] == pytest.approx(0.125) and esr["detectable"] is False
    assert esr["difference"]["low"] == pytest.approx(13.1, abs=0.1)
    assert "the exact test decides" in esr["note"] and "excludes 0" in esr["note"]
    assert "no detectable difference" in c["verdict"] and "the exact test decides" in c["verdict"]
    code, out = epi(["compare", str(base), str(run)], capsys, monkeypatch)
    assert "the exact test decides" in out and "(the test decides" in out


def test_wilson_and_clopper_pearson_are_scipys_on_whole_counts_and_continuous_on_fractional_ones():
    from scipy.stats import binomtest

    for k, n in ((0, 1), (1, 1), (2, 3), (7, 110), (110, 110)):
        for method, ours in (("wilson", wilson_interval), ("exact", clopper_pearson_interval)):
            ci = binomtest(k, n).proportion_ci(method=method)
            got = ours(k, n)
            assert (got.low, got.high) == (pytest.approx(ci.low, abs=1e-12), pytest.approx(ci.high, abs=1e-12))
    # an effective number of units is fractional: the written-out formula meets scipy's at the whole count
    for ours in (wilson_interval, clopper_pearson_interval):
        near, whole = ours(2.0000001, 3.0000001), ours(2, 3)
        assert (near.low, near.high) == (pytest.approx(whole.low, abs=1e-6), pytest.approx(whole.high, abs=1e-6))


def test_mcnemar_mid_p_is_the_exact_p_less_the_observed_point():
    # 1 vs 5 discordant: exact p = 2 P(X <= 1) = 2 x 7/64; mid-p = 2 P(X < 1) + P(X = 1) = 2/64 + 6/64
    m = mcnemar([True] + [False] * 5, [False] + [True] * 5)
    assert (m.p_exact, m.p_mid) == (pytest.approx(14 / 64), pytest.approx(8 / 64))
    assert mcnemar([True, False], [False, True]).p_mid == 1.0
