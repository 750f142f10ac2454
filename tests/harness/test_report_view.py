"""A scored report as people read it (issue 32 item 4): every claim marked (true, false, uncited, cited but unread,
off-persona), each citation linked to the step that opened its unit, the judged numbers with their judge; in the
viewer's data, in `epi replay`, and the CLI options of the report judge."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from harness.cli import app
from harness.cli._apps import UserError
from harness.replay_view import render_episode
from harness.scoring import JudgeConfig, score_run
from harness.viewer import RunFiles, build_timeline, build_viewer
from sandbox.model_server import ScriptedModelServer

from .report_runs import R1_REPORT, judge_script, report_run


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("judged")
    run = report_run(root)
    with ScriptedModelServer(judge_script()) as srv:
        score_run(run, report_judge=JudgeConfig(model="scripted", base_url=srv.base_url, cache_dir=root / "c"))
    return run


def test_every_claim_is_marked_and_every_citation_links_the_step_that_opened_it(judged_run: Path) -> None:
    run = judged_run
    tl = build_timeline(RunFiles.open(run), "R1")
    rep = tl.report
    assert rep is not None and rep.turn == 2 and rep.extraction.startswith("rules + judge:scripted")
    assert [c.primary for c in rep.claims] == ["true", "false", "uncited", "unread", "off_persona", "off_persona"]
    assert rep.claims[3].marks == ["true", "unread"] and rep.claims[5].extracted_by == "judge:scripted"
    assert rep.counts == {"true": 5, "false": 1, "uncited": 1, "unread": 1, "off_persona": 2}
    links = {(c.text, c.units[0]): (c.turn, c.step) for c in rep.citations}
    assert links[("[P001, Table 1]", "P001 table:1")] == (1, 1)  # opened in turn 1, step 1
    assert links[("[P001, Table 2]", "P001 table:2")] == (2, 1)  # opened in the report turn, step 1
    assert links[("[P001, Figure 1]", "P001 figure:1")] == (None, None)  # never opened
    text = "".join(p.text for p in rep.pieces)
    assert text == R1_REPORT  # the whole text, in order, cut into sentences and citations
    assert "<img src=x onerror=alert(1)>" in text  # kept as data, shown escaped by the renderers
    marks_after = [p.claims for p in rep.pieces if p.claims]
    assert marks_after == [[0], [1], [2], [3], [4], [5]]  # each sentence's marks right after it
    assert rep.judged.flae.value is not None and rep.judged.calibration_label == "not calibrated"
    out = io.StringIO()
    render_episode(tl, Console(file=out, width=160, force_terminal=False))
    shown = out.getvalue()
    for want in ("Report (turn 2)", "[✓1]", "[✗2]", "[⊘3]", "[◌4]", "[⚑5]", "[⚑6]", "cited but unread",
                 "[P001, Figure 1] → P001 figure:1: never opened in this episode",
                 "[P001, Table 2] → P001 table:2: opened at turn 2, step 1", "Judged by judge:scripted · not calibrated",
                 "FLAE (MMDR-Bench)", "P-Score (PDR) 6.55/10", "<img src=x onerror=alert(1)>"):
        assert want in shown, want


def test_the_viewer_carries_the_report_and_the_judged_run_numbers(judged_run: Path, tmp_path: Path) -> None:
    index = build_viewer([judged_run], tmp_path / "viewer")
    data = (index.parent / "data" / "ep" / "0" / "R1.js").read_text()
    assert "<img" not in data and "\\u003cimg src=x onerror=alert(1)\\u003e" in data  # no markup survives
    ep = json.loads(data[data.index(",", data.index(",") + 1) + 1:data.rindex(")")])
    assert ep["report"]["claims"][1]["primary"] == "false"
    idx = (index.parent / "data" / "index.js").read_text()
    assert '"judge":"judge:scripted"' in idx and "not calibrated" in idx and '"extraction":"rules + judge:scripted' in idx
    html = index.read_text()
    assert "script-src 'self'" in html and "unsafe-inline" not in html  # the strict CSP is kept


def test_cli_report_judge_options_and_support_agreement(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("EPI_CACHE_DIR", str(tmp_path / "cache"))  # the judge's default cache, kept out of the sandbox
    run = report_run(tmp_path)
    runner = CliRunner()
    r = runner.invoke(app, ["score", str(run), "--report-judge", "m"])
    assert isinstance(r.exception, UserError) and "go together" in str(r.exception)
    r = runner.invoke(app, ["score", str(run), "--report-judge", "m", "--report-judge-base-url", "http://x/v1",
                            "--report-judge-parts", "quality,vibes"])
    assert isinstance(r.exception, UserError) and "vibes" in str(r.exception)
    r = runner.invoke(app, ["agreement", str(run), "--a", "rules", "--b", "matcher", "--on", "support"])
    assert isinstance(r.exception, UserError) and "compares the rules with a judge" in str(r.exception)
    with ScriptedModelServer(judge_script()) as srv:
        r = runner.invoke(app, ["agreement", str(run), "--a", "rules", "--b", f"judge:scripted@{srv.base_url}",
                                "--on", "support", "--json"])
        assert r.exit_code == 0, r.output
        assert json.loads(r.output)["kappa"] > -1 and (run.parent / "judge_calibration.json").is_file()
        r = runner.invoke(app, ["score", str(run), "--report-judge", "scripted", "--report-judge-base-url", srv.base_url,
                                "--report-judge-parts", "quality,persona", "--json"])
        assert r.exit_code == 0, r.output
    judged = json.loads(r.output)["report"]["judged"]
    assert judged["judge"] == "judge:scripted" and judged["calibration_label"].startswith("support kappa")
    assert set(judged["prompt_versions"]) == {"quality", "persona"}
