"""The LLM judge over real HTTP (a tiny local chat-completions server), its cache, and labeller agreement."""
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.scoring import JudgeConfig, score_run
from harness.scoring.agreement import cohen_kappa, run_agreement
from harness.scoring.judge import JudgeUnavailable
from harness.scoring.run import ScoringError

from .scoring_fixture import main_run

REPO = Path(__file__).resolve().parents[2]


def answer_of(body: dict) -> str:
    """The agent answer a judge request asks about (a retry adds messages after it)."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user" and "Agent answer:" in m["content"])
    return user.split("Agent answer:", 1)[1]


def strict_reply(answer: str) -> str:
    """INCORRECT when the agent answer has a 'Z' or a parenthesis, else CORRECT."""
    return "INCORRECT" if ("Z" in answer or "(" in answer) else "CORRECT"


class FakeJudge:
    """A chat-completions endpoint whose reply is `reply(agent answer)` (default: `strict_reply`)."""

    def __init__(self, reply=strict_reply) -> None:  # noqa: ANN001
        self.requests: list[dict] = []
        self.reply = reply
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                word = outer.reply(answer_of(body))
                reply = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": word}}],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *a) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def fake_judge():
    j = FakeJudge()
    yield j
    j.close()


def test_kappa_hand_computed():
    a = [1, 1, 0, 0, 1, 0, 1, 1, 0, 1]
    b = [1, 0, 0, 0, 1, 1, 1, 1, 0, 1]
    p_o, p_e, k = cohen_kappa([bool(x) for x in a], [bool(x) for x in b])
    assert p_o == 0.8 and p_e == pytest.approx(0.52) and k == pytest.approx(0.28 / 0.48)
    assert cohen_kappa([True] * 3, [True] * 3) == (1.0, 1.0, 1.0)  # p_e == 1, full agreement
    assert cohen_kappa([True, True], [False, False])[2] == 0.0


def test_judge_scores_a_run_and_the_second_scoring_makes_no_request(tmp_path, fake_judge):
    run = main_run(tmp_path)
    cfg = JudgeConfig(model="fake", base_url=fake_judge.url, cache_dir=tmp_path / "judge-cache")
    s = score_run(run, judge=cfg)
    # 6 answered turns reach the judge (None answers are never sent); E2 t1 "(A)" and t2 "X; Z" judged wrong
    assert len(fake_judge.requests) == 6
    assert all(r["temperature"] == 0 for r in fake_judge.requests)
    assert s.labeller == "judge:fake" and s.easy.acc_pre == 50.0 and s.easy.esr == 50.0
    again = score_run(run, judge=cfg)
    assert len(fake_judge.requests) == 6 and again.easy.acc_pre == 50.0
    assert json.loads((run / "scores.json").read_text())["labeller"] == "judge:fake"


def test_agreement_matcher_vs_judge_and_human_file(tmp_path, fake_judge):
    run = main_run(tmp_path)
    rep = run_agreement(run, "matcher", f"judge:fake@{fake_judge.url}", judge_cache=tmp_path / "jc")
    # only the 6 answered turns are labelled by both (E3 t2 and E4 t1 have no answer, E4 t2 never ran):
    # matcher TT TF T.T, judge TT FF T.T -> p_o 5/6, p_e 5/6*4/6 + 1/6*2/6 = 11/18, kappa (5/6-11/18)/(7/18) = 4/7
    assert rep.turn.n == 6 and rep.turn.agreement == pytest.approx(5 / 6) and rep.turn.kappa == pytest.approx(4 / 7)
    # episodes with every turn labelled by both: E1 (T/T) and E2 (F/F)
    assert rep.episode.n == 2 and rep.episode.agreement == 1.0 and rep.episode.kappa == 1.0
    human = tmp_path / "human.jsonl"
    human.write_text('{"episode_id": "E1", "turn": 1, "correct": true}\n{"episode_id": "E1", "turn": 2, "correct": false}\n')
    rep2 = run_agreement(run, "matcher", f"human:{human}")
    assert rep2.turn.n == 2 and rep2.turn.agreement == 0.5 and rep2.episode.n == 1 and rep2.episode.agreement == 0.0
    human.write_text('{"episode_id": "E1", "turn": "first"}\n')
    with pytest.raises(ScoringError, match=r"human.jsonl:1: .*turn"):
        run_agreement(run, "matcher", f"human:{human}")
    with pytest.raises(ScoringError, match="unknown labeller"):
        run_agreement(run, "matcher", "gpt")


def test_judge_endpoint_down_is_a_clear_error_and_leaves_the_matcher_scores_intact(tmp_path):
    run = main_run(tmp_path)
    score_run(run)
    before = (run / "scores.json").read_text()
    cfg = JudgeConfig(model="m", base_url="http://127.0.0.1:9/v1", cache_dir=tmp_path / "jc", max_retries=0, timeout_s=5)
    with pytest.raises(JudgeUnavailable, match="127.0.0.1:9.*not reachable.*matcher scores"):
        score_run(run, judge=cfg)
    assert (run / "scores.json").read_text() == before


def test_a_run_without_scores_gets_matcher_scores_when_the_judge_is_down(tmp_path):
    run = main_run(tmp_path)
    cfg = JudgeConfig(model="m", base_url="http://127.0.0.1:9/v1", cache_dir=tmp_path / "jc", max_retries=0, timeout_s=5)
    with pytest.raises(JudgeUnavailable):
        score_run(run, judge=cfg)
    assert json.loads((run / "scores.json").read_text())["labeller"] == "matcher"


def test_cache_key_covers_everything_the_rubric_sees(tmp_path, fake_judge):
    run = main_run(tmp_path)
    cfg = JudgeConfig(model="fake", base_url=fake_judge.url, cache_dir=tmp_path / "judge-cache")
    score_run(run, judge=cfg)
    n = len(fake_judge.requests)
    ep_file = tmp_path / "episodes.jsonl"
    ep_file.write_text(ep_file.read_text().replace('"tolerance": 0.01', '"tolerance": 0.02'))  # E3 t1 only
    score_run(run, judge=cfg, allow_mismatch=True)
    assert len(fake_judge.requests) == n + 1
    ep_file.write_text(ep_file.read_text().replace('"C": "three"', '"C": "3"'))  # E3 t3 options
    score_run(run, judge=cfg, allow_mismatch=True)
    assert len(fake_judge.requests) == n + 2


def test_an_unparseable_judge_reply_is_retried_once_then_a_judge_error_never_incorrect(tmp_path):
    judge = FakeJudge(reply=lambda answer: "I think the answer is probably fine." if "resnet" in answer else "CORRECT")
    try:
        run = main_run(tmp_path)
        s = score_run(run, judge=JudgeConfig(model="fake", base_url=judge.url, cache_dir=tmp_path / "jc"))
        asked = [r for r in judge.requests if "resnet50" in answer_of(r)]
        assert len(asked) == 2  # asked, then once more
        rows = {json.loads(x)["episode_id"]: json.loads(x) for x in (run / "episode_scores.jsonl").read_text().splitlines()}
        t2 = rows["E1"]["turns"][1]
        assert t2["verdict"]["judge_error"] and t2["labelled_by"] == "matcher" and t2["correct"]  # matcher fills in
        assert s.judge_errors == 1 and "could not label 1 turn" in (run / "report.md").read_text()
        score_run(run, judge=JudgeConfig(model="fake", base_url=judge.url, cache_dir=tmp_path / "jc"))
        assert len([r for r in judge.requests if "resnet50" in answer_of(r)]) == 4  # errors are not cached
    finally:
        judge.close()


@pytest.mark.parametrize("reply, correct", [
    ("CORRECT\nThe answer is not INCORRECT in any way.", True),
    ("INCORRECT\nA correct answer would be 35.2.", False),
    ("**Correct**", True),
    ("<think>Is it INCORRECT? The value matches.</think>\nCORRECT", True),
    ("Verdict: INCORRECT", False),
])
def test_the_verdict_is_read_from_the_first_line_after_reasoning(tmp_path, reply, correct):
    judge = FakeJudge(reply=lambda answer: reply)
    try:
        run = main_run(tmp_path)
        score_run(run, judge=JudgeConfig(model="fake", base_url=judge.url, cache_dir=tmp_path / "jc"))
        rows = {json.loads(x)["episode_id"]: json.loads(x) for x in (run / "episode_scores.jsonl").read_text().splitlines()}
        assert rows["E1"]["turns"][0]["correct"] is correct and not rows["E1"]["turns"][0]["verdict"]["judge_error"]
        assert all("max_tokens" not in r for r in judge.requests)  # a reasoning judge needs room to think
    finally:
        judge.close()


def _epi(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=REPO, capture_output=True, text=True,
                          env=env, stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.slow
def test_cli_score_compare_and_errors(tmp_path):
    run = main_run(tmp_path)
    r = _epi("score", str(run), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["all"]["esr"] == pytest.approx(100 / 3)  # E4, a provider outage, is left out
    r = _epi("score", str(run), "--json", "--score-errors-as-failures")
    assert r.returncode == 0 and json.loads(r.stdout)["all"]["esr"] == 25.0 and json.loads(r.stdout)["errors_as_failures"]
    r = _epi("score", str(run), "--json")
    r = _epi("compare", str(run), str(run), "--out", str(tmp_path / "cmp"))
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "cmp" / "comparison.md").read_text()
    assert "| fixture-run | 50.00 [9.45, 90.55] | 50.00 [9.45, 90.55] | 100.00 [34.24, 100.00] |" in md and (tmp_path / "cmp/plots/cost_vs_success.png").is_file()
    r = _epi("score", str(run), "--judge", "m", "--judge-base-url", "http://127.0.0.1:9/v1")
    assert r.returncode == 2 and "not reachable" in " ".join(r.stderr.split()) and "Traceback" not in r.stderr
    r = _epi("score", str(tmp_path / "nope"))
    assert r.returncode == 2 and "does not exist" in " ".join(r.stderr.split())


def test_judge_retries_go_through_the_provider_policy_and_into_the_judges_own_log(tmp_path):
    """A 429 and a 500 from the judge are retried (Retry-After honoured) and logged beside the scores;
    the run's traces are not touched."""
    from sandbox.model_server import ScriptedModelServer

    run = main_run(tmp_path)
    traces = {p.name: p.read_bytes() for p in (run / "traces").glob("*.jsonl")}
    script = [{"fault": "rate_limit", "retry_after": 0.05}, {"fault": "server_error"}]
    with ScriptedModelServer(script + [{"content": "CORRECT"}] * 6) as srv:
        cfg = JudgeConfig(model="m", base_url=srv.base_url, cache_dir=tmp_path / "jc", max_retries=2, retry_base_s=0.01)
        s = score_run(run, judge=cfg)
        assert s.labeller == "judge:m" and len(srv.chat_requests) == 8
    log = [json.loads(line) for line in (run / "judge_log.jsonl").read_text().splitlines()]
    retries = [e for e in log if e["event"] == "retry"]
    assert [(r["attempt"], r["error"][:8]) for r in retries] == [(1, "HTTP 429"), (2, "HTTP 500")]
    assert retries[0]["wait_s"] == pytest.approx(0.05)
    assert sum(e["event"] == "verdict" for e in log) == 6 and all(e["judge"] == "judge:m" for e in log)
    assert {p.name: p.read_bytes() for p in (run / "traces").glob("*.jsonl")} == traces
