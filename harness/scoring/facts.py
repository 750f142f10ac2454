"""Read one episode's trace into per-turn facts: answers, evidence touched, budget, errors and cost.

This is the only module of scoring that looks at raw trace events; everything downstream (metrics,
attribution, reports) works on these facts. A truncated trace yields facts as far as it goes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from harness.rundir import RunDir, TraceRead
from harness.trace import (
    BudgetExhausted, EpisodeEnd, EpisodeStart, ErrorEvent, FinalAnswerEvent, LimitHit, ModelCall, ToolCallEvent,
    TurnStart,
)

from .model import BUCKETS, CostTotals, UnitRef


@dataclass
class CallFact:
    """One tool call: where it happened and the units it exposed (none if it errored)."""

    step: int
    tool: str
    units: list[UnitRef]
    error: str | None = None
    error_kind: str | None = None


@dataclass
class TurnFacts:
    turn: int
    question: str = ""
    memory_only: bool = False
    started: bool = False
    calls: list[CallFact] = field(default_factory=list)
    budget_exhausted: bool = False
    budget_step: int = 0
    limit_hit: bool = False
    answered: bool = False
    answer: str | None = None
    answer_source: str = "none"
    answer_step: int = 0
    errors: list[ErrorEvent] = field(default_factory=list)

    @property
    def units_this_turn(self) -> list[UnitRef]:
        """Union of provenance units of this turn's calls that did not error, in first-seen order."""
        seen: dict[tuple[str, str], UnitRef] = {}
        for c in self.calls:
            if c.error is None:
                for u in c.units:
                    seen.setdefault(u.key, u)
        return list(seen.values())

    @property
    def last_step(self) -> int:
        steps = [c.step for c in self.calls] + [self.answer_step, self.budget_step]
        return max(steps) if steps else 0


@dataclass
class EpisodeFacts:
    episode_id: str
    start: EpisodeStart | None = None
    end: EpisodeEnd | None = None
    turns: dict[int, TurnFacts] = field(default_factory=dict)
    errors: list[ErrorEvent] = field(default_factory=list)
    cost: CostTotals = field(default_factory=CostTotals)
    tool_call_count: int = 0
    missing: bool = False
    truncated: bool = False
    bad_lines: list[int] = field(default_factory=list)

    def turn(self, t: int) -> TurnFacts:
        return self.turns.setdefault(t, TurnFacts(turn=t))

    @property
    def turns_run(self) -> int:
        return sum(1 for tf in self.turns.values() if tf.started or tf.answered or tf.calls)

    def memory_before(self, t: int) -> list[UnitRef]:
        """Every unit the episode's memory held when turn t began (all provenance of earlier turns)."""
        seen: dict[tuple[str, str], UnitRef] = {}
        for k in sorted(self.turns):
            if k >= t:
                break
            for u in self.turns[k].units_this_turn:
                seen.setdefault(u.key, u)
        return list(seen.values())

    def infra_bucket(self) -> str | None:
        """The infrastructure bucket the episode ended in (provider, data_access, pipeline), if any."""
        b = self.reason_bucket(default=None)
        return b if b in ("provider", "data_access", "pipeline") else None

    def reason_bucket(self, default: str | None = "model") -> str | None:
        """First match wins over provider, data_access, pipeline, model (MMDR-Bench A.5).

        Signals: episode_end.bucket and error events; a data_access tool error on a turn left without an
        answer; a missing or truncated trace is our pipeline's fault unless an error event says otherwise.
        """
        found = {e.bucket for e in self.errors}
        if self.end is not None and self.end.bucket:
            found.add(self.end.bucket)
        for tf in self.turns.values():
            if tf.answer is None and any(c.error_kind == "data_access" for c in tf.calls):
                found.add("data_access")
        if self.missing or self.truncated:
            found.add("pipeline")
        for b in BUCKETS:
            if b in found and b != "model":
                return b
        return "model" if "model" in found else default


def _units(prov: list[dict]) -> list[UnitRef]:
    out = []
    for p in prov:
        paper, unit = p.get("paper"), p.get("unit")
        if isinstance(paper, str) and isinstance(unit, str):
            out.append(UnitRef(paper=paper, unit=unit))
    return out


def _only_trailing_garbage(trace: TraceRead) -> bool:
    """True when the trace is complete (ends with episode_end) and every unreadable line comes after it:
    nothing of the episode is lost, so it is scored in full and only flagged (bad_lines), not truncated.
    With no blank lines in the file, a bad line before episode_end has a line number <= len(events)."""
    return trace.complete and min(trace.bad_lines) > len(trace.events)


def read_facts(trace: TraceRead) -> EpisodeFacts:
    """Collect the facts of one trace; events after a turn's final_answer still count for their turn."""
    facts = EpisodeFacts(episode_id=trace.episode_id, missing=trace.missing, truncated=trace.truncated,
                         bad_lines=list(trace.bad_lines))
    if trace.bad_lines and not _only_trailing_garbage(trace):
        facts.truncated = True  # events may be lost mid-trace: scored as far as it goes, bucket pipeline
    in_tok = out_tok = model_calls = 0
    first_ts: float | None = None
    last_ts: float | None = None
    for ev in trace.events:
        first_ts = ev.ts if first_ts is None else first_ts
        last_ts = ev.ts + (ev.duration_s or 0.0)
        if isinstance(ev, EpisodeStart):
            facts.start = ev
            first_ts = ev.ts
        elif isinstance(ev, TurnStart):
            tf = facts.turn(ev.turn)
            tf.started, tf.question, tf.memory_only = True, ev.question, ev.memory_only
        elif isinstance(ev, ToolCallEvent):
            facts.tool_call_count += 1
            facts.turn(ev.turn).calls.append(
                CallFact(step=ev.step, tool=ev.tool, units=_units(ev.provenance), error=ev.error, error_kind=ev.error_kind)
            )
        elif isinstance(ev, BudgetExhausted):
            tf = facts.turn(ev.turn)
            tf.budget_exhausted, tf.budget_step = True, ev.step
        elif isinstance(ev, LimitHit):
            facts.turn(ev.turn).limit_hit = True
        elif isinstance(ev, FinalAnswerEvent):
            tf = facts.turn(ev.turn)
            tf.answered, tf.answer, tf.answer_source, tf.answer_step = True, ev.answer, ev.source, ev.step
        elif isinstance(ev, ModelCall):
            model_calls += 1
            in_tok += ev.usage.input_tokens
            out_tok += ev.usage.output_tokens
        elif isinstance(ev, ErrorEvent):
            facts.errors.append(ev)
            if ev.turn:
                facts.turn(ev.turn).errors.append(ev)
        elif isinstance(ev, EpisodeEnd):
            facts.end = ev
    if facts.end is not None:  # the runner's own totals win when the trace lacks per-call events
        in_tok = max(in_tok, facts.end.usage.input_tokens)
        out_tok = max(out_tok, facts.end.usage.output_tokens)
        model_calls = max(model_calls, facts.end.model_calls)
        last_ts = facts.end.ts
    wall = (last_ts - first_ts) if (first_ts is not None and last_ts is not None) else 0.0
    facts.cost = CostTotals(
        input_tokens=in_tok, output_tokens=out_tok, total_tokens=in_tok + out_tok, model_calls=model_calls,
        tool_calls=facts.tool_call_count, wall_time_s=max(0.0, wall),
    )
    return facts


def read_episode_trace(rd: RunDir, episode_id: str) -> TraceRead:
    """The episode's trace, or its unfinished `.part` file after a crash (scored as far as it went)."""
    return rd.read_trace(episode_id, include_partial=True)
