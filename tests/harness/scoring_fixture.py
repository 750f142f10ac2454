"""Hand-written run directories for the scoring tests: episodes as dicts, traces built from trace.py events."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from harness.trace import (
    BudgetExhausted, EpisodeEnd, EpisodeStart, ErrorEvent, FinalAnswerEvent, ModelCall, Retry, TokenUsage,
    ToolCallEvent, TurnStart,
)


class TraceBuilder:
    """Builds one episode's events in order; ts advances 1 s per event so wall time is predictable."""

    def __init__(self, episode_id: str, *, split: str = "easy", n_turns: int = 2, agent: str = "fixture",
                 uses_gold: bool = False, run_id: str = "fixture-run"):
        self.ep, self.run_id, self.events, self.ts = episode_id, run_id, [], 1000.0
        self.turn_no, self.step = 0, 0
        self._add(EpisodeStart, n_turns=n_turns, split=split, task_type="comparison", initiation="citation",
                  agent=agent, uses_gold=uses_gold)

    def _add(self, cls: type, **kw: Any) -> "TraceBuilder":
        self.events.append(cls(run_id=self.run_id, episode_id=self.ep, turn=self.turn_no, step=self.step, ts=self.ts, **kw))
        self.ts += 1.0
        return self

    def turn(self, question: str = "Q?", *, memory_only: bool = False, budget: int = 10,
             tools: list[str] | None = None) -> "TraceBuilder":
        """`tools`: the tools offered (default: none on a memory-only turn, else pdf_extract)."""
        self.turn_no += 1
        self.step = 0
        offered = tools if tools is not None else ([] if memory_only else ["pdf_extract"])
        return self._add(TurnStart, question=question, allowed_tools=offered, budget=budget, memory_only=memory_only)

    def model(self, inp: int, out: int) -> "TraceBuilder":
        return self._add(ModelCall, model="m", usage=TokenUsage(input_tokens=inp, output_tokens=out))

    def call(self, tool: str, *units: tuple[str, str], error: str | None = None, error_kind: str | None = None,
             args: dict | None = None, text: str | None = None) -> "TraceBuilder":
        """One step; `args` and `text` (what the tool showed) are for the process metrics."""
        self.step += 1
        prov = [{"paper": p, "unit": u, "page": 1, "bbox": None} for p, u in units]
        return self._add(ToolCallEvent, tool=tool, provenance=prov, error=error, error_kind=error_kind,
                         args=args or {}, result_text=text)

    def refused(self, tool: str) -> "TraceBuilder":
        """A call the session refused (tool not offered, or the pseudo-call for an empty reply): a step, not a tool call."""
        return self.call(tool, error=f"tool {tool!r} is not available", error_kind="refused")

    def exhausted(self, budget: int) -> "TraceBuilder":
        return self._add(BudgetExhausted, budget=budget)

    def answer(self, text: str | None, source: str = "agent") -> "TraceBuilder":
        self.step += 1
        return self._add(FinalAnswerEvent, answer=text, source=source)

    def retry(self) -> "TraceBuilder":
        return self._add(Retry, attempt=1, error="HTTP 503", wait_s=1.0)

    def error(self, bucket: str, message: str) -> "TraceBuilder":
        return self._add(ErrorEvent, bucket=bucket, message=message)

    def end(self, status: str = "completed", bucket: str | None = None) -> "TraceBuilder":
        return self._add(EpisodeEnd, status=status, bucket=bucket)

    def lines(self) -> list[str]:
        return [e.model_dump_json() for e in self.events]


def turn(question: str, answer: dict, evidence: list[tuple[str, str]], *, checklist: int = 0, memory_only: bool = False) -> dict:
    return {
        "question": question, "answer": answer, "memory_only": memory_only,
        "evidence": [{"paper": p, "unit": u} for p, u in evidence],
        "checklist": [{"tool": "pdf_extract", "args": {"paper": "P"}} for _ in range(checklist)],
    }


def episode(eid: str, split: str, turns: list[dict]) -> dict:
    return {"id": eid, "split": split, "task_type": "comparison", "initiation": "citation", "area": "ml", "turns": turns}


def write_run(root: Path, episodes: list[dict], traces: dict[str, list[str]], *, run_id: str = "fixture-run",
              config: dict | None = None) -> Path:
    """results/<run_id>/{run.json, traces/*.jsonl} plus the episode file beside it; returns the run dir."""
    ep_file = root / "episodes.jsonl"
    ep_file.write_text("".join(json.dumps(e) + "\n" for e in episodes))
    run = root / "results" / run_id
    (run / "traces").mkdir(parents=True)
    cfg = {"run_id": run_id, "agent": "fixture", "model": None, "max_steps": 10, "final_turn_tools": False,
           "disable_tools": [], "episodes_path": str(ep_file),
           "episodes_sha256": hashlib.sha256(ep_file.read_bytes()).hexdigest(), "settings": {"agent": "fixture"}}
    cfg.update(config or {})
    (run / "run.json").write_text(json.dumps(cfg))
    for eid, lines in traces.items():
        (run / "traces" / f"{eid}.jsonl").write_text("".join(line + "\n" for line in lines))
    return run


NUM = {"format": "number", "value": 35.2, "unit": "%"}
CHOICE_A = {"format": "choice", "value": "A", "choices": {"A": "higher", "B": "lower"}}
CHOICE_C = {"format": "choice", "value": "C", "choices": {"A": "one", "B": "two", "C": "three"}}


def main_run(root: Path) -> Path:
    """Four episodes whose metrics are worked out by hand in test_scoring_metrics.py."""
    eps = [
        episode("E1", "easy", [
            turn("t1", NUM, [("P001", "table:2")], checklist=2),
            turn("t2", {"format": "text", "value": "ResNet-50", "aliases": ["ResNet50"]},
                 [("P001", "table:2"), ("P001", "text")], memory_only=True),
        ]),
        episode("E2", "easy", [
            turn("t1", CHOICE_A, [("P002", "figure:1")], checklist=1),
            turn("t2", {"format": "set", "value": ["X", "Y"]}, [("P002", "figure:1"), ("P003", "table:1")], checklist=1),
        ]),
        episode("E3", "hard", [
            turn("t1", {"format": "number", "value": 0.5, "tolerance": 0.01}, [("P004", "text")], checklist=1),
            turn("t2", {"format": "text", "value": "BLEU"}, [("P004", "table:1")], checklist=2),
            turn("t3", CHOICE_C, [("P004", "text"), ("P004", "table:1")], memory_only=True),
        ]),
        episode("E4", "hard", [
            turn("t1", CHOICE_A, [("P005", "figure:2")], checklist=1),
            turn("t2", CHOICE_A, [("P005", "figure:2")], memory_only=True),
        ]),
    ]
    e1 = (TraceBuilder("E1").turn().model(100, 10).call("web_search").call("pdf_extract", ("P001", "text"))
          .call("table_extract", ("P001", "table:2")).model(200, 20).answer("Answer: 35.2 %")
          .turn(memory_only=True).model(300, 30).answer("resnet50").end())
    e2 = (TraceBuilder("E2").turn().model(50, 5).call("figure_extract", ("P002", "figure:1")).call("web_search")
          .answer("(A)").turn().model(60, 6).call("table_extract", ("P003", "table:1")).answer("X; Z").end())
    e3 = (TraceBuilder("E3", split="hard", n_turns=3).turn().model(10, 1).call("pdf_rag", ("P004", "text")).answer("0.505")
          .turn(budget=2).model(10, 1).call("pdf_rag", ("P004", "text")).call("pdf_rag", ("P004", "text"))
          .exhausted(2).model(10, 1).answer(None, source="budget_fallback")
          .turn(memory_only=True).model(10, 1).answer("C").end())
    e4 = (TraceBuilder("E4", split="hard").turn().retry().model(7, 0).error("provider", "HTTP 503 after 4 retries")
          .answer(None, source="none").end(status="failed", bucket="provider"))
    traces = {b.ep: b.lines() for b in (e1, e2, e3, e4)}
    return write_run(root, eps, traces)
