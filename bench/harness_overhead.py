"""Harness overhead per step, and concurrency throughput, measured side by side in one run.

1. Overhead: the same no-op tool called N times directly (baseline) and through the harness (tool
   session, trace writing, memory) by an agent that does nothing else. The difference per step is the
   harness's own cost (target: under 1 ms).
2. Throughput: the OpenAI-compatible agent against the scripted model server, which answers every
   request after 200 ms, over real HTTP on loopback; concurrency 1 and 16 (target: >= 12x).
"""
from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.agent import FinalAnswer, TokenUsage, ToolCall  # noqa: E402
from harness.episode import Episode  # noqa: E402
from harness.episode_runner import EpisodeRunner  # noqa: E402
from harness.rundir import RunDir  # noqa: E402
from harness.session import RateLimiter  # noqa: E402
from harness.settings import RunSettings  # noqa: E402
from tools import EvidenceUnit, ToolResult, World, tool  # noqa: E402


class NullWorld(World):
    async def search(self, query, k):
        return []

    async def resolve(self, ref):
        raise NotImplementedError

    async def pdf_bytes(self, paper):
        return b""


@tool
async def noop(world: World, paper: str) -> ToolResult:
    """Return a small fixed observation.

    Args:
        paper: paper id
    """
    return ToolResult(text="x" * 200, provenance=[EvidenceUnit(paper=paper, unit="text")])


def episode(eid: str, turns: int = 5) -> Episode:
    return Episode.model_validate({
        "id": eid, "split": "easy", "task_type": "comparison", "initiation": "direct_title", "area": "a",
        "turns": [{"question": f"q{t}", "answer": {"format": "text", "value": "a"},
                   "evidence": [{"paper": "P1", "unit": "text"}]} for t in range(turns)],
    })


class StepAgent:
    name, uses_gold = "bench", False

    def __init__(self, steps: int, latency: float = 0.0):
        self.steps, self.latency = steps, latency

    async def start_episode(self, info):
        pass

    async def step(self, ctx):
        if self.latency:
            await asyncio.sleep(self.latency)
            ctx.record_model_call(model="sim", request=None, response=None, usage=TokenUsage(input_tokens=10),
                                  latency_s=self.latency, tools_offered=ctx.view.tool_names)
        if ctx.view.steps_used < self.steps and not ctx.view.fallback:
            return ToolCall(tool="noop", args={"paper": "P1"})
        return FinalAnswer(answer="a")

    async def end_episode(self):
        pass


def runner(tmp: Path, agent_factory, concurrency_dir: str, max_steps: int = 10) -> EpisodeRunner:
    rd = RunDir(tmp / concurrency_dir)
    rd.traces_dir.mkdir(parents=True, exist_ok=True)
    return EpisodeRunner(settings=RunSettings(max_steps=max_steps), world=NullWorld(tmp), tools={"noop": noop},
                         run_dir=rd, limiter=RateLimiter(None), episodes_dir=tmp, make_agent=agent_factory)


async def overhead(tmp: Path, n_episodes: int = 40, steps: int = 9) -> tuple[float, float]:
    w = NullWorld(tmp)
    calls = n_episodes * 5 * steps
    t0 = time.perf_counter()
    for _ in range(calls):
        await noop(w, {"paper": "P1"})
    direct = (time.perf_counter() - t0) / calls
    r = runner(tmp, lambda: StepAgent(steps), "overhead")
    t0 = time.perf_counter()
    for i in range(n_episodes):
        await r.run(episode(f"e{i}"))
    through = (time.perf_counter() - t0) / calls
    return direct, through


async def throughput(tmp: Path, conc: int, n: int, base_url: str) -> float:
    import os

    from agents import make_agent
    from harness.agent import AgentConfig

    os.environ["EPI_BENCH_KEY"] = "not-a-real-key"
    cfg = AgentConfig(model="scripted", base_url=base_url, api_key_env="EPI_BENCH_KEY", max_retries=0)
    r = runner(tmp, lambda: make_agent("openai", cfg), f"conc{conc}")
    sem = asyncio.Semaphore(conc)

    async def one(i: int) -> None:
        async with sem:
            await r.run(episode(f"c{conc}-{i}", turns=2))

    t0 = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    return n / (time.perf_counter() - t0)


def start_model_server(tmp: Path) -> tuple[str, "subprocess.Popen[bytes]"]:
    """The scripted model server in its own process, as a real endpoint would be (not sharing our GIL)."""
    import json
    import socket
    import subprocess

    script = tmp / "script.json"
    script.write_text(json.dumps({"responses": [], "default": {"content": "Final answer: a", "delay_s": 0.2}}))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "harness", "sandbox", "model-server", "--script", str(script),
                             "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    return f"http://127.0.0.1:{port}/v1", proc


async def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        direct, through = await overhead(tmp)
        print("== harness overhead per step (no-op tool) ==")
        print(f"direct tool call       {direct * 1e3:8.3f} ms")
        print(f"through the harness    {through * 1e3:8.3f} ms")
        print(f"harness overhead/step  {(through - direct) * 1e3:8.3f} ms   (target < 1 ms)  ratio {through / direct:.1f}x")
        base_url, server = start_model_server(tmp)
        try:
            t1 = statistics.median([await throughput(tmp / f"a{i}", 1, 6, base_url) for i in range(2)])
            t16 = await throughput(tmp / "b", 16, 96, base_url)
        finally:
            server.terminate()
            server.wait(timeout=10)
        print("== throughput: openai agent, scripted model server answering after 200 ms ==")
        print(f"concurrency 1    {t1:6.2f} episodes/s")
        print(f"concurrency 16   {t16:6.2f} episodes/s   ratio {t16 / t1:.1f}x (target >= 12x)")


if __name__ == "__main__":
    asyncio.run(main())
