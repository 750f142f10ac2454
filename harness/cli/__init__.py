"""The `epi` command line. Each command group lives in its own module and registers on harness.cli._apps."""
from __future__ import annotations

import importlib
import sys

from rich.console import Console

from ._apps import UserError, app

_COMMAND_MODULES = ["_sandbox", "_serve", "_model_server", "_episodes", "_paper", "_run", "_score", "_view", "_trace"]

for _m in _COMMAND_MODULES:
    try:
        importlib.import_module(f"{__name__}.{_m}")
    except ModuleNotFoundError as e:  # a command group not written yet
        if e.name != f"{__name__}.{_m}":
            raise


def main() -> None:
    """Entry point: user mistakes become a one-line message and exit code 2."""
    err = Console(stderr=True, soft_wrap=True)
    try:
        app()
    except UserError as e:
        err.print(f"[bold red]error:[/] {e}", highlight=False)
        sys.exit(2)
