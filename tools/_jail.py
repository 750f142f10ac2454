"""Run untrusted Python in an OS sandbox with limits: CPU, memory, processes, disk, wall time, output.

Two layers. The first is a bubblewrap sandbox (`_jail_box`): new namespaces, only the Python
installation and a copy of numpy visible (read-only), a size-limited tmpfs as the working folder,
an unprivileged uid, a seccomp filter (`_jail_seccomp`), and a control group (`_jail_cgroup`)
capping total memory and processes. The second is the prelude (`_jail_prelude`): per-process rlimits, and
a PEP 578 audit hook that refuses sockets, subprocesses and files outside the scratch folder with a
readable message (a convenience for honest mistakes, not a boundary: the snippet can switch it off).
Where the sandbox cannot start, nothing runs: `JailUnavailable` says what to install (no silent
weaker jail). `_jail_session` keeps one such jail for many requests (smol-code's episodes).
"""
from __future__ import annotations

import os
import platform
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from . import _jail_box as box
from . import _jail_cgroup as cgroup
from . import _jail_seccomp as seccomp
from ._jail_box import JailUnavailable
from ._jail_prelude import BAD_SOURCE_EXIT, MEMORY_EXIT, render

LimitName = Literal["cpu", "memory", "wall", "output", "file_size"]
_MB = 1024 * 1024
_SIGNAL_BASE = 128  # bubblewrap reports a child killed by signal N as exit status 128 + N
ALLOW_NO_CGROUP = "EPI_JAIL_ALLOW_NO_CGROUP"
NO_CGROUP_TEXT = (
    "code_exec cannot create a control group here (cgroup v1 memory+pids, or a delegated cgroup v2 folder), so the "
    "jail's total memory would be capped only per process ({procs} processes x {mem} MB). Run the harness where it "
    "can write its cgroup (as root on a Linux host or VM), or set " + ALLOW_NO_CGROUP + "=1 to accept per-process caps"
)


@dataclass
class JailLimits:
    """What one run may use. Memory is per process (rlimit) and, with a control group, for the whole run."""

    cpu_seconds: int = 5
    wall_seconds: float = 10.0
    memory_mb: int = 512
    file_mb: int = 16
    scratch_mb: int = 64
    max_processes: int = 16
    max_output_chars: int = 20_000


@dataclass
class JailResult:
    """How a run ended: exit status, captured output (capped), and which limit stopped it, if any."""

    exit_code: int | None
    stdout: str
    stderr: str
    limit: LimitName | None = None
    duration_s: float = 0.0
    cgroup: bool = False
    peak_memory_mb: float | None = None
    host_uid: int | None = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.limit is None


@dataclass(frozen=True)
class JailStatus:
    """What the preflight found: the sandbox works, and which caps hold the whole process tree."""

    bwrap: str
    runs_as: str
    total_caps: str
    seccomp: str

    def summary(self) -> str:
        return f"code_exec jail: {self.bwrap}; code runs as {self.runs_as}; {self.total_caps}; {self.seccomp}"


def run_python(code: str, limits: JailLimits | None = None, *, audit_hook: bool = True) -> JailResult:
    """Run `code` in a fresh jail and report how it ended. Raises JailUnavailable if the sandbox cannot run.

    `audit_hook=False` leaves out the second layer; tests use it to show the OS sandbox holds alone.
    """
    limits = limits or JailLimits()
    p = box.plan()
    prelude = render(read_only=p.python_roots(), site=box.SITE if p.site else None, cpu_s=limits.cpu_seconds,
                     memory_bytes=limits.memory_mb * _MB, file_bytes=limits.file_mb * _MB,
                     max_processes=limits.max_processes, audit_hook=audit_hook)
    filter_fd = seccomp.program_fd()
    cmd = box.command(p, prelude, scratch_bytes=limits.scratch_mb * _MB, seccomp_fd=filter_fd)
    # the group counts the sandbox's own three processes (bwrap, its init, the snippet) besides the snippet's children
    group = cgroup.create(limits.memory_mb * _MB, limits.max_processes + 3)
    if group is not None:
        cmd = box.cgroup_wrapper([str(f) for f in group.procs_files]) + cmd
    elif not os.environ.get(ALLOW_NO_CGROUP):
        raise JailUnavailable(NO_CGROUP_TEXT.format(procs=limits.max_processes, mem=limits.memory_mb))
    try:
        result = _supervise(cmd, code.encode("utf-8", "surrogateescape"), limits, filter_fd)
        if group is not None:
            result.cgroup = True
            peak = group.peak_bytes()
            result.peak_memory_mb = round(peak / _MB, 1) if peak is not None else None
            if group.oom_kills() and result.limit in (None, "cpu"):
                result.limit = "memory"
    finally:
        if filter_fd is not None:
            os.close(filter_fd)
        if group is not None:
            group.remove()
    result.host_uid = box.host_uid_of(cmd)
    if result.exit_code == 125 and group is not None and "epi-jail: cannot join" in result.stderr:
        raise JailUnavailable(f"code_exec could not join its control group: {result.stderr.strip()[:300]}")
    if result.exit_code == 1 and not result.stdout and result.stderr.startswith(("bwrap: ", "setpriv: ")):
        raise JailUnavailable(f"code_exec's sandbox did not start: {result.stderr.strip()[:400]}; {box.install_hint()}; "
                              "bubblewrap needs root or unprivileged user namespaces")
    return result


def _supervise(cmd: list[str], source: bytes, limits: JailLimits, filter_fd: int | None) -> JailResult:
    """Start the sandbox, feed the code on stdin, drain output under the cap, kill it all at the wall limit."""
    cap = limits.max_output_chars
    buffers: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
    over = threading.Event()
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, start_new_session=True,
                                pass_fds=() if filter_fd is None else (filter_fd,))
    except OSError as e:
        raise JailUnavailable(f"code_exec could not start bubblewrap: {e}; {box.install_hint()}") from None

    def drain(name: str, stream) -> None:
        buf = buffers[name]
        while chunk := stream.read1(65536):
            room = cap - len(buf)
            if room > 0:
                buf += chunk[:room]
            if len(chunk) > room:
                over.set()
                _kill(proc)
        stream.close()

    readers = [threading.Thread(target=drain, args=(n, s), daemon=True)
               for n, s in (("stdout", proc.stdout), ("stderr", proc.stderr))]
    for r in readers:
        r.start()
    try:
        proc.stdin.write(source)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    timed_out = threading.Event()

    def at_wall_limit() -> None:
        timed_out.set()
        _kill(proc)

    # a timer rather than wait(timeout=...), which polls in 50 ms steps and would add that to every run
    timer = threading.Timer(limits.wall_seconds, at_wall_limit)
    timer.start()
    try:
        proc.wait()
    finally:
        timer.cancel()
    for r in readers:
        r.join(2)
    stdout, stderr = (buffers[n].decode("utf-8", "replace") for n in ("stdout", "stderr"))
    code = proc.returncode
    limit = _which_limit(code, stderr, timed_out.is_set(), over.is_set())
    return JailResult(exit_code=code, stdout=stdout, stderr=stderr, limit=limit,
                      duration_s=round(time.monotonic() - start, 3))


def _kill(proc: subprocess.Popen) -> None:
    """Kill the sandbox's outer process; --die-with-parent then takes its PID namespace, and all in it, down."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _signal_of(code: int | None) -> int | None:
    if code is None:
        return None
    if code < 0:
        return -code
    if code > _SIGNAL_BASE:
        return code - _SIGNAL_BASE
    return None


def _which_limit(code: int | None, stderr: str, timed_out: bool, output_over: bool) -> LimitName | None:
    if output_over:
        return "output"
    if timed_out:
        return "wall"
    sig = _signal_of(code)
    if sig in (signal.SIGXCPU, signal.SIGKILL):
        return "cpu"
    if code == MEMORY_EXIT or "MemoryError" in stderr[-2000:]:
        return "memory"
    if sig == signal.SIGXFSZ or "File too large" in stderr[-2000:]:
        return "file_size"
    return None


_PROBE = "import os, resource\nprint('jail-ok', os.getuid(), resource.getrlimit(resource.RLIMIT_NPROC)[0], os.getcwd())"


@lru_cache(maxsize=1)
def check_jail() -> JailStatus:
    """Start the real sandbox once and check it from the inside; raise JailUnavailable saying why not.

    The run's preflight calls this before the first episode, so a machine without a working sandbox
    fails at the start of a run, never in its middle.
    """
    p = box.plan()
    limits = JailLimits(cpu_seconds=5, wall_seconds=20)
    r = run_python(_PROBE, limits)
    words = r.stdout.split()
    if not r.ok or len(words) < 4 or words[0] != "jail-ok":
        detail = (r.stderr or r.stdout).strip().splitlines()[-3:]
        raise JailUnavailable(f"code_exec's sandbox did not start (exit status {r.exit_code}: {' '.join(detail)[:400]}); "
                              f"{box.install_hint()}; bubblewrap needs root or unprivileged user namespaces")
    if words[3] != box.SCRATCH or int(words[2]) != limits.max_processes:
        raise JailUnavailable(f"code_exec's sandbox started without its limits ({r.stdout.strip()})")
    if r.host_uid is None and os.geteuid() == 0:
        raise JailUnavailable("code_exec would run jailed code as root; it refuses (process caps do not hold for root)")
    who = f"host uid {r.host_uid} (fresh, unprivileged)" if r.host_uid else f"the caller's uid {os.geteuid()} in a user namespace"
    filt = "seccomp filter on" if seccomp.program() else f"no seccomp filter for {platform.machine()}"
    return JailStatus(bwrap=box.bwrap_version(p), runs_as=who, total_caps=cgroup.describe(), seccomp=filt)


def jail_unavailable_reason() -> str | None:
    """None if code_exec can run here; otherwise a message that says what to install."""
    try:
        check_jail()
    except JailUnavailable as e:
        return str(e)
    return None


__all__ = ["JailLimits", "JailResult", "JailStatus", "JailUnavailable", "LimitName", "check_jail",
           "jail_unavailable_reason", "run_python", "BAD_SOURCE_EXIT"]
