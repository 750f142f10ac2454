"""Episodes scored as they finish, so a run's scoring after its last episode has little left to do.

Light to import (the runner makes one before its episodes start); the scoring code loads on the first `add`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.episode import Episode
    from harness.rundir import RunDir

    from .model import EpisodeScore


@dataclass
class Prescored:
    """Episode scores the runner computed as each episode finished, while the others still waited on the model,
    so scoring after the last episode has little left to do. Each is kept with the size and time of the trace it
    read, and used only while the trace is unchanged (and only by the matcher: a judge reads the trace itself)."""

    scores: dict[tuple[str, int], tuple[tuple[int, int], EpisodeScore]] = field(default_factory=dict)

    @staticmethod
    def _stamp(rd: RunDir, episode_id: str, epoch: int) -> tuple[int, int] | None:
        try:
            st = rd.trace_path(episode_id, epoch).stat()
        except OSError:
            return None
        return st.st_size, st.st_mtime_ns

    def add(self, rd: RunDir, ep: Episode, epoch: int) -> None:
        """Score a finished episode's trace now (nothing is kept for a trace that is not final)."""
        stamp = self._stamp(rd, ep.id, epoch)
        if stamp is None:
            return
        from harness.trace_fold import fold_trace

        from .metrics import score_episode

        es = score_episode(ep, fold_trace(rd.read_trace(ep.id, epoch=epoch)), None, epoch=epoch)
        self.scores[(ep.id, epoch)] = (stamp, es)

    def get(self, rd: RunDir, ep: Episode, epoch: int) -> EpisodeScore | None:
        hit = self.scores.get((ep.id, epoch))
        if hit is None or hit[0] != self._stamp(rd, ep.id, epoch):
            return None
        return hit[1]
