"""`epi compare` pairs runs over the same episodes (issue 16): the difference with its interval, McNemar on episode
success, a paired bootstrap on the rest, the minimal detectable difference, a verdict in words; it refuses to pair
runs over different episode files. Hand-written traces, every number worked out by hand."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from .scoring_fixture import NUM, TraceBuilder, episode, turn, write_run
from .test_run_cli import epi

Z, ZB = 1.959963984540054, 0.8416212335729143  # the 97.5% and 80% points of the standard normal
IDS = [f"E{i}" for i in range(1, 7)]


def _run(root: Path, run_id: str, right: set[str]) -> Path:
    """Six one-turn episodes over one episode file; the run answers right exactly on `right`."""
    eps = [episode(e, "easy" if i < 3 else "hard", [turn("t1", NUM, [(f"P{e}", "table:1")], checklist=1)])
           for i, e in enumerate(IDS)]
    traces = {e: TraceBuilder(e, n_turns=1).turn().call("table_extract", (f"P{e}", "table:1"))
              .answer("35.2" if e in right else "12").end().lines() for e in IDS}
    return write_run(root, eps, traces, run_id=run_id)


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, Path]:
    return {"all": _run(tmp_path, "all-right", set(IDS)), "none": _run(tmp_path, "all-wrong", set()),
            "half": _run(tmp_path, "half-right", {"E4", "E5", "E6"})}


def _compare(args: list[str], capsys, monkeypatch) -> dict:  # noqa: ANN001
    code, out = epi(["compare", *args, "--json"], capsys, monkeypatch)
    assert code == 0, out
    return json.loads(out[out.index("{"):])


def test_six_to_none_is_detectable(runs, capsys, monkeypatch):
    got = _compare([str(runs["all"]), str(runs["none"])], capsys, monkeypatch)
    assert got["baseline"] == "all-right"
    (c,) = got["paired"]
    assert (c["run"], c["baseline"], c["episodes"]) == ("all-wrong", "all-right", 6)
    # the baseline succeeds on all 6 discordant episodes: X ~ Bin(6, 1/2), exact p = 2 P(X <= 0) = 2/64; mid-p 1/64
    assert (c["mcnemar"]["n10"], c["mcnemar"]["n01"]) == (0, 6)
    assert c["mcnemar"]["p_exact"] == pytest.approx(2 / 64) and c["mcnemar"]["p_mid"] == pytest.approx(1 / 64)
    esr = c["rows"][0]
    assert (esr["metric"], esr["test"], esr["detectable"]) == ("ESR", "mcnemar-exact", True)
    # Newcombe: rates 0 and 1; Wilson 0 of 6 = [0, 0.390334], 6 of 6 = [0.609666, 1]; phi 0 (a margin is empty);
    # low = -1 - sqrt(0 + 0) = -1, high = -1 + sqrt(0.390334^2 + 0.390334^2) = -0.447980
    d = esr["difference"]
    assert (d["estimate"], d["low"], d["high"], d["method"]) == (-100.0, -100.0, pytest.approx(-44.798, abs=1e-2), "newcombe")
    # minimal detectable difference, discordance 1: sqrt(6) d = z + zb sqrt(1 - d^2); at d = 0.92809 both sides are
    # 2.27335 (1.959964 + 0.841621 x 0.372356)
    mdd = c["mdd"]["mdd"]
    assert mdd == pytest.approx(0.92809, abs=1e-4)
    assert math.sqrt(6) * mdd == pytest.approx(Z + ZB * math.sqrt(1 - mdd ** 2), abs=1e-9)
    assert c["verdict"].startswith("all-wrong against all-right: a detectable difference, ESR -100.0 points")
    assert "the smallest ESR difference detectable (alpha 0.05, power 0.8) is 92.8 points" in c["verdict"]
    # Acc_final is 0/1 per episode too (here the same as success): the same test
    fin = c["rows"][1]
    assert (fin["metric"], fin["test"], fin["detectable"]) == ("Acc_final", "mcnemar-exact", True)
    assert fin["p_value"] == pytest.approx(2 / 64) and fin["mcnemar"]["n01"] == 6
    # EC has no correct turn in all-wrong (n/a), MG no successful episode: nothing to compare
    assert [r["metric"] for r in c["rows"]] == ["ESR", "Acc_final", "Acc_pre", "EC", "MG"]
    assert c["rows"][2]["difference"] is None and c["rows"][3]["detectable"] is None and c["rows"][4]["p_value"] is None


def test_three_to_none_is_not_and_says_how_many_episodes_would_be_needed(runs, capsys, monkeypatch):
    (c,) = _compare([str(runs["all"]), str(runs["half"])], capsys, monkeypatch)["paired"]
    # 3 discordant, all for the baseline: exact p = 2 P(X <= 0), X ~ Bin(3, 1/2) = 2/8; mid-p 1/8
    assert c["mcnemar"]["p_exact"] == pytest.approx(0.25) and c["mcnemar"]["p_mid"] == pytest.approx(0.125)
    assert c["rows"][0]["detectable"] is False
    # Newcombe: rates 1/2 (run) and 1 (baseline), theta -1/2; Wilson 3 of 6 = [0.187600, 0.812400], 6 of 6 =
    # [0.609666, 1]; phi 0 (the baseline never fails); low = -0.5 - sqrt((0.5 - 0.1876)^2 + (1 - 1)^2) = -0.812400,
    # high = -0.5 + sqrt((0.8124 - 0.5)^2 + (1 - 0.609666)^2) = -0.5 + 0.499956: it just reaches 0, as p = 0.25 says
    d = c["rows"][0]["difference"]
    assert (d["low"], d["high"]) == (pytest.approx(-81.24, abs=1e-2), pytest.approx(-0.0044, abs=1e-2))
    # discordance 1/2: sqrt(6) d = z sqrt(1/2) + zb sqrt(1/2 - d^2) is solved at d = 0.657 > 1/2, the most a paired
    # difference can be at this discordance: no difference reaches power 0.8 with 6 episodes
    assert c["mdd"]["discordance"] == 0.5 and c["mdd"]["mdd"] is None
    assert c["verdict"].startswith("half-right against all-right: no detectable difference, ESR -50.0 points")
    assert "6 episodes are too few to reach power 0.8" in c["verdict"]


def test_identical_runs_pair_and_show_no_difference(runs, tmp_path, capsys, monkeypatch):
    (tmp_path / "copy").mkdir()
    again = _run(tmp_path / "copy", "half-again", {"E4", "E5", "E6"})  # a copy of the episode file elsewhere: same hash
    assert json.loads((again / "run.json").read_text())["episodes_path"] != json.loads((runs["half"] / "run.json").read_text())["episodes_path"]
    code, out = epi(["compare", str(runs["half"]), str(again)], capsys, monkeypatch)
    assert code == 0, out
    assert "half-again against half-right: no detectable difference, ESR +0.0 points" in out
    assert "the runs agree on every episode, so their discordance (0) cannot size" in out
    (c,) = _compare([str(runs["half"]), str(again)], capsys, monkeypatch)["paired"]
    assert c["mcnemar"] == {"n10": 0, "n01": 0, "p_exact": 1.0, "p_mid": 1.0}
    assert [r["detectable"] for r in c["rows"][:2]] == [False, False]
    # reference: discordance 0.1 with 6 episodes reaches power 0.8 for no difference at all
    assert [r["discordance"] for r in c["reference_mdd"]] == [0.1, 0.2, 0.3]


def test_more_runs_pair_each_against_the_first_or_the_baseline(runs, tmp_path, capsys, monkeypatch):
    code, out = epi(["compare", str(runs["all"]), str(runs["none"]), str(runs["half"]), "--out", str(tmp_path / "cmp")],
                    capsys, monkeypatch)
    assert code == 0, out
    assert "Paired comparisons: each run against the baseline all-right (the first run)." in out
    assert out.count("against all-right:") == 2
    md = (tmp_path / "cmp" / "comparison.md").read_text()
    assert "## Paired against the baseline" in md and "### all-wrong against all-right" in md
    assert "| ESR % | 0.0 | 100.0 | -100.0 [-100.0, -44.8] | McNemar exact (0 vs 6 discordant; mid-p 0.016), Newcombe interval" in md
    got = _compare([str(runs["all"]), str(runs["none"]), "--baseline", str(runs["half"])], capsys, monkeypatch)
    assert got["baseline"] == "half-right" and [c["run"] for c in got["paired"]] == ["all-right", "all-wrong"]


def test_runs_over_different_episode_files_are_refused_clearly(runs, tmp_path, capsys, monkeypatch):
    other_root = tmp_path / "other"
    other_root.mkdir()
    eps = [episode("E1", "easy", [turn("t1", NUM, [("PE1", "table:1")])])]
    tb = TraceBuilder("E1", n_turns=1).turn().answer("35.2").end()
    other = write_run(other_root, eps, {"E1": tb.lines()}, run_id="other-file")
    out_dir = tmp_path / "cmp"
    code, out = epi(["compare", str(runs["all"]), str(other), "--out", str(out_dir)], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in out, out
    assert "runs 'other-file' and 'all-right' were scored on different episode files" in out
    assert "a paired comparison needs the same episodes" in out and "--no-pair" in out
    assert not out_dir.exists(), "nothing is written when the pairing is refused"
    code, out = epi(["compare", str(runs["all"]), str(other), "--no-pair"], capsys, monkeypatch)
    assert code == 0 and "Leaderboard" in out and "Paired" not in out, out


def test_repeated_runs_are_paired_by_the_bootstrap_with_epochs_inside(tmp_path, capsys, monkeypatch):
    """Two runs of 2 epochs over 4 episodes: A right every time; B wrong every time on E1-E3, right on E4. With the
    mean of epochs success is not 0/1 per episode, so ESR is tested by the paired bootstrap."""
    from .test_scoring_uncertainty import epochs_run

    ids = ["E1", "E2", "E3", "E4"]
    eps = [episode(e, "easy", [turn("t1", NUM, [(f"P{e}", "table:1")], checklist=1)]) for e in ids]

    def traces(right: set[str]) -> dict[str, list[str]]:
        return {e: TraceBuilder(e, n_turns=1).turn().call("table_extract", (f"P{e}", "table:1"))
                .answer("35.2" if e in right else "12").end().lines() for e in ids}

    a = epochs_run(tmp_path, eps, {1: traces(set(ids)), 2: traces(set(ids))}, run_id="a")
    b = epochs_run(tmp_path, eps, {1: traces({"E4"}), 2: traces({"E4"})}, run_id="b")
    (c,) = _compare([str(b), str(a)], capsys, monkeypatch)["paired"]
    assert (c["epochs"], c["reducer"], c["mcnemar"]) == ([2, 2], "mean", None)
    esr = c["rows"][0]
    # per-episode differences A - B are (1, 1, 1, 0) whatever epochs are drawn: a replicate's mean is k/4 with
    # k ~ Bin(4, 3/4); P(k = 0) = 1/256 and P(k <= 1) = 13/256 = 0.051, so the 2.5% point is 1/4; P(k <= 3) =
    # 175/256 < 0.975, so the 97.5% point is 1. Two-sided p = 2 P(k = 0) = 2/256
    assert esr["test"] == "paired-bootstrap" and esr["difference"]["method"] == "paired-bootstrap"
    assert (esr["difference"]["estimate"], esr["difference"]["low"], esr["difference"]["high"]) == (75.0, 25.0, 100.0)
    assert esr["p_value"] == pytest.approx(2 / 256, abs=0.004) and esr["detectable"] is True
    # discordance: mean squared per-episode difference of success rates = 3/4
    assert c["mdd"]["discordance"] == 0.75
