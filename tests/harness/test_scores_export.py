"""Issue 29, item 5: scores as data. `epi scores export RUN --format csv|jsonl|parquet` and the typed
`harness.read_run(path)` whose rows are the export's columns."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import harness
from harness.scoring import score_run
from harness.trace import EpisodeStart, FinalAnswerEvent

from .scoring_fixture import NUM, TraceBuilder, episode, turn, write_run
from .test_run_cli import epi


@pytest.fixture
def scored(tmp_path: Path) -> Path:
    """E1 answers right after reading its table; E2 reads its table and answers wrong."""
    eps = [episode(e, "easy" if e == "E1" else "hard", [turn("t1", NUM, [(f"P{e}", "table:1")], checklist=1)])
           for e in ("E1", "E2")]
    traces = {e: TraceBuilder(e, n_turns=1).turn().call("table_extract", (f"P{e}", "table:1"))
              .answer("35.2" if e == "E1" else "12").end().lines() for e in ("E1", "E2")}
    run = write_run(tmp_path, eps, traces, run_id="exp", config={"settings": {"agent": "heuristic", "max_steps": 7}})
    score_run(run)
    return run


def test_read_run_gives_typed_settings_scores_rows_and_trace_events(scored: Path):
    run = harness.read_run(scored)
    assert isinstance(run, harness.Run) and run.run_id == "exp" and run.scored and run.notes == []
    assert run.settings is not None and (run.settings.agent, run.settings.max_steps) == ("heuristic", 7)
    assert run.scores.all.esr == 50.0 and run.scores.all.intervals.esr.method == "wilson"
    eps = {e.episode_id: e for e in run.episodes()}
    assert isinstance(eps["E1"], harness.EpisodeRow)
    assert (eps["E1"].success, eps["E1"].evidence_hit, eps["E1"].required_units, eps["E1"].split) == (True, 1, 1, "easy")
    assert (eps["E2"].success, eps["E2"].failure_type) == (False, "perception")
    (t1,) = [t for t in run.turns() if t.episode_id == "E2"]
    assert isinstance(t1, harness.TurnRow) and (t1.turn, t1.answer, t1.correct, t1.required) == (1, "12", False, "PE2/table:1")
    events = run.trace("E1")
    assert isinstance(events[0], EpisodeStart) and any(isinstance(e, FinalAnswerEvent) and e.answer == "35.2" for e in events)
    assert run.fold("E1").turns[1].answer.answer == "35.2" and len(run.fold("E1").turns[1].calls) == 1
    assert [(eid, k) for eid, k, _ in run.traces()] == [("E1", 1), ("E2", 1)]
    with pytest.raises(harness.RunReadError, match="no trace for episode 'E9'"):
        run.trace("E9")


def test_read_run_refuses_a_folder_that_is_not_a_run_in_one_line(tmp_path: Path):
    with pytest.raises(harness.RunReadError, match=r"is not a run folder: it has no run.json"):
        harness.read_run(tmp_path)
    with pytest.raises(harness.RunReadError, match=r"no such folder"):
        harness.read_run(tmp_path / "nope")


def test_read_run_of_an_unscored_run_says_so_and_writes_nothing(tmp_path: Path):
    ep = episode("E1", "easy", [turn("t1", NUM, [("PE1", "table:1")], checklist=1)])
    run_dir = write_run(tmp_path, [ep], {"E1": TraceBuilder("E1", n_turns=1).turn().answer("1").end().lines()})
    config = json.loads((run_dir / "run.json").read_text())
    config["settings"]["max_steps"] = 0  # a setting this version refuses (another version's run.json)
    (run_dir / "run.json").write_text(json.dumps(config))
    before = sorted(p.name for p in run_dir.iterdir())
    run = harness.read_run(run_dir)
    assert not run.scored and run.episodes() == [] and any("not scored" in n for n in run.notes)
    assert any("settings.max_steps" in n for n in run.notes) and run.settings is None
    assert sorted(p.name for p in run_dir.iterdir()) == before


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_export_writes_episode_and_turn_tables_with_the_api_columns(scored: Path, tmp_path: Path, fmt: str, capsys,
                                                                    monkeypatch):
    out = tmp_path / "x"
    code, text = epi(["scores", "export", str(scored), "--format", fmt, "--out", str(out)], capsys, monkeypatch)
    assert code == 0, text
    assert sorted(p.name for p in out.iterdir()) == [f"episodes.{fmt}", f"turns.{fmt}"]
    if fmt == "csv":
        rows = list(csv.DictReader((out / "episodes.csv").open()))
        turns = list(csv.DictReader((out / "turns.csv").open()))
    else:
        rows = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
        turns = [json.loads(x) for x in (out / "turns.jsonl").read_text().splitlines()]
    assert list(rows[0]) == [n for n, _ in harness.run_data.columns(harness.EpisodeRow)]
    assert [(r["episode_id"], str(r["success"])) for r in rows] == [("E1", "True"), ("E2", "False")]
    assert [(r["episode_id"], r["answer"]) for r in turns] == [("E1", "35.2"), ("E2", "12")]
    if fmt == "jsonl":
        assert rows[1]["failure_type"] == "perception" and rows[0]["failure_type"] is None and rows[0]["mg_ratio"] == 1.0
    else:
        assert rows[0]["failure_type"] == "" and rows[0]["mg_ratio"] == "1.0"


def test_export_bad_input_is_one_line_exit_2_and_nothing_written(scored: Path, tmp_path: Path, capsys, monkeypatch):
    (tmp_path / "plain").mkdir()
    code, text = epi(["scores", "export", str(tmp_path / "plain"), "--out", str(tmp_path / "o1")], capsys, monkeypatch)
    assert code == 2 and "is not a run folder: it has no run.json" in text and len(text.strip().splitlines()) == 1
    assert not (tmp_path / "o1").exists()
    (tmp_path / "taken").mkdir()
    code, text = epi(["scores", "export", str(scored), "--out", str(tmp_path / "taken")], capsys, monkeypatch)
    assert code == 2 and "exists" in text and list((tmp_path / "taken").iterdir()) == []
    code, text = epi(["scores", "export", str(scored), "--format", "xlsx", "--out", str(tmp_path / "o2")], capsys,
                     monkeypatch)
    assert code == 2 and "'xlsx' is not one of csv, jsonl, parquet" in text and not (tmp_path / "o2").exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary folder left


def test_parquet_without_pyarrow_says_how_to_get_it(scored: Path, tmp_path: Path, capsys, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_pyarrow(name, *a, **k):  # noqa: ANN001, ANN002, ANN003
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    code, text = epi(["scores", "export", str(scored), "--format", "parquet", "--out", str(tmp_path / "p")], capsys,
                     monkeypatch)
    assert code == 2 and "pip install 'epiharness[parquet]'" in text and not (tmp_path / "p").exists()
