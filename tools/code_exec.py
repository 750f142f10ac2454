"""code_exec (auxiliary, off unless a run enables it): run a Python snippet in the jail and show its output."""
from __future__ import annotations

import asyncio

from ._jail import JailLimits, JailResult, run_python
from ._tool import tool
from ._types import ToolError, ToolResult
from ._world import World

MAX_CODE_CHARS = 20_000
_LIMIT_TEXT = {
    "cpu": "stopped: it used more than {cpu} s of CPU time",
    "memory": "stopped: it tried to use more than {mem} MB of memory",
    "wall": "stopped: it ran longer than {wall:g} s",
    "output": "stopped: it printed more than {out} characters (output cut)",
    "file_size": "stopped: it tried to write a file larger than {fmb} MB",
}


def format_run(result: JailResult, limits: JailLimits) -> str:
    """Exit status, which limit fired, then stdout and stderr, as the model reads them."""
    head = f"exit status: {result.exit_code}"
    if result.limit:
        head += " (" + _LIMIT_TEXT[result.limit].format(cpu=limits.cpu_seconds, mem=limits.memory_mb,
                                                        wall=limits.wall_seconds, out=limits.max_output_chars,
                                                        fmb=limits.file_mb) + ")"
    parts = [head, "--- stdout ---", result.stdout.rstrip() or "(empty)"]
    if result.stderr.strip():
        parts += ["--- stderr ---", result.stderr.rstrip()]
    return "\n".join(parts)


@tool
async def code_exec(world: World, code: str) -> ToolResult:
    """Run a short Python 3 program (numpy available) in a jail without network or file access; returns stdout, stderr and exit status.

    Args:
        code: the Python source to run; print what you want to see. Files may be written in the current folder only.
    """
    if not code.strip():
        raise ToolError("code_exec: the code is empty")
    if len(code) > MAX_CODE_CHARS:
        raise ToolError(f"code_exec: the code has {len(code)} characters; keep it under {MAX_CODE_CHARS}")
    limits = getattr(world, "jail_limits", None) or JailLimits()
    result = await asyncio.to_thread(run_python, code, limits)
    return ToolResult(
        text=format_run(result, limits),
        data={"exit_code": result.exit_code, "limit": result.limit, "stdout": result.stdout, "stderr": result.stderr,
              "duration_s": result.duration_s},
    )
