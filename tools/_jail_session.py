"""A long-lived jail: one jailed interpreter that a caller talks to in JSON frames over a pipe.

`run_python` starts a jail per snippet. An agent that runs the model's code step after step in one
Python session (smol-code) needs the same jail kept for the whole episode, its variables living on
between steps, and a way for the code to call back to the caller (the tools run in the harness).
A `JailSession` is that: the same box, seccomp filter, control group and prelude as `run_python`,
running a program of the caller's that reads requests on stdin and writes replies on stdout, each a
frame (4-byte big-endian length, then UTF-8 JSON). While the program works on a request it may
write `{"op": "call", ...}` frames; the session hands each to the caller's `serve` and writes its
answer back, and the clock of the request stops meanwhile.

Limits are kept from outside the interpreter: a watchdog thread of the harness ends a request that
uses more than its wall-clock or CPU allowance (CPU read from /proc for the jail's processes) by
killing the whole jail; the control group caps the jail's memory and processes, and the prelude's
rlimits cap each process. A killed jail raises `JailStopped` naming the limit, and the next request
starts a fresh one (its state is gone: the caller says so). A spare is started at once, so the
restart costs little by the time it is needed.
"""
from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Literal

from . import _jail_box as box
from . import _jail_cgroup as cgroup
from . import _jail_seccomp as seccomp
from ._jail import ALLOW_NO_CGROUP, NO_CGROUP_TEXT
from ._jail_box import JailUnavailable
from ._jail_prelude import render

StopReason = Literal["wall", "cpu", "memory", "died", "protocol"]
Serve = Callable[[dict[str, Any]], dict[str, Any]]
_MB = 1024 * 1024
_HEADER = struct.Struct(">I")
FRAME_MAX = 8 * _MB  # a frame from the jail larger than this is a protocol violation: the jail is killed
_STDERR_KEEP = 8000
_TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class SessionLimits:
    """What one request may use (wall and CPU), and what the whole jail may hold (memory, processes, disk)."""

    wall_seconds: float = 20.0
    cpu_seconds: float = 20.0
    memory_mb: int = 1024
    lifetime_cpu_seconds: int = 900  # per process over the jail's life (rlimit): a backstop the kernel keeps
    file_mb: int = 16
    scratch_mb: int = 64
    max_processes: int = 8
    start_seconds: float = 60.0  # for the program to say it is ready


class JailStopped(Exception):
    """The jail was killed (or died) during a request; the next request runs in a fresh one."""

    def __init__(self, reason: StopReason, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason, self.detail = reason, detail


def _encode(msg: dict[str, Any]) -> bytes:
    body = json.dumps(msg, ensure_ascii=False).encode("utf-8")
    return _HEADER.pack(len(body)) + body


class _Jail:
    """One running jail process: its pipes, control group and captured stderr.

    bubblewrap's --die-with-parent follows the thread that started it: a jail started from a thread that
    then exits is killed with it (the next request reports the jail as gone and starts another). The
    harness starts jails from its event loop's thread and its executor's workers, which live as long as it."""

    def __init__(self, program: str, limits: SessionLimits, sites: tuple[str, ...], audit_hook: bool):
        p = box.plan()
        inside = tuple(box.site_path(i) for i in range(len(sites)))
        prelude = render(read_only=p.python_roots(), site=box.SITE if p.site else None,
                         cpu_s=limits.lifetime_cpu_seconds, memory_bytes=limits.memory_mb * _MB,
                         file_bytes=limits.file_mb * _MB, max_processes=limits.max_processes,
                         audit_hook=audit_hook, sites=inside, framed=True)
        filter_fd = seccomp.program_fd()
        cmd = box.command(p, prelude, scratch_bytes=limits.scratch_mb * _MB, seccomp_fd=filter_fd, sites=sites)
        self.group = cgroup.create(limits.memory_mb * _MB, limits.max_processes + 3)
        if self.group is not None:
            cmd = box.cgroup_wrapper([str(f) for f in self.group.procs_files]) + cmd
        elif not os.environ.get(ALLOW_NO_CGROUP):
            if filter_fd is not None:
                os.close(filter_fd)
            raise JailUnavailable(NO_CGROUP_TEXT.format(procs=limits.max_processes, mem=limits.memory_mb))
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, start_new_session=True,
                                         pass_fds=() if filter_fd is None else (filter_fd,), bufsize=0)
        except OSError as e:
            if self.group is not None:
                self.group.remove()
            raise JailUnavailable(f"the jail could not start bubblewrap: {e}; {box.install_hint()}") from None
        finally:
            if filter_fd is not None:
                os.close(filter_fd)
        self.stderr = bytearray()
        self.killed_for: StopReason | None = None
        self.ready = False
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        source = program.encode("utf-8")
        self._write_all(f"{len(source)}\n".encode() + source)

    def _drain_stderr(self) -> None:
        while chunk := self.proc.stderr.read(65536):
            self.stderr += chunk[: max(0, _STDERR_KEEP - len(self.stderr))]

    def write(self, msg: dict[str, Any]) -> bool:
        return self._write_all(_encode(msg))

    def _write_all(self, data: bytes) -> bool:
        try:
            while data:
                data = data[self.proc.stdin.write(data) or 0:]
            return True
        except OSError:  # BrokenPipeError included: the jail is gone
            return False

    def _read_exact(self, n: int) -> bytes | None:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.proc.stdout.read(n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return bytes(buf)

    def read(self) -> dict[str, Any] | None:
        """The next frame, or None when the jail is gone or broke the protocol (then it is killed)."""
        head = self._read_exact(_HEADER.size)
        if head is None:
            return None
        (n,) = _HEADER.unpack(head)
        if n > FRAME_MAX:
            self.kill("protocol")
            return None
        body = self._read_exact(n)
        if body is None:
            return None
        try:
            msg = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            msg = None
        if not isinstance(msg, dict):
            self.kill("protocol")
            return None
        return msg

    def pids(self) -> list[int]:
        """The jail's processes as the host numbers them (its control group, else bubblewrap's descendants)."""
        if self.group is not None:
            try:
                return [int(x) for x in self.group.procs_files[0].read_text().split()]
            except (OSError, ValueError):
                return []
        out, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            out.append(pid)
            try:
                todo += [int(c) for c in open(f"/proc/{pid}/task/{pid}/children").read().split()]
            except OSError:
                pass
        return out

    def cpu_seconds(self) -> float:
        """CPU time used so far by the jail's processes (and the children they reaped)."""
        total = 0
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                total += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
            except (OSError, IndexError, ValueError):
                pass
        return total / _TICK

    def kill(self, reason: StopReason | None = None) -> None:
        if reason is not None and self.killed_for is None:
            self.killed_for = reason
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.group is not None:
            self.group.kill_all()

    def why_stopped(self) -> JailStopped:
        """After the jail went away: which limit (or what else) ended it."""
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.kill()
            self.proc.wait()
        reason = self.killed_for
        if reason is None and self.group is not None and self.group.oom_kills():
            reason = "memory"
        code = self.proc.returncode
        sig = -code if code < 0 else (code - 128 if code > 128 else 0)
        if reason is None and sig == signal.SIGXCPU:
            return JailStopped("cpu", "lifetime")  # the per-process rlimit over the jail's whole life
        tail = self.stderr.decode("utf-8", "replace").strip()[-600:]
        return JailStopped(reason or "died", f"exit status {code}" + (f": {tail}" if tail and not reason else ""))

    def close(self) -> None:
        self.kill()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        if self.group is not None:
            self.group.remove()
            self.group = None


class _Watchdog:
    """A thread that kills the jail when the request running in it passes its wall-clock or CPU allowance."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._jail: _Jail | None = None
        self._wall_end = 0.0
        self._cpu_end = 0.0
        self._closed = False
        threading.Thread(target=self._loop, daemon=True, name="jail-watchdog").start()

    def arm(self, jail: _Jail, wall_left: float, cpu_end: float) -> None:
        with self._cond:
            self._jail, self._wall_end, self._cpu_end = jail, time.monotonic() + wall_left, cpu_end
            self._cond.notify()

    def disarm(self) -> None:
        with self._cond:
            self._jail = None

    def close(self) -> None:
        with self._cond:
            self._closed, self._jail = True, None
            self._cond.notify()

    def _loop(self) -> None:
        ncpu = os.cpu_count() or 1
        with self._cond:
            while not self._closed:
                jail = self._jail
                if jail is None:
                    self._cond.wait()
                    continue
                now = time.monotonic()
                if now >= self._wall_end:
                    jail.kill("wall")
                    self._jail = None
                    continue
                used = jail.cpu_seconds()
                if used >= self._cpu_end:
                    jail.kill("cpu")
                    self._jail = None
                    continue
                # CPU grows at most `ncpu` seconds per second: the earliest the CPU allowance can run out
                self._cond.wait(min(self._wall_end - now, max(0.05, (self._cpu_end - used) / ncpu)))


class JailSession:
    """A jailed interpreter kept across requests; see the module docstring for the protocol."""

    def __init__(self, program: str, limits: SessionLimits | None = None, *, sites: tuple[str, ...] = (),
                 audit_hook: bool = True):
        self.program, self.limits, self.sites, self.audit_hook = program, limits or SessionLimits(), sites, audit_hook
        self.starts = 0
        self._jail: _Jail | None = None
        self._lock = threading.Lock()
        self._watch = _Watchdog()
        self._closed = False
        self.start()

    def start(self) -> None:
        """Start the jail if none is running (it gets ready in the background)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the jail session is closed")
            if self._jail is None:
                self._jail = _Jail(self.program, self.limits, self.sites, self.audit_hook)
                self.starts += 1

    def _ready(self, jail: _Jail) -> None:
        if jail.ready:
            return
        timer = threading.Timer(self.limits.start_seconds, jail.kill, args=("wall",))
        timer.start()
        try:
            msg = jail.read()
        finally:
            timer.cancel()
        if msg is None or msg.get("op") != "ready":
            why = jail.why_stopped() if msg is None else None
            detail = (msg or {}).get("error") or (why.detail if why else "") or "no reason given"
            self._drop(jail)
            raise JailUnavailable(f"the jail's program did not start: {str(detail)[:800]}")
        jail.ready = True

    def _drop(self, jail: _Jail) -> None:
        with self._lock:
            if self._jail is jail:
                self._jail = None
        jail.close()

    def request(self, msg: dict[str, Any], serve: Serve) -> dict[str, Any]:
        """Send one request and return the program's reply, serving its calls meanwhile.

        Raises JailStopped if a limit (or anything else) ended the jail; a fresh one is already starting."""
        self.start()
        jail = self._jail
        assert jail is not None
        self._ready(jail)
        wall_left = self.limits.wall_seconds
        cpu_end = jail.cpu_seconds() + self.limits.cpu_seconds
        if not jail.write(msg):
            return self._stopped(jail)
        while True:
            self._watch.arm(jail, wall_left, cpu_end)
            t0 = time.monotonic()
            reply = jail.read()
            self._watch.disarm()
            wall_left -= time.monotonic() - t0
            if reply is None or jail.killed_for is not None:
                return self._stopped(jail)
            if reply.get("op") != "call":
                return reply
            answer = serve(reply)  # the harness's side: its time is not the code's
            if not jail.write(answer):
                return self._stopped(jail)

    def _stopped(self, jail: _Jail) -> dict[str, Any]:
        jail.kill()
        stopped = jail.why_stopped()
        self._drop(jail)
        if not self._closed:
            try:
                self.start()  # a spare, so the next request finds it (nearly) ready
            except JailUnavailable:
                pass  # the next request says so
        raise stopped

    def close(self) -> None:
        """End the jail and its watchdog; nothing of it outlives this."""
        with self._lock:
            self._closed = True
            jail, self._jail = self._jail, None
        self._watch.close()
        if jail is not None:
            jail.close()


__all__ = ["FRAME_MAX", "JailSession", "JailStopped", "SessionLimits", "StopReason"]
