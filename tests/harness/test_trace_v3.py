"""Trace schema v3: no magic keys (v2 lines with `__empty_message__` or `__raw__` upgrade to typed fields and
events), and the fold's memory accounting follows what a summary memory mode dropped."""
from __future__ import annotations

import json

from harness.trace import (
    SCHEMA_VERSION,
    MemoryCompacted,
    NoToolStep,
    ToolCallEvent,
    TurnStart,
    parse_event,
)
from harness.trace_fold import fold_events
from tools import EvidenceUnit


def _v2(**d: object) -> str:
    return json.dumps({"schema_version": 2, "run_id": "r", "episode_id": "e", "ts": 1.0, **d})


def test_a_v2_empty_reply_pseudo_call_becomes_a_no_tool_step():
    line = _v2(kind="tool_call", turn=2, step=3, tool="__empty_message__", args={}, error="tool not available",
               result_text="Your last reply was empty", error_kind="refused", executed=False)
    ev = parse_event(line)
    assert isinstance(ev, NoToolStep) and ev.schema_version == SCHEMA_VERSION  # lifted to the current version
    assert (ev.turn, ev.step, ev.reason, ev.feedback) == (2, 3, "empty", "Your last reply was empty")


def test_v2_raw_arguments_become_a_typed_field():
    line = _v2(kind="tool_call", turn=1, step=1, tool="web_search", args={"__raw__": "{'query': oops"},
               error="bad", error_kind="bad_arguments")
    ev = parse_event(line)
    assert isinstance(ev, ToolCallEvent) and ev.args == {} and ev.raw_arguments == "{'query': oops"
    assert ev.counted  # every v2 call used the budget
    plain = parse_event(_v2(kind="tool_call", turn=1, step=1, tool="web_search", args={"query": "q"}))
    assert isinstance(plain, ToolCallEvent) and plain.args == {"query": "q"} and plain.raw_arguments is None


def test_a_v2_turn_start_reads_as_a_tool_call_budget():
    ev = parse_event(_v2(kind="turn_start", turn=1, question="q", allowed_tools=["web_search"], budget=10))
    assert isinstance(ev, TurnStart) and ev.budget_unit == "tool_call"


def _call(turn: int, step: int, *units: str, paper: str = "P1") -> ToolCallEvent:
    return ToolCallEvent(turn=turn, step=step, tool="pdf_extract", args={"paper": paper},
                         provenance=[EvidenceUnit(paper=paper, unit=u) for u in units])


def test_memory_before_drops_what_a_compaction_took_out_of_view():
    table, text = EvidenceUnit(paper="P1", unit="table:1"), EvidenceUnit(paper="P1", unit="text")
    events = [
        _call(1, 1, "text"), _call(1, 2, "table:1"),
        _call(2, 1, "figure:2"),
        MemoryCompacted(turn=3, turns=[1, 2], kept=[table], dropped=[text, EvidenceUnit(paper="P1", unit="figure:2")]),
        _call(3, 1, "text"),  # read again in turn 3: exposed there, and in memory for turn 4
    ]
    fold = fold_events("e", events)
    keys = lambda units: sorted(u.key for u in units)  # noqa: E731
    assert keys(fold.memory_before(2)) == [("P1", "table:1"), ("P1", "text")]
    assert keys(fold.memory_before(3)) == [("P1", "table:1")]  # the compaction in turn 3 counts for turn 3
    assert keys(fold.memory_before(4)) == [("P1", "table:1"), ("P1", "text")]
    assert fold.turn(3).dropped == {("P1", "text"), ("P1", "figure:2")}
    assert len(fold.turn(3).compactions) == 1


def test_no_tool_steps_malformed_calls_and_refused_calls_are_filed_apart():
    events = [
        _call(1, 1, "text"),
        NoToolStep(turn=1, step=1, reason="plan", reply="Plan: read it", no_tool_steps=1, cap=3),
        ToolCallEvent(turn=1, step=2, tool="web_search", raw_arguments="{oops", error="not JSON",
                      error_kind="bad_arguments", executed=False),
    ]
    events.append(ToolCallEvent(turn=1, step=3, tool="table_extract", args={"paper": "P1"}, error="tool 'table_extract' "
                                "is not available", error_kind="refused"))
    fold = fold_events("e", events)
    t = fold.turn(1)
    assert [c.tool for c in t.malformed_calls] == ["web_search"] and [c.tool for c in t.refused_calls] == ["table_extract"]
    assert len(t.executed_calls) == 1
    assert (fold.tool_calls, fold.malformed_calls, fold.refused_calls, fold.no_tool_steps) == (1, 1, 1, 1)


def _v4(**d: object) -> str:
    return json.dumps({"schema_version": 4, "run_id": "r", "episode_id": "e", "ts": 1.0, **d})


def test_a_v4_call_that_failed_the_schema_reads_as_refused_and_a_tool_error_as_executed():
    """v5 refuses a call whose arguments fail the tool's schema before running it; the v4 -> v5 step marks the
    v4 calls that ran only to be refused the same way, and leaves alone a tool that ran and then said no."""
    schema = parse_event(_v4(kind="tool_call", turn=1, step=1, tool="figure_extract", args={"paper": "P1", "figure": "abc"},
                             error="figure_extract: bad arguments (figure: Input should be a valid integer). "
                                   "Expected parameters: paper, figure", error_kind="bad_arguments", executed=True))
    extra = parse_event(_v4(kind="tool_call", turn=1, step=2, tool="web_search", args={"query": "q", "extra": 1},
                            error="web_search: bad arguments (extra: Extra inputs are not permitted). Expected "
                                  "parameters: query, k", error_kind="bad_arguments"))
    ran = parse_event(_v4(kind="tool_call", turn=1, step=3, tool="pdf_extract", args={"paper": "P1", "part": 9},
                          error="part must be between 1 and 3 for paper P1; got 9", error_kind="bad_arguments",
                          executed=True, provenance=[]))
    assert isinstance(schema, ToolCallEvent) and schema.schema_version == SCHEMA_VERSION
    assert (schema.executed, extra.executed, ran.executed) == (False, False, True)
    fold = fold_events("e", [schema, extra, ran])
    assert (fold.tool_calls, fold.malformed_calls, fold.refused_calls) == (1, 2, 0)
