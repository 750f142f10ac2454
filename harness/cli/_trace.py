"""`epi trace export`: a model call of a trace expanded to the exact request body that was sent."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..rundir import RunDir
from ..trace_fold import EpisodeFold, fold_trace
from ..terminal_text import inert
from ..trace_store import TraceRequestError
from ._apps import UserError, app
from ._view import resolve_run

trace_app = typer.Typer(help="Look inside traces: the requests sent to the model.", no_args_is_help=True)
app.add_typer(trace_app, name="trace")


@trace_app.command("export")
def export_cmd(
    run: str = typer.Argument(..., help="run folder, or a run id under --results"),
    episode: str = typer.Argument(..., help="episode id"),
    call: Optional[int] = typer.Option(None, "--call", help="the model call to export (1-based); without it, list the calls"),
    epoch: int = typer.Option(1, "--epoch", help="which repeat of the episode (epi run --epochs)"),
    out: Optional[Path] = typer.Option(None, "--out", help="write the body to this file instead of standard output"),
    results: Path = typer.Option(Path("results"), "--results", help="folder holding run folders"),
) -> None:
    """Write the exact bytes of a model call's request body (v4 traces); older traces give the stored JSON."""
    rd = RunDir(resolve_run(run, results))
    if epoch < 1:
        raise UserError(f"--epoch counts from 1, got {epoch}")
    trace = rd.read_trace(episode, epoch=epoch, include_partial=True)
    if trace.missing:
        raise UserError(f"run {rd.run_id!r} has no trace for episode {episode!r} (epoch {epoch}) at {rd.trace_path(episode, epoch)}")
    fold = fold_trace(trace)
    index, images = fold.requests, rd.assets_dir(episode, epoch)
    if not index.calls:
        raise UserError(f"the trace of episode {episode!r} has no model calls")
    if call is None:
        _list_calls(fold, images)
        return
    if call not in index.calls:
        raise UserError(f"no model call {call} in episode {episode!r}: it has calls 1 to {max(index.calls)}")
    try:
        if index.stored_whole(call):
            Console(stderr=True).print("note: this trace predates v4: its request was stored as JSON with image data "
                                       "left out, so this is not the exact bytes sent", highlight=False)
            data = json.dumps(index.request(call), ensure_ascii=False, indent=1).encode("utf-8") + b"\n"
        else:
            data = index.body(call, images)
    except TraceRequestError as e:
        raise UserError(f"episode {episode!r}: {e}") from None
    if out is not None:
        out.write_bytes(data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def _list_calls(fold: EpisodeFold, images: Path) -> None:
    index = fold.requests
    table = Table(title=f"model calls of {fold.episode_id} (export one with --call N)")
    for col in ("call", "turn", "step", "purpose", "messages", "new in trace", "body bytes"):
        table.add_column(col, justify="left" if col == "purpose" else "right")
    for n in index.numbers():
        ev = index.calls[n]
        try:
            if index.stored_whole(n):
                msgs, size = len((ev.request or {}).get("messages") or []), "stored whole"
            else:
                msgs, size = len(index.message_hashes(n)), f"{len(index.body(n, images)):,}"
        except TraceRequestError as e:
            msgs, size = 0, Text(inert(f"unreadable: {e}"))  # it quotes the trace: text, not markup
        table.add_row(str(n), str(ev.turn), str(ev.step), ev.purpose, str(msgs), str(len(ev.blobs)), size)
    Console().print(table)
