"""parse_isolated: the first parse of an untrusted PDF, in a process of its own held to the limits.

PyMuPDF cannot be interrupted from Python once it is inside a page, and a hostile file can make it
allocate gigabytes. So the parse runs in a separate worker process that caps its own address space,
CPU seconds and wall-clock seconds (RLIMIT_AS, RLIMIT_CPU and an alarm whose default action kills it,
even inside C code), checks the file first (tools/pdf/_checks.py) and answers with the ParsedPaper as
JSON. The caller caches that by content hash (tools/pdf/_load.py), so a file pays for it once.

Workers are forked from a zygote: one process per caller, started on the first untrusted parse with
`python -I` and an environment without the caller's variables (no API key is within a worker's reach),
which imports PyMuPDF and the parser once and then forks a worker per file (a few milliseconds, where a
fresh interpreter costs about 0.5 s of CPU). The caller hands each worker the PDF over a socket pair
whose end the zygote passes on (SCM_RIGHTS). The zygote skips PyMuPDF's optional layout model and
pymupdf4llm, which `import pymupdf` loads when installed and the parser never uses.
"""
from __future__ import annotations

import json
import math
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from ._errors import PdfError
from ._limits import PdfLimits, format_mb
from .model import ParsedPaper

STARTUP_SECONDS = 60.0  # the zygote's imports, on a loaded machine; not counted against any file
_GRACE = 5.0  # after a worker's own alarm, before the caller kills it
_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the `tools` package the caller runs
_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from tools.pdf._isolate import zygote_main; zygote_main()"
_UNUSED = ("pymupdf.layout", "pymupdf4llm")  # imported by `import pymupdf` when installed; never used here
_ALLOC_FAILED = re.compile(r"\b(?:m|c|re)alloc\b.*\bfailed|out of memory", re.I)  # how mupdf says it ran out


class _Zygote:
    """The caller's handle on its zygote: started on first use, again if it died; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None

    def _start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)  # one message per request
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
        # stderr is not read: mupdf's warnings about a hostile file could fill a pipe and stall a worker
        self._proc = subprocess.Popen([sys.executable, "-I", "-c", _BOOT, str(_ROOT), str(theirs.fileno())],
                                      pass_fds=[theirs.fileno()], env=env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        theirs.close()
        self._sock = ours
        ours.settimeout(STARTUP_SECONDS)
        try:
            ready = ours.recv(6)
        except OSError:
            ready = b""
        if ready != b"ready\n":
            self._stop()
            raise PdfError(f"the PDF parser process did not start within {STARTUP_SECONDS:g} s", kind="runtime")
        ours.settimeout(_GRACE * 6)  # forking a worker takes milliseconds

    def _stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        if self._sock is not None:
            self._sock.close()
        self._proc = self._sock = None

    def _alive(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            self._stop()
            self._start()

    def ensure(self) -> None:
        with self._lock:
            self._alive()

    def worker(self, limits: PdfLimits) -> tuple[socket.socket, int]:
        """A fresh worker held to `limits`: the socket to talk to it and its pid."""
        with self._lock:
            for _ in (1, 2):  # a zygote that died since its last use is started again, once
                self._alive()
                assert self._sock is not None
                mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    socket.send_fds(self._sock, [limits.model_dump_json().encode("utf-8")], [theirs.fileno()])
                    pid = int(self._sock.recv(32).strip() or b"0")
                except (OSError, ValueError):
                    pid = 0
                finally:
                    theirs.close()
                if pid > 0:
                    return mine, pid
                mine.close()
                self._stop()
        raise PdfError("the PDF parser process could not start a worker", kind="runtime")


_ZYGOTE = _Zygote()


def warm_up() -> None:
    """Start the zygote now (blocking, ~0.5 s of CPU), so the first untrusted parse only forks."""
    _ZYGOTE.ensure()


def _died(limits: PdfLimits, elapsed: float) -> PdfError:
    if elapsed >= limits.seconds * 0.9:  # its alarm or the CPU limit: the kernel ended it
        return limits.refuse(f"parsing it took longer than {limits.seconds:g} s", "seconds")
    return PdfError(f"the PDF parser process died on it; a file that needs more than {limits.memory_mb} MB of "
                    f"memory does this: {limits.raise_hint('memory_mb')}", kind="limit")


def parse_isolated(data: bytes, limits: PdfLimits) -> ParsedPaper:
    """Check and parse untrusted PDF bytes in a worker process; a PdfError (kind "limit" for a limit) on refusal."""
    if len(data) > limits.file_bytes:
        raise limits.refuse(f"the file is {format_mb(len(data))}", "file_mb")
    conn, pid = _ZYGOTE.worker(limits)
    start = time.monotonic()
    reply = bytearray()
    try:
        conn.settimeout(limits.seconds + _GRACE)
        conn.sendall(data)
        conn.shutdown(socket.SHUT_WR)
        while piece := conn.recv(1 << 20):
            reply += piece
    except socket.timeout:  # the worker outlived its own alarm: end it here
        os.kill(pid, signal.SIGKILL)
        raise limits.refuse(f"parsing it took longer than {limits.seconds:g} s", "seconds") from None
    except OSError:  # it died while reading the file
        raise _died(limits, time.monotonic() - start) from None
    finally:
        conn.close()
    try:
        answer = json.loads(reply)
    except ValueError:
        raise _died(limits, time.monotonic() - start) from None
    if not answer.get("ok"):
        raise PdfError(answer["message"], kind=answer.get("kind", "data_access"))
    return ParsedPaper.model_validate(answer["parsed"])


# ---- the zygote and its workers (run in the child processes) -------------------------------------
class _SkipUnused:
    """An import hook that makes the optional packages `import pymupdf` tries look absent."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if any(name == u or name.startswith(u + ".") for u in _UNUSED):
            raise ImportError(f"{name} is not needed to parse a PDF")
        return None


def zygote_main() -> None:
    """Import the parser once, then fork one worker per request until the caller goes away."""
    import resource

    sock = socket.socket(fileno=int(sys.argv[2]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.meta_path.insert(0, _SkipUnused())  # type: ignore[arg-type]
    from ._parse import parse_pdf

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # workers are reaped by the kernel
    sock.sendall(b"ready\n")
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 1 << 16, 1)
        except OSError:
            return
        if not msg or not fds:
            return  # the caller closed its end: it is gone
        pid = os.fork()
        if pid == 0:
            sock.close()
            _worker(socket.socket(fileno=fds[0]), PdfLimits.model_validate_json(msg), parse_pdf)
        os.close(fds[0])
        sock.sendall(f"{pid}\n".encode())


def _worker(conn: socket.socket, limits: PdfLimits, parse_pdf) -> None:  # noqa: ANN001
    """In a forked worker: limit memory, CPU and wall clock, read the PDF, answer one JSON object, exit."""
    import resource

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    memory = limits.memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = math.ceil(limits.seconds)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, limits.seconds)  # the default action ends the process, even inside mupdf
    try:
        chunks = []
        while piece := conn.recv(1 << 20):
            chunks.append(piece)
        try:
            answer = _answer(b"".join(chunks), limits, parse_pdf)
        except Exception as e:  # a bug of ours on a strange file: said to the caller, never a silent death
            answer = json.dumps({"ok": False, "kind": "data_access",
                                 "message": f"the PDF parser failed on it ({type(e).__name__}: {e})"}).encode()
        conn.sendall(answer)
        conn.close()
    finally:
        os._exit(0)


def _answer(data: bytes, limits: PdfLimits, parse_pdf) -> bytes:  # noqa: ANN001
    try:
        parsed = parse_pdf(data, limits=limits)
        return b'{"ok": true, "parsed": ' + parsed.model_dump_json().encode("utf-8") + b"}"
    except (PdfError, RuntimeError, MemoryError) as e:  # RuntimeError: mupdf on a damaged or hostile file
        text = e.message if isinstance(e, PdfError) else str(e)
        if isinstance(e, MemoryError) or _ALLOC_FAILED.search(text):  # the address-space limit was reached
            reply = {"ok": False, "kind": "limit",
                     "message": limits.refuse("parsing it needs more memory", "memory_mb").message}
        elif isinstance(e, PdfError):
            reply = {"ok": False, "kind": e.kind, "message": e.message}
        else:
            reply = {"ok": False, "kind": "data_access", "message": f"corrupt PDF: PyMuPDF failed on it ({e})"}
    return json.dumps(reply).encode("utf-8")
