"""End to end without the sandbox: the real runner drives the real oracle agent over a tiny world, and
scoring its traces gives exactly ESR 100, EC 100 and MG 1.0 in every split (the harness self-test)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from agents.oracle import OracleAgent
from harness.agent import AgentConfig
from harness.episode import Episode
from harness.episode_runner import EpisodeRunner
from harness.rundir import RunDir
from harness.scoring import score_run
from harness.session import RateLimiter
from harness.settings import RunSettings
from tools import EvidenceUnit, ToolResult, World, tool

from ..fakes import NullWorld as TinyWorld
from ..fakes import text_of as pdf_extract


@tool
async def figure_extract(world: World, paper: str, figure: int) -> ToolResult:
    """A figure of a paper.

    Args:
        paper: paper id
        figure: figure number
    """
    return ToolResult(text=f"figure {figure}", provenance=[EvidenceUnit(paper=paper, unit=f"figure:{figure}", page=2)])


@tool
async def table_extract(world: World, paper: str, table: int) -> ToolResult:
    """A table of a paper.

    Args:
        paper: paper id
        table: table number
    """
    return ToolResult(text=f"table {table}", provenance=[EvidenceUnit(paper=paper, unit=f"table:{table}", page=3)])


def _ep(eid: str, split: str, final: dict, final_evidence: list[tuple[str, str]]) -> dict:
    return {
        "id": eid, "split": split, "task_type": "comparison", "initiation": "citation", "area": "ml",
        "turns": [
            {"question": "Which value does Table 2 of P1 report?", "answer": {"format": "number", "value": 0.1},
             "evidence": [{"paper": "P1", "unit": "table:2"}],
             "checklist": [{"tool": "pdf_extract", "args": {"paper": "P1"}},
                           {"tool": "table_extract", "args": {"paper": "P1", "table": 2}}]},
            {"question": "And Figure 1 of P2?", "answer": {"format": "choice", "value": "C", "choices": {"A": "x", "B": "y", "C": "z"}},
             "evidence": [{"paper": "P2", "unit": "figure:1"}],
             "checklist": [{"tool": "figure_extract", "args": {"paper": "P2", "figure": 1}}]},
            {"question": "Combine them.", "answer": final, "memory_only": True,
             "evidence": [{"paper": p, "unit": u} for p, u in final_evidence]},
        ],
    }


async def test_oracle_run_scores_exactly_100_100_1(tmp_path: Path):
    raw = [
        _ep("O1", "easy", {"format": "set", "value": ["Smith, J.", "ResNet-50"]}, [("P1", "table:2"), ("P2", "figure:1")]),
        _ep("O2", "easy", {"format": "number", "value": 1250, "unit": "%"}, [("P1", "table:2")]),
        _ep("O3", "hard", {"format": "text", "value": "The Transformer"}, [("P2", "figure:1"), ("P1", "text")]),
    ]
    ep_file = tmp_path / "episodes.jsonl"
    ep_file.write_text("".join(json.dumps(e) + "\n" for e in raw))
    rd = RunDir(tmp_path / "results" / "oracle-run")
    rd.traces_dir.mkdir(parents=True)
    settings = RunSettings(agent="oracle", episodes=ep_file, max_steps=10)
    rd.run_json.write_text(json.dumps({
        "run_id": rd.run_id, "agent": "oracle", "settings": json.loads(settings.model_dump_json()), "max_steps": 10,
        "final_turn_tools": False, "disable_tools": [], "episodes_path": str(ep_file),
        "episodes_sha256": hashlib.sha256(ep_file.read_bytes()).hexdigest(),
    }))
    runner = EpisodeRunner(
        settings=settings, world=TinyWorld(tmp_path),
        tools={"pdf_extract": pdf_extract, "figure_extract": figure_extract, "table_extract": table_extract},
        run_dir=rd, limiter=RateLimiter(None), episodes_dir=tmp_path, make_agent=lambda: OracleAgent(AgentConfig()),
    )
    for e in raw:
        await runner.run(Episode.model_validate(e))
    s = score_run(rd.path)
    for split in ("easy", "hard", "all"):
        x = s.split(split)
        assert (x.esr, x.acc_final, x.acc_pre, x.ec, x.mg, x.max_steps_rate) == (100.0, 100.0, 100.0, 100.0, 1.0, 0.0), split
        assert x.failures.total() == 0
    assert s.uses_gold and s.all.tool_calls == 9 and s.buckets.total() == 0 and not s.truncated_episodes
    assert "oracle: answers with gold labels, a self-test of the harness" in rd.report_md.read_text()
