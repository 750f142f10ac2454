"""Shared fixtures: one tiny sandbox (8 papers with its index) built once per test session, a small
episode file over it derived from the ground truth, and one oracle run over the whole default benchmark
on the built default sandbox (several must-shows read it; run once, not once per test module)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

TINY_PAPERS = 8
TINY_SEED = 11


@pytest.fixture(scope="session")
def tiny_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An 8-paper sandbox (PDFs, ground truth, catalog, search index) in a temp folder. Corpus v1: the agent
    and harness tests read its question templates (corpus v2 and its benchmark have their own tests)."""
    from sandbox.corpus.build import build_corpus

    root = tmp_path_factory.mktemp("tiny_sandbox")
    build_corpus(root, seed=TINY_SEED, n_papers=TINY_PAPERS, corpus="v1")
    return root


def episodes_from_ground_truth(root: Path, n: int = 4) -> list[dict]:
    """Small, correct episodes: find a paper by title, read a table cell, then recall it from memory."""
    from sandbox.corpus.build import load_ground_truth

    gt = load_ground_truth(root)
    out = []
    for p in gt.papers:
        if not p.tables:
            continue
        t = p.tables[0]
        row = t.rows[0]
        col = t.columns[1]
        value = row[1].replace("*", "").strip()
        out.append({
            "id": f"tiny-{p.id}", "split": "easy" if len(out) % 2 == 0 else "hard", "task_type": "comparison",
            "initiation": "direct_title", "area": p.area,
            "turns": [
                {"question": f"Find the paper titled \"{p.title}\". In which year was it published?",
                 "cue": {"text": p.title},
                 "answer": {"format": "number", "value": p.year, "tolerance": 0},
                 "evidence": [{"paper": p.id, "unit": "text"}],
                 "checklist": [{"tool": "web_search", "args": {"query": p.title}},
                               {"tool": "pdf_extract", "args": {"paper": p.id}}]},
                {"question": f"In Table {t.n} of that paper, what is the {col} of {row[0]}?",
                 "answer": {"format": "text", "value": value},
                 "evidence": [{"paper": p.id, "unit": f"table:{t.n}"}],
                 "checklist": [{"tool": "table_extract", "args": {"paper": p.id, "table": t.n}}]},
                {"question": f"From memory: what {col} did {row[0]} get in that table?",
                 "answer": {"format": "text", "value": value},
                 "evidence": [{"paper": p.id, "unit": f"table:{t.n}"}], "memory_only": True},
            ],
        })
        if len(out) == n:
            break
    return out


@pytest.fixture(scope="session")
def tiny_episodes(tiny_sandbox: Path) -> Path:
    path = tiny_sandbox / "tiny-episodes.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in episodes_from_ground_truth(tiny_sandbox)))
    return path


@pytest.fixture(scope="session")
def default_oracle_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real oracle over every episode of the default benchmark (`RunSettings`' default, so it follows
    the default when that changes) through the real runner, tools and built sandbox; scored like any run.
    Returns the run folder. Skips when the default sandbox is not built (CI builds it first)."""
    import asyncio

    from harness.agent import AgentConfig
    from harness.runner import run_episodes
    from harness.settings import RunSettings
    from sandbox import paths
    from sandbox.world import SandboxWorld

    if not (paths.sandbox_dir() / "index" / "ids.json").is_file():
        pytest.skip("the default sandbox is not built (`make sandbox`); CI builds it before the tests")
    settings = RunSettings(agent="oracle", results=tmp_path_factory.mktemp("oracle-default"), run_id="oracle-default",
                           concurrency=8, agent_config=AgentConfig())
    return Path(asyncio.run(run_episodes(settings, world=SandboxWorld())).run_dir)
