"""Hand-made run directories for the replay and viewer tests: real files in the real layout.

Traces are written with the event classes of harness/trace.py, gold with harness/episode.py, scores
with harness/scoring/model.py, images as real PNG files under RunDir.assets_dir.
"""
from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

from harness.episode import Answer, Episode, EvidenceRef, Turn
from harness.rundir import RunDir
from harness.scoring.model import CostTotals, EpisodeScore, FailureLabel, TurnScore
from tools import EvidenceUnit
from harness.trace import EpisodeEnd, EpisodeStart, FinalAnswerEvent, ModelCall, ToolCallEvent, TokenUsage, TurnStart

INJECTION = '[bold red]markup[/] <img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>'


def png_bytes(width: int = 40, height: int = 24, rgb: tuple[int, int, int] = (40, 110, 200)) -> bytes:
    """A real RGB PNG (solid colour with a diagonal), decodable by any browser."""
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            row += bytes((255, 80, 0) if abs(x - y * width // height) < 2 else rgb)
        rows.append(bytes(row))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b"")


def outcome_of(i: int) -> str:
    """Which story episode i tells: success, perception failure or retrieve failure."""
    return "retrieve" if i % 5 == 4 else "perception" if i % 3 == 2 else "success"


def _episode(i: int) -> Episode:
    paper = f"P{i:03d}"
    return Episode(
        id=f"ep-{i:03d}", split="hard" if i % 2 else "easy", task_type="comparison", initiation="citation", area="ml",
        turns=[
            Turn(question=f"What accuracy does the model of {paper} reach in Figure 2?", answer=Answer(format="number", value=81.5, tolerance=0.5, unit="%"),
                 evidence=[EvidenceRef(paper=paper, unit="figure:2")]),
            Turn(question="Is that higher than the baseline in Table 1? Answer A (yes) or B (no).",
                 answer=Answer(format="choice", value="A", choices={"A": "yes", "B": "no"}),
                 evidence=[EvidenceRef(paper=paper, unit="table:1")], memory_only=True),
        ],
    )


def write_episode(rd: RunDir, ep: Episode, i: int, agent: str) -> EpisodeScore:
    """Write one trace (and its figure PNG) and return the score scoring would give it."""
    story = outcome_of(i)
    paper, other = ep.turns[0].evidence[0].paper, f"Q{i:03d}"
    found = other if story == "retrieve" else paper
    common = dict(run_id=rd.run_id, episode_id=ep.id)
    events: list = [EpisodeStart(**common, n_turns=2, split=ep.split, task_type=ep.task_type, initiation=ep.initiation, agent=agent)]
    tools = ["web_search", "pdf_extract", "pdf_rag", "figure_extract", "table_extract"]
    events.append(TurnStart(**common, turn=1, question=ep.turns[0].question, cue_text=f"cited as [{i}]", allowed_tools=tools, budget=10))
    events.append(ModelCall(**common, turn=1, step=1, usage=TokenUsage(input_tokens=100, output_tokens=20)))
    events.append(ToolCallEvent(**common, turn=1, step=1, tool="web_search", args={"query": f"paper {i} accuracy"},
                                reasoning=INJECTION if i == 0 else "search the cited paper",
                                result_summary=f"5 hits; best {found}", budget_left=9))
    events.append(ToolCallEvent(**common, turn=1, step=2, tool="table_extract", args={"paper": found, "table": 1},
                                result_summary="| model | acc |", provenance=[{"paper": found, "unit": "table:1", "page": 3}], budget_left=8))
    img_rel = None
    if story != "retrieve":
        assets = rd.assets_dir(ep.id)
        assets.mkdir(parents=True, exist_ok=True)
        (assets / "t1s3_figure2.png").write_bytes(png_bytes())
        img_rel = str((assets / "t1s3_figure2.png").relative_to(rd.path))
    events.append(ToolCallEvent(**common, turn=1, step=3, tool="figure_extract", args={"paper": found, "figure": 2},
                                result_summary="Figure 2: accuracy against training steps", images=[img_rel] if img_rel else [],
                                provenance=[{"paper": found, "unit": "figure:2", "page": 4}], budget_left=7))
    answer1 = "81.7" if story == "success" else "64"
    events.append(FinalAnswerEvent(**common, turn=1, step=4, answer=answer1, reasoning="read the last point of the curve"))
    events.append(TurnStart(**common, turn=2, question=ep.turns[1].question, allowed_tools=[], budget=0, memory_only=True))
    events.append(FinalAnswerEvent(**common, turn=2, step=1, answer="A"))
    events.append(EpisodeEnd(**common, tool_calls=3, model_calls=1, usage=TokenUsage(input_tokens=100, output_tokens=20)))
    rd.traces_dir.mkdir(parents=True, exist_ok=True)
    rd.trace_path(ep.id).write_text("".join(e.model_dump_json() + "\n" for e in events))

    acc1 = [EvidenceUnit(paper=found, unit="table:1"), EvidenceUnit(paper=found, unit="figure:2")]
    ok1 = story == "success"
    turns = [
        TurnScore(turn=1, ran=True, question=ep.turns[0].question, answer=answer1, answer_source="agent", answer_step=4,
                  gold="81.5 ± 0.5 %", format="number", correct=ok1, required=[EvidenceUnit(paper=paper, unit="figure:2")],
                  accessed=acc1, evidence_hit=int(found == paper), tool_calls=3),
        TurnScore(turn=2, ran=True, question=ep.turns[1].question, answer="A", answer_source="agent", answer_step=1,
                  gold="A (yes)", format="choice", correct=True, memory_only=True,
                  required=[EvidenceUnit(paper=paper, unit="table:1")], accessed=acc1, evidence_hit=int(found == paper)),
    ]
    failure = None
    if story == "perception":
        failure = FailureLabel(type="perception", turn=1, step=3, why=f"read 64 from {paper} figure:2; gold is 81.5")
    elif story == "retrieve":
        failure = FailureLabel(type="retrieve", turn=1, step=1, why=f"required paper {paper} was never reached")
    return EpisodeScore(episode_id=ep.id, split=ep.split, task_type=ep.task_type, initiation=ep.initiation, n_turns=2,
                        turns_run=2, status="completed", success=ok1, final_correct=True, turns=turns, tool_calls=3,
                        checklist_length=3, mg_ratio=1.0 if ok1 else None, failure=failure, agent=agent,
                        cost=CostTotals(input_tokens=100, output_tokens=20, total_tokens=120, model_calls=1, tool_calls=3))


def make_run(results: Path, run_id: str = "fixture-run", n: int = 6, *, agent: str = "heuristic", scored: bool = True) -> Path:
    """A complete run directory with n two-turn episodes; returns its path."""
    rd = RunDir(results / run_id)
    rd.path.mkdir(parents=True, exist_ok=True)
    episodes = [_episode(i) for i in range(n)]
    ep_file = results / f"{run_id}-episodes.jsonl"
    ep_file.write_text("".join(e.model_dump_json(exclude_none=True) + "\n" for e in episodes))
    rd.run_json.write_text(json.dumps({"run_id": run_id, "agent": agent, "episodes_path": str(ep_file)}))
    scores = [write_episode(rd, ep, i, agent) for i, ep in enumerate(episodes)]
    if scored:
        (rd.path / "episode_scores.jsonl").write_text("".join(s.model_dump_json() + "\n" for s in scores))
    return rd.path


def read_index(viewer: Path) -> dict:
    """The data of a built viewer's data/index.js."""
    text = (viewer / "data" / "index.js").read_text()
    assert text.startswith("window.EPI_INDEX = ") and text.rstrip().endswith(";")
    return json.loads(text[len("window.EPI_INDEX = "):].rstrip().rstrip(";"))
