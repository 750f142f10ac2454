"""`epi agent check CMD` (issue 30): a conforming program passes every check; a program with one flaw fails the
check that names it, saying what is wrong; a command that cannot be used is refused with exit code 2."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.cli import main

ROOT = Path(__file__).resolve().parents[2]
SLOPPY = Path(__file__).resolve().parent / "programs" / "sloppy.py"


def epi(args: list[str], capsys, monkeypatch) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["epi", *args])
    code = 0
    try:
        main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    cap = capsys.readouterr()
    return code, cap.out + cap.err


def failed_checks(out: str) -> list[str]:
    return [line[5:].strip() for line in out.splitlines() if line.startswith("FAIL")]


def test_the_openai_example_passes_every_check(capsys, monkeypatch):
    code, out = epi(["agent", "check", f"python {ROOT / 'agents/examples/openai_sdk_agent.py'}", "--agent-sandbox",
                     "none"], capsys, monkeypatch)
    assert code == 0 and "6/6 checks passed" in out and not failed_checks(out), out


@pytest.mark.parametrize("flaw, check, says", [
    ("garbage", "speaks the protocol", "stdout line is not JSON: 'log: starting the turn'"),
    ("greedy", "stops at the budget", "1 request(s) after the one allowed without tools"),
    ("tools-on-memory", "answers the memory-only turn without tools", "it offered or called tools on a turn"),
])
def test_a_flawed_program_fails_the_check_that_names_the_flaw(flaw, check, says, capsys, monkeypatch):
    code, out = epi(["agent", "check", f"python {SLOPPY} {flaw}", "--agent-sandbox", "none", "--agent-timeout", "20"],
                    capsys, monkeypatch)
    assert code == 1, out
    assert any(f.startswith(check) for f in failed_checks(out)), out
    assert says in out, out


def test_a_command_that_cannot_start_is_a_user_error(capsys, monkeypatch):
    code, out = epi(["agent", "check", "/nonexistent/agent", "--agent-sandbox", "none"], capsys, monkeypatch)
    assert code == 2 and "agent command /nonexistent/agent: no such program" in out and "Traceback" not in out


def test_a_bridge_agent_named_in_a_toml_config(tmp_path):
    """`[run.agent_config] agent_cmd = ...` makes the run a bridge run; --agent with another agent is refused."""
    from harness.settings import SettingsError, build_settings, load_toml

    cfg = tmp_path / "run.toml"
    cfg.write_text('[run]\nmax_steps = 3\n[run.agent_config]\nagent_cmd = "node my_agent.mjs"\n'
                   'agent_dir = ["/opt/my-agent"]\nagent_env = ["MY_TOKEN"]\n', encoding="utf-8")
    s = build_settings(load_toml(cfg), source=str(cfg))
    assert s.agent == "bridge" and s.agent_config.agent_cmd == "node my_agent.mjs"
    assert s.agent_config.agent_dir == [Path("/opt/my-agent")] and s.agent_config.agent_env == ["MY_TOKEN"]
    with pytest.raises(SettingsError, match="--agent-cmd runs an agent program through the bridge"):
        build_settings(load_toml(cfg), {"agent": "openai"}, source=str(cfg))
    with pytest.raises(SettingsError, match="give its command with --agent-cmd"):
        build_settings({"agent": "bridge"})
