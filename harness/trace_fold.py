"""A trace folded into turns: the one reading of trace events that scoring, replay and the viewer share.

`fold_trace` walks an episode's events once and files each under its turn: the turn's start, its tool
calls (executed or refused), its model steps that called no tool, model calls and their token usage,
retries, errors, budget and limit events, memory compactions and its final answer, plus every event
in trace order for display. Evidence accounting lives here too: the units a turn exposed and the
units the episode's memory still held for a turn (a summary memory mode's `memory_compacted` event
takes the units it dropped out of memory). Model requests are rebuilt here too (`EpisodeFold.requests`,
`TurnFold.request`): a v4 call stores only its new messages, so its request depends on the calls
before it, in any turn. A truncated trace folds as far as it goes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from tools import EvidenceUnit

from .rundir import TraceRead
from .trace import (
    BudgetExhausted, EpisodeEnd, EpisodeStart, ErrorEvent, FinalAnswerEvent, LimitHit, MemoryCompacted, ModelCall,
    NoToolStep, Retry, TokenUsage, ToolCallEvent, TraceEvent, TurnStart,
)
from .trace_store import RequestIndex


def unique_units(units: Iterable[EvidenceUnit]) -> list[EvidenceUnit]:
    """Units in first-seen order, one per (paper, unit) key."""
    seen: dict[tuple[str, str], EvidenceUnit] = {}
    for u in units:
        seen.setdefault(u.key, u)
    return list(seen.values())


def is_malformed(call: ToolCallEvent) -> bool:
    """A call the model wrote wrong (arguments not JSON, or failing the tool's schema), so not run. A call past
    the budget is refused whatever its arguments."""
    return not call.executed and call.counted and (call.raw_arguments is not None or call.error_kind == "bad_arguments")


@dataclass
class TurnFold:
    """Everything the trace says about one turn."""

    turn: int
    start: TurnStart | None = None
    events: list[TraceEvent] = field(default_factory=list)  # this turn's events in trace order
    calls: list[ToolCallEvent] = field(default_factory=list)
    no_tool_steps: list[NoToolStep] = field(default_factory=list)  # model steps that called no tool
    compactions: list[MemoryCompacted] = field(default_factory=list)
    model_calls: list[ModelCall] = field(default_factory=list)  # requests answered (failed attempts apart)
    failed_model_calls: list[ModelCall] = field(default_factory=list)  # requests the provider answered with an error
    retries: list[Retry] = field(default_factory=list)
    errors: list[ErrorEvent] = field(default_factory=list)
    budget: BudgetExhausted | None = None
    limit: LimitHit | None = None
    answer: FinalAnswerEvent | None = None
    requests: RequestIndex = field(default_factory=RequestIndex, repr=False)  # the episode's, shared

    def request(self, i: int, images_dir: Path | None = None) -> dict[str, Any]:
        """The request of this turn's i-th model call (0-based) as JSON data, images as data URLs when
        `images_dir` (RunDir.assets_dir) is given."""
        return self.requests.request(self.requests.number_of(self.model_calls[i]), images_dir)

    @property
    def ran(self) -> bool:
        return self.start is not None or self.answer is not None or bool(self.calls)

    @property
    def memory_only(self) -> bool:
        return bool(self.start and self.start.memory_only)

    @property
    def tools_offered(self) -> list[str]:
        return list(self.start.allowed_tools) if self.start else []

    @property
    def executed_calls(self) -> list[ToolCallEvent]:
        """Tool calls that ran (c_i counts these); refused calls are steps only."""
        return [c for c in self.calls if c.executed]

    @property
    def malformed_calls(self) -> list[ToolCallEvent]:
        """Calls the model wrote wrong, not run: arguments that are not JSON or fail the tool's schema."""
        return [c for c in self.calls if is_malformed(c)]

    @property
    def refused_calls(self) -> list[ToolCallEvent]:
        """Well-formed calls the session's rules refused, not run: a tool not offered, a call past the budget.
        (Malformed calls and model steps without a tool call are counted apart.)"""
        return [c for c in self.calls if not c.executed and not is_malformed(c)]

    @property
    def dropped(self) -> set[tuple[str, str]]:
        """Keys of the units a memory compaction in this turn took out of the model's view."""
        return {u.key for c in self.compactions for u in c.dropped}

    @property
    def exposed(self) -> list[EvidenceUnit]:
        """Units this turn's calls put in front of the agent (executed, no error), first-seen order."""
        return unique_units(u for c in self.calls for u in c.exposed)

    @property
    def usage(self) -> TokenUsage:
        total = TokenUsage()
        for m in self.model_calls:
            total = total + m.usage
        return total

    @property
    def answer_text(self) -> str | None:
        return self.answer.answer if self.answer else None

    @property
    def answer_source(self) -> str:
        return self.answer.source if self.answer else "none"

    @property
    def answer_step(self) -> int:
        return self.answer.step if self.answer else 0

    @property
    def budget_exhausted(self) -> bool:
        return self.budget is not None

    def last_step_exposing(self, key: tuple[str, str]) -> int:
        """Step of the last call of this turn that exposed the unit `key` (0 if none)."""
        steps = [c.step for c in self.calls if any(u.key == key for u in c.exposed)]
        return max(steps) if steps else 0


@dataclass
class EpisodeFold:
    """An episode's trace by turn, with what the file itself was like (missing, truncated, bad lines)."""

    episode_id: str
    start: EpisodeStart | None = None
    end: EpisodeEnd | None = None
    turns: dict[int, TurnFold] = field(default_factory=dict)
    errors: list[ErrorEvent] = field(default_factory=list)
    events: list[TraceEvent] = field(default_factory=list)
    missing: bool = False
    truncated: bool = False
    bad_lines: list[int] = field(default_factory=list)
    requests: RequestIndex = field(default_factory=RequestIndex, repr=False)

    def turn(self, t: int) -> TurnFold:
        """Turn t's record (an empty one if the trace never reached it; not stored)."""
        return self.turns.get(t) or TurnFold(turn=t, requests=self.requests)

    def _slot(self, t: int) -> TurnFold:
        return self.turns.setdefault(t, TurnFold(turn=t, requests=self.requests))

    def memory_before(self, t: int) -> list[EvidenceUnit]:
        """The units of earlier turns the model still had in turn t: every exposure of turns before t, less
        what a memory compaction (summary mode) dropped before or during turn t and nothing re-exposed."""
        held: dict[tuple[str, str], EvidenceUnit] = {}
        for k in sorted(self.turns):
            if k > t:
                break
            for ev in self.turns[k].events:
                if isinstance(ev, MemoryCompacted):
                    for u in ev.dropped:
                        held.pop(u.key, None)
                elif k < t and isinstance(ev, ToolCallEvent):
                    for u in ev.exposed:
                        held.setdefault(u.key, u)
        return list(held.values())

    def first_exposure(self, key: tuple[str, str]) -> int | None:
        """The first turn whose calls exposed the unit `key`, or None."""
        for k in sorted(self.turns):
            if any(u.key == key for u in self.turns[k].exposed):
                return k
        return None

    @property
    def ordered_turns(self) -> list[TurnFold]:
        return [self.turns[k] for k in sorted(self.turns)]

    @property
    def tool_calls(self) -> int:
        """Executed tool calls of the episode (c_i)."""
        return sum(len(t.executed_calls) for t in self.turns.values())

    @property
    def refused_calls(self) -> int:
        """Well-formed calls of the episode the session's rules refused (not offered, past the budget)."""
        return sum(len(t.refused_calls) for t in self.turns.values())

    @property
    def malformed_calls(self) -> int:
        """Calls of the episode whose arguments were not JSON or failed the tool's schema."""
        return sum(len(t.malformed_calls) for t in self.turns.values())

    @property
    def no_tool_steps(self) -> int:
        """Model steps of the episode that called no tool (plans, empty or unparseable replies, ...)."""
        return sum(len(t.no_tool_steps) for t in self.turns.values())

    @property
    def model_calls(self) -> int:
        """Model requests: counted from events, or the runner's own total when the trace has fewer."""
        n = sum(len(t.model_calls) for t in self.turns.values())
        return max(n, self.end.model_calls) if self.end else n

    @property
    def failed_model_calls(self) -> int:
        """Requests the provider answered with an error (their bodies are in the trace), not model calls."""
        return sum(len(t.failed_model_calls) for t in self.turns.values())

    @property
    def usage(self) -> TokenUsage:
        """Token usage: summed from model calls, or the runner's own totals when those are larger."""
        total = TokenUsage()
        for t in self.turns.values():
            total = total + t.usage
        if self.end is not None:
            total = TokenUsage(input_tokens=max(total.input_tokens, self.end.usage.input_tokens),
                               output_tokens=max(total.output_tokens, self.end.usage.output_tokens))
        return total

    @property
    def wall_time_s(self) -> float:
        if not self.events:
            return 0.0
        first = self.start.ts if self.start else self.events[0].ts
        last = self.end.ts if self.end else max(e.ts + (e.duration_s or 0.0) for e in self.events)
        return max(0.0, last - first)


def _only_trailing_garbage(trace: TraceRead) -> bool:
    """True when the trace is complete and every unreadable line comes after episode_end: nothing of the
    episode is lost. With no blank lines, a bad line before episode_end has a number <= len(events)."""
    return trace.complete and min(trace.bad_lines) > len(trace.events)


def fold_events(episode_id: str, events: Iterable[TraceEvent]) -> EpisodeFold:
    """Fold events into turns; events after a turn's final answer still belong to that turn."""
    fold = EpisodeFold(episode_id=episode_id)
    for ev in events:
        fold.events.append(ev)
        if isinstance(ev, EpisodeStart):
            fold.start = ev
            continue
        if isinstance(ev, EpisodeEnd):
            fold.end = ev
            continue
        if isinstance(ev, ErrorEvent):
            fold.errors.append(ev)
        if isinstance(ev, ModelCall):
            fold.requests.add(ev)
        elif isinstance(ev, ToolCallEvent):
            fold.requests.add_tool_result(ev)
        if not ev.turn:
            continue
        tf = fold._slot(ev.turn)
        tf.events.append(ev)
        if isinstance(ev, TurnStart):
            tf.start = ev
        elif isinstance(ev, ToolCallEvent):
            tf.calls.append(ev)
        elif isinstance(ev, NoToolStep):
            tf.no_tool_steps.append(ev)
        elif isinstance(ev, MemoryCompacted):
            tf.compactions.append(ev)
        elif isinstance(ev, ModelCall):
            (tf.failed_model_calls if ev.failed else tf.model_calls).append(ev)
        elif isinstance(ev, Retry):
            tf.retries.append(ev)
        elif isinstance(ev, ErrorEvent):
            tf.errors.append(ev)
        elif isinstance(ev, BudgetExhausted):
            tf.budget = ev
        elif isinstance(ev, LimitHit):
            tf.limit = ev
        elif isinstance(ev, FinalAnswerEvent):
            tf.answer = ev
    return fold


def fold_trace(trace: TraceRead) -> EpisodeFold:
    """Fold a read trace; bad lines before the end make it truncated (events may be lost)."""
    fold = fold_events(trace.episode_id, trace.events)
    fold.missing, fold.truncated, fold.bad_lines = trace.missing, trace.truncated, list(trace.bad_lines)
    if trace.bad_lines and not _only_trailing_garbage(trace):
        fold.truncated = True
    return fold
