"""Old runs stay usable: version-1 traces (written by the harness before issue 11) parse into typed
events, and `epi score RUN` re-scores a run scored by the old scorer; reports name the scorer version.

The fixture under data/v1_runs/ is two real runs made with the version-1 harness: the oracle on two
episodes, and the OpenAI-compatible agent against the scripted model server on one episode (a search,
an empty reply, a refused tool, a budget that ran out, a hedged answer), with the old scorer's files.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.rundir import RunDir
from harness.scoring import SCORER_VERSION, score_run
from harness.scoring.run import read_run_scores
from harness.trace import SCHEMA_VERSION, NoToolStep, ToolCallEvent, TraceVersionError, parse_event
from harness.trace_fold import fold_trace
from harness.viewer.run_files import RunFiles
from harness.viewer.timeline import build_timeline
from tools import EvidenceUnit

DATA = Path(__file__).resolve().parent / "data" / "v1_runs"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def v1_runs(tmp_path: Path) -> Path:
    """A copy of the v1 runs whose run.json points at the copied episode file."""
    root = tmp_path / "runs"
    shutil.copytree(DATA, root)
    ep_file = root / "episodes.jsonl"
    for run in ("v1-oracle", "v1-openai"):
        cfg_path = root / run / "run.json"
        cfg = json.loads(cfg_path.read_text())
        cfg["episodes_path"] = cfg["settings"]["episodes"] = str(ep_file)
        cfg["episodes_sha256"] = hashlib.sha256(ep_file.read_bytes()).hexdigest()
        cfg_path.write_text(json.dumps(cfg))
    return root


def test_every_v1_trace_line_parses_into_a_typed_event_of_the_current_schema():
    lines = [ln for p in sorted(DATA.glob("*/traces/*.jsonl")) for ln in p.read_text().splitlines() if ln.strip()]
    assert lines and all(json.loads(ln)["schema_version"] == 1 for ln in lines)
    events = [parse_event(ln) for ln in lines]
    assert all(e.schema_version == SCHEMA_VERSION for e in events)
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert all(isinstance(u, EvidenceUnit) for c in calls for u in c.provenance)
    refused = [c for c in calls if not c.executed]
    assert {c.tool for c in refused} == {"browse_everything"}
    assert all(c.error_kind == "refused" for c in refused)
    # v1/v2 wrote an empty model reply as a refused call to `__empty_message__`: now a typed no_tool_step
    (empty,) = [e for e in events if isinstance(e, NoToolStep)]
    assert empty.reason == "empty" and "empty" in empty.feedback


def test_a_trace_line_from_a_newer_harness_is_refused_with_a_clear_message():
    line = json.dumps({"schema_version": SCHEMA_VERSION + 1, "kind": "turn_start", "question": "q", "allowed_tools": [], "budget": 1})
    with pytest.raises(TraceVersionError, match="newer"):
        parse_event(line)


def test_the_fold_of_a_v1_trace_counts_executed_calls_and_usage_once():
    fold = fold_trace(RunDir(DATA / "v1-openai").read_trace("sbx-001"))
    assert [len(t.calls) + len(t.no_tool_steps) for t in fold.ordered_turns] == [3, 1, 3, 0]
    assert (fold.tool_calls, fold.refused_calls, fold.malformed_calls, fold.no_tool_steps) == (5, 1, 0, 1)
    assert [u.label() for u in fold.turn(1).exposed] == ["P027 table:2"]
    assert fold.turn(1).budget_exhausted and fold.turn(3).budget_exhausted
    assert fold.usage.total == sum(t.usage.total for t in fold.ordered_turns) == fold.end.usage.total


def test_rescoring_an_old_run_changes_what_the_old_scorer_got_wrong(v1_runs):
    run = v1_runs / "v1-openai"
    old = read_run_scores(run)
    assert old.scorer_version == "1" and old.all.esr == 100.0 and old.all.mg == 1.4  # hedge right, refused calls counted
    new = score_run(run)
    assert new.scorer_version == SCORER_VERSION and new.all.esr == 0.0 and new.all.mg is None
    # its one episode fails first on turn 1, whose budget ran out before a hedged fallback answer
    assert new.all.max_steps_rate == 100.0 and new.all.episodes_run == 1
    assert new.all.wrong_after_exhaustion_rate == 25.0 and new.all.budget_exhausted_rate == 50.0
    assert (new.all.tool_calls, new.all.refused_calls, new.all.behaviour.no_tool_steps) == (5, 1, 1)
    e = json.loads((run / "episode_scores.jsonl").read_text().splitlines()[0])
    assert e["turns"][0]["verdict"]["hedged"] and e["failure"]["type"] == "others" and e["failure"]["turn"] == 1
    assert f"scorer version {SCORER_VERSION}" in (run / "report.md").read_text()


def test_the_oracle_run_of_the_v1_harness_still_scores_esr_100_ec_100_mg_1(v1_runs):
    s = score_run(v1_runs / "v1-oracle")
    assert (s.all.esr, s.all.ec, s.all.mg, s.all.episodes) == (100.0, 100.0, 1.0, 2)


def test_viewer_and_replay_rescore_an_old_matcher_run_and_show_the_same_failure(v1_runs):
    run = v1_runs / "v1-openai"
    files = RunFiles.open(run)
    assert files.run_scores.scorer_version == SCORER_VERSION  # re-scored on first look
    tl = build_timeline(files, "sbx-001")
    score = files.scores["sbx-001"]
    assert tl.failure == score.failure and (tl.failure.type, tl.failure.turn) == ("others", 1)
    marked = [s for t in tl.turns for s in t.steps if s.failure is not None]
    assert len(marked) == 1 and marked[0].kind == "budget_exhausted"
    empty = [s for s in tl.turns[0].steps if s.kind == "no_tool_step"]  # v1's `__empty_message__` pseudo-call
    assert len(empty) == 1 and "empty" in empty[0].summary and (tl.tool_calls, tl.refused_calls) == (5, 1)


@pytest.mark.slow
def test_epi_score_rescores_an_old_run_in_one_command(v1_runs):
    run = v1_runs / "v1-openai"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    r = subprocess.run([sys.executable, "-m", "harness", "score", str(run)], cwd=REPO, capture_output=True, text=True,
                       env=env, stdin=subprocess.DEVNULL, timeout=180)
    assert r.returncode == 0, r.stderr
    assert f"scorer {SCORER_VERSION}" in r.stdout
    assert json.loads((run / "scores.json").read_text())["scorer_version"] == SCORER_VERSION
