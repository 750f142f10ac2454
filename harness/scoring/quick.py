"""Episode success for the live progress bar: the matcher on the answers an episode just gave.

Cheap and approximate by design (no trace is read); the numbers that count come from score_run.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from harness.episode import Episode

from .match import match_answer


@lru_cache(maxsize=4)
def _episodes_by_id(path: str, mtime: float) -> dict[str, Episode]:
    from harness.episodes_io import load_episodes

    return {e.id: e for e in load_episodes(Path(path)).episodes}


def quick_episode_success(settings: Any, outcome: Any) -> bool:
    """True when every answer of `outcome` (an EpisodeOutcome) matches its gold answer; False if unsure."""
    path = Path(settings.episodes)
    try:
        ep = _episodes_by_id(str(path.resolve()), path.stat().st_mtime).get(outcome.episode_id)
    except (OSError, ValueError):
        return False
    answers = list(outcome.answers)
    if ep is None or len(answers) != len(ep.turns):
        return False
    return all(match_answer(a, t.answer, t.question).correct for a, t in zip(answers, ep.turns))
