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
        description="units behind a proportion's interval: episodes, or the effective number of clustered units; "
                    "behind a bootstrap interval: the episodes that carry the number")
    all_equal: bool = Field(
        default=False,
        description="a bootstrap over episodes that all have the same value (or over one episode): low = high = "
                    "estimate says only that no episode differed, not that the number is certain; shown as "
                    "'all n equal', never as a zero-width interval")

    def bracket(self, digits: int = 2, sep: str = ", ") -> str:
        """`[low, high]`, or `[all n equal]` / `[only 1 episode]` where a bootstrap had no spread to measure."""
        return bracket(self.low, self.high, digits, sep, all_equal=self.all_equal, n=self.n)

    def scaled(self, factor: float) -> "Interval":
        """The same interval in other units (x100 for percent)."""
        return self.model_copy(update={"estimate": self.estimate * factor, "low": self.low * factor,
                                       "high": self.high * factor})


def bracket(low: float, high: float, digits: int = 2, sep: str = ", ", *, all_equal: bool = False,
            n: float | None = None, signed: bool = False, what: str = "") -> str:
    """An interval as a reader sees it. A resampling interval of zero width is not certainty: it says the
    episodes (or the pairs of two runs) never differed, and is written so (`[all 5 equal]`)."""
    if all_equal:
        if n is not None and int(n) == 1:
            return f"[only 1 {what or 'episode'}]"
        count = f"{int(n)} " if n is not None else ""
        return f"[all {count}{what + 's ' if what else ''}equal]"
    f = f"{{:{'+' if signed else ''}.{digits}f}}"
    return f"[{f.format(low)}{sep}{f.format(high)}]"
