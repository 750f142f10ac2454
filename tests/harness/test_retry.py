"""Errors are not failures, and errored episodes can be retried (issue 21, METRICS.md "Failure accounting").

The issue's measurement: three episodes against a model server answering 500 were scored "ESR 0.0 [0-56]",
"failures: others 3". Now they are 3 errored episodes with no ESR computed over them; after the server
recovers, `epi retry RUN --base-url NEW` runs the 3 again, scores them, and keeps the failed attempts in the
run. The endpoint, key variable and agent are never taken from the run folder alone.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.rundir import RunDir
from harness.scoring import score_run
from harness.scoring.epochs import Reducer
from harness.scoring.paired import pair_runs
from harness.scoring.run import read_episode_scores
from sandbox.model_server import Script, ScriptedModelServer, ScriptItem

from ..fakes import folder_snapshot
from .scoring_fixture import TraceBuilder, main_run
from .test_run_cli import epi

KEY = "EPI_RETRY_TEST_KEY"


def _epi(args: list[str], capsys, monkeypatch, sandbox: Path) -> tuple[int, str]:  # noqa: ANN001
    monkeypatch.setenv(KEY, "sk-test")
    return epi(args, capsys, monkeypatch, sandbox)


def _one_line(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.slow
def test_outage_is_errored_not_failed_and_retry_reruns_it(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    down = ScriptedModelServer(Script(default=ScriptItem(fault="server_error"))).start()
    up = ScriptedModelServer(Script(default=ScriptItem(content="Final answer: 2019"))).start()
    try:
        common = ["--agent", "openai", "--model", "m", "--api-key-env", KEY, "--max-retries", "0",
                  "--episodes", str(tiny_episodes), "--limit", "3", "--results", str(tmp_path)]
        code, out = _epi(["run", *common, "--base-url", down.base_url, "--run-id", "r"], capsys, monkeypatch, tiny_sandbox)
        assert code == 0, out
        flat = _one_line(out)
        assert "3 errored episodes (provider 3" in flat and "left out of ESR" in flat and "others 3" not in flat
        assert "failures: retrieve 0, perception 0, reading-memory 0, reasoning 0, others 0" in flat
        rd = RunDir(tmp_path / "r")
        s = json.loads(rd.scores_json.read_text())
        assert (s["all"]["esr"], s["all"]["acc_final"], s["all"]["episodes"], s["all"]["errored"]) == (None, None, 0, 3)
        assert s["all"]["intervals"]["esr"] is None and s["buckets"]["provider"] == 3
        assert len(s["errored_episodes"]) == 3 and not s["errors_as_failures"]
        assert "3 errored episodes" in rd.report_md.read_text()
        asked = len(down.chat_requests)

        # the run folder alone never names the endpoint, key variable or agent: one line, exit 2, nothing written
        before = folder_snapshot(rd.path)
        code, out = _epi(["retry", "r", "--results", str(tmp_path)], capsys, monkeypatch, tiny_sandbox)
        line = _one_line(out)
        assert code == 2 and "Traceback" not in out
        assert (f"names agent openai, base_url {down.base_url}, api_key_env {KEY}, which you did not give" in line)
        assert (f"To use them: epi retry r --results {tmp_path} --agent openai --base-url {down.base_url} "
                f"--api-key-env {KEY}") in line
        # --resume keeps the run's endpoint: another is refused, and `epi retry` is named
        code, out = _epi(["run", "--resume", "r", "--results", str(tmp_path), "--agent", "openai", "--api-key-env", KEY,
                          "--base-url", up.base_url], capsys, monkeypatch, tiny_sandbox)
        line = _one_line(out)
        assert code == 2 and f"run 'r' was made with base_url {down.base_url}; --resume keeps the run's base_url" in line
        assert "epi retry" in line and "Traceback" not in out
        # a setting that contradicts the stored run is refused too
        code, out = _epi(["retry", "r", "--results", str(tmp_path), "--agent", "openai", "--api-key-env", KEY,
                          "--base-url", up.base_url, "--max-steps", "3"], capsys, monkeypatch, tiny_sandbox)
        assert code == 2 and "--max-steps 3: run 'r' was made with max_steps 10" in _one_line(out)
        assert folder_snapshot(rd.path) == before and not up.chat_requests and len(down.chat_requests) == asked

        # the server has recovered: retry on the new endpoint
        code, out = _epi(["retry", "r", "--results", str(tmp_path), "--agent", "openai", "--api-key-env", KEY,
                          "--base-url", up.base_url, "-q"], capsys, monkeypatch, tiny_sandbox)
        assert code == 0, out
        assert "3 run, 0 kept" in out and "3 failed attempt(s) kept" in out
        assert up.chat_requests and len(down.chat_requests) == asked
        s = json.loads(rd.scores_json.read_text())
        assert (s["all"]["episodes"], s["all"]["errored"]) == (3, 0) and s["all"]["esr"] is not None
        ids = [e.episode_id for e in read_episode_scores(rd.path)]
        assert len(ids) == 3 and all(len(rd.attempts(e)) == 1 for e in ids)
        for e in ids:  # the failed attempt is kept whole, where the run folder says
            (attempt,) = rd.attempts(e)
            assert attempt.trace == rd.path / "traces" / "attempt=1" / f"{e}.jsonl"
            assert rd.read_attempt(attempt).complete and before[f"traces/{e}.jsonl"] == attempt.trace.read_bytes()
        cfg = json.loads(rd.run_json.read_text())
        (retry,) = cfg["retries"]
        assert retry["base_url"] == up.base_url and retry["replaced"] == {"base_url": down.base_url}
        assert sorted(x["episode"] for x in retry["episodes"]) == sorted(ids)
        assert {x["bucket"] for x in retry["episodes"]} == {"provider"}
        assert cfg["settings"]["agent_config"]["base_url"] == up.base_url

        # the viewer marks them: each episode lists its failed attempt
        from harness.viewer import RunFiles
        from harness.viewer.timeline import build_timeline

        tl = build_timeline(RunFiles.open(rd.path), ids[0])
        assert [(a.number, a.bucket) for a in tl.attempts] == [(1, "provider")] and not tl.errored

        # nothing errored any more: nothing to retry, nothing written
        before = folder_snapshot(rd.path)
        code, out = _epi(["retry", "r", "--results", str(tmp_path), "--agent", "openai", "--api-key-env", KEY,
                          "--base-url", up.base_url], capsys, monkeypatch, tiny_sandbox)
        assert code == 0 and "nothing to retry" in out and folder_snapshot(rd.path) == before
    finally:
        down.stop()
        up.stop()


@pytest.mark.slow
def test_an_episode_already_wrong_before_the_outage_stays_a_failure(tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                                    monkeypatch):
    one = tmp_path / "one.jsonl"
    one.write_text(tiny_episodes.read_text().splitlines()[0] + "\n")
    # turn 1 answered (wrongly: the year asked is not 1066), then the provider fails on turn 2
    script = Script(responses=[ScriptItem(content="Final answer: 1066")], default=ScriptItem(fault="server_error"))
    with ScriptedModelServer(script) as srv:
        code, out = _epi(["run", "--agent", "openai", "--model", "m", "--base-url", srv.base_url, "--api-key-env", KEY,
                          "--max-retries", "0", "--episodes", str(one), "--results", str(tmp_path), "--run-id", "w"],
                         capsys, monkeypatch, tiny_sandbox)
        assert code == 0, out
        (es,) = read_episode_scores(tmp_path / "w")
        assert es.turns[0].answer == "1066" and not es.turns[0].correct and not es.errored
        s = json.loads((tmp_path / "w" / "scores.json").read_text())
        assert (s["all"]["esr"], s["all"]["episodes"], s["all"]["errored"]) == (0.0, 1, 0)
        assert sum(s["all"]["failures"].values()) == 1
        code, out = _epi(["retry", "w", "--results", str(tmp_path), "--agent", "openai", "--base-url", srv.base_url,
                          "--api-key-env", KEY], capsys, monkeypatch, tiny_sandbox)
        assert code == 0 and "nothing to retry" in out


def test_runs_are_paired_over_the_episodes_scored_in_both(tmp_path):
    """E4 is errored in run a (a provider outage) and answered in run b: the pair leaves it out."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = main_run(tmp_path / "a")
    b = main_run(tmp_path / "b")
    e4 = (TraceBuilder("E4", split="hard").turn().model(7, 1).call("figure_extract", ("P005", "figure:2")).answer("A")
          .turn(memory_only=True).model(7, 1).answer("A").end())
    (b / "traces" / "E4.jsonl").write_text("\n".join(e4.lines()) + "\n")
    sa, sb = score_run(a), score_run(b)
    assert (sa.all.errored, sb.all.errored) == (1, 0)
    c = pair_runs(sb, read_episode_scores(b), sa, read_episode_scores(a), Reducer())
    assert c.episodes == 3 and c.only_run == ["E4"] and c.only_baseline == []
    # counted as failed, E4 is scored in both and paired
    sa = score_run(a, errors_as_failures=True)
    c = pair_runs(sb, read_episode_scores(b), sa, read_episode_scores(a), Reducer())
    assert c.episodes == 4 and c.only_run == []


def test_the_terminal_table_shows_errored_episodes_beside_the_scores(tmp_path):
    from rich.console import Console

    from harness.scoring.report import scores_table

    s = score_run(main_run(tmp_path))
    out = Console(width=200, record=True)
    out.print(scores_table(s))
    lines = out.export_text().splitlines()
    head = next(line.split() for line in lines if line.lstrip().startswith("Split"))
    row = next(line.split() for line in lines if line.startswith("All"))
    assert head[:3] == ["Split", "N", "Err"] and row[:3] == ["All", "3", "1"]


def test_compare_says_which_episodes_it_left_out_and_when_errors_are_counted_differently(tmp_path, capsys,
                                                                                        monkeypatch):
    """`epi compare` of a run with an outage (E4 errored) against one without: the pair is over the 3 episodes scored
    in both, and the command says so; when one run counts errored episodes as failed, it warns."""
    runs = {}
    for name in ("recovered", "outage"):
        (tmp_path / name).mkdir()
        run = main_run(tmp_path / name)
        cfg = json.loads((run / "run.json").read_text())
        (run / "run.json").write_text(json.dumps({**cfg, "run_id": name}))
        runs[name] = run
    e4 = (TraceBuilder("E4", split="hard").turn().model(7, 1).call("figure_extract", ("P005", "figure:2")).answer("A")
          .turn(memory_only=True).model(7, 1).answer("A").end())
    (runs["recovered"] / "traces" / "E4.jsonl").write_text("\n".join(e4.lines()) + "\n")
    for run in runs.values():
        score_run(run)
    args = ["compare", str(runs["recovered"]), str(runs["outage"]), "--out", str(tmp_path / "cmp")]
    code, out = epi(args, capsys, monkeypatch)
    flat = _one_line(out)
    assert code == 0, out
    assert "3 episodes paired; left out: 0 episodes only outage scored, 1 only recovered scored" in flat
    assert "count as failed" not in flat
    score_run(runs["outage"], errors_as_failures=True)
    code, out = epi(args, capsys, monkeypatch)
    flat = _one_line(out)
    assert code == 0 and "4 episodes paired" in flat and "left out:" not in flat
    assert "errored episodes count as failed in outage and are left out in the others" in flat
