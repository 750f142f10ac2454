"""Several runs in one leaderboard and the ablation comparison that `epi ablate` writes."""
import json

from rich.console import Console

from harness.scoring import SCORER_VERSION, compare_runs, score_run, write_comparison
from harness.scoring.compare import leaderboard_table

from .scoring_fixture import NUM, TraceBuilder, episode, main_run, turn, write_run


def _runs(tmp_path):
    (tmp_path / "a").mkdir()
    a = main_run(tmp_path / "a")
    b_root = tmp_path / "b"
    b_root.mkdir()
    eps = [episode("E1", "easy", [turn("t1", NUM, [("P001", "table:2")], checklist=1)])]
    tb = TraceBuilder("E1", n_turns=1).turn(budget=5).model(10, 1).call("table_extract", ("P001", "table:2")).answer("35.2").end()
    b = write_run(b_root, eps, {"E1": tb.lines()}, run_id="steps5-no-rag",
                  config={"max_steps": 5, "disable_tools": ["pdf_rag"], "final_turn_tools": True})
    return a, b


def test_write_comparison_tables_and_ablation_plots(tmp_path):
    a, b = _runs(tmp_path)
    md_path = write_comparison([a, b], tmp_path / "cmp")
    md = md_path.read_text()
    # each number with its 95% interval: Wilson 1 of 2 = [9.45, 90.55]. Acc_pre Easy: 2 of 2 turns, one per
    # episode: Wilson 2 of 2 = [34.24, 100]. Hard: E4 is errored (a provider outage before any wrong turn) and left
    # out, so E3 alone: ESR 0 of 1 = [0, 79.35], Acc_final 1 of 1 = [20.65, 100], Acc_pre 1 of 2 turns = [5.46, 94.54]
    assert ("| fixture-run (steps=10, final-tools off) | 50.00 [9.45, 90.55] | 50.00 [9.45, 90.55] | 100.00 [34.24, 100.00] "
            "| 0.00 [0.00, 79.35] | 100.00 [20.65, 100.00] | 50.00 [5.46, 94.54] | 33.33 [6.15, 79.23] |") in md
    assert (f"| fixture-run (steps=10, final-tools off) | fixture |  | steps=10, final-tools off | matcher | {SCORER_VERSION} | "
            "3 | 1 (left out) |") in md
    assert "| steps5-no-rag (steps=5, final-tools on, without pdf_rag) | 100.00 [20.65, 100.00] | 100.00 [20.65, 100.00] | n/a |" in md
    # different episode files: shown side by side, never paired
    assert "- not paired: runs 'steps5-no-rag' and 'fixture-run' were scored on different episode files" in md
    for png in ("failure_types", "ablation", "budget", "cost_vs_success"):
        assert (tmp_path / "cmp" / "plots" / f"{png}.png").stat().st_size > 1000
        assert f"plots/{png}.png" in md
    assert (b / "scores.json").is_file()  # unscored runs are scored first, from files only


def test_leaderboard_lists_every_run_with_its_settings(tmp_path):
    a, b = _runs(tmp_path)
    cfg = json.loads((b / "run.json").read_text())
    score_run(a)
    runs = compare_runs([a, b])
    out = Console(width=250, record=True)
    out.print(leaderboard_table(runs))
    text = out.export_text()
    assert "fixture-run (steps=10, final-tools off)" in text and "steps5-no-rag" in text
    row = next(line for line in text.splitlines() if line.startswith("fixture-run"))
    # the Easy row: ESR, Acc_final, Acc_pre, EC, MG, each with its 95% interval; EC is Wilson over its 2 evidence units
    # (2 of 2, one per episode: never zero width), MG has one successful episode, so no spread to resample (scorer 11)
    assert row.split("off)")[1].split() == ["Easy", "2", "0", "50.0", "[9.5,", "90.5]", "50.0", "[9.5,", "90.5]", "100.0",
                                            "[34.2,", "100.0]", "100.0", "[34.2,", "100.0]", "1.50", "[only", "1", "episode]",
                                            "matcher"]
    assert cfg["max_steps"] == 5 and runs[1].ablation.disable_tools == ["pdf_rag"]
