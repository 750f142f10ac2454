"""Must show (issue 17): on the default benchmark the oracle's redundancy is 0 and its efficiency 1.

The real oracle runs a few episodes of the default benchmark (whatever `RunSettings` uses by default,
so the test follows the default when it changes) through the real runner, the real tools and the built
sandbox; its traces are scored like any run and the process metrics are read back from the files.
The episodes are chosen to cover every tool the checklists use and every answer format.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.episodes_io import load_episodes
from harness.settings import RunSettings

pytestmark = pytest.mark.slow

DEFAULT_EPISODES = Path(RunSettings.model_fields["episodes"].default)


def covering_episodes(n_max: int = 6) -> list[str]:
    """Few episodes whose checklists together use every tool and whose answers use every format."""
    tools_seen: set[str] = set()
    formats_seen: set[str] = set()
    chosen: list[str] = []
    for e in load_episodes(DEFAULT_EPISODES).episodes:
        tools = {s.tool for t in e.turns for s in t.checklist}
        formats = {t.answer.format for t in e.turns}
        if tools - tools_seen or formats - formats_seen:
            chosen.append(e.id)
            tools_seen |= tools
            formats_seen |= formats
        if len(chosen) == n_max:
            break
    return chosen


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory) -> Path:  # noqa: ANN001
    import asyncio

    from harness.agent import AgentConfig
    from harness.runner import run_episodes
    from sandbox import paths
    from sandbox.world import SandboxWorld

    if not paths.catalog_path().is_file():
        pytest.skip("the default sandbox is not built (`make sandbox`); CI builds it before the tests")
    ids = covering_episodes()
    settings = RunSettings(agent="oracle", episodes=DEFAULT_EPISODES, results=tmp_path_factory.mktemp("oracle"),
                           run_id="oracle-process", episode_ids=ids, concurrency=2, agent_config=AgentConfig())
    summary = asyncio.run(run_episodes(settings, world=SandboxWorld()))
    return Path(summary.run_dir)


def test_the_oracle_wastes_no_call(oracle_run: Path):
    scores = json.loads((oracle_run / "scores.json").read_text())
    assert scores["uses_gold"] and scores["all"]["esr"] == 100.0
    p = scores["all"]["process"]
    assert p["episodes"] >= 3
    assert p["redundancy"] == 0.0 and p["efficiency"] == 1.0
    assert p["repeated_calls"] == 0 and p["reread_units"] == 0
    rows = [json.loads(x) for x in (oracle_run / "episode_scores.jsonl").read_text().splitlines()]
    gold = {e.id: e for e in load_episodes(DEFAULT_EPISODES).episodes}
    for e in rows:
        proc = e["process"]
        assert proc["executed_calls"] == e["checklist_length"] > 0
        assert (proc["redundancy"], proc["efficiency"]) == (0.0, 1.0), e["episode_id"]
        assert proc["reformulations"] == 0
        for t in proc["turns"]:
            need = {u.paper for u in gold[e["episode_id"]].turns[t["turn"] - 1].evidence}
            if t["queries"]:  # its searches really listed the papers the turn needs, not only followed the checklist
                assert need <= set(t["papers_surfaced"]), (e["episode_id"], t["turn"])
            if t["memory_only"]:
                assert t["reuse"] == 1.0, (e["episode_id"], t["turn"])  # it had every required unit in memory
    assert {s.tool for e in rows for t in gold[e["episode_id"]].turns for s in t.checklist} >= {
        "web_search", "table_extract", "figure_extract", "pdf_extract"}
    assert {t["format"] for e in rows for t in e["turns"]} == {"number", "choice", "text", "set"}
