"""What running smol-code's steps in the jail costs: per code step, jailed against today's in-process executor.

The same smol-code run, through the real runner and the scripted model server, twice per round: once
with the jailed executor (smolagents' LocalPythonExecutor inside the jail, one jail per episode, the
tools called back over the pipe) and once with smolagents' LocalPythonExecutor in the harness's process
(what smol-code did before issue 23; here only as the baseline). Each episode plays STEPS code steps
(half compute and print, half a web_search call from the code, so a call crosses the pipe both ways),
then final answers. Printed side by side: the median time of one executor call (a code step), the
added cost per step, the whole run's time per model step, and how long an episode waited for its jail
to be ready at the first step (the jail starts at episode start, while the first model request runs).
Rounds alternate the two, so machine load hits both alike. Target: under 50 ms added per step.
"""
from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import agents._smol_jail as smol_jail  # noqa: E402
from harness.agent import AgentConfig  # noqa: E402
from harness.runner import run_episodes  # noqa: E402
from harness.settings import RunSettings  # noqa: E402
from sandbox.model_server import Script, ScriptedModelServer, ScriptItem  # noqa: E402
from tools import World  # noqa: E402
from tools._world import PaperMeta, PaperNotFound, SearchHit  # noqa: E402

ROUNDS, EPISODES, STEPS = 3, 4, 10
TARGET_MS = 50.0
PAPERS = {f"P{i:03d}": f"Paper {i} on chart readers and tool budgets" for i in range(1, 9)}
TOOLS_OFF = ["pdf_extract", "pdf_rag", "figure_extract", "table_extract"]


class _World(World):
    """Eight titles and word-overlap search: enough for a code step to call a tool."""

    name = "bench"

    async def search(self, query: str, k: int) -> list[SearchHit]:
        words = set(query.lower().split())
        hits = sorted(PAPERS.items(), key=lambda p: (-len(words & set(p[1].lower().split())), p[0]))
        return [SearchHit(title=t, url=f"https://sandbox.local/papers/{p}", snippet=t, score=1.0, paper_id=p)
                for p, t in hits[:k]]

    async def resolve(self, ref: str) -> PaperMeta:
        if ref not in PAPERS:
            raise PaperNotFound(ref)
        return PaperMeta(id=ref, title=PAPERS[ref])

    async def pdf_bytes(self, paper: PaperMeta) -> bytes:
        raise OSError("no PDFs in the bench world")


def _episode(i: int) -> str:
    import json

    return json.dumps({
        "id": f"bench-{i}", "split": "easy", "task_type": "comparison", "initiation": "direct_title", "area": "ml",
        "turns": [{"question": "Which paper is about chart readers?", "cue": {"text": "chart readers"},
                   "answer": {"format": "text", "value": "Paper 1"}},
                  {"question": "From memory: which was it?", "memory_only": True,
                   "answer": {"format": "text", "value": "Paper 1"}}]}) + "\n"


def _script() -> list[ScriptItem]:
    items = []
    for _ in range(EPISODES):
        for s in range(STEPS):
            code = (f"total = sum(i * i for i in range(2000))\nprint('step {s}', total)" if s % 2 == 0 else
                    f"r = web_search(query='chart readers {s}')\nprint(len(r))")
            items.append(ScriptItem(code=code))
        items += [ScriptItem(code="final_answer('Paper 1')"), ScriptItem(code="final_answer('Paper 1')")]
    return items


def _timed(cls: type, where: list[float]) -> type:
    class Timed(cls):  # type: ignore[misc, valid-type]
        def __call__(self, code_action: str) -> Any:
            t = time.perf_counter()
            try:
                return super().__call__(code_action)
            finally:
                where.append(time.perf_counter() - t)

    return Timed


def _in_process_class() -> type:
    """Today's executor before issue 23: smolagents' LocalPythonExecutor in the harness's own process."""
    from smolagents.local_python_executor import LocalPythonExecutor

    class InProcess(LocalPythonExecutor):  # type: ignore[misc]
        def __init__(self, imports: list[str], max_print_outputs_length: int | None = None, limits: Any = None):
            super().__init__(imports, max_print_outputs_length=max_print_outputs_length,
                             timeout_seconds=int(limits.wall_seconds) if limits else 20)

        def clear_variables(self) -> None:
            self.state = {"__name__": "__main__"}

    return InProcess


async def _run(mode: str, tmp: Path, round_no: int) -> tuple[list[float], float, int]:
    """One run of EPISODES episodes: (executor call times, run seconds, model requests)."""
    calls: list[float] = []
    jailed = smol_jail.executor_class
    base = jailed() if mode == "jail" else _in_process_class()
    smol_jail.executor_class = lambda: _timed(base, calls)  # type: ignore[assignment]
    tmp.mkdir(parents=True, exist_ok=True)
    episodes = tmp / "eps.jsonl"
    episodes.write_text("".join(_episode(i) for i in range(EPISODES)))
    srv = ScriptedModelServer(Script(responses=_script())).start()
    try:
        os.environ["EPI_BENCH_KEY"] = "sk-bench"
        config = AgentConfig(model="scripted-model", base_url=srv.base_url, api_key_env="EPI_BENCH_KEY", max_retries=0)
        settings = RunSettings(agent="smol-code", episodes=episodes, results=tmp / "results", run_id=f"{mode}-{round_no}",
                               max_steps=STEPS + 2, disable_tools=TOOLS_OFF, concurrency=1, score=False,
                               agent_config=config)
        t = time.perf_counter()
        summary = await run_episodes(settings, world=_World(tmp / "cache"))
        seconds = time.perf_counter() - t
    finally:
        srv.stop()
        smol_jail.executor_class = jailed  # type: ignore[assignment]
    bad = [o for o in summary.outcomes if o.status != "completed" or o.answers != ["Paper 1", "Paper 1"]]
    assert not bad, f"{mode}: episodes did not complete as scripted: {bad}"
    return calls, seconds, len(srv.chat_requests)


def _ms(xs: list[float]) -> str:
    xs = sorted(xs)
    return f"median {statistics.median(xs) * 1000:7.2f} ms  p90 {xs[int(0.9 * (len(xs) - 1))] * 1000:7.2f} ms"


async def main() -> int:
    reason = smol_jail.jail_unavailable()
    if reason:
        print(f"the jail cannot run here: {reason}")
        return 2
    times: dict[str, list[float]] = {"in-process": [], "jail": []}
    firsts: dict[str, list[float]] = {"in-process": [], "jail": []}
    per_request: dict[str, list[float]] = {"in-process": [], "jail": []}
    with tempfile.TemporaryDirectory() as d:
        await _run("jail", Path(d) / "warm", 0)  # warm-up: imports, the one-time copy of smolagents for the jail
        for r in range(1, ROUNDS + 1):
            for mode in ("in-process", "jail"):
                calls, seconds, requests = await _run(mode, Path(d) / f"{mode}-{r}", r)
                first = calls[0::STEPS + 2]  # each episode's first code step (the jail may still be starting)
                times[mode] += [c for i, c in enumerate(calls) if i % (STEPS + 2) not in (0, STEPS + 1)]
                firsts[mode] += first
                per_request[mode].append(seconds / requests)
    n = len(times["jail"])
    print(f"smol-code, {ROUNDS} rounds x {EPISODES} episodes x {STEPS} code steps; steady-state steps: {n} per mode")
    for mode in ("in-process", "jail"):
        print(f"  {mode:10s} one code step: {_ms(times[mode])};  first step of an episode: {_ms(firsts[mode])};  "
              f"whole run per model request: {statistics.median(per_request[mode]) * 1000:6.1f} ms")
    added = (statistics.median(times["jail"]) - statistics.median(times["in-process"])) * 1000
    ratio = statistics.median(times["jail"]) / statistics.median(times["in-process"])
    print(f"added per code step by the jail: {added:.2f} ms (ratio {ratio:.1f}x)")
    ok = added < TARGET_MS
    print(f"target: under {TARGET_MS:.0f} ms added per step -> {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
