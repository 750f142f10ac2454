"""A run is owned by one process, and a signal stops it cleanly (issue 21).

The issue's scenario: `epi run --run-id r &` (a background job of a script, which ignores SIGINT), a SIGINT
that leaves it running, then `epi run --resume r`: both wrote into the run, the first died with a raw
FileNotFoundError traceback, and its scores differed from an undisturbed run's. Now the second process is
refused with one line and no traceback, and the first run's scores equal an undisturbed run's. SIGINT and
SIGTERM (not ignored) stop a run: the episodes in progress are abandoned, the finished traces kept, the
lock given back, and the command says how many episodes are done and the exact command that resumes it.
"""
from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.rundir import RunDir
from harness.runlock import LOCK_NAME, read_lock
from harness.scoring import score_run
from sandbox.model_server import Script, ScriptedModelServer, ToolLoop

REPO = Path(__file__).resolve().parents[2]
KEY = "EPI_OWNER_TEST_KEY"
SLOW = 0.6  # seconds per model reply while a run must stay alive


def _episodes(src: Path, dst: Path, copies: int = 2) -> Path:
    lines = [json.loads(line) for line in src.read_text().splitlines() if line.strip()]
    dst.write_text("".join(json.dumps({**e, "id": f"{e['id']}-c{c}"}) + "\n" for c in range(copies) for e in lines))
    return dst


def _server() -> ScriptedModelServer:
    """Answers every request the same way whatever else runs: one search, then a year."""
    loop = ToolLoop(tool="web_search", calls=1, arguments={"query": "{question}"}, content="Final answer: 2019")
    return ScriptedModelServer(Script(loop=loop)).start()


def _epi(args: list[str], sandbox: Path, *, ignore_sigint: bool = False) -> subprocess.Popen:
    env = {**os.environ, "EPI_SANDBOX_DIR": str(sandbox), "HF_HUB_OFFLINE": "1", KEY: "sk-test",
           "PYTHONPATH": str(REPO)}
    # a background job of a non-interactive shell (`epi run ... &` in a script) starts with SIGINT ignored; otherwise
    # the run starts as from a terminal, whatever this test process inherited (pytest itself started as such a
    # background job would pass SIGINT's "ignored" on, and the run would rightly keep ignoring it)
    disposition = signal.SIG_IGN if ignore_sigint else signal.SIG_DFL
    pre = lambda: signal.signal(signal.SIGINT, disposition)  # noqa: E731
    return subprocess.Popen([sys.executable, "-m", "harness", *args], cwd=REPO, env=env, preexec_fn=pre,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _common(srv: ScriptedModelServer, episodes: Path, results: Path) -> list[str]:
    return ["--agent", "openai", "--model", "m", "--base-url", srv.base_url, "--api-key-env", KEY,
            "--episodes", str(episodes), "--results", str(results), "--concurrency", "2", "--no-score", "-q"]


def _wait_for_traces(rd: RunDir, proc: subprocess.Popen, n: int) -> None:
    deadline = time.time() + 180
    while len(rd.completed_jobs()) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, "the run never finished an episode"
        time.sleep(0.1)


def _numbers(run: Path) -> dict:
    s = score_run(run).model_dump(mode="json")
    keep = ("esr", "acc_final", "acc_pre", "ec", "mg", "max_steps_rate", "failures", "episodes", "errored",
            "tool_calls", "model_calls", "intervals")
    return {split: {k: s[split][k] for k in keep} for split in ("easy", "hard", "all")}


@pytest.fixture(scope="module")
def undisturbed(tiny_sandbox, tiny_episodes, tmp_path_factory):
    """The same run, never disturbed: the yardstick."""
    root = tmp_path_factory.mktemp("undisturbed")
    episodes = _episodes(tiny_episodes, root / "eps.jsonl")
    srv = _server()
    try:
        proc = _epi(["run", *_common(srv, episodes, root), "--run-id", "u"], tiny_sandbox)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
    finally:
        srv.stop()
    return episodes, _numbers(root / "u")


@pytest.mark.slow
def test_a_second_writer_is_refused_and_the_first_run_scores_as_undisturbed(undisturbed, tiny_sandbox, tmp_path):
    episodes, want = undisturbed
    n = len(episodes.read_text().splitlines())
    srv = _server()
    assert srv.script.loop is not None
    srv.script.loop.delay_s = SLOW  # keep the first run alive while the second one starts
    try:
        first = _epi(["run", *_common(srv, episodes, tmp_path), "--run-id", "r"], tiny_sandbox, ignore_sigint=True)
        rd = RunDir(tmp_path / "r")
        _wait_for_traces(rd, first, 1)
        first.send_signal(signal.SIGINT)  # ignored, as in a script's background job: the run goes on
        time.sleep(0.5)
        assert first.poll() is None, "SIGINT was ignored by the background job: it must still be running"
        owner = read_lock(rd.path)
        assert owner is not None and owner.pid == first.pid
        second = _epi(["run", "--resume", "r", "--results", str(tmp_path), "--agent", "openai", "--base-url",
                       srv.base_url, "--api-key-env", KEY, "-q"], tiny_sandbox)
        out, err = second.communicate(timeout=180)
        assert first.poll() is None, "the first run must still be running when the second is refused"
        assert second.returncode == 2, out + err
        assert "Traceback" not in out + err and len(err.strip().splitlines()) == 1, err
        assert f"run 'r' is being written by pid {first.pid}" in err
        srv.script.loop.delay_s = 0.0
        out, err = first.communicate(timeout=300)
    finally:
        srv.stop()
    assert first.returncode == 0 and "Traceback" not in err, err[-3000:]
    assert rd.completed_jobs() == {(json.loads(line)["id"], 1) for line in episodes.read_text().splitlines()}
    assert not (rd.path / LOCK_NAME).exists() and not list(rd.traces_dir.glob("*.part"))
    assert len(rd.completed_jobs()) == n
    assert _numbers(rd.path) == want


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_run_cleanly_and_says_how_to_resume(sig, undisturbed, tiny_sandbox, tmp_path):
    episodes, want = undisturbed
    n = len(episodes.read_text().splitlines())
    srv = _server()
    assert srv.script.loop is not None
    srv.script.loop.delay_s = SLOW
    try:
        proc = _epi(["run", *_common(srv, episodes, tmp_path), "--run-id", "r"], tiny_sandbox)
        rd = RunDir(tmp_path / "r")
        _wait_for_traces(rd, proc, 1)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 128 + sig, (proc.returncode, err[-3000:])
        assert "Traceback" not in out + err, err
        done = len(rd.completed_jobs())
        assert 0 < done < n, "the signal must land in the middle of the run"
        line = next(x for x in err.splitlines() if x.startswith("interrupted by"))
        assert f"interrupted by {signal.Signals(sig).name}: {done} of {n} episodes done in run r" in line
        command = line.split("resume with: ", 1)[1]
        assert command == shlex.join(["epi", "run", "--resume", "r", "--results", str(tmp_path), "--agent", "openai",
                                      "--base-url", srv.base_url, "--api-key-env", KEY])
        assert not (rd.path / LOCK_NAME).exists(), "the lock is given back"
        assert not list(rd.traces_dir.glob("*.part")), "the episodes in progress are abandoned, not left half written"
        srv.script.loop.delay_s = 0.0
        resumed = _epi(shlex.split(command)[1:] + ["-q", "--no-score"], tiny_sandbox)  # exactly the printed command
        out, err = resumed.communicate(timeout=300)
        assert resumed.returncode == 0, err[-3000:]
        assert f"{n - done} run, {done} kept from before" in out
    finally:
        srv.stop()
    assert _numbers(rd.path) == want
