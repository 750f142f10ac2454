"""parse_isolated: the first parse of an untrusted PDF, in a child process held to the limits.

PyMuPDF cannot be interrupted from Python once it is inside a page, and a hostile file can make it
allocate gigabytes. So the parse runs in a fresh interpreter (`python -I`, an environment without the
caller's variables, so no API key is within its reach) that caps its own address space and, once its
imports are done, its CPU seconds; the caller gives it the PDF on stdin and kills it at the wall-clock
limit. The child checks the file first (tools/pdf/_checks.py) and answers with the ParsedPaper as JSON.
The caller caches that by content hash (tools/pdf/_load.py), so a file pays for the process once.

The child skips PyMuPDF's optional layout model and pymupdf4llm (1.3 s of imports the parser never
uses), which makes a child cost about 0.5 s of startup.
"""
from __future__ import annotations

import json
import math
import os
import re
import select
import signal
import subprocess
import sys
from pathlib import Path

from ._errors import PdfError
from ._limits import PdfLimits, format_mb
from .model import ParsedPaper

STARTUP_SECONDS = 60.0  # the child's imports, on a loaded machine; not counted against the file
_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the `tools` package the caller runs
_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from tools.pdf._isolate import child_main; child_main()"
_UNUSED = ("pymupdf.layout", "pymupdf4llm")  # imported by `import pymupdf` when installed; never used here
_ALLOC_FAILED = re.compile(r"\b(?:m|c|re)alloc\b.*\bfailed|out of memory", re.I)  # how mupdf says it ran out


def _tail(err: bytes) -> str:
    lines = err.decode("utf-8", "replace").strip().splitlines()
    return lines[-1][:300] if lines else "no message"


def _wait_ready(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], STARTUP_SECONDS)
    line = proc.stdout.readline() if ready else b""
    if line != b"ready\n":
        proc.kill()
        _, err = proc.communicate()
        raise PdfError(f"the PDF parser process did not start ({_tail(err)})", kind="runtime")


def parse_isolated(data: bytes, limits: PdfLimits) -> ParsedPaper:
    """Check and parse untrusted PDF bytes in a child process; a PdfError (kind "limit" for a limit) on refusal."""
    if len(data) > limits.file_bytes:
        raise limits.refuse(f"the file is {format_mb(len(data))}", "file_mb")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
    proc = subprocess.Popen([sys.executable, "-I", "-c", _BOOT, str(_ROOT), limits.model_dump_json()],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        _wait_ready(proc)
        out, err = proc.communicate(input=data, timeout=limits.seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise limits.refuse(f"parsing it took longer than {limits.seconds:g} s", "seconds") from None
    finally:
        if proc.poll() is None:  # an exception of ours while the child still runs
            proc.kill()
            proc.wait()
    if proc.returncode == -signal.SIGXCPU:  # the CPU limit
        raise limits.refuse(f"parsing it used more than {limits.seconds:g} CPU seconds", "seconds")
    try:
        reply = json.loads(out)
    except ValueError:
        how = f"signal {signal.Signals(-proc.returncode).name}" if proc.returncode < 0 else f"exit {proc.returncode}"
        raise PdfError(f"the PDF parser process died on it ({how}: {_tail(err)}); a file that needs more than "
                       f"{limits.memory_mb} MB does this: {limits.raise_hint('memory_mb')}") from None
    if not reply.get("ok"):
        raise PdfError(reply["message"], kind=reply.get("kind", "data_access"))
    return ParsedPaper.model_validate(reply["parsed"])


class _SkipUnused:
    """An import hook that makes the optional packages `import pymupdf` tries look absent."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if any(name == u or name.startswith(u + ".") for u in _UNUSED):
            raise ImportError(f"{name} is not needed to parse a PDF")
        return None


def _cpu_seconds() -> float:
    import resource

    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def child_main() -> None:
    """In the child: limit memory, import, limit CPU, say ready, parse stdin, answer one JSON object."""
    import resource

    limits = PdfLimits.model_validate_json(sys.argv[2])
    memory = limits.memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.meta_path.insert(0, _SkipUnused())  # type: ignore[arg-type]
    from ._parse import parse_pdf

    cpu = math.ceil(_cpu_seconds() + limits.seconds)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    out = sys.stdout.buffer
    out.write(b"ready\n")
    out.flush()
    data = sys.stdin.buffer.read()
    try:
        parsed = parse_pdf(data, limits=limits)
        out.write(b'{"ok": true, "parsed": ' + parsed.model_dump_json().encode("utf-8") + b"}")
        out.flush()
        return
    except (PdfError, RuntimeError, MemoryError) as e:  # RuntimeError: mupdf on a damaged or hostile file
        text = e.message if isinstance(e, PdfError) else str(e)
        if isinstance(e, MemoryError) or _ALLOC_FAILED.search(text):  # the address-space limit was reached
            reply = {"ok": False, "kind": "limit",
                     "message": limits.refuse("parsing it needs more memory", "memory_mb").message}
        elif isinstance(e, PdfError):
            reply = {"ok": False, "kind": e.kind, "message": e.message}
        else:
            reply = {"ok": False, "kind": "data_access", "message": f"corrupt PDF: PyMuPDF failed on it ({e})"}
    out.write(json.dumps(reply).encode("utf-8"))
    out.flush()
