"""`epi replay` (an episode in the terminal) and `epi view` (a static HTML viewer of runs)."""
from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from rich.console import Console

from ._apps import VIEWER_PORT, UserError, app

if TYPE_CHECKING:  # the viewer and replay load traces and scoring: imported by the commands, not by `epi --help`
    from ..viewer import RunFiles


def resolve_run(run: str, results: Path) -> Path:
    """A run given as a folder path, or as a run id under the results folder."""
    direct = Path(run)
    if direct.is_dir():
        return direct
    under = results / run
    if under.is_dir():
        return under
    if direct.is_absolute():
        raise UserError(f"no run {run!r}: {direct} is not a folder")
    raise UserError(f"no run {run!r}: neither {direct} nor {under} is a folder")


def _open(run: str, results: Path) -> RunFiles:
    from ..viewer import RunFiles, RunFilesError

    try:
        return RunFiles.open(resolve_run(run, results))
    except RunFilesError as e:
        raise UserError(str(e)) from None


FAILED_LIMIT = 5  # failed episodes `epi replay --failed` prints without a terminal, unless --limit says otherwise


@app.command("replay")
def replay_cmd(
    run: str = typer.Argument(..., help="run folder, or a run id under --results"),
    episode: Optional[str] = typer.Argument(None, help="episode id (optional with --failed: start there)"),
    failed: bool = typer.Option(False, "--failed", help="walk the failed episodes one by one (in a terminal: Enter for "
                                                        "the next, q to stop)"),
    limit: Optional[int] = typer.Option(
        None, "--limit", min=0, show_default=f"all in a terminal, else {FAILED_LIMIT}",
        help="with --failed: show at most this many episodes (0: all)"),
    pager: bool = typer.Option(True, "--pager/--no-pager", help="with --failed in a terminal: show each episode in the "
                                                              "pager ($PAGER, else less)"),
    from_turn: Optional[int] = typer.Option(None, "--from-turn", help="continue EPISODE from this turn (1-based) with --agent"),
    agent: Optional[str] = typer.Option(None, "--agent", help="the agent that takes over at --from-turn"),
    run_id: Optional[str] = typer.Option(None, "--run-id", help="id of the new run made by --from-turn"),
    results: Path = typer.Option(Path("results"), "--results", help="folder holding run folders"),
    width: Optional[int] = typer.Option(None, "--width", help="terminal width to render for"),
    model: Optional[str] = typer.Option(None, "--model", help="with --from-turn: model of the agent that takes over"),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="with --from-turn: its OpenAI-compatible endpoint"),
    api_key_env: Optional[str] = typer.Option(None, "--api-key-env", help="with --from-turn: env variable with its API key"),
) -> None:
    """Replay an episode turn by turn: steps, evidence, gold against agent answer, the first error marked."""
    if (from_turn is None) != (agent is None):
        raise UserError("--from-turn and --agent go together: `epi replay RUN EPISODE --from-turn K --agent NAME`")
    files = _open(run, results)
    console = Console(width=width)
    if from_turn is not None and agent is not None:
        if episode is None:
            raise UserError("--from-turn needs the EPISODE to continue")
        overrides = {"model": model, "base_url": base_url, "api_key_env": api_key_env}
        typed = ["epi", "replay", run, episode, "--from-turn", str(from_turn), "--agent", agent,
                 *(["--run-id", run_id] if run_id else []), *(["--results", str(results)] if results != Path("results") else []),
                 *(w for k, v in overrides.items() if v is not None for w in (f"--{k.replace('_', '-')}", v))]
        _continue(files, episode, from_turn, agent, results, run_id, console,
                  {k: v for k, v in overrides.items() if v is not None}, typed)
        return
    if limit is not None and not failed:
        raise UserError("--limit goes with --failed: `epi replay RUN --failed --limit N`")
    ask = None
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    if failed and limit is None and not terminal:  # a pipe or a file: never every failed episode unasked
        limit = FAILED_LIMIT
    page = None  # each failed episode in the pager ($PAGER, else less), then the prompt for the next
    if failed and terminal and pager:
        os.environ.setdefault("LESS", "-R")  # less shows the colours rich writes (an own $LESS is kept)
        page = lambda: console.pager(styles=True)  # noqa: E731
    if failed and terminal:
        def ask(next_id: str) -> bool:
            reply = console.input(f"[dim]Enter: next failed episode ({next_id}) · q: quit[/] ")
            return reply.strip().lower() not in ("q", "quit")
    from ..replay_view import ReplayError, replay

    try:
        replay(files, episode, failed=failed, console=console, ask_next=ask, limit=limit or None, page=page)
    except ReplayError as e:
        raise UserError(str(e)) from None


def _continue(files: RunFiles, episode: str, from_turn: int, agent: str, results: Path, run_id: Optional[str],
              console: Console, agent_options: dict, command: list[str]) -> None:
    from ..runner import RunSetupError, continue_episode

    if episode not in files.episode_ids():
        raise UserError(f"episode {episode!r} is not in run {files.run_id}")
    try:
        new_dir = asyncio.run(continue_episode(files.run.path, episode, from_turn, agent, results_dir=results, run_id=run_id,
                                                   agent_options=agent_options, command=command))
    except RunSetupError as e:
        raise UserError(str(e)) from None
    console.print(f"continued {episode} from turn {from_turn} with agent {agent}: new run at {new_dir}", highlight=False)
    console.print(f"replay it: epi replay {new_dir} {episode}", highlight=False)


@app.command("view")
def view_cmd(
    runs: List[str] = typer.Argument(..., help="run folders or run ids (the first is the main run; a second is shown side by side)"),
    out: Optional[Path] = typer.Option(None, "--out", help="viewer folder (default: <first run>/viewer)"),
    serve: bool = typer.Option(False, "--serve", help="serve the viewer on localhost after writing it"),
    port: int = typer.Option(VIEWER_PORT, "--port", help="port for --serve (0 picks a free one)"),
    screenshots: Optional[Path] = typer.Option(None, "--screenshots", help="also save viewer.png, viewer_episode.png and (for a run with reports) viewer_report.png here (headless Chromium)"),
    results: Path = typer.Option(Path("results"), "--results", help="folder holding run folders"),
) -> None:
    """Write a self-contained HTML viewer (open index.html directly, no server needed)."""
    from ..viewer import RunFilesError, build_viewer, serve_viewer

    dirs = [resolve_run(r, results) for r in runs]
    try:
        index = build_viewer(dirs, out)
    except RunFilesError as e:
        raise UserError(str(e)) from None
    console = Console()
    console.print(f"viewer written: {index}", highlight=False)
    console.print(f"open: {index.resolve().as_uri()}", highlight=False)
    if screenshots is not None:
        from ..viewer.screenshot import take_screenshots

        try:
            for shot in asyncio.run(take_screenshots(index, screenshots)):
                console.print(f"screenshot: {shot}", highlight=False)
        except FileNotFoundError as e:
            raise UserError(str(e)) from None
    if serve:
        try:
            serve_viewer(index.parent, port, on_ready=lambda url: console.print(f"serving on {url} (Ctrl-C stops)", highlight=False))
        except OSError as e:
            raise UserError(f"cannot serve on port {port}: {e.strerror or e} (--port 0 picks a free one)") from None
