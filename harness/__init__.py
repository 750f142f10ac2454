"""epiharness: the harness that drives agents through episodes, records traces, scores and replays them.

`harness.read_run(path)` reads a run folder into typed objects (`harness.run_data`: `Run`, `EpisodeRow`,
`TurnRow`); it is imported on first use, so `import harness` stays light."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["read_run", "Run", "EpisodeRow", "TurnRow", "RunReadError"]

if TYPE_CHECKING:
    from .run_data import EpisodeRow, Run, RunReadError, TurnRow, read_run


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import run_data

        return getattr(run_data, name)
    raise AttributeError(f"module 'harness' has no attribute {name!r}")
