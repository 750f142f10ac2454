"""Long-lived agent programs (`--agent-long-lived`) waiting for their next episode, per run.

A program that takes episodes one after another is handed back here at the end of each episode it finished
cleanly, and taken by the next episode of the same run (the same run settings' agent config); with
`--concurrency N` there are at most N of them. The runner closes what is left when the run ends. Light on
imports: the runner calls `close_all` after every run.
"""
from __future__ import annotations

from typing import Any

_IDLE: dict[int, tuple[Any, list[Any]]] = {}  # id(agent config) -> (the config, kept alive so the id stays its own;
#                                               the programs waiting)


def take(config: Any) -> Any | None:
    """A waiting program of this run, or None."""
    entry = _IDLE.get(id(config))
    if entry is None or entry[0] is not config or not entry[1]:
        return None
    return entry[1].pop()


def give(config: Any, program: Any) -> None:
    entry = _IDLE.get(id(config))
    if entry is None or entry[0] is not config:
        entry = _IDLE[id(config)] = (config, [])
    entry[1].append(program)


async def close_all() -> None:
    """Stop every waiting program (the run is over)."""
    entries = list(_IDLE.values())
    _IDLE.clear()
    for _, programs in entries:
        for p in programs:
            try:
                await p.close()
            except Exception:  # one program's cleanup failing must not keep the others running
                pass
