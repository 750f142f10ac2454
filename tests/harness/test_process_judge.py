"""Judged process quality (issue 17, optional item 3) against the project's scripted model server over HTTP:
the MiroEval dimensions are read from the judge's reply, cached, retried once when unreadable, set beside
their deterministic counterparts, and a judge that is down stops the pass with the scores left as they were."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from harness.scoring import JudgeConfig, score_run
from harness.scoring.judge import JudgeUnavailable
from harness.scoring.process_judge import parse_process_reply, render_trace
from harness.scoring.run import read_episode_scores
from harness.trace_fold import fold_events
from sandbox.model_server import Script, ScriptedModelServer, ScriptItem

from .scoring_fixture import write_run
from .test_process import memory_only_final, reformulated_query, repeated_calls, untraceable


def scores_json(breadth: int, depth: int, refine: int, critical: int, eff: int) -> str:
    return json.dumps({"search_breadth": breadth, "analytical_depth": depth, "progressive_refinement": refine,
                       "critical_thinking": critical, "efficiency": eff})


def script() -> Script:
    """One reply per episode, matched on the episode id in the rendering; U1 gets prose twice (asked, retried)."""
    def item(eid: str, content: str) -> ScriptItem:
        return ScriptItem(content=content, match={"contains": f"Episode {eid}:"})
    return Script(responses=[
        item("R1", scores_json(3, 5, 2, 4, 4)),
        item("F1", "<think>many searches, refined well</think>\n" + scores_json(8, 4, 9, 6, 7)),
        item("M1", "Scores:\n```json\n" + scores_json(1, 3, 1, 7, 9) + "\n```"),
        item("U1", "The process looks reasonable overall."),
        ScriptItem(content="Still fine, I would say.", match={"contains": "Reply with that object only"}),
    ], default=ScriptItem(content="(no reply scripted for this request)"))


def _run(root: Path) -> Path:
    built = [repeated_calls(), reformulated_query(), memory_only_final(), untraceable()]
    return write_run(root, [e for e, _ in built], {b.ep: b.lines() for _, b in built})


def test_the_judge_scores_each_episode_and_agrees_with_the_deterministic_metrics(tmp_path: Path):
    run = _run(tmp_path)
    with ScriptedModelServer(script()) as srv:
        cfg = JudgeConfig(model="scripted", base_url=srv.base_url, cache_dir=tmp_path / "cache")
        s = score_run(run, process_judge=cfg)
        assert len(srv.chat_requests) == 5 and srv.remaining() == 0  # 4 episodes, U1 asked once more
        body = srv.chat_requests[0].body
        assert body["temperature"] == 0 and "Gold answer" not in json.dumps(body)
        j = s.judged_process
        assert j is not None and j.judge == "judge:scripted" and (j.episodes, j.errors) == (3, 1)
        assert j.means["search_breadth"] == pytest.approx(4.0) and j.means["critical_thinking"] == pytest.approx(17 / 3)
        rho = {c.metric: c.rho for c in j.agreement}
        # breadth (3, 8, 1) vs papers surfaced (2, 4, 0) and efficiency (4, 7, 9) vs (4/6, 5/6, 1): same order
        assert rho["search_breadth ~ papers surfaced"] == pytest.approx(1.0)
        assert rho["efficiency ~ efficiency"] == pytest.approx(1.0)
        # depth (5, 4, 3) vs units per paper (1.5, 1, 1); refinement (2, 9, 1) vs reformulations (0, 3, 0): ties
        assert rho["analytical_depth ~ units per paper"] == pytest.approx(1.5 / math.sqrt(3))
        assert rho["progressive_refinement ~ reformulations"] == pytest.approx(1.5 / math.sqrt(3))
        got = {e.episode_id: e.process.judged for e in read_episode_scores(run)}
        assert got["F1"].scores["progressive_refinement"] == 9.0 and got["U1"].error and not got["U1"].scores
        report = (run / "report.md").read_text()
        assert "## Judged process quality (MiroEval dimensions, LLM judge)" in report and "1 without readable scores" in report
        # again: the three readable verdicts come from the cache, the unreadable one is asked again (not cached)
        n = len(srv.chat_requests)
        score_run(run, process_judge=cfg)
        assert len(srv.chat_requests) == n + 2


def test_replies_are_read_only_when_all_five_dimensions_are_scores_1_to_10():
    assert parse_process_reply(scores_json(1, 10, 5, 5, 5)) == {
        "search_breadth": 1.0, "analytical_depth": 10.0, "progressive_refinement": 5.0, "critical_thinking": 5.0, "efficiency": 5.0}
    assert parse_process_reply(scores_json(0, 5, 5, 5, 5)) is None  # out of range
    assert parse_process_reply('{"search_breadth": 5}') is None  # dimensions missing
    assert parse_process_reply('{"search_breadth": true, "analytical_depth": 5}') is None
    assert parse_process_reply("<think>{\"efficiency\": 1}</think>" + scores_json(2, 2, 2, 2, 2))["efficiency"] == 2.0
    assert parse_process_reply(None) is None and parse_process_reply("7/10 overall") is None


def test_the_rendering_shows_calls_results_and_answers_but_no_gold():
    _, b = repeated_calls()
    fold = fold_events("R1", b.events)
    text = render_trace(fold)
    assert 'step 3: table_extract({"paper": "P001", "table": 2}) -> Table 2 | acc | 35.2 | [exposed: P001 table:2]' in text
    assert "answer: Final answer: 35.2" in text and "Tools offered: web_search, table_extract" in text
    assert "required" not in text.lower() and "gold" not in text.lower()


def test_a_judge_that_is_down_stops_the_pass_and_leaves_the_scores(tmp_path: Path):
    run = _run(tmp_path)
    score_run(run)
    before = (run / "scores.json").read_text()
    cfg = JudgeConfig(model="m", base_url="http://127.0.0.1:9/v1", cache_dir=tmp_path / "c", max_retries=0, timeout_s=5)
    with pytest.raises(JudgeUnavailable, match="127.0.0.1:9.*not reachable.*unchanged"):
        score_run(run, process_judge=cfg)
    assert (run / "scores.json").read_text() == before


@pytest.mark.slow
def test_cli_score_with_a_process_judge(tmp_path: Path):
    import os
    import subprocess
    import sys

    run = _run(tmp_path)
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "EPI_CACHE_DIR": str(tmp_path / "cache")}

    def epi(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "harness", "score", str(run), *args], cwd=repo, env=env,
                              capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=180)

    r = epi("--process-judge", "m")
    assert r.returncode == 2 and "--process-judge and --process-judge-base-url go together" in r.stderr
    with ScriptedModelServer(script()) as srv:
        r = epi("--process-judge", "scripted", "--process-judge-base-url", srv.base_url, "--json")
        assert r.returncode == 0, r.stderr
        judged = json.loads(r.stdout)["judged_process"]
        assert judged["judge"] == "judge:scripted" and judged["episodes"] == 3 and judged["errors"] == 1
