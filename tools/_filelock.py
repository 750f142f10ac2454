"""One process at a time: an exclusive POSIX lock on a file beside what is being built, so that processes
sharing a cache (runs side by side, Ray workers on one machine) build each entry once and the others wait
for it and read it. Where there are no POSIX locks (Windows) it is a no-op: concurrent builds then only
repeat work."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


def flock_exclusive(f: IO) -> None:
    """Block until this process holds an exclusive lock on the open file `f` (released when it is closed)."""
    try:
        import fcntl
    except ImportError:
        return
    fcntl.flock(f.fileno(), fcntl.LOCK_EX)  # type: ignore[attr-defined]


@contextmanager
def exclusive(lock_path: Path) -> Iterator[None]:
    """Hold the lock file `lock_path` (created if missing) for the duration of the block; where it cannot be
    created (a read-only cache), the block runs unlocked and what it does with the cache decides."""
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        f = lock_path.open("a")
    except OSError:
        yield
        return
    with f:
        flock_exclusive(f)
        yield
