"""What scoring adds to a folded trace: the episode's reason bucket and its cost (EpiBench Table 6).

The trace itself is read and folded into turns once, by `harness.trace_fold` (shared with replay and
the viewer); this module only draws the scoring conclusions from that fold.
"""
from __future__ import annotations

from harness.rundir import RunDir, TraceRead
from harness.trace_fold import EpisodeFold, fold_trace

from .model import BUCKETS, CostTotals


def reason_bucket(fold: EpisodeFold, default: str | None = "model") -> str | None:
    """First match wins over provider, data_access, pipeline, model (MMDR-Bench A.5).

    Signals: episode_end.bucket and error events; a data_access tool error on a turn left without an
    answer; a missing or truncated trace is our pipeline's fault unless an error event says otherwise.
    """
    found = {e.bucket for e in fold.errors}
    if fold.end is not None and fold.end.bucket:
        found.add(fold.end.bucket)
    for tf in fold.turns.values():
        if tf.answer_text is None and any(c.error_kind == "data_access" for c in tf.calls):
            found.add("data_access")
    if fold.missing or fold.truncated:
        found.add("pipeline")
    for b in BUCKETS:
        if b in found and b != "model":
            return b
    return "model" if "model" in found else default


def cost_of(fold: EpisodeFold) -> CostTotals:
    """Tokens, model calls, executed tool calls and wall time of one episode."""
    usage = fold.usage
    return CostTotals(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens, total_tokens=usage.total,
                      model_calls=fold.model_calls, tool_calls=fold.tool_calls, wall_time_s=fold.wall_time_s)


def read_episode_trace(rd: RunDir, episode_id: str) -> TraceRead:
    """The episode's trace, or its unfinished `.part` file after a crash (scored as far as it went)."""
    return rd.read_trace(episode_id, include_partial=True)


def read_episode_fold(rd: RunDir, episode_id: str) -> EpisodeFold:
    return fold_trace(read_episode_trace(rd, episode_id))
