"""Audit fixes: garbage after a complete trace is flagged, not truncated; plots stay meaningful for
agents that use no tokens; the step-budget plot keeps ablation groups apart."""
import json

import matplotlib.image as mpimg

from harness.scoring import score_run
from harness.scoring.compare import write_comparison
from harness.scoring.model import CostTotals
from harness.scoring.plots import _other_settings, cost_axis

from .scoring_fixture import main_run


def test_garbage_after_a_complete_trace_is_flagged_but_scored_in_full(tmp_path):
    run = main_run(tmp_path)
    clean = score_run(run)
    e1 = run / "traces" / "E1.jsonl"
    n_lines = len(e1.read_text().splitlines())
    with e1.open("a") as f:
        f.write("garbage {{{\n\x00\x01binary")
    s = score_run(run)
    assert s.truncated_episodes == [] and s.damaged_traces == {"E1": [n_lines + 1, n_lines + 2]}
    assert s.all.model_dump() == clean.all.model_dump() and s.buckets.pipeline == clean.buckets.pipeline
    row = next(json.loads(x) for x in (run / "episode_scores.jsonl").read_text().splitlines() if '"E1"' in x)
    assert row["status"] == "completed" and row["bad_lines"] == [n_lines + 1, n_lines + 2]
    assert f"unreadable trace lines skipped: E1 (lines {n_lines + 1}, {n_lines + 2})" in (run / "report.md").read_text()


def test_a_bad_line_inside_a_trace_still_counts_as_truncated(tmp_path):
    run = main_run(tmp_path)
    e1 = run / "traces" / "E1.jsonl"
    lines = e1.read_text().splitlines()
    lines[3] = lines[3][: len(lines[3]) // 2]  # a cut line in the middle: events may be lost
    e1.write_text("\n".join(lines) + "\n")
    s = score_run(run)
    assert s.truncated_episodes == ["E1"] and s.damaged_traces == {"E1": [4]}


def test_cost_axis_falls_back_to_tool_calls_then_wall_time():
    assert cost_axis([CostTotals(total_tokens=5, tool_calls=3), CostTotals(tool_calls=4)])[0] == "total_tokens"
    assert cost_axis([CostTotals(tool_calls=3), CostTotals(tool_calls=4)])[0] == "tool_calls"
    assert cost_axis([CostTotals(wall_time_s=2.0)])[0] == "wall_time_s"


def _copy_run(src, dst, **settings):
    import shutil

    shutil.copytree(src, dst)
    cfg = json.loads((dst / "run.json").read_text())
    cfg.update(settings, run_id=dst.name)
    (dst / "run.json").write_text(json.dumps(cfg))
    return dst


def test_budget_plot_draws_one_line_pair_per_ablation_group(tmp_path):
    base = main_run(tmp_path)
    runs = [_copy_run(base, tmp_path / f"s{m}-{ft}", max_steps=m, final_turn_tools=ft == "on")
            for m in (5, 10) for ft in ("off", "on")]
    md = write_comparison(runs, tmp_path / "cmp")
    text = md.read_text()
    assert "plots/budget.png" in text and "plots/ablation.png" in text and "plots/cost_vs_success.png" in text
    from harness.scoring.compare import compare_runs

    groups = {_other_settings(r) for r in compare_runs(runs)}
    assert groups == {"final-tools off", "final-tools on"}
    img = mpimg.imread(tmp_path / "cmp" / "plots" / "budget.png")
    assert img.shape[1] > img.shape[0]  # legend outside the axes kept (saved with a tight bounding box)
