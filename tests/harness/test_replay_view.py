"""`epi replay`: the terminal replay shows steps, evidence, gold against agent answer and the first error."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

sys.path.insert(0, str(Path(__file__).parent))
from viewer_runs import make_run  # noqa: E402

from harness.replay_view import FAILURE_TAG, ReplayError, render_episode, replay  # noqa: E402
from harness.viewer import RunFiles, build_timeline  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def _render(files: RunFiles, eid: str) -> str:
    console = Console(record=True, width=180, force_terminal=False)
    render_episode(build_timeline(files, eid), console)
    return console.export_text()


def _row_block(text: str, start: str, end: str) -> str:
    return text[text.index(start): text.index(end, text.index(start))]


@pytest.fixture()
def run(tmp_path: Path) -> RunFiles:
    return RunFiles.open(make_run(tmp_path, n=6), score_if_missing=False)


def test_failed_episode_shows_marker_on_the_step_where_it_fired(run: RunFiles) -> None:
    out = _render(run, "ep-002")  # perception failure at turn 1, step 3 (figure_extract)
    assert "FAILED" in out
    assert f"{FAILURE_TAG}: perception at turn 1, step 3" in out
    step3 = _row_block(out, "figure_extract(", "answer")
    assert f"{FAILURE_TAG}: perception" in step3
    assert "read 64 from P002 figure:2; gold is 81.5" in step3
    assert "P002 figure:2 p.4" in step3  # the evidence unit the step exposed
    step1 = _row_block(out, "web_search(", "table_extract(")
    assert FAILURE_TAG not in step1


def test_retrieve_failure_marks_the_search_step_and_missing_evidence(run: RunFiles) -> None:
    out = _render(run, "ep-004")
    step1 = _row_block(out, "web_search(", "table_extract(")
    assert f"{FAILURE_TAG}: retrieve" in step1
    assert "✗ P004 figure:2  (not accessed)" in out
    assert "Q004 table:1, Q004 figure:2" in out  # what the agent did access instead


def test_gold_beside_agent_answer_budget_and_images(run: RunFiles) -> None:
    out = _render(run, "ep-002")
    agent_line = next(line for line in out.splitlines() if line.startswith("agent answer"))
    gold_line = next(line for line in out.splitlines() if line.startswith("gold answer"))
    assert "64" in agent_line and "✗ wrong" in agent_line
    assert "81.5 ± 0.5 %" in gold_line
    assert "A (yes)" in out  # turn 2 gold with its option text
    assert "✓ P002 table:1" in out and "MEMORY-ONLY TURN" in out
    assert "t1s3_figure2.png" in out and "image:" in out
    budget_col = [line.split("│")[-2].strip() for line in out.splitlines() if "figure_extract(" in line]
    assert budget_col == ["7"]


def test_trace_text_is_shown_literally_not_as_markup(run: RunFiles) -> None:
    out = _render(run, "ep-000")
    flat = " ".join(" ".join(line.strip("│ ") for line in out.splitlines()).split())
    assert "[bold" in flat and "markup[/]" in flat and "<script>" in flat
    assert "SUCCESS" in out and FAILURE_TAG not in out


def test_truncated_trace_is_flagged_and_replayed_as_far_as_it_goes(tmp_path: Path) -> None:
    path = make_run(tmp_path, n=3)
    trace = path / "traces" / "ep-001.jsonl"
    lines = trace.read_text().splitlines(keepends=True)
    trace.write_text("".join(lines[:5]) + lines[5][:20])  # cut mid-line, inside turn 1
    files = RunFiles.open(path, score_if_missing=False)
    tl = build_timeline(files, "ep-001")
    assert any("truncated" in n for n in tl.notes)
    assert [s.tool for s in tl.turns[0].steps] == ["web_search", "table_extract"]
    assert tl.turns[1].steps == [] and tl.turns[1].gold == "A (yes)"
    console = Console(record=True, width=160)
    render_episode(tl, console)
    assert "this turn did not run" in console.export_text()


def test_failed_walks_only_failed_episodes_and_starts_at_the_given_one(run: RunFiles) -> None:
    console = Console(record=True, width=160)
    assert replay(run, None, failed=True, console=console) == ["ep-002", "ep-004", "ep-005"]
    assert replay(run, "ep-004", failed=True, console=console) == ["ep-004", "ep-005"]
    asked: list[str] = []
    shown = replay(run, None, failed=True, console=console, ask_next=lambda nxt: asked.append(nxt) or False)
    assert shown == ["ep-002"] and asked == ["ep-004"]
    with pytest.raises(ReplayError, match="not a failed episode"):
        replay(run, "ep-000", failed=True, console=console)
    with pytest.raises(ReplayError, match="'nope' is not in run"):
        replay(run, "nope", failed=False, console=console)


def test_unscored_run_is_scored_on_first_look(tmp_path: Path) -> None:
    path = make_run(tmp_path, n=4, scored=False)
    files = RunFiles.open(path)
    assert (path / "episode_scores.jsonl").is_file() and (path / "scores.json").is_file()
    assert set(files.scores) == {"ep-000", "ep-001", "ep-002", "ep-003"}
    assert files.scores["ep-000"].success is True
    tl = build_timeline(files, "ep-002")  # the figure value read wrong: scoring labels it
    assert tl.success is False and tl.failure is not None
    assert tl.turns[0].failure is not None


def test_cli_replay_failed_non_interactive_and_user_errors(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from harness.cli import app
    from harness.cli._apps import UserError

    path = make_run(tmp_path, n=6)
    runner = CliRunner()
    r = runner.invoke(app, ["replay", str(path), "--failed", "--width", "160"])
    assert r.exit_code == 0, r.output
    assert r.output.count("episode ep-") == 3 and "ep-000" not in r.output
    r = runner.invoke(app, ["replay", str(tmp_path / "missing-run"), "ep-000"])
    assert isinstance(r.exception, UserError) and "is not a folder" in str(r.exception)
    r = runner.invoke(app, ["replay", str(path), "ep-000", "--from-turn", "2"])
    assert isinstance(r.exception, UserError) and "--agent" in str(r.exception)


@pytest.mark.slow
def test_cli_unknown_episode_exits_2_with_a_message(tmp_path: Path) -> None:
    path = make_run(tmp_path, n=2)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "400"}
    r = subprocess.run([sys.executable, "-m", "harness", "replay", str(path), "ep-999"], cwd=REPO, capture_output=True,
                       text=True, env=env, stdin=subprocess.DEVNULL, timeout=120)
    assert r.returncode == 2 and "'ep-999' is not in run" in r.stderr and "Traceback" not in r.stderr


def test_run_without_its_episode_file_is_replayed_unscored_with_a_note(tmp_path: Path) -> None:
    path = make_run(tmp_path, n=2, scored=False)
    (tmp_path / "fixture-run-episodes.jsonl").unlink()
    files = RunFiles.open(path)
    assert any("could not score" in n for n in files.notes) and not files.scores
    console = Console(record=True, width=160)
    replay(files, "ep-001", failed=False, console=console)
    out = console.export_text()
    assert "not scored" in out and "(episode file not available)" in out and "figure_extract(" in out
    with pytest.raises(ReplayError, match="has no scores"):
        replay(files, None, failed=True, console=console)
