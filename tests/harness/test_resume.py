"""A run killed with SIGKILL mid-way, then resumed, scores the same as a run never interrupted,
and no finished trace is corrupted."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.rundir import RunDir
from harness.scoring import score_run

REPO = Path(__file__).resolve().parents[2]


def _many_episodes(src: Path, dst: Path, copies: int) -> Path:
    lines = [json.loads(l) for l in src.read_text().splitlines() if l.strip()]
    with dst.open("w") as f:
        for c in range(copies):
            for ep in lines:
                f.write(json.dumps({**ep, "id": f"{ep['id']}-c{c}"}) + "\n")
    return dst


def _epi(args: list[str], sandbox: Path) -> subprocess.Popen:
    env = {**os.environ, "EPI_SANDBOX_DIR": str(sandbox), "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen([sys.executable, "-m", "harness", *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)


def _comparable(scores: dict) -> dict:
    keep = ("esr", "acc_final", "acc_pre", "ec", "mg", "max_steps_rate", "failures", "episodes", "tool_calls")
    return {split: {k: scores[split][k] for k in keep} for split in ("easy", "hard", "all")}


@pytest.mark.slow
def test_sigkill_then_resume_matches_an_uninterrupted_run(tiny_sandbox, tiny_episodes, tmp_path):
    episodes = _many_episodes(tiny_episodes, tmp_path / "many.jsonl", copies=8)
    n = len(episodes.read_text().splitlines())
    common = ["--agent", "heuristic", "--episodes", str(episodes), "--results", str(tmp_path), "--concurrency", "2",
              "--no-score", "--quiet"]

    proc = _epi(["run", *common, "--run-id", "killed"], tiny_sandbox)
    rd = RunDir(tmp_path / "killed")
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if rd.traces_dir.is_dir() and len(list(rd.traces_dir.glob("*.jsonl"))) >= 3:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it could be killed:\n" + proc.stdout.read()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)

    finished = rd.completed_episodes()
    assert 0 < len(finished) < n, "the kill must land in the middle of the run"
    for p in rd.traces_dir.glob("*.jsonl"):  # every finished trace is whole: each line parses
        tr = rd.read_trace(p.stem)
        assert tr.complete and not tr.bad_lines, p
    before = {p.name: p.read_bytes() for p in rd.traces_dir.glob("*.jsonl")}

    resumed = _epi(["run", "--resume", "killed", "--results", str(tmp_path), "--quiet", "--no-score"], tiny_sandbox)
    out, _ = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, out
    assert f"{n - len(finished)} run, {len(finished)} kept" in out
    assert rd.completed_episodes() == {json.loads(l)["id"] for l in episodes.read_text().splitlines()}
    assert not list(rd.traces_dir.glob("*.part"))
    for name, data in before.items():  # episodes finished before the kill are kept as they were
        assert (rd.traces_dir / name).read_bytes() == data

    straight = _epi(["run", *common, "--run-id", "straight"], tiny_sandbox)
    out, _ = straight.communicate(timeout=300)
    assert straight.returncode == 0, out

    a = score_run(tmp_path / "killed").model_dump(mode="json")
    b = score_run(tmp_path / "straight").model_dump(mode="json")
    assert _comparable(a) == _comparable(b)
    assert a["truncated_episodes"] == [] and b["truncated_episodes"] == []
