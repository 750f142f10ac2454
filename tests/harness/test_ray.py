"""`--executor ray` on a Ray cluster started here with `ray start --head` (loopback only, stopped after
the module): a grid gives the same trace-derived scores as the local executor; a worker killed
mid-episode costs a re-run, never a failure; a model's rate limit holds across workers; --resume
works whichever executor ran the first part; an unreachable cluster is a clear message."""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import psutil
import pytest

from harness.rundir import RunDir

from .test_epochs import ids, score_epoch
from .test_run_cli import epi

REPO = Path(__file__).resolve().parents[2]
RAY = Path(sys.executable).with_name("ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ray_cluster(tiny_sandbox: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A two-CPU Ray head on loopback, its own auth token and temp folder; SIGTERM stops it whole."""
    port = _free_port()
    env = {
        **os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
        "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16), "EPI_SANDBOX_DIR": str(tiny_sandbox),
        "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
    }
    env.pop("RAY_ADDRESS", None)
    temp = Path(f"/tmp/epi-ray-{os.getpid()}-{port}")  # Ray's socket paths must stay short
    log = tmp_path_factory.mktemp("ray") / "ray-start.log"
    with log.open("w") as out:
        head = subprocess.Popen(
            [str(RAY), "start", "--head", "--block", f"--port={port}", "--num-cpus=2", "--include-dashboard=false",
             "--disable-usage-stats", f"--temp-dir={temp}"],
            env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        deadline = time.time() + 120
        while True:
            assert head.poll() is None, "ray start --head exited:\n" + log.read_text()
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert time.time() < deadline, "the Ray head did not come up:\n" + log.read_text()
                time.sleep(0.5)
        time.sleep(2)  # the raylet registers just after the GCS port opens
        yield {"address": f"127.0.0.1:{port}", "env": env, "pid": head.pid}
    finally:
        head.send_signal(signal.SIGTERM)  # `ray start --block` stops every process it started
        try:
            head.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait(timeout=30)
        shutil.rmtree(temp, ignore_errors=True)


def run_epi(args: list[str], cluster: dict[str, Any], timeout: float = 300) -> subprocess.CompletedProcess:
    """The CLI in a fresh process, as a user would run it (no stdin), with the cluster's environment."""
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=REPO, env=cluster["env"], timeout=timeout,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True)


def on_ray(cluster: dict[str, Any]) -> list[str]:
    return ["--executor", "ray", "--ray-address", cluster["address"]]


def cluster_workers(cluster: dict[str, Any]) -> list[psutil.Process]:
    """The episode-worker processes of this test's cluster (never any other process on the machine)."""
    out = []
    for p in psutil.Process(cluster["pid"]).children(recursive=True):
        try:
            if " ".join(p.cmdline()).startswith("ray::_EpisodeWorker"):
                out.append(p)
        except psutil.NoSuchProcess:
            continue
    return out


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["heuristic", "oracle"])
def test_a_grid_on_ray_scores_like_the_local_executor(agent, ray_cluster, tiny_episodes, tmp_path):
    grid = ["ablate", "--agent", agent, "--episodes", str(tiny_episodes), "--max-steps", "1,3,10", "--epochs", "2",
            "--results", str(tmp_path), "--json"]
    local = run_epi([*grid, "--name", "local"], ray_cluster)
    assert local.returncode == 0, local.stderr[-3000:]
    if agent == "heuristic":  # on the cluster started for this module
        ray = run_epi([*grid, "--name", "ray", *on_ray(ray_cluster)], ray_cluster)
    else:  # no address: epi starts a private local instance (loopback only) and stops it at the end
        env = {k: v for k, v in ray_cluster["env"].items() if k != "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"}
        ray = run_epi([*grid, "--name", "ray", "--executor", "ray", "--ray-workers", "2"], {**ray_cluster, "env": env})
    assert ray.returncode == 0, ray.stderr[-3000:]
    runs = sorted(p.name for p in (tmp_path / "local").iterdir() if (p / "run.json").is_file())
    assert len(runs) == 3
    assert runs == sorted(p.name for p in (tmp_path / "ray").iterdir() if (p / "run.json").is_file())
    for run in runs:
        a, b = RunDir(tmp_path / "local" / run), RunDir(tmp_path / "ray" / run)
        assert a.completed_jobs() == b.completed_jobs() == {(e, k) for e in ids(tiny_episodes) for k in (1, 2)}
        assert json.loads(b.run_json.read_text())["settings"]["executor"] == "ray"
        for k in (1, 2):
            sa, sb = score_epoch(a.path, k, tmp_path / "views-a"), score_epoch(b.path, k, tmp_path / "views-b")
            assert sa == sb, (run, k)
        if agent == "oracle":
            assert sa["all"]["esr"] == 100.0
    budget1 = score_epoch(tmp_path / "ray" / "max-steps=1", 1, tmp_path / "views-1")
    budget10 = score_epoch(tmp_path / "ray" / "max-steps=10", 1, tmp_path / "views-10")
    assert budget1 != budget10, "the three configurations must really differ for the comparison to mean anything"


@pytest.mark.slow
@pytest.mark.parametrize("retries", [None, 0])
def test_a_worker_killed_mid_episode_is_run_again_not_counted_as_a_failure(retries, ray_cluster, tiny_episodes,
                                                                           tmp_path):
    """Killed once: the job runs again and completes. With --job-retries 0 it is reported lost: no
    trace (scored as missing, never as the model's failure), exit 1, and resume runs it."""
    from sandbox.model_server import ScriptedModelServer

    one = tmp_path / "one.jsonl"
    one.write_text(tiny_episodes.read_text().splitlines()[0] + "\n")
    # the first model request hangs long enough to kill the worker waiting on it; the rerun gets answers
    script = [{"content": "Final answer: 1999", "delay_s": 20}]
    with ScriptedModelServer(script) as srv:
        env = {**ray_cluster["env"], "EPI_TEST_KEY": "sk-test"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "harness", "run", "--agent", "openai", "--model", "scripted", "--base-url",
             srv.base_url, "--api-key-env", "EPI_TEST_KEY", "--episodes", str(one), "--results", str(tmp_path),
             "--run-id", "killed", "--no-score", "--json", "--ray-workers", "1", *on_ray(ray_cluster),
             *([] if retries is None else ["--job-retries", str(retries)])],
            cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        deadline = time.time() + 120
        while not srv.chat_requests:
            assert proc.poll() is None, proc.communicate()
            assert time.time() < deadline, "the episode never reached its first model request"
            time.sleep(0.2)
        victims = cluster_workers(ray_cluster)
        assert len(victims) == 1
        victims[0].send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=240)
    rd = RunDir(tmp_path / "killed")
    (eid,) = ids(one)
    summary = json.loads(out[out.index("{"):])
    if retries == 0:
        assert proc.returncode == 1, err[-3000:]
        assert "was lost with its worker 1 times; it has no trace" in err and "epi run --resume killed" in err, err
        assert summary["lost_jobs"] == [{"episode": eid, "epoch": 1}] and summary["failed_episodes"] == 0
        assert rd.read_trace(eid, include_partial=True).missing and not list(rd.traces_dir.rglob("*.part"))
        return
    assert proc.returncode == 0, err[-3000:]
    assert "was lost" in err and "running the job again (attempt 2 of 4)" in err, err[-3000:]
    assert summary["failed_episodes"] == 0 and summary["lost_jobs"] == [] and summary["episodes_run"] == 1
    tr = rd.read_trace(eid)
    assert tr.complete and not tr.bad_lines
    end = tr.events[-1]
    assert end.status == "completed" and end.bucket is None
    assert not list(rd.traces_dir.rglob("*.part"))
    assert not victims[0].is_running()


@pytest.mark.slow
def test_a_models_rate_limit_holds_across_workers(ray_cluster, tiny_episodes, tmp_path):
    from sandbox.model_server import Script, ScriptedModelServer, ScriptItem

    script = Script(responses=[], default=ScriptItem(content="Final answer: 7"))
    with ScriptedModelServer(script) as srv:
        env = {**ray_cluster["env"], "EPI_TEST_KEY": "sk-test"}
        # two workers running one episode each at a time: episodes that overlap ran on different workers
        done = subprocess.run(
            [sys.executable, "-m", "harness", "run", "--agent", "openai", "--model", "scripted", "--base-url",
             srv.base_url, "--api-key-env", "EPI_TEST_KEY", "--episodes", str(tiny_episodes), "--results",
             str(tmp_path), "--run-id", "limited", "--no-score", "-q", "--ray-workers", "2", "--concurrency", "1",
             "--model-rps", "4", *on_ray(ray_cluster)],
            cwd=REPO, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        ts = sorted(r.ts for r in srv.chat_requests)
    assert len(ts) == 3 * len(ids(tiny_episodes))  # one request per turn
    gaps = [round(b - a, 3) for a, b in zip(ts, ts[1:])]
    # 4 per second across both workers; a limit per worker would allow 8, so 12 requests could span
    # 1.4 s and 5 in a row 0.25 s. The slack below the exact 2.75 s and 1 s is for the time between a
    # slot and the request reaching the server (a first connection, a busy machine).
    assert ts[-1] - ts[0] >= 0.85 * (len(ts) - 1) / 4, gaps
    assert min(b - a for a, b in zip(ts, ts[4:])) >= 0.6, gaps
    rd = RunDir(tmp_path / "limited")
    spans = sorted((tr.events[0].ts, tr.events[-1].ts) for tr in (rd.read_trace(e) for e in ids(tiny_episodes)))
    assert any(b0 < a1 for (a0, a1), (b0, b1) in zip(spans, spans[1:])), (
        "no two episodes overlapped, so the two workers never competed for the limit", spans)


def episodes_with_figures(tiny_sandbox: Path, tiny_episodes: Path, out: Path) -> Path:
    """The tiny episodes with a figure read in turn 2, so the oracle's traces come with images."""
    from sandbox.corpus.build import load_ground_truth

    figures = {p.id: p.figures[0].n for p in load_ground_truth(tiny_sandbox).papers if p.figures}
    lines = []
    for line in tiny_episodes.read_text().splitlines():
        ep = json.loads(line)
        pid = ep["id"].removeprefix("tiny-")
        if pid in figures:
            ep["turns"][1]["checklist"].append({"tool": "figure_extract", "args": {"paper": pid, "figure": figures[pid]}})
        lines.append(json.dumps(ep))
    out.write_text("\n".join(lines) + "\n")
    return out


@pytest.mark.slow
def test_resume_works_whichever_executor_ran_the_first_part(ray_cluster, tiny_sandbox, tiny_episodes, tmp_path):
    episodes = episodes_with_figures(tiny_sandbox, tiny_episodes, tmp_path / "eps.jsonl")
    first_id, second_id, *_ = sorted(ids(episodes))
    n = len(ids(episodes))

    def files(rd: RunDir, pattern: str) -> dict[Path, bytes]:
        return {p.relative_to(rd.path): p.read_bytes() for p in rd.traces_dir.rglob(pattern)}

    base = ["run", "--agent", "oracle", "--episodes", str(episodes), "--results", str(tmp_path), "--epochs", "2",
            "--no-score", "-q"]
    done = run_epi([*base, "--run-id", "r", "--ray-workers", "1", *on_ray(ray_cluster)], ray_cluster)
    assert done.returncode == 0, done.stderr[-3000:]
    rd = RunDir(tmp_path / "r")
    before = [score_epoch(rd.path, k, tmp_path / "before") for k in (1, 2)]
    images = files(rd, "*.png")
    undone = [rd.assets_dir(first_id, 1).relative_to(rd.path), rd.assets_dir(second_id, 2).relative_to(rd.path)]
    assert all(any(d in p.parents for p in images) for d in undone), "the jobs to redo must have saved images"

    # Ray ran the first part, the local executor resumes; then Ray (copying traces back) resumes that
    for i, then in enumerate((["--executor", "local"], [*on_ray(ray_cluster), "--ray-copy-back", "--ray-workers", "1"])):
        # an interrupted run: two jobs undone, their images gone, one trace cut off mid-write
        shutil.rmtree(rd.assets_dir(first_id, 1), ignore_errors=True)
        shutil.rmtree(rd.assets_dir(second_id, 2), ignore_errors=True)
        rd.trace_path(first_id, 1).unlink()
        cut = rd.trace_path(second_id, 2)
        cut.with_name(cut.name + ".part").write_text(cut.read_text()[:300])
        cut.unlink()
        kept = files(rd, "*.jsonl")

        resumed = run_epi(["run", "--resume", "r", "--agent", "oracle", "--results", str(tmp_path), "-q", *then],
                          ray_cluster)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        assert f"{n} episodes x 2 epochs: 2 run, {2 * n - 2} kept from before" in resumed.stdout
        assert rd.completed_jobs() == {(e, k) for e in ids(episodes) for k in (1, 2)}
        assert not list(rd.traces_dir.rglob("*.part"))
        after = files(rd, "*.jsonl")
        assert all(after[p] == data for p, data in kept.items()), "traces finished before the resume must not change"
        assert set(files(rd, "*.png")) == set(images), "the re-run jobs' images are back at the same paths"
        assert [score_epoch(rd.path, k, tmp_path / f"after-{i}") for k in (1, 2)] == before


def test_an_unreachable_ray_cluster_is_a_clear_message(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    base = ["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(tmp_path / "r"), "-q"]
    for extra, needle in (
        (["--executor", "ray", "--ray-address", "127.0.0.1:1"], "cannot reach the Ray cluster at 127.0.0.1:1"),
        (["--executor", "ray", "--ray-address", "no-port-here"], "is not host:port"),
        (["--ray-address", "127.0.0.1:1"], "the executor is local; add --executor ray"),
        (["--executor", "dask"], "executor"),
    ):
        code, out = epi([*base, *extra], capsys, monkeypatch, tiny_sandbox)
        assert code == 2, out
        assert needle in out and "Traceback" not in out, out
        assert not (tmp_path / "r").exists(), "nothing may be written before the cluster is reached"
