"""`epi run`: everything a user can get wrong is refused before anything runs (exit 2, no traceback);
an oracle run on a tiny sandbox scores 100/100/1.0; resume keeps finished episodes."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from harness.cli import main


def epi(args: list[str], capsys, monkeypatch, sandbox: Path | None = None) -> tuple[int, str]:
    if sandbox is not None:
        monkeypatch.setenv("EPI_SANDBOX_DIR", str(sandbox))
    monkeypatch.setattr(sys, "argv", ["epi", *args])
    code = 0
    try:
        main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    cap = capsys.readouterr()
    return code, cap.out + cap.err


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--agent", "nobody"], "unknown agent 'nobody'"),
        (["--disable-tool", "telepathy"], "unknown tool 'telepathy'"),
        (["--max-steps", "0"], "max_steps"),
        (["--concurrency", "0"], "concurrency"),
        (["--preset", "turbo"], "unknown preset 'turbo'"),
        (["--episode", "no-such-episode"], "no-such-episode"),
    ],
)
def test_bad_options_exit_2_before_running(extra, needle, tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(tmp_path), "-q", *extra],
                    capsys, monkeypatch, tiny_sandbox)
    assert code == 2, out
    assert needle in out and "Traceback" not in out
    assert not any(tmp_path.iterdir()), "nothing may be written before the input is checked"


def test_invalid_episode_file_is_refused_with_file_line_and_field(tiny_sandbox, tmp_path, capsys, monkeypatch):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "split": "easy", "task_type": "comparison", "initiation": "citation", "area": "a", '
                   '"turns": [{"question": "q", "answer": {"format": "essay", "value": "v"}}]}\n')
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(bad), "--results", str(tmp_path / "r"), "-q"],
                    capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "bad.jsonl:1" in out and "format" in out and "Traceback" not in out


def test_unwritable_results_dir_is_refused(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    if os.geteuid() == 0:
        target = Path("/proc/epi-results")  # not writable even for root
    else:
        target = tmp_path / "ro"
        target.mkdir()
        target.chmod(0o500)
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(target), "-q"],
                    capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "not writable" in out


def test_resume_of_missing_run_and_of_other_episode_set(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    code, out = epi(["run", "--resume", "ghost", "--results", str(tmp_path)], capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "no run 'ghost'" in out
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(tmp_path),
                     "--run-id", "r1", "--limit", "1", "-q", "--no-score"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    other = tmp_path / "other.jsonl"
    lines = tiny_episodes.read_text().splitlines()
    other.write_text(lines[0] + "\n")
    code, out = epi(["run", "--resume", "r1", "--results", str(tmp_path), "--episodes", str(other)],
                    capsys, monkeypatch, tiny_sandbox)  # the run folder alone never names the agent
    assert code == 2 and "names agent oracle, which you did not give" in out and "--agent oracle" in out
    code, out = epi(["run", "--resume", "r1", "--agent", "oracle", "--results", str(tmp_path), "--episodes", str(other)],
                    capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "different episode set" in out


def test_oracle_run_scores_exactly_100_100_1(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(tmp_path),
                     "--run-id", "oracle", "--json"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    summary = json.loads(out[out.index("{"):])
    s = summary["scores"]["all"]
    assert (s["esr"], s["ec"], s["mg"]) == (100.0, 100.0, 1.0)
    run = json.loads((tmp_path / "oracle" / "run.json").read_text())
    assert run["agent"] == "oracle" and run["episodes_sha256"] and run["max_steps"] == 10
    assert set(run["tools"]) == {"web_search", "pdf_extract", "pdf_rag", "figure_extract", "table_extract"}
    # re-running into the same id is refused rather than overwriting a run
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(tmp_path),
                     "--run-id", "oracle", "-q"], capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "already exists" in out


def test_toml_config_and_flags_layer(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "run.toml"
    cfg.write_text(f'[run]\nagent = "oracle"\nmax_steps = 7\nepisodes = "{tiny_episodes}"\nlimit = 1\n')
    code, out = epi(["run", "--config", str(cfg), "--max-steps", "6", "--results", str(tmp_path / "r"),
                     "--run-id", "t", "-q", "--no-score"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    run = json.loads((tmp_path / "r" / "t" / "run.json").read_text())
    assert run["settings"]["max_steps"] == 6 and run["settings"]["limit"] == 1 and run["agent"] == "oracle"
    cfg.write_text("[run]\nmax_stepz = 3\n")
    code, out = epi(["run", "--config", str(cfg), "-q"], capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "max_stepz" in out


def test_live_world_is_built_from_the_settings(tmp_path, monkeypatch):
    from harness.runner import make_world
    from harness.settings import RunSettings
    from tools.live import LiveWorld

    monkeypatch.setenv("EPI_CACHE_DIR", str(tmp_path))
    world = make_world(RunSettings(world="live"))
    assert isinstance(world, LiveWorld) and world.cache_dir == tmp_path / "live"


def test_context_tokens_without_summary_mode_is_refused(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(tmp_path),
                     "--context-tokens", "3000", "-q"], capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "--memory-mode summary" in out
