"""One owner per run (harness/runlock.py): a live owner is never displaced, a dead one on this host is taken
over (by exactly one of several racing writers), one on another host only with --break-lock; and the CLI
refuses a second writer with one line, exit 2, writing nothing."""
from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.runlock import LOCK_NAME, RunLock, RunLocked, RunLockInfo, lock_state, read_lock, this_host

from ..fakes import folder_snapshot
from .test_run_cli import epi

REPO = Path(__file__).resolve().parents[2]


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _plant(run: Path, **fields) -> RunLockInfo:
    """Write a lock as another process would have (default: this host, a pid that is gone)."""
    run.mkdir(parents=True, exist_ok=True)
    info = RunLockInfo(**{"pid": _dead_pid(), "host": this_host(), "started": "2026-01-01T00:00:00+00:00",
                          "command": "epi run", "token": "planted", **fields})
    (run / LOCK_NAME).write_text(info.model_dump_json())
    return info


@pytest.fixture
def holder(tmp_path):
    """Another live process that holds the lock of tmp_path/r until it is told to stop."""
    run = tmp_path / "r"
    run.mkdir()
    code = ("import sys, time\nfrom harness.runlock import RunLock\n"
            f"lock = RunLock.acquire({str(run)!r})\nprint('held', flush=True)\nsys.stdin.readline()\nlock.release()\n")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    yield run, proc
    if proc.poll() is None:
        proc.stdin.write("\n")
        proc.stdin.flush()
        proc.wait(timeout=30)


def test_a_live_owner_is_never_displaced_and_gives_the_run_back(holder):
    run, proc = holder
    info = read_lock(run)
    assert info.pid == proc.pid and info.host == this_host() and lock_state(info) == "live"
    for brk in (False, True):  # --break-lock is for other hosts: a live process here is never broken
        with pytest.raises(RunLocked, match=f"being written by pid {proc.pid} on host .*kill {proc.pid}"):
            RunLock.acquire(run, break_lock=brk)
    assert read_lock(run) == info
    proc.stdin.write("\n")
    proc.stdin.flush()
    proc.wait(timeout=30)
    assert not (run / LOCK_NAME).exists()  # released on the way out
    RunLock.acquire(run).release()


def test_a_dead_owner_on_this_host_is_taken_over(tmp_path):
    old = _plant(tmp_path / "r")
    assert lock_state(old) == "stale"
    lock = RunLock.acquire(tmp_path / "r")
    assert read_lock(tmp_path / "r").token == lock.info.token and lock.took_over == old
    assert "no longer running" in lock.note()
    lock.release()
    assert not (tmp_path / "r" / LOCK_NAME).exists()


def test_a_reused_pid_or_an_unreadable_lock_is_stale(tmp_path):
    me = os.getpid()
    assert lock_state(_plant(tmp_path / "a", pid=me)) == "stale"  # this process, but not a lock it holds
    live_other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        time.sleep(0.2)
        assert lock_state(_plant(tmp_path / "b", pid=live_other.pid)) == "live"
        assert lock_state(_plant(tmp_path / "c", pid=live_other.pid, pid_start=1)) == "stale"  # another process now
    finally:
        live_other.kill()
        live_other.wait()
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / LOCK_NAME).write_text("{half a lock")
    assert lock_state(read_lock(tmp_path / "d")) == "stale"
    RunLock.acquire(tmp_path / "d").release()


def test_a_lock_of_another_host_needs_break_lock(tmp_path):
    _plant(tmp_path / "r", host="node-7", pid=1)
    with pytest.raises(RunLocked, match="pid 1 on host node-7.*cannot be checked from this host.*--break-lock"):
        RunLock.acquire(tmp_path / "r")
    lock = RunLock.acquire(tmp_path / "r", break_lock=True)
    assert "broken with --break-lock" in lock.note()
    lock.release()
    _plant(tmp_path / "s", boot_id="another-boot")  # this host name, but before a reboot: cannot be checked either
    with pytest.raises(RunLocked, match="--break-lock"):
        RunLock.acquire(tmp_path / "s")


def _race(run: str, ready, go, done, out) -> None:  # noqa: ANN001
    ready.put(os.getpid())
    go.wait(60)
    try:
        lock = RunLock.acquire(run)
    except RunLocked as e:
        out.put(("refused", str(e)))
        return
    out.put(("won", lock.info.token))
    done.wait(60)  # hold it until every other writer has tried
    lock.release()


def test_racing_writers_on_a_stale_lock_one_wins(tmp_path):
    _plant(tmp_path / "r")
    ctx = multiprocessing.get_context("spawn")
    ready, go, done, out = ctx.Queue(), ctx.Event(), ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_race, args=(str(tmp_path / "r"), ready, go, done, out)) for _ in range(4)]
    for p in procs:
        p.start()
    for _ in procs:  # all of them at the start line, then go at once
        ready.get(timeout=60)
    go.set()
    results = [out.get(timeout=60) for _ in procs]
    done.set()
    for p in procs:
        p.join(timeout=30)
    winners = [r for r in results if r[0] == "won"]
    assert len(winners) == 1, results
    assert all("being written by pid" in msg or "just now" in msg for kind, msg in results if kind == "refused")
    assert not (tmp_path / "r" / LOCK_NAME).exists()


def test_the_cli_refuses_a_second_writer_with_one_line_and_writes_nothing(
        holder, tiny_sandbox, tiny_episodes, capsys, monkeypatch):
    run, proc = holder
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(tiny_sandbox))
    (run / "run.json").write_text(json.dumps({"run_id": "r", "settings": {"episodes": str(tiny_episodes)}}))
    before = folder_snapshot(run)
    results = str(run.parent)
    cases = [["run", "--resume", "r", "--results", results, "--episodes", str(tiny_episodes)],
             ["run", "--run-id", "r", "--results", results, "--episodes", str(tiny_episodes)],
             ["retry", "r", "--results", results, "--agent", "oracle"],
             ["score", str(run)]]
    for args in cases:
        code, out = epi(args, capsys, monkeypatch)
        assert code == 2, (args, out)
        assert f"is being written by pid {proc.pid}" in out and "Traceback" not in out, (args, out)
        assert len(out.strip().splitlines()) == 1, out
        assert folder_snapshot(run) == before, args
