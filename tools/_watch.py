"""Noticing tools run and worlds built outside the harness's tool session.

The tool session (harness.session) is the only way from an agent to a tool. An in-process agent is the
user's own Python code, though: it can import `tools`, build a world and run a tool itself, with no budget,
no trace and no memory-only rule. This module cannot stop that (nothing inside one process can), but it
lets the harness notice it: while the harness runs an agent's episode it sets a watcher; a tool run or a
world built in that context, other than by the session itself, is reported to the watcher, which writes it
to the trace. Code that leaves the context (a thread started by hand, another process) is not seen: the
boundary for agents that are not trusted is a separate process (SECURITY.md).
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Callable, Iterator

Watcher = Callable[[str, str], None]  # (what: "tool" | "world", name)

_WATCHER: ContextVar[Watcher | None] = ContextVar("epi_agent_watcher", default=None)
_IN_SESSION: ContextVar[bool] = ContextVar("epi_in_tool_session", default=False)


def watch(watcher: Watcher | None) -> Token[Watcher | None]:
    """Report tools and worlds used in this context from now on (reset with `unwatch`)."""
    return _WATCHER.set(watcher)


def unwatch(token: Token[Watcher | None]) -> None:
    _WATCHER.reset(token)


@contextmanager
def session_call() -> Iterator[None]:
    """The tool session runs a tool: nothing inside is reported."""
    token = _IN_SESSION.set(True)
    try:
        yield
    finally:
        _IN_SESSION.reset(token)


def note(what: str, name: str) -> None:
    """A tool is about to run or a world is being built: tell the watcher unless the session does it."""
    watcher = _WATCHER.get()
    if watcher is not None and not _IN_SESSION.get():
        watcher(what, name)
