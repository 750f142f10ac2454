"""Issue 29, item 7: what a user meets. Servers that can run side by side; `epi replay --failed` that never dumps
every failed episode into a pipe."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from viewer_runs import make_run  # noqa: E402

from harness.cli import app  # noqa: E402
from harness.cli._apps import UserError  # noqa: E402
from harness.cli._view import FAILED_LIMIT  # noqa: E402


def _default_port(*path: str) -> int:
    cmd = get_command(app)
    for name in path:
        cmd = cmd.commands[name]  # type: ignore[attr-defined]
    (port,) = [p for p in cmd.params if p.name == "port"]
    return port.default


def test_the_three_servers_have_distinct_default_ports():
    ports = {"model-server": _default_port("sandbox", "model-server"), "sandbox serve": _default_port("sandbox", "serve"),
             "view --serve": _default_port("view")}
    assert len(set(ports.values())) == 3, ports


@pytest.fixture(scope="module")
def many_failed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory.mktemp("replay"), n=16)


def _shown(output: str) -> int:
    return output.count("episode ep-")


def test_replay_failed_without_a_terminal_stops_at_the_limit_and_says_how_to_see_more(many_failed: Path):
    runner = CliRunner()
    r = runner.invoke(app, ["replay", str(many_failed), "--failed", "--width", "160"])
    assert r.exit_code == 0, r.output
    total = int(r.output.split(" failed episode(s)")[0].rsplit(" ", 1)[1])
    assert total > FAILED_LIMIT and _shown(r.output) == FAILED_LIMIT
    assert f"shown {FAILED_LIMIT} of {total} failed episodes" in r.output and "--limit N" in r.output
    r = runner.invoke(app, ["replay", str(many_failed), "--failed", "--limit", "2", "--width", "160"])
    assert _shown(r.output) == 2 and f"shown 2 of {total}" in r.output
    r = runner.invoke(app, ["replay", str(many_failed), "--failed", "--limit", "0", "--width", "160"])
    assert _shown(r.output) == total and "shown" not in r.output


def test_limit_without_failed_is_a_user_error(many_failed: Path):
    r = CliRunner().invoke(app, ["replay", str(many_failed), "ep-000", "--limit", "2"])
    assert isinstance(r.exception, UserError) and "--limit goes with --failed" in str(r.exception)


def test_run_help_groups_every_setting_and_shows_its_default():
    from harness.cli._options import GROUPS, setting_options

    params = {p.name: p for p in get_command(app).commands["run"].params}  # type: ignore[attr-defined]
    names = {o.param for o in setting_options()}
    assert {n for group in GROUPS.values() for n in group} <= names, "a panel names a field that is no option"
    panels = {params[n].rich_help_panel for n in names}
    assert panels == {*GROUPS, "Run"}
    assert params["max_steps"].rich_help_panel == "Budget and memory" and params["max_steps"].show_default == "10"
    assert params["score"].show_default == "score" and params["final_turn_tools"].show_default == "no-final-turn-tools"
    assert params["model"].show_default is False  # no default to show
    r = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"}, terminal_width=200)
    assert "Budget and memory" in r.output and "[default: (10)]" in r.output


def test_replay_failed_wraps_each_episode_in_the_pager_it_is_given(many_failed: Path):
    """In a terminal the CLI passes rich's pager; here a recording stand-in: one page per episode shown."""
    from contextlib import contextmanager

    from rich.console import Console

    from harness.replay_view import replay
    from harness.viewer import RunFiles

    pages: list[int] = []
    console = Console(record=True, width=160, force_terminal=False)

    @contextmanager
    def page():  # noqa: ANN202
        start = len(console.export_text(clear=False))
        yield
        pages.append(len(console.export_text(clear=False)) - start)

    shown = replay(RunFiles.open(many_failed, score_if_missing=False), None, failed=True, console=console,
                   ask_next=lambda eid: len(pages) < 2, page=page)
    assert len(shown) == 2 and len(pages) == 2 and all(n > 200 for n in pages)  # each page holds a whole episode
