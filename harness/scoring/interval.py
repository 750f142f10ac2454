"""`Interval`: a number with its two-sided interval, as scores.json and the statistics share it.

Kept apart from `stats` (numpy, scipy) so that readers of the score records stay light.
"""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_SEED = 20240917
DEFAULT_RESAMPLES = 10_000

class Interval(BaseModel):
    """A point estimate with a two-sided interval at `confidence`."""

    model_config = ConfigDict(frozen=True)

    estimate: float
    low: float
    high: float
    confidence: float = 0.95
    method: str = Field(description="wilson, clopper-pearson or bootstrap-percentile")
    n: float | None = Field(
        default=None,
        description="units behind a proportion's interval: episodes, or the effective number of clustered units")

    def scaled(self, factor: float) -> "Interval":
        """The same interval in other units (x100 for percent)."""
        return self.model_copy(update={"estimate": self.estimate * factor, "low": self.low * factor,
                                       "high": self.high * factor})
