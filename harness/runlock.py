"""One owner per run: `run.lock` in the run folder names the process that writes the run.

The process that runs, resumes or retries a run (the driver) takes the lock before it writes anything
and gives it back when it is done; a second writer is refused with one line. Ray workers write traces
into the run folder for the driver and never take the lock.

The lock file holds the owner's pid, host name, boot id, start time and a random token. Who may take
it over:
- held by a live process on this host: nobody (stop that process first);
- held by a dead process on this host (a crash, a SIGKILL): the next writer takes it over, atomically;
- held on another host (or on this one before a reboot): its pid cannot be checked from here, so only
  an explicit `--break-lock` takes it.
Taking and giving back happen under an exclusive `flock` of the run folder, so two processes that both
find a stale lock cannot both take it; the lock file itself is replaced atomically (never half written).
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Literal

from pydantic import BaseModel, Field, ValidationError

LOCK_NAME = "run.lock"
LockState = Literal["live", "stale", "foreign"]
_HELD: set[str] = set()  # tokens of the locks this process holds


class RunLockInfo(BaseModel):
    """What `run.lock` says about the process that owns the run."""

    pid: int
    host: str
    boot_id: str | None = Field(default=None, description="the kernel's boot id: another boot means another pid space")
    pid_start: int | None = Field(default=None, description="the process start time (clock ticks after boot): "
                                                            "a reused pid has another")
    started: str = Field(description="ISO-8601 UTC time the lock was taken")
    command: str = Field(default="epi run", description="what holds the run: epi run, epi retry, ...")
    token: str = Field(description="random: tells this acquisition from any other")

    def describe(self) -> str:
        return f"pid {self.pid} on host {self.host} ({self.command}, since {self.started})"


class RunLocked(Exception):
    """Another process owns the run; the message says which and what to do."""


def _boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip() or None
    except OSError:
        return None


def _pid_start(pid: int) -> int | None:
    """The start time of process `pid` in clock ticks after boot (field 22 of /proc/<pid>/stat)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    try:  # the command name (field 2) may hold spaces and parentheses: split after its closing one
        return int(stat[stat.rindex(")") + 2:].split()[19])
    except (ValueError, IndexError):
        return None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def this_host() -> str:
    return socket.gethostname()


def lock_state(info: RunLockInfo) -> LockState:
    """live: its process runs on this host; stale: it is dead; foreign: it cannot be checked from here."""
    if info.host != this_host() or (info.boot_id and _boot_id() and info.boot_id != _boot_id()):
        return "foreign"
    if info.pid <= 0:
        return "stale"  # an unreadable lock file: no process to wait for
    if info.pid == os.getpid():
        return "live" if info.token in _HELD else "stale"  # this process, but not a lock it still holds
    if not _pid_alive(info.pid):
        return "stale"
    if info.pid_start is not None and (now := _pid_start(info.pid)) is not None and now != info.pid_start:
        return "stale"  # the pid was reused by another process
    return "live"


def read_lock(run_path: Path) -> RunLockInfo | None:
    """The lock of a run folder, None when there is none (an unreadable lock file reads as a dead owner)."""
    path = Path(run_path) / LOCK_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as e:
        return RunLockInfo(pid=0, host=this_host(), started="?", command=f"unreadable lock ({e.strerror})", token="?")
    try:
        return RunLockInfo.model_validate_json(text)
    except ValidationError:
        return RunLockInfo(pid=0, host=this_host(), started="?", command="an unreadable lock file", token="?")


def refusal(run_id: str, info: RunLockInfo, state: LockState) -> str:
    """The one line a refused writer prints."""
    if state == "live":
        return (f"run {run_id!r} is being written by {info.describe()}; wait for it to finish or stop it "
                f"(kill {info.pid}), then try again")
    return (f"run {run_id!r} is locked by {info.describe()}, which cannot be checked from this host; if no "
            "process writes this run any more, pass --break-lock")


def check_free(run_path: Path, *, break_lock: bool = False) -> None:
    """Raise RunLocked when a live (or, without break_lock, an unverifiable) owner holds the run."""
    info = read_lock(run_path)
    if info is None:
        return
    state = lock_state(info)
    if state == "live" or (state == "foreign" and not break_lock):
        raise RunLocked(refusal(Path(run_path).name, info, state))


@contextlib.contextmanager
def _folder_guard(run_path: Path) -> Iterator[None]:
    """An exclusive flock of the run folder while a lock is checked and written (best effort where the
    file system has no flock: the token check after writing still catches a lost race)."""
    fd = os.open(run_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            pass
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def _write(path: Path, info: RunLockInfo, replace: bool) -> None:
    tmp = path.with_name(f".{path.name}.{info.token}")
    with tmp.open("w", encoding="utf-8") as f:
        f.write(info.model_dump_json() + "\n")
        f.flush()
        os.fsync(f.fileno())
    try:
        if replace:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails if a lock appeared meanwhile: never overwrites another's
    finally:
        tmp.unlink(missing_ok=True)


@dataclass
class RunLock:
    """The lock this process holds on one run folder; `release()` gives it back (only if still ours)."""

    run_path: Path
    info: RunLockInfo
    took_over: RunLockInfo | None = None  # the stale or broken lock this one replaced
    took_over_state: LockState | None = None

    @classmethod
    def acquire(cls, run_path: Path | str, *, command: str = "epi run", break_lock: bool = False) -> "RunLock":
        """Take the run's lock or raise RunLocked. The folder must exist; nothing else is written."""
        run_path = Path(run_path)
        pid = os.getpid()
        info = RunLockInfo(pid=pid, host=this_host(), boot_id=_boot_id(), pid_start=_pid_start(pid),
                           started=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                           command=command, token=secrets.token_hex(8))
        path = run_path / LOCK_NAME
        with _folder_guard(run_path):
            old, state = read_lock(run_path), None
            if old is not None:
                state = lock_state(old)
                if state == "live" or (state == "foreign" and not break_lock):
                    raise RunLocked(refusal(run_path.name, old, state))
            try:
                _write(path, info, replace=old is not None)
            except FileExistsError:
                raise RunLocked(f"run {run_path.name!r} was locked by another process just now; try again") from None
            if (now := read_lock(run_path)) is None or now.token != info.token:
                raise RunLocked(f"run {run_path.name!r} was taken by another process just now "
                                f"({now.describe() if now else 'no lock left'}); try again")
        _HELD.add(info.token)
        return cls(run_path, info, took_over=old, took_over_state=state)

    def release(self) -> None:
        """Remove the lock file if it is still this one (a --break-lock elsewhere may have replaced it)."""
        _HELD.discard(self.info.token)
        if not self.run_path.is_dir():
            return
        with _folder_guard(self.run_path):
            now = read_lock(self.run_path)
            if now is not None and now.token == self.info.token:
                (self.run_path / LOCK_NAME).unlink(missing_ok=True)

    def note(self) -> str | None:
        """One line about the lock this one replaced, for the terminal."""
        if self.took_over is None:
            return None
        how = "no longer running" if self.took_over_state == "stale" else "broken with --break-lock"
        return f"took over the lock of {self.took_over.describe()} ({how})"
