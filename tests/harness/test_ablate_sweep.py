"""`epi ablate` sweeps any `epi run` option: one option set for every command, levels that parse as the settings
do, cells paired with their matched cell, tool calls per cell, a sweep continued whole, bad input refused."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from harness.cli._apps import app
from harness.cli._options import LevelError, parse_levels, setting_options
from harness.settings import PRESETS

from .test_run_cli import epi

OPTS = {o.param: o for o in setting_options()}


def _command(name: str):  # noqa: ANN202 - typer's command object
    import harness.cli  # noqa: F401 - registers the commands

    return typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]


def _help(name: str) -> str:
    result = CliRunner().invoke(app, [name, "--help"], env={"COLUMNS": "400", "TERMINAL_WIDTH": "400"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


# --- one option set --------------------------------------------------------------------------------------------

def test_run_ablate_and_retry_take_the_same_options_in_the_same_panels():
    run, ablate, retry = ({p.name: p for p in _command(c).params} for c in ("run", "ablate", "retry"))
    settings = set(OPTS)
    assert settings <= set(run) and settings <= set(ablate), sorted(settings - set(ablate))
    assert settings - {"run_id"} <= set(retry)
    for name in settings:
        assert run[name].opts[0].split("/")[0] == ablate[name].opts[0], name  # the same flag (a boolean takes on/off)
        assert getattr(run[name], "rich_help_panel", None) == getattr(ablate[name], "rich_help_panel", None), name
    panels = {getattr(p, "rich_help_panel", None) for p in ablate.values() if p.name in settings}
    assert panels == {"Model", "Budget and memory", "Tools and world", "Run", "Output"}


def test_help_shows_the_defaults_in_every_command():
    for cmd in ("run", "ablate"):
        text = _help(cmd)
        for flag, default in (("--max-steps", "10"), ("--budget-unit", "tool_call"), ("--api-key-env", "OPENAI_API_KEY"),
                              ("--memory-mode", "conversation")):
            after = text[text.index("│ " + flag + " "):]
            assert f"[default: {default}]" in after[:600] or f"[default: ({default})]" in after[:600], (cmd, flag)
    assert "the first is the reference" in _help("ablate")


def test_every_preset_names_only_options_of_the_commands():
    for name, layer in PRESETS.items():
        assert set(layer) <= set(OPTS), (name, sorted(set(layer) - set(OPTS)))


# --- levels ----------------------------------------------------------------------------------------------------

def test_levels_parse_as_the_settings_types():
    assert parse_levels(OPTS["max_steps"], "5,10").values == (5, 10)
    assert parse_levels(OPTS["disable_tools"], "none,pdf_rag,pdf_rag+web_search").values == (
        [], ["pdf_rag"], ["pdf_rag", "web_search"])
    assert parse_levels(OPTS["final_turn_tools"], "off,on").values == (False, True)
    assert parse_levels(OPTS["max_episode_tokens"], "none,1000").values == (None, 1000)
    assert parse_levels(OPTS["temperature"], "0,0.7").values == (0.0, 0.7)
    assert parse_levels(OPTS["agent"], "openai, smol-tools").texts == ("openai", "smol-tools")
    assert parse_levels(OPTS["agent_cmd"], r"python a.py --x 1\,2").values == ("python a.py --x 1,2",)  # an escaped comma
    assert parse_levels(OPTS["run_id"], "sweep1").values == ("sweep1",)


@pytest.mark.parametrize("param, text, needle", [
    ("max_steps", "5,x", "--max-steps: level 'x' does not parse"),
    ("max_steps", "5,,10", "--max-steps: empty level"),
    ("max_steps", "5,5", "level '5' is given twice"),
    ("budget_unit", "tool_call,steps", "--budget-unit: level 'steps' does not parse"),
    ("final_turn_tools", "off,maybe", "level 'maybe' is not on or off"),
    ("disable_tools", "none,pdf_rag+", "has an empty item"),
    ("limit", "2,3", "--limit: takes one value in a sweep"),
    ("episodes", "a.jsonl,b.jsonl", "--episodes: takes one value in a sweep"),
])
def test_a_level_that_does_not_parse_is_named(param, text, needle):
    with pytest.raises(LevelError) as e:
        parse_levels(OPTS[param], text)
    assert needle in str(e.value), str(e.value)


@pytest.mark.parametrize("args, needle", [
    (["--bogus", "1"], "No such option: --bogus"),
    (["--max-steps", "5,x"], "level 'x' does not parse"),
    (["--max-steps", "0,5"], "--max-steps: level '0'"),
    (["--agent", "heuristic,nobody"], "unknown agent 'nobody'"),
    (["--disable-tool", "none,telepathy"], "unknown tool 'telepathy'"),
    (["--final-turn-tools", "off,maybe"], "not on or off"),
    (["--executor", "local,ray"], "--executor: takes one value in a sweep"),
    (["--score", "off"], "every cell of a sweep is scored"),
    (["--resume", "nothing-here"], "no sweep 'nothing-here'"),
])
def test_bad_sweeps_get_one_line_exit_2_and_nothing_written(args, needle, tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                            monkeypatch):
    results = tmp_path / "results"
    code, out = epi(["ablate", "--episodes", str(tiny_episodes), "--results", str(results), "--max-steps", "1", "-q",
                     *args], capsys, monkeypatch, tiny_sandbox)
    assert code == 2, out
    assert needle in out and "Traceback" not in out, out
    assert len(out.strip().splitlines()) == 1, out
    assert not results.exists(), "nothing is written before the sweep is checked"


# --- a sweep end to end ----------------------------------------------------------------------------------------

def _json(out: str) -> dict:
    return json.loads(out[out.index("{"):])


@pytest.mark.slow
def test_each_cell_is_paired_with_its_matched_cell_and_a_sweep_continues_whole(tiny_sandbox, tiny_episodes, tmp_path,
                                                                              capsys, monkeypatch):
    base = ["ablate", "--agent", "heuristic", "--episodes", str(tiny_episodes), "--limit", "2", "--results", str(tmp_path),
            "--run-id", "grid"]
    code, out = epi([*base, "--max-steps", "1,10", "--final-turn-tools", "off,on", "--disable-tool", "none,pdf_rag",
                     "--json"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    result = _json(out)
    cells = {c["run"]: c["levels"] for c in result["cells"]}
    assert len(cells) == 8
    configs = {r: json.loads((tmp_path / "grid" / r / "run.json").read_text()) for r in cells}
    for r, lv in cells.items():  # each cell runs its levels
        s = configs[r]["settings"]
        assert (s["max_steps"], s["final_turn_tools"], s["disable_tools"]) == (
            int(lv["--max-steps"]), lv["--final-turn-tools"] == "on", [] if lv["--disable-tool"] == "none" else ["pdf_rag"])
    effects = {(e["factor"], e["level"]): e for e in result["effects"]}
    assert set(effects) == {("--max-steps", "10"), ("--final-turn-tools", "on"), ("--disable-tool", "pdf_rag")}
    for (flag, level), e in effects.items():
        assert len(e["pairs"]) == 4  # one matched pair per setting of the two other factors
        for p in e["pairs"]:  # the reference differs from the cell in this factor only, at its first level
            a, b = cells[p["run"]], cells[p["reference"]]
            assert a[flag] == level and b[flag] == e["reference"]
            assert {k: v for k, v in a.items() if k != flag} == {k: v for k, v in b.items() if k != flag}
        for row in e["pooled"] + [r for p in e["pairs"] for r in p["rows"]]:
            if row["difference"] is not None:  # an interval, or "all n equal": never zero width
                assert row["all_equal"] or row["low"] < row["high"], (flag, row)
    # the budget matters to the heuristic (it needs more than one call per turn); removing pdf_rag, which it never
    # calls, cannot: the report says why
    tools = result["tool_calls"]
    for r, lv in cells.items():
        assert tools[r]["pdf_rag"]["run"] == 0
        assert tools[r]["pdf_rag"]["offered"] == (lv["--disable-tool"] == "none")
        assert tools[r]["web_search"]["run"] > 0
    assert sum(t["run"] for t in tools["max-steps=10_final-turn-tools=off_disable-tool=none"].values()) > \
        sum(t["run"] for t in tools["max-steps=1_final-turn-tools=off_disable-tool=none"].values())
    (warning,) = result["warnings"]
    assert warning.startswith("--disable-tool pdf_rag removes pdf_rag, which the agent never called in any of the 4 "
                              "reference cells (--disable-tool none;")
    report = (tmp_path / "grid" / "comparison.md").read_text()
    assert "## Paired effect of each factor" in report and "## Tool calls per run" in report
    assert "Paired against the baseline" not in report  # no cell is paired with the first cell for being first
    assert (tmp_path / "grid" / "plots" / "paired_effects.png").stat().st_size > 10_000

    # continued whole: a finished cell is kept, an unfinished one resumed, a missing one run
    grid = tmp_path / "grid"
    (grid / "max-steps=10_final-turn-tools=on_disable-tool=pdf_rag" / "scores.json").unlink()
    import shutil

    shutil.rmtree(grid / "max-steps=1_final-turn-tools=on_disable-tool=none")
    code, out = epi(["ablate", "--resume", "grid", "--results", str(tmp_path), "--episodes", str(tiny_episodes),
                     "--json"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    again = _json(out)
    assert sorted(again["kept"]) == sorted(set(cells) - {"max-steps=10_final-turn-tools=on_disable-tool=pdf_rag",
                                                          "max-steps=1_final-turn-tools=on_disable-tool=none"})
    assert (grid / "max-steps=1_final-turn-tools=on_disable-tool=none" / "scores.json").is_file()
    assert [e["pairs"] for e in again["effects"]] and len(again["cells"]) == 8
    # a continued sweep runs as it was made
    code, out = epi(["ablate", "--resume", "grid", "--results", str(tmp_path), "--max-steps", "1,20"], capsys, monkeypatch,
                    tiny_sandbox)
    assert code == 2 and "sweep 'grid' was made with --max-steps 1,10" in out, out
    code, out = epi([*base, "--max-steps", "1,10"], capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "epi ablate --resume grid" in out, out


@pytest.mark.slow
def test_must_show_models_agents_budgets_and_tools_against_the_scripted_server(tiny_sandbox, tiny_episodes, tmp_path,
                                                                              capsys, monkeypatch):
    """Issue 29's must-show: `epi ablate --model a,b --agent openai,smol-tools --max-steps 5,10 --disable-tool
    none,pdf_rag` against the scripted server: every cell runs; the report shows each factor's paired effect and the
    per-tool call counts."""
    from sandbox.model_server import Script, ScriptedModelServer, ToolLoop

    monkeypatch.setenv("EPI_TEST_KEY", "sk-test")
    loop = ToolLoop(tool="web_search", calls=2, arguments={"query": "{question}"}, content="Final answer: 42")
    with ScriptedModelServer(Script(loop=loop)) as srv:
        code, out = epi(["ablate", "--model", "a,b", "--agent", "openai,smol-tools", "--max-steps", "5,10",
                         "--disable-tool", "none,pdf_rag", "--base-url", srv.base_url, "--api-key-env", "EPI_TEST_KEY",
                         "--episodes", str(tiny_episodes), "--limit", "1", "--concurrency", "16", "--results",
                         str(tmp_path), "--run-id", "must-show", "-q"], capsys, monkeypatch, tiny_sandbox)
        served = {json.loads(r.raw)["model"] for r in srv.chat_requests if r.raw}
    print(out)
    assert code == 0, out
    assert served == {"a", "b"}
    sweep = tmp_path / "must-show"
    cells = [p for p in sweep.iterdir() if (p / "run.json").is_file()]
    assert len(cells) == 16
    for c in cells:  # every cell ran its episode to the end, with its own agent and model
        s = json.loads((c / "run.json").read_text())["settings"]
        assert c.name == (f"model={s['agent_config']['model']}_agent={s['agent']}_max-steps={s['max_steps']}_"
                          f"disable-tool={'pdf_rag' if s['disable_tools'] else 'none'}")
        scores = json.loads((c / "scores.json").read_text())
        assert scores["all"]["episodes"] == 1 and not scores["missing_episodes"], c.name
    text = " ".join(out.split())
    effects = text[text.index("Paired effect of each factor"):text.index("Tool calls per run")]
    for flag, level, ref in (("--model", "b", "a"), ("--agent", "smol-tools", "openai"), ("--max-steps", "10", "5"),
                             ("--disable-tool", "pdf_rag", "none")):
        assert f"{flag} {level} vs {ref} pooled over 8 matched pairs" in effects, flag
    assert effects.count("McNemar exact p =") == 4 * 8  # every cell against its matched cell, per factor
    assert effects.count("--agent smol-tools, --max-steps 10, --disable-tool pdf_rag") == 1  # the --model pair there
    assert "Tool calls per run" in text and "web_search" in text
    effects = json.loads((sweep / "effects.json").read_text())
    for cell, counts in effects["tool_calls"].items():
        assert counts["web_search"]["run"] > 0, cell
        assert (counts["pdf_rag"]["offered"]) == cell.endswith("disable-tool=none"), cell
    assert any("removes pdf_rag, which the agent never called" in w for w in effects["warnings"])
    report = (sweep / "comparison.md").read_text()
    assert report.count("### `--") == 4 and "## Tool calls per run" in report


def test_a_sweep_continued_takes_the_agent_and_endpoint_from_the_user_not_from_its_folder(tmp_path, capsys, monkeypatch):
    """ablation.json is data: an agent, endpoint or key variable named only there is never started or sent a key."""
    from harness.scoring.ablation import AblationSpec, SweepCell, SweepFactor

    sweep = tmp_path / "s"
    sweep.mkdir()
    spec = AblationSpec(name="s", flags={"agent": "openai,smol-tools", "base_url": "http://10.0.0.9:1/v1",
                                         "max_steps": "5"},
                        factors=[SweepFactor(option="agent", flag="--agent", levels=["openai", "smol-tools"])],
                        cells=[SweepCell(run_id="agent=openai", levels=[0]), SweepCell(run_id="agent=smol-tools", levels=[1])])
    (sweep / "ablation.json").write_text(spec.model_dump_json())
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code, out = epi(["ablate", "--resume", "s", "--results", str(tmp_path)], capsys, monkeypatch)
    assert code == 2 and "names agent openai,smol-tools, base_url http://10.0.0.9:1/v1, which you did not give" in out, out
    assert "--agent openai,smol-tools --base-url http://10.0.0.9:1/v1" in out and len(out.strip().splitlines()) == 1
    code, out = epi(["ablate", "--resume", "s", "--results", str(tmp_path), "--agent", "openai",
                     "--base-url", "http://10.0.0.9:1/v1"], capsys, monkeypatch)
    assert code == 2 and "--agent openai: sweep 's' was made with --agent openai,smol-tools" in out, out
    assert sorted(p.name for p in tmp_path.rglob("*")) == before, "a refused sweep writes nothing"
    (sweep / "ablation.json").write_text('{"version": 1, "name": "s", "flags": {}, "cells": [{"run_id": "../x", "levels": [0]}]}')
    code, out = epi(["ablate", "--resume", "s", "--results", str(tmp_path)], capsys, monkeypatch)
    assert code == 2 and "ablation.json" in out and "Traceback" not in out, out


def test_usage_errors_of_every_command_are_one_line(capsys, monkeypatch):
    for args, needle in ((["run", "--bogus"], "epi run: No such option: --bogus"),
                         (["run", "--max-steps", "x"], "epi run: Invalid value for '--max-steps'"),
                         (["ablate", "--agent"], "requires an argument"),
                         (["retry"], "epi retry: Missing argument 'run'")):
        code, out = epi(args, capsys, monkeypatch)
        assert code == 2 and needle in out and len(out.strip().splitlines()) == 1, out
