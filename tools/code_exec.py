"""code_exec (auxiliary, off unless a run enables it): run a Python snippet in the jail and show its output.

The jail is an OS sandbox (see tools/README.md for what it promises). Input the jail should never
see, such as empty code, code past the size limit, text that is not UTF-8 or does not parse, comes
back at once as a tool error naming the problem; a machine without the sandbox gets a tool error
naming the package to install, never a weaker jail.
"""
from __future__ import annotations

import asyncio

from ._jail import JailLimits, JailResult, JailUnavailable, run_python
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


def check_source(code: str) -> None:
    """Refuse code the jail should not be started for, with a message naming what is wrong and where."""
    if not code.strip():
        raise ToolError("code_exec: the code is empty")
    if len(code) > MAX_CODE_CHARS:
        raise ToolError(f"code_exec: the code has {len(code)} characters; keep it under {MAX_CODE_CHARS}")
    try:
        code.encode("utf-8")
    except UnicodeEncodeError as e:
        line = code.count("\n", 0, e.start) + 1
        raise ToolError(f"code_exec: the code is not valid UTF-8 text (character {e.start}, line {line}: "
                        f"{e.reason}); send plain UTF-8 source") from None
    try:
        compile(code, "<code>", "exec", dont_inherit=True)
    except SyntaxError as e:
        where = f"line {e.lineno}" + (f", column {e.offset}" if e.offset else "")
        shown = (e.text or "").rstrip("\n")
        raise ToolError(f"code_exec: syntax error at {where}: {e.msg}" + (f"\n    {shown}" if shown.strip() else "")) from None
    except (ValueError, RecursionError, MemoryError, OverflowError) as e:
        raise ToolError(f"code_exec: the code cannot be compiled: {e}") from None


@tool
async def code_exec(world: World, code: str) -> ToolResult:
    """Run a short Python 3 program (numpy available) in a jail without network or file access; returns stdout, stderr and exit status.

    Args:
        code: the Python source to run; print what you want to see. Files may be written in the current folder only.
    """
    check_source(code)
    limits = getattr(world, "jail_limits", None) or JailLimits()
    try:
        result = await asyncio.to_thread(run_python, code, limits)
    except JailUnavailable as e:
        raise ToolError(str(e), kind="runtime") from None
    return ToolResult(
        text=format_run(result, limits),
        data={"exit_code": result.exit_code, "limit": result.limit, "stdout": result.stdout, "stderr": result.stderr,
              "duration_s": result.duration_s},
    )
