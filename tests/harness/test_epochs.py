"""`epi run --epochs N`: each episode runs N times, each repeat its own trace; epoch 1 keeps the
single-run layout; seeds and temperature are recorded; bad values are refused; resume finishes
exactly the missing (episode, epoch) pairs."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.rundir import RunDir
from harness.scoring import score_run

from .test_run_cli import epi

COMPARABLE = ("esr", "acc_final", "acc_pre", "ec", "mg", "max_steps_rate", "failures", "episodes", "tool_calls")


def ids(episodes: Path) -> set[str]:
    return {json.loads(line)["id"] for line in episodes.read_text().splitlines() if line.strip()}


def score_epoch(run_dir: Path, epoch: int, scratch: Path) -> dict:
    """Score one epoch of a run alone: a view folder whose traces/ is that epoch's, made as a single run."""
    view = scratch / f"{run_dir.name}-epoch{epoch}"
    view.mkdir(parents=True)
    cfg = json.loads((run_dir / "run.json").read_text())
    cfg["epochs"] = cfg["settings"]["epochs"] = 1
    (view / "run.json").write_text(json.dumps(cfg))
    (view / "traces").symlink_to(RunDir(run_dir).epoch_dir(epoch).resolve(), target_is_directory=True)
    scores = score_run(view, write=False).model_dump(mode="json")
    return {split: {k: scores[split][k] for k in COMPARABLE} for split in ("easy", "hard", "all")}


@pytest.mark.parametrize("value, needle", [("0", "epochs: Value error, must be 1 or more"), ("-2", "got -2"),
                                           ("two", "Invalid value for '--epochs'")])
def test_bad_epochs_are_refused_before_anything_runs(value, needle, tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                     monkeypatch):
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(tmp_path), "-q",
                     "--epochs", value], capsys, monkeypatch, tiny_sandbox)
    assert code == 2, out
    assert needle in out and "Traceback" not in out, out
    assert not any(tmp_path.iterdir()), "nothing may be written before the input is checked"


def test_ablate_refuses_zero_epochs(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    code, out = epi(["ablate", "--episodes", str(tiny_episodes), "--results", str(tmp_path), "--epochs", "0"],
                    capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "epochs" in out and "must be 1 or more" in out and "Traceback" not in out, out


def test_each_epoch_writes_its_own_trace_and_epoch_one_is_the_single_run_layout(
    tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch
):
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(tmp_path),
                     "--run-id", "three", "--epochs", "3", "--seed", "40", "--temperature", "0.7", "--no-score",
                     "--json"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    summary = json.loads(out[out.index("{"):])
    n = len(ids(tiny_episodes))
    assert summary["epochs"] == 3 and summary["episodes"] == n and summary["episodes_run"] == 3 * n
    rd = RunDir(tmp_path / "three")
    assert rd.epochs() == [1, 2, 3]
    assert sorted(p.name for p in rd.traces_dir.iterdir() if p.is_dir() and "=" in p.name) == ["epoch=2", "epoch=3"]
    for k in (1, 2, 3):
        assert rd.completed_episodes(k) == ids(tiny_episodes)
        for eid in ids(tiny_episodes):
            tr = rd.read_trace(eid, epoch=k)
            assert tr.complete and tr.epoch == k
            start = tr.events[0]
            assert start.kind == "episode_start" and start.epoch == k and start.episode_id == eid
    assert rd.completed_jobs() == {(e, k) for e in ids(tiny_episodes) for k in (1, 2, 3)}
    cfg = json.loads(rd.run_json.read_text())
    assert cfg["epochs"] == 3 and cfg["epoch_seeds"] == {"1": 40, "2": 41, "3": 42}
    assert cfg["temperature"] == 0.7 and cfg["settings"]["agent_config"]["temperature"] == 0.7

    # a single run is laid out exactly as before: traces/<episode>.jsonl and nothing for other epochs
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(tmp_path),
                     "--run-id", "one", "--no-score", "-q"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    one = RunDir(tmp_path / "one")
    assert one.epochs() == [1]
    assert {p.name for p in one.traces_dir.glob("*.jsonl")} == {p.name for p in rd.traces_dir.glob("*.jsonl")}
    assert not [p for p in one.traces_dir.iterdir() if p.name.startswith("epoch=")]
    # epoch 1 of a repeated run, scored alone, is the single run, and every epoch scores alike
    assert score_epoch(rd.path, 1, tmp_path / "views") == score_epoch(one.path, 1, tmp_path / "views1")
    for k in (2, 3):
        assert score_epoch(rd.path, k, tmp_path / "views") == score_epoch(one.path, 1, tmp_path / f"views-{k}")


def test_resume_runs_only_the_missing_episode_epoch_pairs(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    args = ["run", "--agent", "heuristic", "--episodes", str(tiny_episodes), "--results", str(tmp_path),
            "--run-id", "r", "--epochs", "2", "--no-score", "-q"]
    code, out = epi(args, capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    rd = RunDir(tmp_path / "r")
    first, *rest = sorted(ids(tiny_episodes))
    # an interrupted run: one finished trace of each epoch gone, one epoch-2 trace cut off mid-write
    rd.trace_path(first, 1).unlink()
    rd.trace_path(rest[0], 2).unlink()
    cut = rd.trace_path(rest[1], 2)
    cut.with_name(cut.name + ".part").write_text(cut.read_text()[:200])
    cut.unlink()
    kept = {p: p.read_bytes() for k in (1, 2) for p in rd.epoch_dir(k).glob("*.jsonl")}

    code, out = epi(["run", "--resume", "r", "--results", str(tmp_path), "--epochs", "3", "-q"], capsys, monkeypatch,
                    tiny_sandbox)
    assert code == 2 and "run 'r' was made with epochs 2" in out, out

    code, out = epi(["run", "--resume", "r", "--results", str(tmp_path), "-q", "--no-score"], capsys, monkeypatch,
                    tiny_sandbox)
    assert code == 0, out
    n = len(ids(tiny_episodes))
    assert f"{n} episodes x 2 epochs: 3 run, {2 * n - 3} kept from before" in out
    assert rd.completed_jobs() == {(e, k) for e in ids(tiny_episodes) for k in (1, 2)}
    assert not list(rd.traces_dir.rglob("*.part"))
    for p, data in kept.items():
        assert p.read_bytes() == data, f"{p} was kept from before and must not change"
