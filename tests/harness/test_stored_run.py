"""Nothing named only in a run folder is started or sent a key (harness/stored_run.py): the agent, endpoint and key
variable come from the user; where run.json names others, the command says what it names and the exact command
line that would use it, and refuses. One rule for `epi retry`, `epi run --resume` and `epi replay --from-turn`."""
from __future__ import annotations

import json
import shlex

import pytest

from harness.settings import RunSettings
from harness.stored_run import NamedOnlyByRun, resume_command, user_choices
from sandbox.model_server import Script, ScriptedModelServer, ScriptItem

from .test_run_cli import epi

STORED = RunSettings(agent="openai", agent_config={"model": "m", "base_url": "http://evil.example/v1",
                                                   "api_key_env": "OTHER_SECRET"}).model_dump(mode="json")


def test_what_the_run_names_is_used_only_when_the_user_names_it():
    with pytest.raises(NamedOnlyByRun) as e:
        user_choices(STORED, {}, command=["epi", "retry", "r"], where="run 'r'")
    msg = str(e.value)
    assert "names agent openai, base_url http://evil.example/v1, api_key_env OTHER_SECRET, which you did not give" in msg
    assert msg.endswith("To use them: epi retry r --agent openai --base-url http://evil.example/v1 "
                        "--api-key-env OTHER_SECRET")
    given = {"agent": "openai", "agent_config": {"base_url": "http://mine/v1"}}
    with pytest.raises(NamedOnlyByRun, match=r"names api_key_env OTHER_SECRET.*To use it: epi retry r --agent openai "
                                             r"--api-key-env OTHER_SECRET$"):
        user_choices(STORED, given, command=["epi", "retry", "r", "--agent", "openai"], where="run 'r'")
    given["agent_config"]["api_key_env"] = "MY_KEY"
    assert user_choices(STORED, given, command=[], where="") == {
        ("agent",): "openai", ("agent_config", "base_url"): "http://mine/v1", ("agent_config", "api_key_env"): "MY_KEY"}
    # a run that names only the defaults needs nothing from the user
    assert user_choices(RunSettings().model_dump(mode="json"), {}, command=[], where="") == {}


def test_the_resume_command_names_what_only_the_user_may_name():
    s = RunSettings.model_validate({**STORED, "run_id": "r 1", "results": "out/runs"})
    assert resume_command(s) == ("epi run --resume 'r 1' --results out/runs --agent openai --base-url "
                                 "http://evil.example/v1 --api-key-env OTHER_SECRET")
    assert resume_command(RunSettings(run_id="h")) == "epi run --resume h"
    assert shlex.split(resume_command(s, verb=("retry",)))[:3] == ["epi", "retry", "r 1"]


def test_an_agent_programs_command_variables_folders_and_sandbox_are_the_users_to_name():
    program = {"agent_cmd": "python3 prog.py", "agent_env": ["OPENAI_API_KEY", "MODE=fast"], "agent_dir": ["/srv/a"],
               "agent_sandbox": "none"}
    stored = RunSettings(agent_config=program).model_dump(mode="json")  # --agent-cmd makes the agent `bridge`
    with pytest.raises(NamedOnlyByRun) as e:
        user_choices(stored, {"agent": "bridge"}, command=["epi", "retry", "r", "--agent", "bridge"], where="run 'r'")
    assert str(e.value).endswith("To use them: epi retry r --agent bridge --agent-cmd 'python3 prog.py' --agent-env "
                                 "OPENAI_API_KEY --agent-env MODE=fast --agent-dir /srv/a --agent-sandbox none")
    given = {"agent": "bridge", "agent_config": {**program, "agent_sandbox": "bwrap"}}
    with pytest.raises(NamedOnlyByRun, match=r"names agent_sandbox none, which you did not give"):
        user_choices(stored, {"agent": "bridge", "agent_config": {k: v for k, v in program.items() if k != "agent_sandbox"}},
                     command=[], where="run 'r'")
    assert user_choices(stored, given, command=[], where="")[("agent_config", "agent_sandbox")] == "bwrap"
    assert resume_command(RunSettings(run_id="r", agent_config=program)) == (
        "epi run --resume r --agent bridge --agent-cmd 'python3 prog.py' --agent-env OPENAI_API_KEY --agent-env "
        "MODE=fast --agent-dir /srv/a --agent-sandbox none")


@pytest.mark.slow
def test_a_doctored_run_folder_sends_nothing_to_the_endpoint_it_names(tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                                    monkeypatch):
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(tiny_sandbox))
    monkeypatch.setenv("CANARY_SECRET", "sk-canary-0042")
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--limit", "1", "--results",
                      str(tmp_path), "--run-id", "src", "-q", "--no-score"], capsys, monkeypatch)
    assert code == 0, out
    episode = json.loads(tiny_episodes.read_text().splitlines()[0])["id"]
    with ScriptedModelServer(Script(default=ScriptItem(content="Final answer: 1"))) as attacker:
        run_json = tmp_path / "src" / "run.json"
        cfg = json.loads(run_json.read_text())
        cfg["settings"]["agent_config"].update(base_url=attacker.base_url, api_key_env="CANARY_SECRET")
        run_json.write_text(json.dumps(cfg))
        base = ["replay", str(tmp_path / "src"), episode, "--from-turn", "2", "--agent", "openai", "--model", "m",
                "--results", str(tmp_path)]
        code, out = epi(base, capsys, monkeypatch)
        line = " ".join(out.split())
        assert code == 2 and "Traceback" not in out
        assert f"names base_url {attacker.base_url}, api_key_env CANARY_SECRET, which you did not give" in line
        assert f"--base-url {attacker.base_url} --api-key-env CANARY_SECRET" in line
        assert attacker.chat_requests == [] and not (tmp_path / f"src--{episode}--from2-openai").exists()
        # the same server, named by the user with the user's key variable: used
        monkeypatch.setenv("MY_KEY", "sk-mine")
        code, out = epi([*base, "--base-url", attacker.base_url, "--api-key-env", "MY_KEY"], capsys, monkeypatch)
        assert code == 0, out
        assert attacker.chat_requests


def test_a_run_folder_from_another_version_is_refused_with_one_line(tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                                   monkeypatch):
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--limit", "2", "--results",
                     str(tmp_path), "--run-id", "r", "-q", "--no-score"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    run = tmp_path / "r"
    resume = ["run", "--resume", "r", "--agent", "oracle", "--results", str(tmp_path), "-q"]
    # settings this version does not know
    cfg = json.loads((run / "run.json").read_text())
    good = json.dumps(cfg)
    cfg["settings"]["frobnicate"] = 3
    (run / "run.json").write_text(json.dumps(cfg))
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    code, out = epi(resume, capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and len(out.strip().splitlines()) == 1 and "Traceback" not in out
    assert "settings.frobnicate" in out and "another version of epiharness" in " ".join(out.split())
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before
    code, out = epi(["retry", "r", "--agent", "oracle", "--results", str(tmp_path), "-q"], capsys, monkeypatch,
                    tiny_sandbox)  # `epi retry` reads the run folder the same way
    assert code == 2 and len(out.strip().splitlines()) == 1 and "Traceback" not in out
    assert "settings.frobnicate" in out and "another version of epiharness" in " ".join(out.split())
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before
    # a trace of a newer schema: its episode must not count as unfinished and be run again over it
    (run / "run.json").write_text(good)
    trace = sorted((run / "traces").glob("*.jsonl"))[0]
    lines = trace.read_text().splitlines()
    first = json.loads(lines[0])
    first["schema_version"] = 99
    trace.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    code, out = epi(resume, capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "written by a newer epiharness" in " ".join(out.split()) and trace.name in out
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before
    code, out = epi(["retry", "r", "--agent", "oracle", "--results", str(tmp_path), "-q"], capsys, monkeypatch,
                    tiny_sandbox)
    assert code == 2 and "written by a newer epiharness" in " ".join(out.split()) and trace.name in out
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before
