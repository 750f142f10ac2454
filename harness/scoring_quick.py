"""Episode success as the progress bar shows it; the full scoring lives in harness.scoring."""
from __future__ import annotations

from typing import Any


def episode_success(settings: Any, outcome: Any) -> bool:
    """True when the episode finished and the scorer says every turn is right (False if unsure)."""
    if outcome.status != "completed":
        return False
    try:
        from .scoring import quick_episode_success
    except ImportError:
        return False
    return bool(quick_episode_success(settings, outcome))
