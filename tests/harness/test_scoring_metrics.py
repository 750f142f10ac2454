"""Every metric pinned to values worked out by hand on small runs (see scoring_fixture.main_run)."""
import json

import pytest

from harness.scoring import score_run
from harness.scoring.run import ScoringError

from .scoring_fixture import CHOICE_A, NUM, TraceBuilder, episode, main_run, turn, write_run


@pytest.fixture()
def scored(tmp_path):
    run = main_run(tmp_path)
    return run, score_run(run)


def test_outcome_by_split_matches_hand_computation(scored):
    _, s = scored
    # E1 success; E2 fails on its final set turn; E3 fails turn 2 (budget), final correct; E4 provider outage
    # before any wrong turn: errored, not a failure, left out of every number but the cost (METRICS.md)
    assert (s.easy.esr, s.easy.acc_final, s.easy.acc_pre) == (50.0, 50.0, 100.0)
    assert (s.hard.esr, s.hard.acc_final, s.hard.acc_pre) == (0.0, 100.0, 50.0)  # E3 alone: t1 right, t2 wrong
    assert s.all.esr == pytest.approx(100 / 3) and s.all.acc_final == pytest.approx(200 / 3) and s.all.acc_pre == 75.0
    assert (s.easy.episodes, s.hard.episodes, s.all.episodes) == (2, 1, 3)
    assert (s.easy.errored, s.hard.errored, s.all.errored) == (0, 1, 1) and s.errored_episodes == ["E4"]
    assert (s.hard.input_tokens, s.hard.model_calls) == (47, 5)  # the outage's cost still counts


def test_errors_as_failures_is_the_papers_convention(tmp_path):
    """With the option, the errored episode counts as failed: every number as before errors were set apart."""
    s = score_run(main_run(tmp_path), errors_as_failures=True)
    assert s.errors_as_failures and s.errored_episodes == ["E4"] and s.all.errored == 1
    assert (s.hard.esr, s.hard.acc_final) == (0.0, 50.0)
    assert s.hard.acc_pre == pytest.approx(100 / 3)  # E3 t1 right, E3 t2 wrong, E4 t1 wrong
    assert (s.all.esr, s.all.acc_final, s.all.acc_pre) == (25.0, 50.0, 60.0)
    assert (s.easy.episodes, s.hard.episodes, s.all.episodes) == (2, 2, 4)
    assert (s.easy.max_steps_rate, s.hard.max_steps_rate, s.all.max_steps_rate) == (0.0, 50.0, 25.0)
    assert (s.hard.wrong_after_exhaustion_rate, s.all.wrong_after_exhaustion_rate) == (25.0, 12.5)
    assert s.hard.failures.others == 2
    data = json.loads((tmp_path / "results/fixture-run/scores.json").read_text())
    assert data["errors_as_failures"] is True and data["all"]["errored"] == 1
    assert "counted as failed" in (tmp_path / "results/fixture-run/report.md").read_text()


def test_ec_counts_memory_only_turns_against_memory(scored):
    _, s = scored
    # easy: E1 t1 1/1, E1 t2 (memory-only, memory holds P001 text+table:2) 2/2, E2 t1 1/1 -> 4/4
    assert s.easy.ec == 100.0
    # hard: E3 t1 1/1, E3 t3 memory-only needs P004 text + table:1, memory has only text -> 1/2; total 2/3
    assert s.hard.ec == pytest.approx(200 / 3)
    assert s.all.ec == pytest.approx(600 / 7)


def test_mg_over_successful_episodes_and_null_without_any(scored):
    run, s = scored
    assert s.easy.mg == 1.5 and s.all.mg == 1.5  # E1: 3 tool calls / checklist of 2
    assert s.hard.mg is None
    data = json.loads((run / "scores.json").read_text())
    assert data["hard"]["mg"] is None
    assert "| n/a |" in (run / "report.md").read_text()


def test_max_steps_rate_is_share_of_episodes_whose_first_error_is_a_max_step_termination(scored):
    _, s = scored
    # E3's first error is turn 2, whose budget ran out without an answer; E2 failed otherwise; E4, errored (a
    # provider outage before any wrong turn), is left out: 3 episodes scored, 1 of the 2 hard ones
    assert (s.easy.max_steps_rate, s.hard.max_steps_rate, s.all.max_steps_rate) == (0.0, 100.0, pytest.approx(100 / 3))
    # the turn-level companions: E3 turn 2 of the 7 turns scored used up its budget, and was wrong
    assert (s.easy.wrong_after_exhaustion_rate, s.hard.wrong_after_exhaustion_rate, s.all.wrong_after_exhaustion_rate) \
        == (0.0, pytest.approx(100 / 3), pytest.approx(100 / 7))
    assert s.all.budget_exhausted_rate == pytest.approx(100 / 7) and (s.all.episodes_run, s.hard.episodes_run) == (3, 1)


def test_failures_and_buckets(scored):
    run, s = scored
    assert s.easy.failures.reading_memory == 1 and s.easy.failures.total() == 1
    assert s.hard.failures.others == 1 and s.hard.failures.total() == 1  # E3; E4's outage is not a failure
    assert (s.buckets.provider, s.buckets.model, s.buckets.pipeline, s.buckets.data_access) == (1, 1, 0, 0)
    assert s.buckets.weighted == pytest.approx(0.8)
    rows = {json.loads(x)["episode_id"]: json.loads(x) for x in (run / "episode_scores.jsonl").read_text().splitlines()}
    assert rows["E4"]["bucket"] == "provider" and rows["E4"]["failure"]["type"] == "others" and rows["E4"]["errored"]
    assert not any(rows[e]["errored"] for e in ("E1", "E2", "E3"))
    assert "provider" in rows["E4"]["failure"]["why"]
    assert rows["E3"]["failure"] == {"type": "others", "turn": 2, "step": 2, "why": "step budget of 2 exhausted on turn 2 (no answer)"}
    assert rows["E2"]["turns"][1]["verdict"]["precision"] == 0.5


def test_cost_totals_by_split(scored):
    _, s = scored
    assert (s.easy.input_tokens, s.easy.output_tokens, s.easy.total_tokens) == (710, 71, 781)
    assert (s.hard.input_tokens, s.hard.output_tokens, s.hard.total_tokens) == (47, 4, 51)
    assert (s.all.model_calls, s.all.tool_calls) == (10, 9)
    assert (s.easy.wall_time_s, s.hard.wall_time_s) == (21.0, 21.0)  # events 1 s apart: 11+10, 15+6


def test_scores_json_public_contract(scored):
    run, _ = scored
    data = json.loads((run / "scores.json").read_text())
    for split in ("easy", "hard", "all"):
        for key in ("esr", "acc_final", "acc_pre", "ec", "mg", "max_steps_rate", "failures", "episodes",
                    "input_tokens", "output_tokens", "total_tokens", "model_calls", "tool_calls", "wall_time_s"):
            assert key in data[split], (split, key)
        assert set(data[split]["failures"]) == {"retrieve", "perception", "reading_memory", "reasoning", "others"}
    for key in ("run_id", "agent", "uses_gold", "labeller", "buckets", "truncated_episodes", "scored_at"):
        assert key in data
    assert data["labeller"] == "matcher" and data["buckets"]["weights"]["pipeline"] == 0.5
    assert (run / "plots" / "failure_types.png").stat().st_size > 1000
    assert "plots/failure_types.png" in (run / "report.md").read_text()


def test_truncated_and_missing_traces_are_scored_and_flagged(tmp_path):
    run = main_run(tmp_path)
    e1 = run / "traces" / "E1.jsonl"
    lines = e1.read_text().splitlines()
    e1.write_text("\n".join(lines[:8]) + "\n{not json\n")  # cut after turn 1's answer, plus a bad line
    (run / "traces" / "E2.jsonl").unlink()
    s = score_run(run)
    assert s.truncated_episodes == ["E1"] and s.missing_episodes == ["E2"]
    # both stop before a wrong turn (pipeline): errored, left out; counted as failed only when asked
    assert s.easy.esr is None and s.easy.episodes == 0 and s.easy.errored == 2
    assert s.easy.wall_time_s == 7.0 and s.easy.tool_calls == 3  # E1 as far as it goes (8 events)
    assert s.buckets.pipeline == 2
    s = score_run(run, errors_as_failures=True)
    assert s.easy.esr == 0.0 and s.easy.episodes == 2
    assert s.easy.acc_pre == 50.0  # E1 turn 1 still counted right; missing E2 turn 1 wrong
    rows = {json.loads(x)["episode_id"]: json.loads(x) for x in (run / "episode_scores.jsonl").read_text().splitlines()}
    assert rows["E1"]["status"] == "truncated" and rows["E1"]["turns"][1]["ran"] is False and rows["E1"]["bad_lines"] == [9]
    assert rows["E2"]["status"] == "missing" and rows["E2"]["failure"]["type"] == "others"
    report = (run / "report.md").read_text()
    assert "truncated traces" in report and "E1" in report and "missing traces" in report


def test_unfinished_part_trace_of_a_crashed_run_is_scored_as_truncated(tmp_path):
    run = main_run(tmp_path)
    lines = (run / "traces" / "E1.jsonl").read_text().splitlines()
    (run / "traces" / "E1.jsonl").unlink()
    (run / "traces" / "E1.jsonl.part").write_text("\n".join(lines[:8]) + "\n")
    s = score_run(run)
    assert s.truncated_episodes == ["E1"] and not s.missing_episodes and s.easy.acc_pre == 100.0


def test_episode_file_changed_since_the_run_is_refused_unless_allowed(tmp_path):
    run = main_run(tmp_path)
    ep_file = tmp_path / "episodes.jsonl"
    ep_file.write_text(ep_file.read_text().replace('"value": 35.2', '"value": 35.3'))
    with pytest.raises(ScoringError, match="sha256.*--allow-mismatch"):
        score_run(run)
    s = score_run(run, allow_mismatch=True)
    assert s.episodes_mismatch and "WARNING" in (run / "report.md").read_text()


def test_no_successful_episode_gives_null_mg_and_oracle_note(tmp_path):
    eps = [episode("O1", "easy", [turn("t1", NUM, [("P001", "table:2")], checklist=1),
                                  turn("t2", CHOICE_A, [("P001", "table:2")], memory_only=True)])]
    tb = (TraceBuilder("O1", uses_gold=True).turn().call("table_extract", ("P001", "table:2")).answer("35.2")
          .turn(memory_only=True).answer("B").end())
    s = score_run(write_run(tmp_path, eps, {"O1": tb.lines()}, config={"agent": "oracle"}))
    assert s.all.mg is None and s.all.esr == 0.0 and s.all.ec == 100.0
    assert s.uses_gold and "oracle: answers with gold labels" in (tmp_path / "results/fixture-run/report.md").read_text()


def test_trace_of_an_unknown_episode_is_reported_not_scored(tmp_path):
    run = main_run(tmp_path)
    (run / "traces" / "ZZ9.jsonl").write_text(TraceBuilder("ZZ9").turn().answer("x").end().lines()[0] + "\n")
    s = score_run(run)
    assert s.unknown_traces == ["ZZ9"] and s.all.episodes + s.all.errored == 4
    assert "not in the episode file" in (run / "report.md").read_text()


# -- MG, max-steps and EC as the paper defines them (issue 11) -------------------------------

def test_mg_counts_executed_tool_calls_not_refused_calls_or_empty_reply_pseudo_calls(tmp_path):
    eps = [episode("M1", "easy", [turn("t1", NUM, [("P001", "table:2")], checklist=1),
                                  turn("t2", CHOICE_A, [("P001", "table:2")], memory_only=True)])]
    tb = (TraceBuilder("M1").turn().refused("browse_everything").refused("__empty_message__")
          .call("table_extract", ("P001", "table:2")).answer("35.2")
          .turn(memory_only=True).refused("table_extract").answer("A").end())
    s = score_run(write_run(tmp_path, eps, {"M1": tb.lines()}))
    assert s.all.esr == 100.0 and s.all.mg == 1.0  # c_i = 1 executed call, c*_i = 1
    assert s.all.tool_calls == 1 and s.all.refused_calls == 3


def test_max_steps_error_rate_counts_wrong_turns_after_the_budget_ran_out(tmp_path):
    eps = [episode("B1", "easy", [turn("t1", NUM, [("P001", "table:2")], checklist=1),
                                  turn("t2", {"format": "number", "value": 7.0}, [("P001", "table:2")], checklist=1),
                                  turn("t3", CHOICE_A, [], memory_only=True)])]
    tb = (TraceBuilder("B1", n_turns=3).turn(budget=1).call("table_extract", ("P001", "table:2")).exhausted(1)
          .answer("35.2", source="budget_fallback")          # budget ran out, fallback answer right
          .turn(budget=1).call("pdf_extract", ("P001", "text")).exhausted(1)
          .answer("8", source="budget_fallback")             # budget ran out, answer wrong
          .turn(memory_only=True).answer("A").end())
    s = score_run(write_run(tmp_path, eps, {"B1": tb.lines()}))
    assert s.all.max_steps_rate == 100.0  # the one episode's first error is turn 2: budget ran out, answer wrong
    assert s.all.wrong_after_exhaustion_rate == pytest.approx(100 / 3)  # 1 wrong-after-budget turn of 3 run
    assert s.all.budget_exhausted_rate == pytest.approx(200 / 3)  # 2 of 3 turns used up the budget
    report = (tmp_path / "results/fixture-run/report.md").read_text()
    assert "max-steps error rate" in report and "budget exhausted" in report and "wrong after exhaustion" in report


def test_an_episode_whose_first_error_came_before_the_budget_ran_out_is_not_a_max_step_failure(tmp_path):
    eps = [episode("B2", "easy", [turn("t1", NUM, [("P001", "table:2")], checklist=1),
                                  turn("t2", {"format": "number", "value": 7.0}, [("P001", "table:2")], checklist=1)])]
    tb = (TraceBuilder("B2").turn().call("table_extract", ("P001", "table:2")).answer("35.9")  # wrong, budget left
          .turn(budget=1).call("pdf_extract", ("P001", "text")).exhausted(1)
          .answer("8", source="budget_fallback").end())                                    # budget ran out, wrong
    s = score_run(write_run(tmp_path, eps, {"B2": tb.lines()}))
    assert s.all.max_steps_rate == 0.0 and s.all.wrong_after_exhaustion_rate == 50.0


def test_ec_credits_evidence_held_in_memory_on_any_turn(tmp_path):
    eps = [episode("C1", "easy", [turn("t1", NUM, [("P001", "table:2")], checklist=1),
                                  turn("t2", CHOICE_A, [("P001", "table:2"), ("P002", "text")], checklist=1)])]
    tb = (TraceBuilder("C1").turn().call("table_extract", ("P001", "table:2")).answer("35.2")
          .turn().call("pdf_extract", ("P002", "text")).answer("A").end())
    s = score_run(write_run(tmp_path, eps, {"C1": tb.lines()}))
    assert s.all.ec == 100.0  # turn 2's P001 table:2 is in memory from turn 1: 3 of 3 units
