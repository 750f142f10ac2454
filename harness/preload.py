"""Loads that a run will need later, done in one background thread while its episodes wait on the model.

A run's process spends most of its time waiting for model replies, yet the first web_search of every
episode used to wait for the search index and embedder (~0.7 s), and scoring at the end imported
matplotlib and pint (~1 s) after the last episode. Started as the episodes start, the same loads overlap
those waits; the results are the same objects the tools and the scorer would have loaded themselves.

A preload never decides anything: an error is dropped (the code that needs the resource loads it again
and reports the problem where it belongs), and the caller waits for the thread before scoring, so
scoring never races an import still in progress.
"""
from __future__ import annotations

import logging
import sys
import threading
from typing import Any, Callable

log = logging.getLogger(__name__)


class Preloader:
    """Runs the given loads one after another, in order, in a daemon thread (a Ctrl-C never waits for it)."""

    def __init__(self) -> None:
        self._jobs: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
        self._thread: threading.Thread | None = None

    def add(self, fn: Callable[..., Any], *args: Any) -> None:
        self._jobs.append((fn, args))

    def start(self) -> "Preloader":
        if self._jobs and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="epi-preload", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        # while this thread imports, hand the GIL back to the event loop sooner (1 ms, not 5): an episode
        # waiting to send its next request should not wait for a module body to finish executing
        interval = sys.getswitchinterval()
        sys.setswitchinterval(min(interval, 0.001))
        try:
            for fn, args in self._jobs:
                try:
                    fn(*args)
                except Exception as e:  # noqa: BLE001 - the real use of the resource reports it
                    log.debug("preload %s failed: %s: %s", getattr(fn, "__qualname__", fn), type(e).__name__, e)
        finally:
            sys.setswitchinterval(interval)

    def wait(self) -> None:
        """Block until every load has finished (or failed)."""
        if self._thread is not None:
            self._thread.join()
