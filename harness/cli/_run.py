"""`epi run`: run an agent over an episode set (`epi ablate`, a sweep of runs, is in _ablate.py)."""
from __future__ import annotations

import asyncio
import inspect
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ..agent import AgentConfig
from ..settings import PRESET_HELP, RunSettings, SettingsError, build_settings, load_toml, preset
from ..terminal_text import inert
from ._apps import UserError, app
from ._options import parameters, setting_options, settings_layer

if TYPE_CHECKING:  # the runner pulls in tools, traces and scoring: loaded by the commands, not by `epi --help`
    from ..executors import RunPlan
    from ..runner import RunRequest

def _progress_grid(requests: list[RunRequest], quiet: bool, verb: tuple[str, ...] = ("run", "--resume"),
                   interrupted: Callable[[Any], None] | None = None) -> list[Any]:
    """Run one or more runs as one bag of jobs, with a rich progress bar per run: jobs done,
    episodes answered right so far, time left. SIGINT or SIGTERM: say how far each run got and the exact
    command (`epi <verb> RUN ...`) that takes it up again (or let `interrupted` say it, given the
    RunInterrupted), exit 128 + the signal."""
    from agents import agent_label

    from ..run_signals import RunInterrupted
    from ..runner import run_grid

    console = Console(stderr=True)
    prog = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(bar_width=18), MofNCompleteColumn(),
        TextColumn("success {task.fields[success]}"), TimeElapsedColumn(), TextColumn("eta"),
        TimeRemainingColumn(), console=console, disable=quiet, transient=False,
    )
    tasks: dict[int, Any] = {}
    state: dict[int, dict[str, int]] = {}

    def on_start(plan: RunPlan) -> None:
        label = agent_label(plan.settings.agent) if len(requests) == 1 else plan.run_dir.run_id
        tasks[id(plan)] = prog.add_task(escape(inert(label)), total=len(plan.jobs), success="-")  # a name, not markup
        state[id(plan)] = {"done": 0, "ok": 0}

    def on_done(plan: RunPlan, out: Any) -> None:
        from ..scoring import quick_episode_success

        st = state[id(plan)]
        st["done"] += 1
        if quiet:  # no progress bar to show it on: skip matching the answers (score_run does it once at the end)
            return
        if out.status == "completed" and quick_episode_success(plan.settings, out):
            st["ok"] += 1
        prog.update(tasks[id(plan)], advance=1, success=f"{st['ok']}/{st['done']}")

    try:
        with prog:
            return asyncio.run(run_grid(requests, progress=on_done, on_start=on_start))
    except RunInterrupted as e:
        (interrupted or (lambda e: _report_interrupted(e, verb)))(e)
        raise typer.Exit(e.exit_code) from None


def _report_interrupted(e: Any, verb: tuple[str, ...]) -> None:
    import signal as _signal

    from ..stored_run import resume_command

    err = Console(stderr=True, soft_wrap=True)
    name = _signal.Signals(e.signum).name
    if not e.runs:
        err.print(f"interrupted by {name} before any episode ran; nothing was written", highlight=False)
    for r in e.runs:
        unit = "episodes" if r.settings.epochs == 1 else "episode runs (episodes x epochs)"
        err.print(f"interrupted by {name}: {r.done} of {r.total} {unit} done in run {r.run_id} (finished traces kept, "
                  f"episodes in progress abandoned); resume with: {resume_command(r.settings, verb=verb)}",
                  highlight=False, markup=False)


def _print_summary(summary: Any, as_json: bool, retry: str | None = None) -> None:
    console = Console()
    scores = summary.scores
    payload: dict[str, Any] = {
        "run_id": summary.run_id,
        "run_dir": str(summary.run_dir),
        "episodes": summary.episodes_total,
        "episodes_run": summary.episodes_run,
        "episodes_kept": summary.episodes_kept,
        "epochs": summary.epochs,
        "failed_episodes": sum(1 for o in summary.outcomes if o.status == "failed"),
        "lost_jobs": [{"episode": e, "epoch": k} for e, k in summary.lost],
        "failed_attempts_kept": summary.retired,
    }
    if scores is not None:
        payload["scores"] = json.loads(Path(summary.run_dir, "scores.json").read_text())
    if as_json:
        print(json.dumps(payload, indent=2))
        return
    console.print(f"run [bold]{summary.run_id}[/] -> {summary.run_dir}")
    what = "episodes" if summary.epochs == 1 else f"{summary.episodes_total} episodes x {summary.epochs} epochs"
    console.print(
        f"{what}: {summary.episodes_run} run, {summary.episodes_kept} kept from before, "
        f"{payload['failed_episodes']} ended with an error"
    )
    if summary.lost:
        console.print(
            f"[red]{len(summary.lost)} job(s) lost with their workers[/] have no trace (scored as missing); "
            f"`epi run --resume {summary.run_id}` runs them"
        )
    if summary.retired:
        shown = ", ".join(summary.retired[:5]) + (", ..." if len(summary.retired) > 5 else "")
        console.print(f"{len(summary.retired)} failed attempt(s) kept in the run (not scored): {shown}", highlight=False)
    if scores is not None:
        from ..scoring.report import print_scores

        print_scores(Path(summary.run_dir), console, retry=retry)


_OPTIONS = setting_options()
BREAK_LOCK_HELP = ("take over the run's lock when it is held on another host (its process cannot be checked from "
                   "here); a lock of a live process on this host is never broken")


def run_cmd(
    *,
    resume: Optional[str] = typer.Option(None, "--resume", help="continue an interrupted run with this id"),
    preset_name: Optional[str] = typer.Option(None, "--preset", help=PRESET_HELP),
    config: Optional[Path] = typer.Option(None, "--config", help="TOML file with run settings (a `run` table or top-level keys)"),
    break_lock: bool = typer.Option(False, "--break-lock", help=BREAK_LOCK_HELP),
    as_json: bool = typer.Option(False, "--json", help="print the run summary as JSON"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar"),
    **given: Any,
) -> None:
    """Run an agent over an episode set; traces go to results/<run_id>/, scores at the end."""
    from ..rundir import RunDir
    from ..runner import RunRequest, RunSetupError
    from ._stored import render_flags, stored_settings

    flags = settings_layer(_OPTIONS, given)
    results = flags.get("results")
    try:
        layers = [preset(preset_name)] if preset_name else []
        if config:
            layers.append(load_toml(config))
        if resume:
            rd = RunDir((results or Path("results")) / resume)
            if not rd.exists():
                raise UserError(f"--resume: no run {resume!r} under {results or 'results'} (run.json missing)")
            typed = ["epi", "run", "--resume", resume, *(["--preset", preset_name] if preset_name else []),
                     *(["--config", str(config)] if config else []), *render_flags(_OPTIONS, flags)]
            settings = stored_settings(rd, [*layers, flags], options=_OPTIONS, command=typed, retry=False,
                                       break_lock=break_lock)
        else:
            if flags.get("agent") == "human" and "step_timeout_s" not in flags:
                flags["step_timeout_s"] = 24 * 3600.0  # a person may think for a long time
            settings = build_settings(*layers, flags)
        request = RunRequest(settings, resume=bool(resume), break_lock=break_lock)
        (summary,) = _progress_grid([request], quiet or as_json)
    except (SettingsError, RunSetupError) as e:
        raise UserError(str(e)) from None
    _print_summary(summary, as_json, retry=_retry_hint(settings))
    if summary.lost:
        raise typer.Exit(1)


def _retry_hint(settings: RunSettings) -> str:
    from ..stored_run import resume_command

    return resume_command(settings, verb=("retry",))


_fixed = [p for p in inspect.signature(run_cmd).parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]
run_cmd.__signature__ = inspect.Signature(_fixed + parameters(_OPTIONS))  # type: ignore[attr-defined]
app.command("run")(run_cmd)
