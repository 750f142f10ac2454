"""Issue 16 through the scoring entry points: epochs reduced per episode (mean, majority, pass@k, pass^k), 95%
intervals in scores.json and report.md, on hand-written traces whose every number is worked out by hand below.

z = 1.959964 (97.5% normal point), z^2 = 3.841459. Wilson(k of n): centre (k/n + z^2/2n) / (1 + z^2/n), half-width
z sqrt(k/n (1 - k/n) / n + z^2 / 4n^2) / (1 + z^2/n).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.scoring import score_run
from harness.scoring.run import read_episode_scores

from .scoring_fixture import CHOICE_A, NUM, TraceBuilder, episode, turn, write_run
from .test_run_cli import epi


def epochs_run(root: Path, episodes: list[dict], by_epoch: dict[int, dict[str, list[str]]], run_id: str = "rep") -> Path:
    """A run made with len(by_epoch) epochs: epoch 1 in traces/, epoch k in traces/epoch=k/."""
    n = len(by_epoch)
    run = write_run(root, episodes, by_epoch[1], run_id=run_id, config={"epochs": n, "settings": {"agent": "fixture", "epochs": n}})
    for k, traces in by_epoch.items():
        if k == 1:
            continue
        folder = run / "traces" / f"epoch={k}"
        folder.mkdir(parents=True)
        for eid, lines in traces.items():
            (folder / f"{eid}.jsonl").write_text("".join(line + "\n" for line in lines))
    return run


def one_turn(eid: str, split: str, paper: str, reads: int = 1) -> tuple[dict, list[str]]:
    """One turn that needs (paper, table:1); `reads` calls each expose (`paper`, table:1) and the answer is right."""
    ep = episode(eid, split, [turn("t1", NUM, [(f"P{eid}", "table:1")], checklist=1)])
    tb = TraceBuilder(eid, split=split, n_turns=1).turn()
    for _ in range(reads):
        tb.call("table_extract", (paper, "table:1"))
    return ep, tb.answer("35.2").end().lines()


def two_turns(eid: str, first: str, final: str) -> tuple[dict, list[str]]:
    """A number turn that reads the table, then a memory-only choice; `first` and `final` are the answers."""
    ep = episode(eid, "easy", [turn("t1", NUM, [(f"P{eid}", "table:1")], checklist=1),
                               turn("t2", CHOICE_A, [(f"P{eid}", "table:1")], memory_only=True)])
    tb = (TraceBuilder(eid, n_turns=2).turn().call("table_extract", (f"P{eid}", "table:1")).answer(first)
          .turn(memory_only=True).answer(final).end())
    return ep, tb.lines()


@pytest.fixture
def reducers_run(tmp_path: Path) -> Path:
    """Three episodes, two epochs: E1 right twice; E2 right, then its first turn wrong; E3 its final wrong, then
    both wrong. Episode success: E1 (1, 1), E2 (1, 0), E3 (0, 0). Final turn: (1, 1), (1, 1), (0, 0). First
    (non-final) turn: (1, 1), (1, 0), (1, 0)."""
    plan = {1: {"E1": ("35.2", "A"), "E2": ("35.2", "A"), "E3": ("35.2", "B")},
            2: {"E1": ("35.2", "A"), "E2": ("99", "A"), "E3": ("99", "B")}}
    eps = [two_turns(e, "35.2", "A")[0] for e in ("E1", "E2", "E3")]
    traces = {k: {e: two_turns(e, *ans)[1] for e, ans in answers.items()} for k, answers in plan.items()}
    return epochs_run(tmp_path, eps, traces)


WILSON_1_OF_3 = (0.061490, 0.792340)  # centre (1/3 + 0.640243) / 2.280486 = 0.426915, half 0.365425
WILSON_3_OF_6 = (0.187600, 0.812400)  # centre 0.5, half z sqrt(0.25/6 + z^2/144) / 1.640243 = 0.312400


@pytest.mark.parametrize("reducer, esr, final, pre", [
    ("mean", 50.0, 200 / 3, 200 / 3),     # 3 of 6 successes; 4 of 6 finals; 4 of 6 first turns
    ("majority", 100 / 3, 200 / 3, 100 / 3),  # E1 only (a 1-1 tie counts as wrong); finals E1, E2; first turns E1
    ("pass@2", 200 / 3, 200 / 3, 100.0),  # at least one of two: E1, E2; E1, E2; every first turn
    ("pass^2", 100 / 3, 200 / 3, 100 / 3),  # both of two: E1; E1, E2; E1
    ("pass^1", 50.0, 200 / 3, 200 / 3),   # pass^1 is the mean
])
def test_each_reducer_by_hand(reducers_run: Path, reducer: str, esr: float, final: float, pre: float):
    s = score_run(reducers_run, reducer=reducer)
    assert (s.epochs, s.reducer) == (2, reducer)
    assert (s.all.esr, s.all.acc_final, s.all.acc_pre) == (pytest.approx(esr), pytest.approx(final), pytest.approx(pre))
    assert s.all.episodes == 3 and s.all.successful_episodes == 3  # episode runs that succeeded: E1 twice, E2 once
    saved = json.loads((reducers_run / "scores.json").read_text())
    assert saved["reducer"] == reducer and saved["all"]["esr"] == pytest.approx(esr)
    assert f"reduce them with `{reducer}`" in (reducers_run / "report.md").read_text()


def test_pass_at_k_table_and_the_intervals_of_repeated_runs(reducers_run: Path):
    s = score_run(reducers_run)
    # pass@1 = pass^1 = 3/6; pass@2: E1 1, E2 1 - C(1,2)/C(2,2) = 1, E3 0; pass^2: E1 C(2,2)/C(2,2) = 1, E2 0, E3 0
    got = {p.k: (p.pass_at_k.estimate, p.pass_hat_k.estimate) for p in s.pass_k}
    assert got == {1: (pytest.approx(50.0), pytest.approx(50.0)), 2: (pytest.approx(200 / 3), pytest.approx(100 / 3))}
    # pass^2 per episode is (1, 0, 0): Wilson 1 of 3 over episodes
    p2 = s.pass_k[1].pass_hat_k
    assert (p2.low, p2.high) == (pytest.approx(100 * WILSON_1_OF_3[0], abs=1e-3), pytest.approx(100 * WILSON_1_OF_3[1], abs=1e-3))
    iv = s.all.intervals
    # ESR, mean of epochs: units (1, 1), (1, 0), (0, 0), p = 1/2. Design effect: episode sums (2, 1, 0) less
    # p x 2 = (1, 0, -1); clustered variance 3/2 x 2 / 6^2 = 1/12 against p(1-p) = 1/4: 3 effective units (the
    # episodes), so Wilson 1.5 of 3: centre 0.5, half z sqrt(0.25/3 + z^2/36) / 2.280486 = 0.374667
    assert (iv.esr.n, iv.esr.low, iv.esr.high) == (3.0, pytest.approx(12.5333, abs=1e-3), pytest.approx(87.4667, abs=1e-3))
    # Acc_pre: units (1, 1), (1, 0), (1, 0), p = 2/3; sums (2, 1, 1) less 4/3 = (2/3, -1/3, -1/3), squares 6/9;
    # clustered variance 3/2 x (2/3) / 36 = 1/36 against 2/9: 8 effective units, at most the 6 there are: Wilson 4 of 6
    # = centre (2/3 + 0.320122) / 1.640243 = 0.601611, half z sqrt((2/9)/6 + z^2/144) / 1.640243 = 0.301624
    assert (iv.acc_pre.n, iv.acc_pre.low, iv.acc_pre.high) == (6.0, pytest.approx(29.9987, abs=1e-3),
                                                               pytest.approx(90.3235, abs=1e-3))
    report = (reducers_run / "report.md").read_text()
    assert "| 2 | 66.67 [" in report and "### Episode success over epochs (tau-bench)" in report


def test_episode_scores_keep_every_epoch(reducers_run: Path):
    score_run(reducers_run)
    rows = read_episode_scores(reducers_run)
    assert [(r.episode_id, r.epoch, r.success) for r in rows] == [
        ("E1", 1, True), ("E2", 1, True), ("E3", 1, False), ("E1", 2, True), ("E2", 2, False), ("E3", 2, False)]


def test_ec_counts_episodes_not_epochs_and_mg_resamples_episodes(tmp_path: Path):
    """E1 and E2 read the required table once; E3 reads another paper's table twice and still answers right;
    each epoch alike. EC = 4/6, MG = (1 + 1 + 2) / 3."""
    built = {"E1": one_turn("E1", "easy", "PE1"), "E2": one_turn("E2", "easy", "PE2"),
             "E3": one_turn("E3", "hard", "P999", reads=2)}
    eps = [b[0] for b in built.values()]
    run = epochs_run(tmp_path, eps, {k: {e: b[1] for e, b in built.items()} for k in (1, 2)})
    s = score_run(run)
    iv = s.all.intervals
    # EC: Wilson over evidence units at Kish's effective number. Units per episode (both epochs) (1, 1), (1, 1),
    # (0, 0), p = 2/3; episode sums (2, 2, 0) less 4/3: squares 4/9 + 4/9 + 16/9 = 24/9; clustered variance
    # 3/2 x (24/9) / 36 = 1/9 against p(1-p) = 2/9: 2 effective units, never fewer than the 3 episodes: Wilson
    # 2 of 3 (not 4 of 6, which would treat the epochs as independent).
    assert s.all.ec == pytest.approx(200 / 3) and iv.ec.n == 3.0
    assert (iv.ec.low, iv.ec.high) == (pytest.approx(20.76596, abs=1e-3), pytest.approx(93.85081, abs=1e-3))
    assert iv.ec.method == "wilson"
    # MG: (3 + j) / 3 with j ~ Bin(3, 1/3) draws of E3: P(j = 0) = 8/27 gives 1.0; P(j = 3) = 1/27 > 0.025 gives 2.0
    assert s.all.mg == pytest.approx(4 / 3) and (iv.mg.low, iv.mg.high) == (1.0, 2.0)
    # ESR 100%: Wilson over the 3 episodes, not the 6 epochs: low = (1 + z^2/6 - z sqrt(z^2/36)) / (1 + z^2/3)
    # = (1.640243 - 0.640243) / 2.280486 = 0.438503
    assert (iv.esr.low, iv.esr.high, iv.esr.n) == (pytest.approx(43.8503, abs=1e-3), 100.0, 3.0)
    saved = json.loads((run / "scores.json").read_text())
    assert saved["uncertainty"] == {"confidence": 0.95, "proportions": "wilson", "evidence": "wilson-effective-units",
                                    "means": "bootstrap-percentile", "resamples": 10000, "seed": 20240917}
    assert saved["all"]["intervals"]["ec"]["low"] == pytest.approx(20.76596, abs=1e-3) and saved["all"]["esr"] == 100.0
    report = (run / "report.md").read_text()
    assert "| 66.67 [20.77, 93.85] | 1.33 [1.00, 2.00] |" in report
    assert score_run(run).all.intervals == iv, "the fixed seed makes every interval reproducible"


def test_a_single_epoch_run_scores_as_before_with_intervals_beside(tmp_path: Path):
    ep, lines = one_turn("E1", "easy", "PE1")
    wrong = episode("E2", "hard", [turn("t1", NUM, [("PE2", "table:1")], checklist=1)])
    tb = TraceBuilder("E2", split="hard", n_turns=1).turn().call("table_extract", ("PE2", "table:1")).answer("12").end()
    run = write_run(tmp_path, [ep, wrong], {"E1": lines, "E2": tb.lines()})
    s = score_run(run)
    assert (s.epochs, s.reducer, s.pass_k) == (1, "mean", [])
    assert s.all.esr == 50.0 and s.all.successful_episodes == 1
    # Wilson 1 of 2: centre 0.5, half z sqrt(0.125 + z^2/16) / (1 + z^2/2) = 1.959964 x 0.604228 / 2.920730 = 0.405469
    assert (s.all.intervals.esr.low, s.all.intervals.esr.high) == (pytest.approx(9.4531, abs=1e-3), pytest.approx(90.5469, abs=1e-3))
    cp = score_run(run, proportions="clopper-pearson", write=False).all.intervals.esr
    # 1 of 2, exact: the beta quantiles Beta(1, 2) at 2.5% = 1 - sqrt(0.975) and Beta(2, 1) at 97.5% = sqrt(0.975)
    assert cp.method == "clopper-pearson" and (cp.low, cp.high) == (pytest.approx(1.2579, abs=1e-3), pytest.approx(98.7421, abs=1e-3))


def test_bad_reducers_are_refused_with_a_clear_message(reducers_run: Path, tmp_path: Path, capsys, monkeypatch):
    for value, needle in (("pass^3", "reducer pass^3 needs at least 3 epochs; run 'rep' has 2"),
                          ("best", "reducer 'best' is not one of mean, majority, pass@K, pass^K")):
        code, out = epi(["score", str(reducers_run), "--reducer", value], capsys, monkeypatch)
        assert code == 2 and needle in out and "Traceback" not in out, out
    code, out = epi(["score", str(reducers_run), "--interval", "normal"], capsys, monkeypatch)
    assert code == 2 and "--interval: 'normal' is not wilson or clopper-pearson" in out
    code, out = epi(["score", str(reducers_run), "--reducer", "majority"], capsys, monkeypatch)
    assert code == 0 and "2 epochs reduced by majority" in out, out


def test_run_records_its_reducer_and_scores_every_epoch(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    base = ["run", "--agent", "heuristic", "--episodes", str(tiny_episodes), "--results", str(tmp_path), "-q"]
    code, out = epi([*base, "--run-id", "bad", "--epochs", "2", "--reducer", "pass^3"], capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "reducer pass^3 needs at least 3 epochs; --epochs is 2" in out and "Traceback" not in out, out
    code, out = epi([*base, "--run-id", "bad", "--reducer", "best-of"], capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "'best-of' is not one of mean, majority, pass@K, pass^K" in out, out
    assert not any(tmp_path.iterdir()), "nothing may be written before the input is checked"

    code, out = epi([*base, "--run-id", "rep", "--epochs", "2", "--reducer", "pass^2", "--json"], capsys, monkeypatch,
                    tiny_sandbox)
    assert code == 0, out
    scores = json.loads(out[out.index("{"):])["scores"]
    n = len(tiny_episodes.read_text().splitlines())
    assert (scores["epochs"], scores["reducer"], scores["all"]["episodes"]) == (2, "pass^2", n)
    assert [p["k"] for p in scores["pass_k"]] == [1, 2]
    rows = read_episode_scores(tmp_path / "rep")
    assert sorted((r.epoch for r in rows)) == [1] * n + [2] * n
    # the heuristic is deterministic: every epoch alike, so pass^2 = pass@2 = the mean = the single-epoch ESR
    assert scores["pass_k"][1]["pass_hat_k"]["estimate"] == scores["pass_k"][1]["pass_at_k"]["estimate"] == scores["all"]["esr"]
    # re-scoring keeps the run's reducer unless told otherwise
    assert score_run(tmp_path / "rep", write=False).reducer == "pass^2"
    assert score_run(tmp_path / "rep", write=False, reducer="mean").reducer == "mean"
