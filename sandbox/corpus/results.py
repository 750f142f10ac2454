"""The facts every table and figure of corpus v3 is drawn from.

Each method has a latent quality, a budget efficiency, a robustness, a cost and a preferred point on
every peaked axis. Methods with high quality but low efficiency lose to frugal ones at small budgets,
so curves cross; a share of figures carries run-to-run noise large enough to make curves non-monotone,
as single-seed sweeps in real papers are.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from .vocab import Area, Dataset, Sweep


@dataclass
class Facts:
    name: str
    family: str
    quality: float
    efficiency: float
    robustness: float
    cost: float  # in the area's cost unit, relative
    year: int


@dataclass
class Results:
    rng: random.Random
    methods: dict[str, Facts] = field(default_factory=dict)
    _standard: dict[tuple[str, str], float] = field(default_factory=dict)

    def add(self, name: str, family: str, quality: float, year: int) -> Facts:
        r = self.rng
        f = Facts(name, family, quality, r.uniform(0.05, 0.95), r.uniform(0.1, 0.9), r.uniform(0.3, 3.0), year)
        self.methods[name] = f
        return f

    @staticmethod
    def to_value(area: Area, d: Dataset, frac: float) -> float:
        frac = min(max(frac, 0.01), 0.99)
        span = d.high - d.low
        return d.low + span * frac if area.higher_is_better else d.high - span * frac

    def standard(self, area: Area, method: str, d: Dataset) -> float:
        key = (method, d.name)
        if key not in self._standard:
            q = self.methods[method].quality + self.rng.gauss(0, 0.05)
            self._standard[key] = round(self.to_value(area, d, 0.12 + 0.78 * q), 2)
        return self._standard[key]

    def rerun(self, area: Area, method: str, d: Dataset, own: bool, rng: random.Random) -> float:
        v = self.standard(area, method, d)
        return v if own else round(v + rng.gauss(0, 0.012) * (d.high - d.low), 2)

    def curve(self, area: Area, d: Dataset, sweep: Sweep, method: str, start: float, noise: float,
              rng: random.Random) -> list[float]:
        """Values over the sweep grid; `noise` is the run-to-run spread as a share of the dataset's range."""
        m = self.methods[method]
        span = d.high - d.low
        sign = 1 if area.higher_is_better else -1
        grid = sweep.grid
        lg = sweep.log_x and grid[0] > 0
        pos = [(math.log(x) if lg else x) for x in grid]
        t = [(v - pos[0]) / (pos[-1] - pos[0]) for v in pos]
        offset = rng.uniform(0.02, 0.08) * span
        ys = []
        if sweep.shape == "budget":
            drop = span * (0.5 - 0.4 * m.efficiency) * rng.uniform(0.8, 1.2)
            k = rng.uniform(1.2, 2.6)
            ys = [start - sign * (offset + drop * (1 - ti) ** k) for ti in t]
        elif sweep.shape == "peak":
            opt = min(0.9, max(0.1, 0.5 + (m.efficiency - 0.5) * 0.8 + rng.gauss(0, 0.1)))
            curv = span * rng.uniform(0.25, 0.6)
            ys = [start - sign * (offset + curv * (ti - opt) ** 2) for ti in t]
        else:  # depth: the grid's far end hurts; robust methods lose little
            drop = span * (0.45 - 0.38 * m.robustness) * rng.uniform(0.8, 1.2)
            ys = [start - sign * (offset + drop * ti ** 1.5) for ti in t]
        ys = [y + rng.gauss(0, noise) * span for y in ys]
        lo, hi = (d.low - 0.3 * span, d.high + 0.05 * span)
        if not area.higher_is_better:
            lo, hi = max(d.low * 0.6, 0.1), d.high + 0.8 * span
        return [round(min(max(y, lo), hi), 2) for y in ys]

    def shifted(self, area: Area, d: Dataset, method: str, start: float, rng: random.Random) -> float:
        m = self.methods[method]
        span = d.high - d.low
        drop = span * (0.45 - 0.3 * m.robustness) * rng.uniform(0.85, 1.15)
        return round(start - drop if area.higher_is_better else start + drop, 2)


def better(area: Area, a: float, b: float) -> bool:
    return a > b if area.higher_is_better else a < b
