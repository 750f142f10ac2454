"""SIGINT and SIGTERM during a run: the first one stops the run cleanly, a second one stops it at once.

The first signal cancels the run's task: episodes in progress are abandoned (their unfinished traces
removed; resume runs them again), finished traces stay, the run's lock is given back, and the command
prints how many episodes are done and the exact command that resumes the run. A second signal while
that happens acts as usual (KeyboardInterrupt, or termination). A signal the process inherited as
ignored stays ignored: `epi run ... &` in a script ignores SIGINT, as Unix background jobs do.
"""
from __future__ import annotations

import asyncio
import os
import signal
import threading
from dataclasses import dataclass, field
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass
class InterruptedRun:
    """One run of an interrupted grid: how far it got and how to take it up again."""

    run_id: str
    done: int
    total: int
    settings: Any  # RunSettings


class RunInterrupted(Exception):
    """A run stopped by SIGINT or SIGTERM; the traces of finished episodes are kept."""

    def __init__(self, signum: int, runs: list[InterruptedRun]):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.runs = runs

    @property
    def exit_code(self) -> int:
        return 128 + self.signum  # the shell's convention: 130 for SIGINT, 143 for SIGTERM


@dataclass
class StopSignals:
    """Installs the handlers on the running loop (main thread only) and says which signal came."""

    task: asyncio.Task[Any] | None
    signum: int | None = None
    _installed: list[tuple[int, Any]] = field(default_factory=list)

    def install(self) -> "StopSignals":
        if self.task is None or threading.current_thread() is not threading.main_thread():
            return self
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            previous = signal.getsignal(sig)
            if previous == signal.SIG_IGN:
                continue
            loop.add_signal_handler(sig, self._caught, sig)
            self._installed.append((sig, previous))
        return self

    def _caught(self, sig: int) -> None:
        if self.signum is None:
            self.signum = sig
            assert self.task is not None
            self.task.cancel()
            return
        self.remove()  # a second signal: stop at once
        if sig == signal.SIGINT:
            raise KeyboardInterrupt
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)

    def remove(self) -> None:
        if not self._installed:
            return
        loop = asyncio.get_running_loop()
        for sig, previous in self._installed:
            loop.remove_signal_handler(sig)
            signal.signal(sig, previous if previous is not None else signal.SIG_DFL)
        self._installed = []
