"""Claim-level scores of set answers (LiveDRBench, issue 17): one wrong item scores partial precision and
recall, and the episode is still a failure for ESR; the scores reach scores.json, the report and the
leaderboard."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.scoring import compare_runs, score_run, write_comparison
from harness.scoring.claims import claim_scores
from harness.scoring.compare import process_table
from harness.scoring.run import read_episode_scores

from .scoring_fixture import TraceBuilder, episode, turn, write_run

SET3 = {"format": "set", "value": ["KeskaMask", "UlmsaSeg", "VeltorParse"]}
SET2 = {"format": "set", "value": ["ErinaNet", "SolrinNet"]}


def _run(root: Path, answers: dict[str, str | None]) -> Path:
    eps = [episode("S1", "easy", [turn("Which methods?", SET3, [])]),
           episode("S2", "easy", [turn("Which series?", SET2, [])]),
           episode("S3", "hard", [turn("Which methods again?", SET3, [])])]
    traces = {}
    for eid, text in answers.items():
        b = TraceBuilder(eid, n_turns=1).turn().answer(text).end()
        traces[eid] = b.lines()
    root.mkdir(parents=True, exist_ok=True)
    return write_run(root, eps, traces, run_id=root.name)


@pytest.fixture()
def run(tmp_path: Path) -> Path:
    # S1: one wrong item of three; S2: exactly right; S3: no answer at all
    r = _run(tmp_path / "claims", {"S1": "KeskaMask; UlmsaSeg; RynkaFormer", "S2": "Final answer: SolrinNet, ErinaNet",
                                   "S3": None})
    score_run(r)
    return r


def test_one_wrong_item_gives_partial_precision_and_recall_and_a_failed_episode(run: Path):
    got = {e.episode_id: e for e in read_episode_scores(run)}
    v = got["S1"].turns[0].verdict
    assert (v.precision, v.recall, v.f1) == (pytest.approx(2 / 3), pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert not v.correct and not got["S1"].success  # exact set required: ESR counts it as a failure
    assert got["S2"].success and got["S2"].turns[0].verdict.f1 == 1.0


def test_claim_scores_are_macro_means_over_set_turns_beside_exact_set_accuracy(run: Path):
    scores = json.loads((run / "scores.json").read_text())
    c = scores["all"]["claims"]
    assert (c["set_turns"], c["answered"]) == (3, 2)
    for key in ("precision", "recall", "f1"):  # (2/3 + 1 + 0) / 3: the unanswered turn counts 0
        assert c[key] == pytest.approx(5 / 9)
    assert c["exact"] == pytest.approx(100 / 3) and scores["all"]["esr"] == pytest.approx(100 / 3)
    assert scores["easy"]["claims"]["f1"] == pytest.approx(5 / 6) and scores["hard"]["claims"]["f1"] == 0.0
    report = (run / "report.md").read_text()
    assert "## Set answers, claim level (LiveDRBench)" in report
    assert "| Average | 3 | 2 | 0.56 | 0.56 | 0.56 | 33.33 |" in report


def test_claim_scores_are_on_the_leaderboard(run: Path, tmp_path: Path):
    other = _run(tmp_path / "other", {"S1": "KeskaMask; UlmsaSeg; VeltorParse", "S2": "ErinaNet", "S3": "VeltorParse"})
    md = write_comparison([run, other], tmp_path / "board").read_text()
    assert "## Set answers, claim level (LiveDRBench)" in md
    # other: S1 1/1/1, S2 precision 1 recall 1/2, S3 precision 1 recall 1/3
    assert f"| other | 3 | 3 | 1.00 | {(1 + 0.5 + 1 / 3) / 3:.2f} |" in md
    table = process_table(compare_runs([run, other]))
    f1 = next(c for c in table.columns if c.header == "Set F1")
    assert list(f1.cells) == [f"{5 / 9:.2f}", f"{(1 + 2 / 3 + 0.5) / 3:.2f}"]


def test_without_set_turns_there_are_no_claim_scores():
    from harness.scoring.model import EpisodeScore, TurnScore

    numbers_only = [EpisodeScore(episode_id="n", split="easy", n_turns=1, status="completed", success=True,
                                 turns=[TurnScore(turn=1, ran=True, format="number", correct=True)])]
    assert claim_scores([]) is None and claim_scores(numbers_only) is None
