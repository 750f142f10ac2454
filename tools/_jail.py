"""Run untrusted Python in a child process with limits: CPU, memory, file size, wall time, output, no network.

Layers: resource limits set by the child on itself before user code runs (they cannot be raised
again); an audit hook (PEP 578) that refuses sockets, subprocesses, ctypes, and file access outside a
fresh scratch folder plus a read-only allowlist (the Python installation); an environment stripped to
essentials; and `unshare -rn` (an empty network namespace) when the kernel allows it. Audit hooks are
not a hard security boundary on their own; together with the rlimits they keep an agent's snippet
from reaching the network, the host's files or the machine's memory.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal

LimitName = Literal["cpu", "memory", "wall", "output", "file_size"]
MEMORY_EXIT = 86  # the prelude exits with this after a MemoryError

_PRELUDE = r'''
import os, resource, sys
_code = sys.stdin.read()
_scratch, _ro, _cpu, _mem, _fsize = os.getcwd(), tuple(__RO__), __CPU__, __MEM__, __FSIZE__
for _lim, _val in ((resource.RLIMIT_CPU, (_cpu, _cpu + 1)), (resource.RLIMIT_AS, (_mem, _mem)),
                   (resource.RLIMIT_FSIZE, (_fsize, _fsize)), (resource.RLIMIT_CORE, (0, 0)),
                   (resource.RLIMIT_NOFILE, (64, 64)), (resource.RLIMIT_NPROC, (32, 32))):
    try:
        resource.setrlimit(_lim, _val)
    except (ValueError, OSError):
        pass

def _jail_hook(event, args, _real=os.path.realpath, _sep=os.sep, _scratch=_scratch, _ro=_ro):
    def inside(path, roots):
        if isinstance(path, int):
            return True  # an already-open descriptor
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        real = _real(os.path.join(_scratch, path))
        return any(real == r or real.startswith(r + _sep) for r in roots)
    if event.startswith(("socket.", "subprocess.", "os.exec", "os.spawn", "os.posix_spawn", "pty.")) \
            or event in ("os.fork", "os.forkpty", "os.system", "os.kill", "os.killpg", "os.startfile", "webbrowser.open",
                         "sys.addaudithook", "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle",
                         "ctypes.call_function", "ctypes.cdata", "ctypes.addressof", "ctypes.string_at", "ctypes.wstring_at"):
        raise PermissionError(f"jail: {event} is not allowed (no network, no subprocesses)")
    if event == "open":
        path, mode, flags = args
        if path is None:
            return
        writing = any(c in str(mode or "") for c in "wax+") or (flags or 0) & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC)
        if not inside(path, (_scratch,) if writing else (_scratch,) + _ro):
            raise PermissionError(f"jail: access to {path!r} is refused; only the scratch folder {_scratch} is usable")
    elif event in ("os.listdir", "os.scandir", "os.chdir"):
        if args and args[0] is not None and not inside(args[0], (_scratch,) + _ro):
            raise PermissionError(f"jail: listing {args[0]!r} is refused; only the scratch folder is usable")
    elif event in ("os.remove", "os.rmdir", "os.mkdir", "os.rename", "os.replace", "os.symlink", "os.link", "os.chmod",
                   "os.chown", "os.truncate", "os.utime", "shutil.rmtree", "shutil.copyfile", "shutil.move"):
        for p in args[:2]:
            if isinstance(p, (str, bytes, os.PathLike)) and not inside(os.fspath(p), (_scratch,)):
                raise PermissionError(f"jail: {event} on {p!r} is refused; only the scratch folder is writable")

import ctypes  # loads libpython's own handle (numpy needs ctypes); later foreign calls are refused
sys.addaudithook(_jail_hook)
del _jail_hook, _lim, _val
import __main__
try:
    exec(compile(_code, "<code>", "exec"), __main__.__dict__)
except MemoryError:
    sys.stderr.write("MemoryError: the memory limit was reached\n")
    sys.stderr.flush()
    os._exit(__MEMEXIT__)
'''


@dataclass
class JailLimits:
    """What one run may use."""

    cpu_seconds: int = 5
    wall_seconds: float = 10.0
    memory_mb: int = 512
    file_mb: int = 16
    max_output_chars: int = 20_000


@dataclass
class JailResult:
    """How a run ended: exit status, captured output (capped), and which limit stopped it, if any."""

    exit_code: int | None
    stdout: str
    stderr: str
    limit: LimitName | None = None
    duration_s: float = 0.0
    network_namespace: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.limit is None


def read_only_roots() -> list[str]:
    """The Python installation the child may read (stdlib, site-packages) and harmless devices."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            roots.add(p)
    out = {os.path.realpath(r) for r in roots}
    return sorted(out | {"/dev/null", "/dev/urandom"})


@lru_cache(maxsize=1)
def _unshare_prefix() -> tuple[str, ...]:
    """`unshare -rn --` if this kernel lets us make an empty network namespace, else nothing."""
    exe = shutil.which("unshare")
    if not exe:
        return ()
    try:
        ok = subprocess.run([exe, "-rn", "--", "true"], capture_output=True, timeout=3).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return (exe, "-rn", "--") if ok else ()


def _prelude(scratch: Path, limits: JailLimits) -> str:
    return (_PRELUDE.replace("__RO__", repr(read_only_roots())).replace("__CPU__", str(limits.cpu_seconds))
            .replace("__MEM__", str(limits.memory_mb * 1024 * 1024)).replace("__FSIZE__", str(limits.file_mb * 1024 * 1024))
            .replace("__MEMEXIT__", str(MEMORY_EXIT)))


def run_python(code: str, limits: JailLimits | None = None, *, scratch: Path | None = None) -> JailResult:
    """Run `code` in a fresh jail (a temporary scratch folder unless one is given) and report how it ended."""
    limits = limits or JailLimits()
    own_scratch = scratch is None
    workdir = Path(tempfile.mkdtemp(prefix="epi-jail-")) if own_scratch else Path(scratch)
    workdir = Path(os.path.realpath(workdir))
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(workdir), "TMPDIR": str(workdir),
           "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    prefix = _unshare_prefix()
    cmd = [*prefix, sys.executable, "-I", "-B", "-c", _prelude(workdir, limits)]
    cap = limits.max_output_chars
    buffers: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
    over = threading.Event()
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=workdir, env=env, start_new_session=True)

        def drain(name: str, stream) -> None:
            buf = buffers[name]
            while chunk := stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536):
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
            proc.stdin.write(code.encode("utf-8", "replace"))
            proc.stdin.close()
        except BrokenPipeError:
            pass
        timed_out = False
        try:
            proc.wait(timeout=limits.wall_seconds)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill(proc)
            proc.wait()
        for r in readers:
            r.join(2)
        stdout, stderr = (buffers[n].decode("utf-8", "replace") for n in ("stdout", "stderr"))
        limit = _which_limit(proc.returncode, stderr, timed_out, over.is_set())
        return JailResult(exit_code=proc.returncode, stdout=stdout, stderr=stderr, limit=limit,
                          duration_s=round(time.monotonic() - start, 3), network_namespace=bool(prefix))
    finally:
        if own_scratch:
            shutil.rmtree(workdir, ignore_errors=True)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _which_limit(code: int | None, stderr: str, timed_out: bool, output_over: bool) -> LimitName | None:
    if output_over:
        return "output"
    if timed_out:
        return "wall"
    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        return "cpu"
    if code == MEMORY_EXIT or "MemoryError" in stderr[-2000:]:
        return "memory"
    if code == -signal.SIGXFSZ or "File too large" in stderr[-2000:]:
        return "file_size"
    return None
