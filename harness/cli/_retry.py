"""`epi retry RUN`: run again the episodes of a run that ended in a provider, data-access or pipeline error.

The errored episodes' traces are set aside as failed attempts (`traces/attempt=<n>/`, kept, never scored),
then those episodes, and any without a finished trace, run again in the same run, which is scored as a
whole. The agent, endpoint and key variable come from the command line, `--config` or `--preset`, never
from the run folder alone (`harness.stored_run`); the endpoint may differ from the first attempt's (the
outage is over), and run.json records it under `retries`.
"""
from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Optional

import typer

from ..settings import PRESET_HELP, SettingsError, load_toml, preset
from ._apps import UserError, app
from ._options import parameters, settings_layer
from ._run import _OPTIONS, BREAK_LOCK_HELP, _print_summary, _progress_grid, _retry_hint


def retry_cmd(
    run: str = typer.Argument(..., help="run folder, or a run id under --results"),
    *,
    preset_name: Optional[str] = typer.Option(None, "--preset", help=PRESET_HELP),
    config: Optional[Path] = typer.Option(None, "--config", help="TOML file with run settings (a `run` table or top-level keys)"),
    break_lock: bool = typer.Option(False, "--break-lock", help=BREAK_LOCK_HELP),
    as_json: bool = typer.Option(False, "--json", help="print the run summary as JSON"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar"),
    **given: Any,
) -> None:
    """Run again the episodes that ended in a provider, data-access or pipeline error (and any never finished);
    their failed attempts stay in the run (traces/attempt=N/), not scored. Then score the run."""
    from ..rundir import RunDir
    from ..runner import NothingToRetry, RunRequest, RunSetupError
    from ._stored import render_flags, run_path, stored_settings

    flags = settings_layer(_OPTIONS, given)
    if flags.get("run_id"):
        raise UserError("--run-id: a retry runs inside the run it retries; name the run as the argument")
    rd = RunDir(run_path(run, flags.get("results") or Path("results")))
    if not rd.exists():
        raise UserError(f"{rd.path} is not a run folder (run.json missing)")
    typed = ["epi", "retry", run, *(["--preset", preset_name] if preset_name else []),
             *(["--config", str(config)] if config else []), *render_flags(_OPTIONS, flags)]
    try:
        layers = [preset(preset_name)] if preset_name else []
        if config:
            layers.append(load_toml(config))
        settings = stored_settings(rd, [*layers, flags], options=_OPTIONS, command=typed, retry=True,
                                   break_lock=break_lock)
        request = RunRequest(settings, retry=True, break_lock=break_lock)
        (summary,) = _progress_grid([request], quiet or as_json, verb=("retry",))
    except NothingToRetry as e:
        typer.echo(str(e))
        return
    except (SettingsError, RunSetupError) as e:
        raise UserError(str(e)) from None
    _print_summary(summary, as_json, retry=_retry_hint(settings))
    if summary.lost:
        raise typer.Exit(1)


_fixed = [p for p in inspect.signature(retry_cmd).parameters.values()
          if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
retry_cmd.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    _fixed + [p for p in parameters(_OPTIONS) if p.name not in ("run_id",)])
app.command("retry")(retry_cmd)
