"""The `epi` command line. Each command group lives in its own module and registers on harness.cli._apps."""
from __future__ import annotations

import atexit
import gc
import importlib
import sys

from rich.console import Console
from rich.text import Text

from ..terminal_text import inert
from ._apps import UserError, app

_COMMAND_MODULES = ["_sandbox", "_serve", "_model_server", "_episodes", "_paper", "_run", "_retry", "_score", "_scores",
                    "_view", "_trace", "_agent"]

for _m in _COMMAND_MODULES:
    try:
        importlib.import_module(f"{__name__}.{_m}")
    except ModuleNotFoundError as e:  # a command group not written yet
        if e.name != f"{__name__}.{_m}":
            raise


def main() -> None:
    """Entry point: user mistakes become a one-line message and exit code 2."""
    err = Console(stderr=True, soft_wrap=True)
    _skip_exit_collection()
    try:
        app()
    except UserError as e:  # the message may quote data (an id, model or paper text): shown inert, never as markup
        err.print(Text.assemble(("error:", "bold red"), " ", inert(str(e))), highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:  # a second Ctrl-C, or one outside a run: stop at once, without a traceback
        err.print("interrupted (SIGINT): stopped at once", highlight=False)
        sys.exit(130)


_exit_hook: list[bool] = []


def _skip_exit_collection() -> None:
    """At interpreter exit, after the other atexit handlers, freeze every object out of the collector's sight.

    Otherwise the exit has the garbage collector walk every object of matplotlib, onnxruntime, pint...
    (0.2-0.4 s after a run) only to free memory the OS takes back anyway. Registered first, so it runs
    last: other handlers and weakref finalizers still run as usual, and files are closed by the code
    that writes them. Once per process (tests call main() many times)."""
    if not _exit_hook:
        atexit.register(gc.freeze)
        _exit_hook.append(True)
