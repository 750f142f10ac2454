"""`epi agent check CMD`: the bridge protocol's conformance checks against an agent program of your own."""
from __future__ import annotations

import asyncio
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from ._apps import UserError, app

agent_app = typer.Typer(help="Agent programs run through the bridge (--agent-cmd).", no_args_is_help=True)
app.add_typer(agent_app, name="agent")


@agent_app.command("check")
def check(
    cmd: str = typer.Argument(..., help='the command that starts the agent program, e.g. "python my_agent.py"'),
    agent_dir: list[Path] = typer.Option([], "--agent-dir", help="a folder the program needs, bound read-only (repeatable)"),
    agent_env: list[str] = typer.Option([], "--agent-env", help="NAME or NAME=VALUE the program gets (repeatable)"),
    agent_sandbox: str = typer.Option("auto", "--agent-sandbox", help="auto, bwrap or none"),
    timeout: float = typer.Option(60.0, "--agent-timeout", help="seconds the program may take for one turn"),
) -> None:
    """Play one scripted two-turn episode with the program and say, check by check, what it does wrong.
    Exit code 0: every check passed; 1: some failed; 2: the command or options cannot be used."""
    from harness.bridge.check import run_checks
    from harness.run_record import RunSetupError

    if agent_sandbox not in ("auto", "bwrap", "none"):
        raise UserError(f"--agent-sandbox: {agent_sandbox!r} is not one of auto, bwrap, none")
    try:
        results = asyncio.run(run_checks(cmd, agent_dirs=agent_dir, agent_env=agent_env, sandbox=agent_sandbox,
                                         timeout_s=timeout))
    except (RunSetupError, ValueError) as e:
        raise UserError(str(e)) from None
    out = Console(soft_wrap=True)
    for c in results:
        mark = "[green]ok  [/]" if c.ok else "[bold red]FAIL[/]"
        out.print(f"{mark} {escape(c.name)}", highlight=False)
        if not c.ok and c.detail:
            for line in c.detail.splitlines()[:40]:
                out.print(f"     {escape(line)}", highlight=False)
    failed = sum(not c.ok for c in results)
    out.print(f"{len(results) - failed}/{len(results)} checks passed", highlight=False)
    raise typer.Exit(1 if failed else 0)
