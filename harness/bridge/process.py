"""The agent program as a child process: started in its own process group, lines in and out, stderr kept.

Bounded from outside: one answer line is at most `MAX_LINE` bytes; stderr is drained continuously and
only its last `STDERR_TAIL` bytes are kept (what the trace shows when the program fails); memory is
capped by RLIMIT_DATA (heap and private writable mappings, `--agent-memory-mb`; not the address space,
which node reserves by the gigabyte for wasm); the wall clock per turn is the caller's. The whole
process group is killed at the end of the episode, whatever the program left running.
"""
from __future__ import annotations

import asyncio
import os
import resource
import signal
from collections import deque
from typing import Sequence

from ..agent import AgentProgramError
from .protocol import MAX_LINE

STDERR_TAIL = 8192


class AgentProcess:
    def __init__(self, argv: Sequence[str], *, env: dict[str, str], cwd: str, memory_mb: int | None):
        self.argv = list(argv)
        self.env = env
        self.cwd = cwd
        self.memory_mb = memory_mb
        self.proc: asyncio.subprocess.Process | None = None
        self._tail: deque[bytes] = deque()
        self._tail_len = 0
        self._drain: asyncio.Task[None] | None = None

    def _limits(self) -> None:  # in the child, before exec
        if self.memory_mb:
            cap = self.memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    async def start(self) -> None:
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env=self.env, cwd=self.cwd, start_new_session=True,
                preexec_fn=self._limits, limit=MAX_LINE)
        except (OSError, ValueError) as e:
            raise AgentProgramError(f"agent command could not start: {self.argv[0]}: {getattr(e, 'strerror', None) or e}"
                                    ) from None
        self._drain = asyncio.ensure_future(self._read_stderr())

    async def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while True:
            chunk = await self.proc.stderr.read(65536)
            if not chunk:
                return
            self._tail.append(chunk)
            self._tail_len += len(chunk)
            while self._tail_len - len(self._tail[0]) >= STDERR_TAIL:
                self._tail_len -= len(self._tail.popleft())

    def stderr_tail(self) -> str:
        data = b"".join(self._tail)[-STDERR_TAIL:]
        text = data.decode("utf-8", "replace")
        return f"stderr (last {len(data)} bytes):\n{text}" if text.strip() else "stderr: (empty)"

    async def settle_stderr(self) -> None:
        """Let the stderr reader take what the program wrote before it died (bounded wait)."""
        if self._drain is not None and not self._drain.done():
            try:
                await asyncio.wait_for(asyncio.shield(self._drain), 0.5)
            except (asyncio.TimeoutError, Exception):
                pass

    @property
    def returncode(self) -> int | None:
        return None if self.proc is None else self.proc.returncode

    async def send(self, line: bytes) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(line)
            await self.proc.stdin.drain()
        except (ConnectionError, BrokenPipeError):
            await self.exited("before it read its input")

    async def exited(self, when: str) -> None:
        """Raise AgentProgramError for a program that has ended (or closed its stdout)."""
        assert self.proc is not None
        try:
            code = await asyncio.wait_for(self.proc.wait(), 2.0)
            how = f"exited with code {code}" if code >= 0 else f"was killed by signal {-code}"
            if code == -signal.SIGKILL and self.memory_mb:
                how += f" (its memory cap is {self.memory_mb} MB)"
        except asyncio.TimeoutError:
            how = "closed its stdout"
        await self.settle_stderr()
        raise AgentProgramError(f"agent program {how} {when}", self.stderr_tail())

    def read_line(self) -> "asyncio.Task[bytes]":
        assert self.proc is not None and self.proc.stdout is not None
        return asyncio.ensure_future(self.proc.stdout.readline())

    async def stop(self, grace_s: float = 2.0) -> None:
        proc = self.proc
        if proc is None:
            return
        if proc.returncode is None and proc.stdin is not None:
            try:
                proc.stdin.close()
            except Exception:
                pass
            try:
                await asyncio.wait_for(proc.wait(), grace_s)
            except asyncio.TimeoutError:
                pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # what the program left running goes too
        except (ProcessLookupError, PermissionError):
            pass
        if proc.returncode is None:
            try:
                await asyncio.wait_for(proc.wait(), 5.0)
            except asyncio.TimeoutError:
                pass
        if self._drain is not None:
            self._drain.cancel()
