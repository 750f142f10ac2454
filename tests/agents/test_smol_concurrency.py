"""smolagents turns at a concurrency above asyncio's default thread pool (min(32, CPUs + 4) threads): every episode
finishes. A turn holds its thread while its tools run, and the sandbox's search runs in that pool; turns in the same
pool once took every thread and the runs hung (issue 29's sweep of openai and smol-tools cells at -j 16)."""
from __future__ import annotations

import asyncio
import os

from harness.runner import run_episodes
from harness.settings import RunSettings
from sandbox.model_server import Script, ScriptedModelServer, ToolLoop

from .conftest import NON_SEARCH_TOOLS, TinyWorld, agent_config, two_turn_episode, write_episodes


class ThreadedSearchWorld(TinyWorld):
    """TinyWorld whose search runs in asyncio's default thread pool, as the sandbox world's does."""

    async def search(self, query, k):  # noqa: ANN001, ANN201 - the World signature
        hits = await super().search(query, k)
        return await asyncio.to_thread(lambda: hits)


async def test_more_smol_episodes_at_once_than_the_default_pool_has_threads(api_key_env, tmp_path):
    pool = min(32, (os.cpu_count() or 1) + 4)  # asyncio's default executor
    n = pool + 2
    episodes = write_episodes(tmp_path / "eps.jsonl", [two_turn_episode(f"ep-{i}") for i in range(n)])
    loop = ToolLoop(tool="web_search", calls=1, arguments={"query": "{question}"}, content="Final answer: A",
                    delay_s=0.2)
    with ScriptedModelServer(Script(loop=loop)) as srv:
        settings = RunSettings(agent="smol-tools", episodes=episodes, results=tmp_path / "res", run_id="r", max_steps=3,
                               disable_tools=NON_SEARCH_TOOLS, concurrency=n, score=False,
                               agent_config=agent_config(srv, api_key_env))
        summary = await asyncio.wait_for(run_episodes(settings, world=ThreadedSearchWorld(tmp_path / "cache")), 120)
    assert len(summary.outcomes) == n
    assert all(o.status == "completed" for o in summary.outcomes), [o.status for o in summary.outcomes]
