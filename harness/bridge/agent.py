"""The bridge agent: an agent program of the user's own, run as its own process, under the harness's rules.

Per episode: a fresh token, a scratch folder, the endpoints (`endpoints.py`) on a unix socket (sandboxed
program, reached through the forwarder) or a loopback port (unconfined), and the program started with
the episode line on its stdin. Per turn: the turn line, then the answer line back. The program owns its
loop; the harness owns the budget (every model request and tool call goes through the turn's tool
session), so `run_turn` returns the answer, or hands the turn back to the runner the moment the budget
runs out (BudgetExhaustedError); the runner then enters the fallback and calls `step`, which waits for
the program's answer while the endpoints forward its one request without tools.

Anything the program does wrong ends the episode as the agent's error (AgentProgramError: bucket `model`,
the tail of its stderr in the trace), never the run.

With `agent_long_lived`, a program (its process, HTTP server and scratch folder: `_Program`) that answered
every turn of its episode is handed to `pool.py` and takes the run's next episode, with a new token and new
endpoints (and MCP server); the server passes each request to the open episode's endpoints.
"""
from __future__ import annotations

import asyncio
import os
import secrets
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..agent import (
    AgentConfig,
    AgentProgramError,
    BaseAgent,
    BudgetExhaustedError,
    EpisodeInfo,
    FinalAnswer,
    MemoryMode,
    TurnContext,
    TurnView,
)
from .endpoints import MCP_PATH, Endpoints, TurnGate
from . import pool
from .http import HttpServer, Request, Response
from .process import AgentProcess
from .protocol import EpisodeLine, ProtocolViolation, dump_line, openai_tools, parse_answer, turn_line
from .sandbox import (BRIDGE_PORT, MCP_STDIO, MCP_STDIO_INSIDE, SCRATCH, bwrap_argv, check_agent_dirs, resolve_command,
                      sandbox_unavailable_reason)

_BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
CUE_IMAGE_MAX = 32 * 1024 * 1024
_IMAGE_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF8", "image/gif"),
                (b"RIFF", "image/webp"))


def parse_command(cmd: str | None) -> list[str]:
    """The command line as argv; ValueError naming what is wrong."""
    if not cmd or not cmd.strip():
        raise ValueError("--agent-cmd is empty: give the command that starts your agent program")
    try:
        argv = shlex.split(cmd)
    except ValueError as e:
        raise ValueError(f"--agent-cmd {cmd!r} cannot be read as a command line: {e}") from None
    if not argv:
        raise ValueError("--agent-cmd is empty: give the command that starts your agent program")
    return argv


def agent_environment(names: list[str]) -> dict[str, str]:
    """The --agent-env variables: NAME (its value here) or NAME=VALUE; ValueError for a bad entry."""
    out: dict[str, str] = {}
    for item in names:
        name, eq, value = item.partition("=")
        if not name.isidentifier():
            raise ValueError(f"--agent-env {item!r}: not NAME or NAME=VALUE")
        if not eq:
            if name not in os.environ:
                raise ValueError(f"--agent-env {name}: the variable is not set in this environment")
            value = os.environ[name]
        out[name] = value
    return out


class BridgeAgent(BaseAgent):
    """Runs `config.agent_cmd` once per episode (or, `agent_long_lived`, one program for episode after episode),
    confined in bubblewrap where it can be."""

    name = "bridge"
    memory_modes: tuple[MemoryMode, ...] = ("conversation",)  # the program keeps its own memory

    def __init__(self, config: AgentConfig):
        self.config = config
        self.argv = parse_command(config.agent_cmd)
        self.confined: bool | None = None
        self.why_unconfined: str | None = None
        self._proc: AgentProcess | None = None
        self._program: _Program | None = None
        self._answered = self._n_turns = 0
        self._endpoints: Endpoints | None = None
        self._client: Any = None
        self._tmp: Path | None = None
        self._line: asyncio.Task[bytes] | None = None
        self._deadline = 0.0
        self._refusal: str | None = None
        try:
            self.decide_confinement()
        except ValueError as e:  # --agent-sandbox bwrap where it cannot run: refused at preflight / episode start
            self._refusal = str(e)
        if self.confined is False:
            self.name = "bridge-unconfined"  # in every episode_start: the run says it was not sandboxed
        if config.agent_long_lived:  # and that one program took episode after episode (it can carry state over)
            self.name += "-long-lived"

    # -- before the run ---------------------------------------------------------------------------
    def decide_confinement(self) -> None:
        mode = self.config.agent_sandbox
        if mode == "none":
            self.confined, self.why_unconfined = False, "--agent-sandbox none"
            return
        why = sandbox_unavailable_reason()
        if why is None:
            self.confined = True
            return
        if mode == "bwrap":
            raise ValueError(f"--agent-sandbox bwrap: {why}")
        self.confined, self.why_unconfined = False, why

    async def preflight(self) -> None:
        from agents._endpoint import preflight_endpoint

        argv, extra = resolve_command(self.argv, self.config.agent_dir)
        check_agent_dirs(list(self.config.agent_dir) + extra)
        program = argv[0]
        found = shutil.which(program, path=":".join([str(Path(d) / "bin") for d in self.config.agent_dir] + [
            os.environ.get("PATH", _BASE_PATH)])) if "/" not in program else (program if os.access(program, os.X_OK) else None)
        if found is None:
            raise ValueError(f"agent command {program}: no such program (or not executable); check --agent-cmd")
        agent_environment(self.config.agent_env)
        if self._refusal is not None:
            raise ValueError(self._refusal)
        if not self.confined:
            print(f"epi: the agent program runs UNCONFINED (no sandbox: {self.why_unconfined}); the run is labelled "
                  "bridge-unconfined", file=sys.stderr)
        await preflight_endpoint(self.config)

    # -- the episode ------------------------------------------------------------------------------
    async def start_episode(self, info: EpisodeInfo) -> None:
        from agents._endpoint import api_key, endpoint_url, retry_policy, tls_context
        from agents._wire import ChatEndpoint

        if self._refusal is not None:
            raise AgentProgramError(self._refusal)
        token = secrets.token_urlsafe(24)
        model = self.config.model or "default"
        self._client = ChatEndpoint(self.config.base_url, api_key(self.config), self.config.request_timeout_s,
                                    verify=tls_context(endpoint_url(self.config.base_url)))
        self._endpoints = Endpoints(token=token, model=model, client=self._client, policy=retry_policy(self.config),
                                    tools=info.tools)
        program = pool.take(self.config) if self.config.agent_long_lived else None
        if program is not None and (program.proc is None or program.proc.returncode is not None):  # it has ended
            await program.close()
            program = None
        if program is None:
            program = await self._launch(token, model)
        self._program = program
        program.endpoints = self._endpoints
        self._proc, self._tmp, self._scratch_seen = program.proc, program.tmp, program.scratch_seen
        self._answered, self._n_turns = 0, info.n_turns
        base, mcp_url, mcp_script = program.base, program.mcp_url, program.mcp_script
        assert program.proc is not None
        await program.proc.send(dump_line(EpisodeLine(
            episode_id=info.episode_id, n_turns=info.n_turns, token=token, base_url=base, model=model,
            tools_url=f"{base}/tools", tool_call_url=f"{base}/tools/call", scratch=self._scratch_seen,
            tools=openai_tools(info.tools), mcp_url=mcp_url,
            mcp_stdio={"args": [mcp_script], "env": {"EPI_BRIDGE_URL": base, "EPI_BRIDGE_TOKEN": token}},
            long_lived=self.config.agent_long_lived)))

    async def _launch(self, token: str, model: str) -> "_Program":
        """Start the agent program: its folders, its HTTP server (unix socket or loopback port), its process."""
        argv, extra = resolve_command(self.argv, self.config.agent_dir)
        dirs = check_agent_dirs(list(self.config.agent_dir) + extra)
        tmp = Path(tempfile.mkdtemp(prefix="epi-bridge-"))
        scratch = tmp / "scratch"
        sockets = tmp / "sock"
        scratch.mkdir()
        sockets.mkdir()
        program = _Program(tmp)
        server = program.server = HttpServer(program.handle)
        env = {"PATH": _BASE_PATH, "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"}
        if self.confined:
            os.chmod(tmp, 0o755)
            os.chmod(scratch, 0o777)
            os.chmod(sockets, 0o755)
            await server.listen_unix(str(sockets / "bridge.sock"))
            os.chmod(sockets / "bridge.sock", 0o777)
            port = BRIDGE_PORT
            program.scratch_seen = SCRATCH
            argv = bwrap_argv(argv, agent_dirs=dirs, scratch=scratch, socket_dir=sockets)
            cwd = str(scratch)
        else:
            port = await server.listen_tcp()
            program.scratch_seen = str(scratch)
            cwd = str(dirs[0][1]) if dirs else str(scratch)
            env["PATH"] = os.environ.get("PATH", _BASE_PATH)
        extra_path = [str(seen / "bin") for real, seen in dirs if (real / "bin").is_dir()]
        if extra_path:
            env["PATH"] = ":".join(extra_path) + ":" + env["PATH"]
        base = program.base = f"http://127.0.0.1:{port}/v1"
        mcp_url = program.mcp_url = f"http://127.0.0.1:{port}{MCP_PATH}"
        mcp_script = program.mcp_script = MCP_STDIO_INSIDE if self.confined else str(MCP_STDIO)
        # the token of the first episode: a long-lived program takes each episode's own from its episode line
        env.update({"HOME": program.scratch_seen, "TMPDIR": program.scratch_seen if not self.confined else "/tmp",
                    "OPENAI_BASE_URL": base, "OPENAI_API_KEY": token, "EPI_BRIDGE_URL": base,
                    "EPI_BRIDGE_TOKEN": token, "EPI_MODEL": model, "EPI_BRIDGE_PROTOCOL": "1",
                    "EPI_MCP_URL": mcp_url, "EPI_MCP_STDIO": mcp_script})
        env.update(agent_environment(self.config.agent_env))
        program.proc = AgentProcess(argv, env=env, cwd=cwd, memory_mb=self.config.agent_memory_mb)
        try:
            await program.proc.start()
        except BaseException:
            await program.close()
            raise
        return program

    def owns_turn(self, view: TurnView) -> bool:
        return True

    def _cue_image(self, view: TurnView) -> tuple[str | None, Path | None, str]:
        """The cue image copied into the scratch folder: (path as the program sees it, host path, media type).
        Only an image file (by its first bytes) under CUE_IMAGE_MAX bytes: an episode file is untrusted and must
        not hand the program any other file through its cue."""
        if not view.cue_image or self._tmp is None:
            return None, None, ""
        src = Path(view.cue_image)
        try:
            if not src.is_file() or src.stat().st_size > CUE_IMAGE_MAX:
                return None, None, ""
            with open(src, "rb") as f:
                head = f.read(16)
        except OSError:
            return None, None, ""
        media = next((m for magic, m in _IMAGE_MAGIC if head.startswith(magic)), None)
        if media is None or (media == "image/webp" and head[8:12] != b"WEBP"):
            return None, None, ""
        name = f"cue-turn-{view.turn}.{media.split('/')[1]}"
        dst = self._tmp / "scratch" / name
        shutil.copyfile(src, dst)
        return f"{self._scratch_seen}/{name}", dst, media

    async def run_turn(self, ctx: TurnContext) -> FinalAnswer:
        assert self._proc is not None and self._endpoints is not None
        gate = TurnGate(ctx)
        self._endpoints.gate, self._endpoints.last_ctx = gate, ctx
        view = ctx.view
        seen, local, media = self._cue_image(view)
        self._deadline = asyncio.get_running_loop().time() + self.config.agent_timeout_s
        await self._proc.send(dump_line(turn_line(view, seen, local, media)))
        return await self._answer(gate, view.turn, may_exhaust=True)

    async def step(self, ctx: TurnContext) -> FinalAnswer:
        """Only ever the fallback: the runner entered it after run_turn handed the turn back."""
        assert self._endpoints is not None
        gate = self._endpoints.gate
        if gate is None:
            raise AgentProgramError("the bridge was asked for a step outside a turn")
        gate.in_fallback.set()
        return await self._answer(gate, ctx.view.turn, may_exhaust=False)

    async def _answer(self, gate: TurnGate, turn: int, *, may_exhaust: bool) -> FinalAnswer:
        proc = self._proc
        assert proc is not None and self._endpoints is not None
        if self._line is None:
            self._line = proc.read_line()
        waits: list[asyncio.Future[Any]] = [asyncio.ensure_future(gate.failed.wait())]
        if may_exhaust:
            waits.append(asyncio.ensure_future(gate.exhausted.wait()))
        try:
            left = self._deadline - asyncio.get_running_loop().time()
            done, _ = await asyncio.wait([self._line, *waits], timeout=max(0.0, left),
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
        if gate.failure is not None:
            self._close(gate)
            raise gate.failure
        if self._line in done:
            line_task, self._line = self._line, None
            try:
                raw = line_task.result()
            except (ValueError, asyncio.LimitOverrunError):
                self._close(gate)
                raise AgentProgramError(f"agent program wrote a stdout line over the protocol's limit in turn {turn}",
                                        proc.stderr_tail()) from None
            if not raw:
                self._close(gate)
                await proc.exited(f"during turn {turn}, before answering")
            try:
                line = parse_answer(raw, turn)
            except ProtocolViolation as e:
                self._close(gate)
                await proc.settle_stderr()
                raise AgentProgramError(f"agent program broke the protocol in turn {turn}: {e}",
                                        proc.stderr_tail()) from None
            self._close(gate)
            self._answered += 1
            return FinalAnswer(answer=line.answer, reasoning=line.reasoning)
        if may_exhaust and gate.exhausted.is_set():
            raise BudgetExhaustedError("the agent program used up the turn's budget")
        self._close(gate)
        await proc.settle_stderr()
        raise AgentProgramError(f"agent program gave no answer for turn {turn} within {self.config.agent_timeout_s:.0f} s "
                                "(--agent-timeout)", proc.stderr_tail())

    def _close(self, gate: TurnGate) -> None:
        gate.closed.set()
        if self._endpoints is not None and self._endpoints.gate is gate:
            self._endpoints.gate = None

    async def end_episode(self) -> None:
        if self._line is not None:
            self._line.cancel()
            self._line = None
        program, self._program = self._program, None
        self._proc, self._tmp = None, None
        if program is not None:
            program.endpoints = None
            alive = program.proc is not None and program.proc.returncode is None
            if alive:
                try:
                    await asyncio.wait_for(program.proc.send(b'{"type":"end"}\n'), 1.0)
                except (AgentProgramError, asyncio.TimeoutError, AssertionError):
                    alive = False
            # a long-lived program that answered every turn waits for the run's next episode; any other ends here
            if alive and self.config.agent_long_lived and self._answered == self._n_turns:
                pool.give(self.config, program)
            else:
                await program.close()
        if self._endpoints is not None:
            await self._endpoints.close()  # its MCP server, if the program used it
        if self._client is not None:
            await self._client.aclose()
            self._client = None


class _Program:
    """One agent program: its process, its HTTP server and its folders; `endpoints` is its open episode's."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.proc: AgentProcess | None = None
        self.server: HttpServer | None = None
        self.endpoints: Endpoints | None = None
        self.scratch_seen = ""
        self.base = self.mcp_url = self.mcp_script = ""

    async def handle(self, req: Request) -> Response:
        endpoints = self.endpoints
        if endpoints is None:  # between the episodes of a long-lived program
            return Response.error(409, "no episode is open: wait for the next episode line on stdin", "no_episode_open")
        return await endpoints.handle(req)

    async def close(self) -> None:
        if self.proc is not None:
            await self.proc.stop()
        if self.server is not None:
            await self.server.close()
        shutil.rmtree(self.tmp, ignore_errors=True)
