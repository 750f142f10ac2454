"""The Python that runs first inside the jail, before the snippet: limits, then the audit hook.

The rlimits it sets (CPU, address space, file size, open files, processes) are enforced by the
kernel and cannot be raised by the snippet. The PEP 578 audit hook that follows is a convenience,
not a boundary: it gives an honest mistake (opening a file outside the scratch folder, a socket, a
subprocess, ctypes) a readable refusal, but it lives in the snippet's own interpreter, so the
snippet can switch it off (reach the hook function through `gc` and swap its `__code__`), go
around it (`_posixsubprocess.fork_exec` raises no event) or race its path check (swap a symlink
between the check and the open). What the jail promises rests on the OS sandbox (`_jail_box`) alone,
and the attack tests run every attack with the hook off.
"""
from __future__ import annotations

MEMORY_EXIT = 86  # the prelude exits with this after a MemoryError
BAD_SOURCE_EXIT = 87  # the code is not UTF-8 (the tool refuses such code before it gets here)

_PRELUDE = r'''
import os, resource, sys
_raw = __READ__
_scratch, _ro, _sites = os.getcwd(), tuple(__RO__), __SITES__
for _lim, _val in ((resource.RLIMIT_CPU, (__CPU__, __CPU__ + 1)), (resource.RLIMIT_AS, (__MEM__, __MEM__)),
                   (resource.RLIMIT_FSIZE, (__FSIZE__, __FSIZE__)), (resource.RLIMIT_CORE, (0, 0)),
                   (resource.RLIMIT_NOFILE, (64, 64)), (resource.RLIMIT_NPROC, (__NPROC__, __NPROC__))):
    resource.setrlimit(_lim, _val)  # a limit that cannot be set stops the run (no weaker jail)
sys.path.extend(_sites)
try:
    _code = _raw.decode("utf-8")
except UnicodeDecodeError as _e:
    sys.stderr.write(f"jail: the code is not UTF-8 ({_e})\n")
    os._exit(__BADSRC__)

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
        if not inside(path, (_scratch, "/dev/null") if writing else (_scratch,) + _ro):
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
if __HOOK__:
    sys.addaudithook(_jail_hook)
del _jail_hook, _lim, _val, _raw
import __main__
try:
    exec(compile(_code, "<code>", "exec"), __main__.__dict__)
except MemoryError:
    sys.stderr.write("MemoryError: the memory limit was reached\n")
    sys.stderr.flush()
    os._exit(__MEMEXIT__)
'''


def render(*, read_only: list[str], site: str | None, cpu_s: int, memory_bytes: int, file_bytes: int,
           max_processes: int, audit_hook: bool = True, sites: tuple[str, ...] = (), framed: bool = False) -> str:
    """The prelude with this run's limits filled in. `audit_hook=False` is for tests of the OS layer alone.

    `sites` are further package folders (inside paths) put on sys.path and made readable. `framed`: the
    program arrives as a line with its length in bytes and then the bytes, and stdin stays open after it
    (a long-lived program that talks over stdin and stdout); otherwise the program is all of stdin."""
    paths = ([site] if site else []) + list(sites)
    read = "sys.stdin.buffer.read(int(sys.stdin.buffer.readline()))" if framed else "sys.stdin.buffer.read()"
    values = {"__READ__": read, "__RO__": repr(list(read_only) + list(sites)), "__SITES__": repr(paths),
              "__CPU__": str(cpu_s), "__MEM__": str(memory_bytes),
              "__FSIZE__": str(file_bytes), "__NPROC__": str(max_processes), "__HOOK__": repr(bool(audit_hook)),
              "__MEMEXIT__": str(MEMORY_EXIT), "__BADSRC__": str(BAD_SOURCE_EXIT)}
    text = _PRELUDE
    for key, val in values.items():
        text = text.replace(key, val)
    return text
