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


class FakeJudge:
    """A strict judge: INCORRECT when the agent answer has a 'Z' or a parenthesis, else CORRECT."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                answer = body["messages"][-1]["content"].split("Agent answer:", 1)[1]
                word = "INCORRECT" if ("Z" in answer or "(" in answer) else "CORRECT"
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
    # turns: matcher TT TF TFT FF, judge TT FF TFT FF -> p_o 8/9, p_e 40/81, kappa 32/41
    assert rep.turn.n == 9 and rep.turn.agreement == pytest.approx(8 / 9) and rep.turn.kappa == pytest.approx(32 / 41)
    assert rep.episode.n == 4 and rep.episode.agreement == 1.0 and rep.episode.kappa == 1.0
    human = tmp_path / "human.jsonl"
    human.write_text('{"episode_id": "E1", "turn": 1, "correct": true}\n{"episode_id": "E1", "turn": 2, "correct": false}\n')
    rep2 = run_agreement(run, "matcher", f"human:{human}")
    assert rep2.turn.n == 2 and rep2.turn.agreement == 0.5 and rep2.episode.n == 1 and rep2.episode.agreement == 0.0
    human.write_text('{"episode_id": "E1", "turn": "first"}\n')
    with pytest.raises(ScoringError, match=r"human.jsonl:1: .*turn"):
        run_agreement(run, "matcher", f"human:{human}")
    with pytest.raises(ScoringError, match="unknown labeller"):
        run_agreement(run, "matcher", "gpt")


def test_judge_endpoint_down_is_a_clear_error(tmp_path):
    run = main_run(tmp_path)
    cfg = JudgeConfig(model="m", base_url="http://127.0.0.1:9/v1", cache_dir=tmp_path / "jc", max_retries=0, timeout_s=5)
    with pytest.raises(JudgeUnavailable, match="127.0.0.1:9.*not reachable"):
        score_run(run, judge=cfg)


def _epi(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=REPO, capture_output=True, text=True,
                          env=env, stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.slow
def test_cli_score_compare_and_errors(tmp_path):
    run = main_run(tmp_path)
    r = _epi("score", str(run), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["all"]["esr"] == 25.0
    r = _epi("compare", str(run), str(run), "--out", str(tmp_path / "cmp"))
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "cmp" / "comparison.md").read_text()
    assert "| fixture-run | 50.00 | 50.00 | 100.00 |" in md and (tmp_path / "cmp/plots/cost_vs_success.png").is_file()
    r = _epi("score", str(run), "--judge", "m", "--judge-base-url", "http://127.0.0.1:9/v1")
    assert r.returncode == 2 and "not reachable" in " ".join(r.stderr.split()) and "Traceback" not in r.stderr
    r = _epi("score", str(tmp_path / "nope"))
    assert r.returncode == 2 and "does not exist" in " ".join(r.stderr.split())
