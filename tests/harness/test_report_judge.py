"""Judged report dimensions against the project's scripted judge over HTTP (issue 32, must show): extraction cached
(a second scoring makes no request), FLAE and P-Score computed as the papers weight them, support agreement with the
rules hand-checked on planted verdicts, the calibration carried by every judged number, bad judge replies refused."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.reports._judge_io import read_json
from harness.reports._support import parse_support
from harness.scoring import JudgeConfig, score_run
from harness.scoring.agreement import run_support_agreement
from harness.scoring.judge import JudgeUnavailable
from harness.scoring.run import ScoringError, read_episode_scores
from sandbox.model_server import Script, ScriptedModelServer, ScriptItem

from .report_runs import FLAE_R1, FLAE_R2, SUPPORT, judge_script, report_run


def _cfg(srv: ScriptedModelServer, cache: Path) -> JudgeConfig:
    return JudgeConfig(model="scripted", base_url=srv.base_url, cache_dir=cache, max_retries=0)


def _fused(flae, judged: dict, w: dict, alpha: float) -> float:  # noqa: ANN001
    total = sum(w.values())
    return 100 * sum(w["w_" + d] / total * (alpha * flae.formula[d] + (1 - alpha) * judged[d]) for d in ("read", "insh", "stru"))


def test_the_report_judge_path_against_the_scripted_judge(tmp_path: Path) -> None:
    run = report_run(tmp_path)
    with ScriptedModelServer(judge_script()) as srv:
        s = score_run(run, report_judge=_cfg(srv, tmp_path / "cache"))
        served = [r.served for r in srv.chat_requests]
        # 1 extraction + 2 x 3 FLAE + 6 PDR (weights, 4 criteria, scores; R1 has a persona) + 8 support pairs read
        assert len(served) == 21 and "default" not in served and srv.remaining() == 0
        assert all(r.body["temperature"] == 0 for r in srv.chat_requests)
        assert not any("gold" in json.dumps(r.body).lower() for r in srv.chat_requests)  # judges never see the gold
        again = score_run(run, report_judge=_cfg(srv, tmp_path / "cache"))
        assert len(srv.chat_requests) == 21  # everything cached: the second scoring asks nothing
    eps = {e.episode_id: e.report for e in read_episode_scores(run)}
    r1, r2 = eps["R1"], eps["R2"]
    # extraction: the pronoun sentence, read by the judge, verified by rules (Table 1: ZNet 52.0 on Beta), off-persona
    judged = [d for d in r1.details if d.extracted_by == "judge:scripted"]
    assert len(judged) == 1 and (judged[0].claim.subject, judged[0].claim.value, judged[0].label) == ("ZNet", 52.0, "right")
    assert judged[0].violates == "only Alpha results matter" and judged[0].claim.cites[0].label() == "P001 table:1"
    assert r1.extraction == "rules + judge:scripted (report-extract-v1)" and r2.extraction == "rules + judge:scripted (report-extract-v1)"
    assert r1.judged.extraction.sentences == 1 and r1.judged.extraction.claims == 1 and r2.judged.extraction.sentences == 0
    assert r1.judged.prompt_versions == {"extract": "report-extract-v1", "quality": "flae-v1", "persona": "pdr-v1",
                                         "support": "report-support-v1"}
    # FLAE: s_d = alpha formula + (1 - alpha) judge, FLAE = 100 sum W_d s_d, W normalised (R2's 1:1:2)
    for rep, (dims, w, alpha) in ((r1, FLAE_R1), (r2, FLAE_R2)):
        f = rep.judged.flae
        assert f.alpha == alpha and f.judged == dims and f.value == pytest.approx(_fused(f, dims, w, alpha))
        assert 0 <= f.alpha_det <= 1 and all(0 < v < 1 for v in f.formula.values())
    assert r2.judged.flae.weights == pytest.approx({"read": 0.25, "insh": 0.25, "stru": 0.5})
    # P-Score (R1 only): criteria 3:1 -> 0.75/0.25; goal 7.5, content 6.5, presentation 9, actionability 3.5
    p = r1.judged.personalization
    assert [c.weight for c in p.dimensions["goal_alignment"].criteria] == [0.75, 0.25]
    assert p.dimensions["actionability"].score == pytest.approx(3.5)
    assert p.value == pytest.approx(0.4 * 7.5 + 0.3 * 6.5 + 0.1 * 9 + 0.2 * 3.5) and r2.judged.personalization is None
    # support in this run, rules vs judge: both 4, rules only 2 (R1 ZNet Beta, R2 ZNet GFLOPs), judge only 1 (R1 XNet
    # 71.0), neither 1 (R2 XNet Beta). p_o = 5/8, p_e = 6/8*5/8 + 2/8*3/8 = 36/64, kappa = (40/64 - 36/64)/(28/64) = 1/7
    a = s.report.judged.support_agreement
    assert (a.n, a.both, a.rules_only, a.judge_only, a.neither) == (8, 4, 2, 1, 1)
    assert a.agreement == pytest.approx(5 / 8) and a.p_e == pytest.approx(36 / 64) and a.kappa == pytest.approx(1 / 7)
    assert a.interval is not None and a.interval.low <= 1 / 7 <= a.interval.high
    unread = next(j for j in r1.judged.support if j.unit == "P001 figure:1")
    assert unread.judged is None and unread.why.startswith("cited but unread")  # never asked: nothing read to judge
    # judged FA: 9 cited claims, 5 judged supported by a source the agent read
    assert (s.report.judged.judged_fa_num, s.report.judged.judged_fa_den) == (5, 9)
    assert s.report.judged.calibration_label == "not calibrated" and s.report.judged.errors == 0
    assert again.report.judged.flae.value == pytest.approx(s.report.judged.flae.value)
    report_md = (run / "report.md").read_text()
    assert "### Judged report numbers (judge:scripted" in report_md and "| not calibrated |" in report_md
    log = [json.loads(line)["event"] for line in (run / "report_judge_log.jsonl").read_text().splitlines()]
    assert log.count("request") == 21 and log.count("report_support") == 16  # 8 asked, 8 read back from the cache


def test_support_agreement_hand_checked_and_carried_as_calibration(tmp_path: Path) -> None:
    run = report_run(tmp_path)
    support_only = Script(responses=[ScriptItem(content=v, match={"contains": m}) for m, v in SUPPORT],
                          default=ScriptItem(content="(no reply scripted)"))
    with ScriptedModelServer(support_only) as srv:
        rep = run_support_agreement(run, "rules", f"judge:scripted@{srv.base_url}", judge_cache=tmp_path / "cache")
        assert "default" not in [r.served for r in srv.chat_requests]
    # rules' claims only (no judged extraction): R1 ZNet 75 (T,T), XNet 71 (F,T), YNet 60M (T,T); R2 (T,T) (T,T) (T,F)
    # (F,F): both 4, rules only 1, judge only 1, neither 1; p_o = 5/7, p_e = (5/7)^2 + (2/7)^2 = 29/49, kappa = 0.3
    assert (rep.n, rep.both, rep.rules_only, rep.judge_only, rep.neither, rep.episodes) == (7, 4, 1, 1, 1, 2)
    assert rep.agreement == pytest.approx(5 / 7) and rep.p_e == pytest.approx(29 / 49) and rep.kappa == pytest.approx(0.3)
    assert rep.interval.method == "bootstrap-percentile" and rep.interval.low <= 0.3 <= rep.interval.high
    assert set(rep.by_unit) == {"table"}
    saved = json.loads((run / "support_agreement.json").read_text())
    assert saved["kappa"] == pytest.approx(0.3)
    registry = json.loads((run.parent / "judge_calibration.json").read_text())
    cal = registry["judge:scripted | report-support-v1"]
    assert cal["kappa"] == pytest.approx(0.3) and cal["n"] == 7 and cal["run_id"] == "fixture-run"
    with ScriptedModelServer(judge_script()) as srv:  # every judged number now names that measurement
        s = score_run(run, report_judge=_cfg(srv, tmp_path / "cache2"), report_parts=("quality",))
    label = s.report.judged.calibration_label
    assert label.startswith("support kappa 0.30 [") and "over 7 claim-source pairs of sandbox run fixture-run" in label
    assert all(e.report.judged.calibration_label == label for e in read_episode_scores(run))
    assert s.report.judged.prompt_versions == {"quality": "flae-v1"} and s.report.extraction == "rules"
    assert f"| {label} |" in (run / "report.md").read_text()
    with pytest.raises(ScoringError, match="compares the rules with a judge"):
        run_support_agreement(run, "matcher", "human:x.jsonl")


def test_bad_judge_replies_are_refused_retried_and_never_cached(tmp_path: Path) -> None:
    run = report_run(tmp_path)
    bad = Script(responses=[
        ScriptItem(content='[{"kind": "value", "subject": "ZNet", "value": 99.9}, {"kind": "value", "subject": "QNet", '
                           '"value": 52.0}, {"kind": "compare", "subject": "ZNet", "value": 52.0}, "not a claim"]',
                   match={"contains": "Sentence: It also reaches"}),
    ], default=ScriptItem(content="I think the report is fine."))
    with ScriptedModelServer(bad) as srv:
        s = score_run(run, report_judge=_cfg(srv, tmp_path / "cache"), report_parts=("extract", "quality"))
        first = len(srv.chat_requests)
        score_run(run, report_judge=_cfg(srv, tmp_path / "cache"), report_parts=("extract", "quality"))
        assert len(srv.chat_requests) > first  # unreadable replies were not cached: asked again
    r1 = next(e for e in read_episode_scores(run) if e.episode_id == "R1").report
    refused = r1.judged.extraction.refused
    assert r1.judged.extraction.claims == 0 and len(refused) == 4
    assert any("99.9" in r and "not a number the sentence prints" in r for r in refused)
    assert any("QNet" in r and "neither a method" in r for r in refused)
    assert any("relation None" in r for r in refused) and any("not a claim object" in r for r in refused)
    f = r1.judged.flae
    assert f.value is None and "no readable dimension scores, weights, alpha" in f.error and f.formula  # formula stays
    assert s.report.judged.errors == 2 and s.report.judged.flae.value is None


def test_a_judge_that_is_down_stops_the_pass_and_leaves_the_scores(tmp_path: Path) -> None:
    run = report_run(tmp_path)
    score_run(run)
    before = (run / "scores.json").read_text()
    cfg = JudgeConfig(model="m", base_url="http://127.0.0.1:9/v1", cache_dir=tmp_path / "c", max_retries=0, timeout_s=5)
    with pytest.raises(JudgeUnavailable, match="127.0.0.1:9"):
        score_run(run, report_judge=cfg)
    assert (run / "scores.json").read_text() == before


@pytest.mark.parametrize("reply,want", [("SUPPORTED", True), ("**Unsupported**\nbecause", False), ("Verdict: supported", True),
                                        ("<think>hmm</think>\nNOT SUPPORTED", False), ("It is supported.", None), ("", None)])
def test_support_verdicts_are_read_from_the_first_line(reply: str, want: bool | None) -> None:
    assert parse_support(reply) is want


def test_json_replies_are_read_after_reasoning_and_fences() -> None:
    assert read_json('<think>{"a": 1}</think> Here: ```json\n{"read": 0.5}\n```', dict) == {"read": 0.5}
    assert read_json('claims: [1, [2]] and then [3]', list) == [3]
    assert read_json("no json at all {", dict) is None and read_json("[" * 100_000, list) is None


def test_a_live_world_citation_is_judged_against_the_page_the_agent_opened(tmp_path: Path) -> None:
    """A URL citation finds the text of the call that opened that URL (the world named the paper by its arXiv id);
    with no unit facts there is no rules verdict, only the judge's."""
    from harness.episode import ReportTurn
    from harness.reports import score_report
    from harness.reports._judged import judge_report
    from harness.scoring.judge import Judge
    from harness.trace import FinalAnswerEvent, ToolCallEvent, TurnStart
    from harness.trace_fold import fold_events

    from .report_runs import FACTS, GOLD

    url = "https://arxiv.org/abs/2101.00001"
    mk = dict(run_id="r", episode_id="L", turn=1, ts=1.0)
    fold = fold_events("L", [
        TurnStart(step=0, question="q", allowed_tools=["table_extract"], budget=5, **mk),
        ToolCallEvent(step=1, tool="table_extract", args={"paper": url, "table": 1}, result_text="| XNet | 70.0 |",
                      provenance=[{"paper": "2101.00001", "unit": "table:1"}], **mk),
        FinalAnswerEvent(step=2, answer=f"XNet reaches 70.0 on Alpha [{url}, Table 1]. XNet has 20 M parameters "
                                        f"[{url}, Table 2].", source="agent", **mk)])
    turn = ReportTurn.model_validate({"question": "q", "gold": GOLD, "facts": FACTS,
                                      "papers": [{"paper": "P001", "method": "ZNet"}]})
    rep = score_report(turn, fold, 1)
    assert rep.unread == [f"{url} table:2"]  # Table 1 was opened under that URL, Table 2 never
    live = turn.model_copy(update={"facts": [], "gold": []})  # what a live-world turn knows: no unit facts
    script = Script(responses=[ScriptItem(content="SUPPORTED", match={"contains": "| XNet | 70.0 |"})],
                    default=ScriptItem(content="(no reply scripted)"))
    with ScriptedModelServer(script) as srv:
        j = judge_report(Judge(_cfg(srv, tmp_path / "c")), live, fold, 1, rep, parts=("support",))
        assert len(srv.chat_requests) == 1
    assert [(s.unit, s.judged, s.rules) for s in j.support] == [(f"{url} table:1", True, None), (f"{url} table:2", None, None)]
    assert (j.judged_supported, j.cited) == (1, 2)
