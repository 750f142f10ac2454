"""Shared pieces for agent tests: a tiny in-memory world (search only), episode files, the scripted
model server, and a helper that runs agents end to end through harness.runner.run_episodes."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

import pytest

from harness.agent import AgentConfig
from harness.rundir import RunDir
from sandbox.model_server import ScriptedModelServer
from tools import World
from tools._world import PaperMeta, PaperNotFound, SearchHit

os.environ.setdefault("HF_HUB_OFFLINE", "1")

PAPERS = {
    "P001": ("Sparse Mixture Routing for Long Documents", "We route tokens among experts for long inputs."),
    "P002": ("Contrastive Pretraining of Chart Readers", "Chart images paired with their data tables."),
    "P003": ("Budgeted Tool Use in Research Agents", "Agents that plan tool calls under a step budget."),
}
NON_SEARCH_TOOLS = ["pdf_extract", "pdf_rag", "figure_extract", "table_extract"]


class TinyWorld(World):
    """Three papers, word-overlap search; PDFs are not available (tests use web_search only)."""

    name = "tiny"

    def __init__(self, cache_dir: Path):
        super().__init__(cache_dir)

    async def search(self, query: str, k: int) -> list[SearchHit]:
        words = set(query.lower().split())
        scored = []
        for pid, (title, abstract) in PAPERS.items():
            score = len(words & set((title + " " + abstract).lower().split()))
            scored.append((score, pid, title, abstract))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [SearchHit(title=t, url=f"https://sandbox.local/papers/{p}", snippet=a, score=float(s), paper_id=p)
                for s, p, t, a in scored[:k]]

    async def resolve(self, ref: str) -> PaperMeta:
        if ref not in PAPERS:
            raise PaperNotFound(f"no paper {ref!r}")
        return PaperMeta(id=ref, title=PAPERS[ref][0])

    async def pdf_bytes(self, paper: PaperMeta) -> bytes:
        raise OSError("the tiny world has no PDFs")


def two_turn_episode(ep_id: str = "ep-search-1") -> dict[str, Any]:
    return {
        "id": ep_id, "split": "easy", "task_type": "comparison", "initiation": "direct_title", "area": "ml",
        "turns": [
            {"question": "Which paper studies chart readers? Give its title.",
             "cue": {"text": "a paper on contrastive pretraining of chart readers"},
             "answer": {"format": "text", "value": "Contrastive Pretraining of Chart Readers"},
             "checklist": [{"tool": "web_search", "args": {"query": "contrastive pretraining chart readers"}}]},
            {"question": "Is the paper from turn 1 about charts? Answer A (yes) or B (no).",
             "memory_only": True,
             "answer": {"format": "choice", "value": "A", "choices": {"A": "yes", "B": "no"}}},
        ],
    }


def write_episodes(path: Path, episodes: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in episodes), encoding="utf-8")
    return path


@pytest.fixture
def episodes_file(tmp_path: Path) -> Path:
    return write_episodes(tmp_path / "eps.jsonl", [two_turn_episode()])


def server_factory(strict: str | None = None) -> Iterator[Any]:
    """model_server(items, default=None) -> a started ScriptedModelServer (stopped after the test); `strict`
    names the server profile it checks requests against (sandbox/server_profiles.py)."""
    started: list[ScriptedModelServer] = []

    def make(items: list[dict[str, Any]], default: dict[str, Any] | None = None) -> ScriptedModelServer:
        from sandbox.model_server import Script, ScriptItem

        script = Script(responses=[ScriptItem.model_validate(i) for i in items])
        if default is not None:
            script.default = ScriptItem.model_validate(default)
        srv = ScriptedModelServer(script, strict=strict).start()
        started.append(srv)
        return srv

    yield make
    for s in started:
        s.stop()


@pytest.fixture
def model_server() -> Iterator[Any]:
    """A factory: model_server(items, default=None) -> a started ScriptedModelServer (stopped after the test)."""
    yield from server_factory()


@pytest.fixture
def strict_server() -> Iterator[Any]:
    """The same factory, its servers checking requests as llama-cpp-python's server does (issue 27)."""
    yield from server_factory("llama-cpp")


@pytest.fixture
def api_key_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("EPI_TEST_KEY", "sk-test")
    return "EPI_TEST_KEY"


def agent_config(server: ScriptedModelServer, key_env: str, **kw: Any) -> AgentConfig:
    extra = {"retry_base_s": 0.05, "retry_max_wait_s": 0.5, **kw.pop("extra", {})}
    return AgentConfig(model="scripted-model", base_url=server.base_url, api_key_env=key_env,
                       request_timeout_s=kw.pop("request_timeout_s", 5.0), max_retries=kw.pop("max_retries", 3),
                       extra=extra, **kw)


async def run_agent(agent: str, config: AgentConfig, episodes: Path, results: Path, *, max_steps: int = 4,
                    world: World | None = None, **kw: Any) -> tuple[Any, RunDir]:
    """Run `agent` over `episodes` with the real runner (web_search only unless a world says otherwise)."""
    from harness.runner import run_episodes
    from harness.settings import RunSettings

    settings = RunSettings(
        agent=agent, episodes=episodes, results=results, run_id=kw.pop("run_id", "r1"), max_steps=max_steps,
        disable_tools=kw.pop("disable_tools", NON_SEARCH_TOOLS), concurrency=1, score=kw.pop("score", False),
        agent_config=config, **kw,
    )
    summary = await run_episodes(settings, world=world or TinyWorld(results / "cache"))
    rd = RunDir(summary.run_dir)
    # a built-in agent keeps to the protocol: the harness's outside checks (issue 28) never fire on it
    flagged = [p.name for p in rd.traces_dir.rglob("*.jsonl") if '"kind":"agent_check"' in p.read_text().replace(" ", "")]
    assert not flagged, f"{agent}: agent_check events in {flagged}"
    return summary, rd


def events(rd: RunDir, episode_id: str, kind: str | None = None) -> list[Any]:
    tr = rd.read_trace(episode_id)
    assert not tr.bad_lines and tr.complete, f"trace of {episode_id} is incomplete or has bad lines"
    return [e for e in tr.events if kind is None or e.kind == kind]
