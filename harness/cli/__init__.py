"""The `epi` command line. Each command group lives in its own module and registers on harness.cli._apps."""
from __future__ import annotations

import atexit
import gc
import importlib
import sys

import typer

from rich.console import Console
from rich.text import Text

from ..terminal_text import inert
from ._apps import UserError, app

_COMMAND_MODULES = ["_sandbox", "_serve", "_model_server", "_episodes", "_paper", "_run", "_ablate", "_retry", "_score", "_scores",
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
        code = app(standalone_mode=False)
    except _USAGE_ERROR as e:  # an unknown option, a bad value: one line naming it, as for any user mistake
        if type(e).__name__ == "NoArgsIsHelpError":  # `epi` or `epi sandbox` alone: the help is shown already
            sys.exit(2)
        where = " ".join(["epi", *_subcommands(getattr(e, "ctx", None))])
        err.print(Text.assemble(("error:", "bold red"), " ", inert(f"{where}: {e.format_message()} "
                                                                  f"(`{where} --help` lists the options)")),
                  highlight=False)
        sys.exit(2)
    except _CLICK_ERROR as e:
        err.print(Text.assemble(("error:", "bold red"), " ", inert(e.format_message())), highlight=False)
        sys.exit(getattr(e, "exit_code", 1))
    except typer.Abort:
        err.print("Aborted!", highlight=False)
        sys.exit(1)
    except UserError as e:  # the message may quote data (an id, model or paper text): shown inert, never as markup
        err.print(Text.assemble(("error:", "bold red"), " ", inert(str(e))), highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:  # a second Ctrl-C, or one outside a run: stop at once, without a traceback
        err.print("interrupted (SIGINT): stopped at once", highlight=False)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)  # as standalone click does: typer.Exit(n)'s code, else 0


def _subcommands(ctx: object) -> list[str]:
    """The (sub)command names of a click context below the program itself: ["sandbox", "serve"]."""
    names: list[str] = []
    while ctx is not None and getattr(ctx, "parent", None) is not None:
        names.insert(0, str(getattr(ctx, "info_name", "")))
        ctx = getattr(ctx, "parent", None)
    return names


# click's error classes, as the click typer uses defines them (typer >= 0.29 carries its own copy of click)
_USAGE_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
_CLICK_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
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
