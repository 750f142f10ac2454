"""Where `epi retry` and `--break-lock` take what they need (issue 21, "What to build" 1 and 2), through the CLI:
the endpoint, key variable and agent of a retry come from a `--config` file as well as from flags; an episode that
never finished is run again by `epi retry` like an errored one; a lock held on another host refuses `epi run
--resume` in one line (exit 2, nothing written) until `--break-lock` is given, which then takes the run."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.rundir import RunDir
from harness.runlock import LOCK_NAME, RunLockInfo
from sandbox.model_server import Script, ScriptedModelServer, ScriptItem

from ..fakes import folder_snapshot
from .test_run_cli import epi

KEY = "EPI_RETRY_SOURCES_KEY"


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.slow
def test_retry_takes_the_endpoint_agent_and_key_from_a_config_file(tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                                   monkeypatch):
    monkeypatch.setenv(KEY, "sk-test")
    down = ScriptedModelServer(Script(default=ScriptItem(fault="server_error"))).start()
    up = ScriptedModelServer(Script(default=ScriptItem(content="Final answer: 2019"))).start()
    try:
        code, out = epi(["run", "--agent", "openai", "--model", "m", "--base-url", down.base_url, "--api-key-env", KEY,
                         "--max-retries", "0", "--episodes", str(tiny_episodes), "--limit", "1", "--results",
                         str(tmp_path), "--run-id", "r", "-q"], capsys, monkeypatch, tiny_sandbox)
        assert code == 0 and "1 errored episode" in _flat(out), out
        cfg = tmp_path / "recovered.toml"
        cfg.write_text(f'[run]\nagent = "openai"\n[run.agent_config]\nbase_url = "{up.base_url}"\n'
                       f'api_key_env = "{KEY}"\n')
        code, out = epi(["retry", "r", "--results", str(tmp_path), "--config", str(cfg), "-q"], capsys, monkeypatch,
                        tiny_sandbox)
        assert code == 0, out
        assert "1 run, 0 kept" in out and "1 failed attempt(s) kept" in out
        assert up.chat_requests
        rd = RunDir(tmp_path / "r")
        s = json.loads(rd.scores_json.read_text())
        assert (s["all"]["episodes"], s["all"]["errored"]) == (1, 0)
        (retry,) = json.loads(rd.run_json.read_text())["retries"]
        assert retry["base_url"] == up.base_url and retry["replaced"] == {"base_url": down.base_url}
    finally:
        down.stop()
        up.stop()


@pytest.mark.slow
def test_retry_runs_an_episode_that_never_finished(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--limit", "2", "--results",
                     str(tmp_path), "--run-id", "r", "-q"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    rd = RunDir(tmp_path / "r")
    lost = sorted(rd.traces_dir.glob("*.jsonl"))[0]
    lost.unlink()  # a crash before the trace was finished: no trace at all
    code, out = epi(["retry", "r", "--results", str(tmp_path), "--agent", "oracle", "-q"], capsys, monkeypatch,
                    tiny_sandbox)
    assert code == 0, out
    assert "1 run, 1 kept" in out
    assert lost.is_file()
    s = json.loads(rd.scores_json.read_text())
    assert (s["all"]["episodes"], s["all"]["errored"], s["all"]["esr"]) == (2, 0, 100.0)


@pytest.mark.slow
def test_a_lock_of_another_host_refuses_resume_until_break_lock(tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                                monkeypatch):
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--limit", "2", "--results",
                     str(tmp_path), "--run-id", "r", "-q", "--no-score"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    rd = RunDir(tmp_path / "r")
    sorted(rd.traces_dir.glob("*.jsonl"))[0].unlink()  # one episode still to do
    foreign = RunLockInfo(pid=4242, host="ray-node-7", started="2026-01-01T00:00:00+00:00", command="epi run",
                          token="theirs")
    (rd.path / LOCK_NAME).write_text(foreign.model_dump_json())
    before = folder_snapshot(rd.path)
    resume = ["run", "--resume", "r", "--agent", "oracle", "--results", str(tmp_path), "-q", "--no-score"]
    code, out = epi(resume, capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "Traceback" not in out and len(out.strip().splitlines()) == 1, out
    assert "pid 4242 on host ray-node-7" in out and "--break-lock" in out
    assert folder_snapshot(rd.path) == before
    code, out = epi([*resume, "--break-lock"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    assert "broken with --break-lock" in out and "1 run, 1 kept" in out
    assert not (rd.path / LOCK_NAME).exists() and len(rd.completed_jobs()) == 2
