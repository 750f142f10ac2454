"""`epi run`'s options are built from RunSettings, AgentConfig, PRESETS and the agent registry: this test
builds the expected help from those and compares it with the command's, so the two cannot drift."""
from __future__ import annotations

import json
import typing
from pathlib import Path

import typer
from typer.testing import CliRunner

from agents import AGENT_FACTORIES
from harness.agent import AgentConfig
from harness.cli._apps import app
from harness.fieldmeta import cli_meta
from harness.settings import PRESETS, RunSettings


def _run_command():  # noqa: ANN202 - typer's command object
    import harness.cli  # noqa: F401 - registers the commands

    return typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]


def _help_text() -> str:
    result = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "400", "TERMINAL_WIDTH": "400"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def _expected() -> dict[str, tuple[str, str]]:
    """Every settings field shown on the command line -> (its first flag, its help), from the models alone."""
    out: dict[str, tuple[str, str]] = {}
    fields = {**{k: v for k, v in RunSettings.model_fields.items() if k != "agent_config"}, **AgentConfig.model_fields}
    for name, field in fields.items():
        meta = cli_meta(field.json_schema_extra)
        if meta["hide"]:
            continue
        out[name] = (meta["flag"] or "--" + name.replace("_", "-"), field.description or "")
    return out


def test_every_setting_is_an_option_with_its_description_as_help():
    params = {p.name: p for p in _run_command().params}
    expected = _expected()
    assert set(expected) <= set(params), f"settings without an option: {sorted(set(expected) - set(params))}"
    for name, (flag, help_text) in expected.items():
        p = params[name]
        assert flag in p.opts, (name, p.opts)
        assert p.help == help_text, name
    assert not {"extra"} & set(params)  # dict-valued settings stay in TOML configs


def test_choices_come_from_the_literals():
    text = _help_text()
    for name in ("world", "executor", "budget_unit", "memory_mode"):
        field = RunSettings.model_fields.get(name) or AgentConfig.model_fields[name]
        choices = "|".join(typing.get_args(field.annotation))
        assert f"--{name.replace('_', '-')} <{choices}>" in text, name


def test_rendered_help_names_every_agent_and_preset():
    text = _help_text()
    for agent in AGENT_FACTORIES:
        assert agent in text, agent
    for name in PRESETS:
        assert name in text, name
    for flag, _ in _expected().values():
        assert flag in text, flag


def test_generated_options_reach_the_settings(tiny_sandbox, tiny_episodes, tmp_path, monkeypatch, capsys):
    """Options of both levels (a run setting and an agent setting) land in run.json."""
    import sys

    from harness.cli import main

    monkeypatch.setenv("EPI_SANDBOX_DIR", str(tiny_sandbox))
    monkeypatch.setattr(sys, "argv", [
        "epi", "run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(tmp_path), "--run-id", "g",
        "--limit", "1", "--budget-unit", "model_step", "--max-steps", "7", "--request-timeout", "9", "--no-score", "-q",
        "--episode", json.loads(tiny_episodes.read_text().splitlines()[0])["id"],
    ])
    try:
        main()
    except SystemExit as e:
        assert not e.code, capsys.readouterr()
    settings = json.loads(Path(tmp_path, "g", "run.json").read_text())["settings"]
    assert settings["budget_unit"] == "model_step" and settings["max_steps"] == 7 and settings["score"] is False
    assert settings["agent_config"]["request_timeout_s"] == 9.0 and len(settings["episode_ids"]) == 1
