"""What scoring adds to a folded trace: the cost of an episode (EpiBench Table 6), and reading folds.

The trace itself is read and folded into turns once, by `harness.trace_fold` (shared with replay and
the viewer); this module only draws the scoring conclusions from that fold.
"""
from __future__ import annotations

from harness.rundir import RunDir, TraceRead
from harness.trace_fold import EpisodeFold, fold_trace

from .model import CostTotals


def cost_of(fold: EpisodeFold) -> CostTotals:
    """Tokens, model calls, executed tool calls and wall time of one episode."""
    usage = fold.usage
    return CostTotals(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens, total_tokens=usage.total,
                      model_calls=fold.model_calls, failed_model_calls=fold.failed_model_calls, tool_calls=fold.tool_calls,
                      wall_time_s=fold.wall_time_s)


def read_episode_trace(rd: RunDir, episode_id: str) -> TraceRead:
    """The episode's trace, or its unfinished `.part` file after a crash (scored as far as it went)."""
    return rd.read_trace(episode_id, include_partial=True)


def read_episode_fold(rd: RunDir, episode_id: str) -> EpisodeFold:
    return fold_trace(read_episode_trace(rd, episode_id))
