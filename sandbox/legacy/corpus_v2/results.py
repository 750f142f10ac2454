"""The one set of facts every table, figure and sentence of corpus v2 is drawn from.

Each method has a latent quality (its standard-setting score per dataset), a budget efficiency and a
robustness. A paper reports its own method at that score and re-runs every baseline (a small
per-paper deviation, as papers re-run baselines with their own recipe), so a baseline's cell rarely
repeats across papers. Sweeps are measured under the sweep protocol, which sits apart from the
standard setting (`PROTOCOL_GAP`), so no plotted point lands on a printed number; plotted values keep
two decimals, off any rounding grid.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from .vocab import Area, Dataset, Sweep

PROTOCOL_GAP = (0.05, 0.09)  # sweep points sit this share of the dataset's range below the standard score
MIN_SEPARATION = 0.08  # points of one figure at one x are at least this share of the figure's value range apart


@dataclass
class MethodFacts:
    name: str
    quality: float
    efficiency: float  # 0..1: how little it loses when the budget shrinks
    robustness: float  # 0..1: how little it loses under the shift condition
    params: float  # millions


@dataclass
class Results:
    """Scores of every method, deterministic given the rng's seed and the order of calls."""

    rng: random.Random
    methods: dict[str, MethodFacts] = field(default_factory=dict)
    _standard: dict[tuple[str, str], float] = field(default_factory=dict)

    def add(self, name: str, quality: float) -> None:
        r = self.rng
        self.methods[name] = MethodFacts(name, quality, r.uniform(0.1, 0.9), r.uniform(0.1, 0.9), r.uniform(8, 120))

    @staticmethod
    def _to_value(area: Area, d: Dataset, frac: float) -> float:
        frac = min(max(frac, 0.02), 0.99)
        span = d.high - d.low
        return d.low + span * frac if area.higher_is_better else d.high - span * frac

    def standard(self, area: Area, method: str, d: Dataset) -> float:
        """The method's score at the standard setting, as its own paper reports it."""
        key = (method, d.name)
        if key not in self._standard:
            q = self.methods[method].quality + self.rng.gauss(0, 0.04)
            self._standard[key] = round(self._to_value(area, d, 0.1 + 0.8 * q), 2)
        return self._standard[key]

    def rerun(self, area: Area, method: str, d: Dataset, own: bool, rng: random.Random) -> float:
        """What one paper reports for a method: its own exactly, a baseline re-run with a small deviation."""
        v = self.standard(area, method, d)
        if own:
            return v
        dev = rng.gauss(0, 0.012) * (d.high - d.low)
        return round(v + dev, 2)

    def better(self, area: Area, a: float, b: float) -> bool:
        return a > b if area.higher_is_better else a < b

    def curve(self, area: Area, d: Dataset, sweep: Sweep, method: str, start: float, own: bool,
              rng: random.Random) -> list[float]:
        """A method's values over the sweep grid, starting from the score the paper reports for it."""
        m = self.methods[method]
        span = d.high - d.low
        sign = 1 if area.higher_is_better else -1
        offset = rng.uniform(*PROTOCOL_GAP) * span
        grid = sweep.grid
        ys = []
        if sweep.shape == "depth":  # deeper graph networks over-smooth; own methods resist it more
            drop = span * (rng.uniform(0.03, 0.1) if own else rng.uniform(0.2, 0.45))
            for x in grid:
                g = (math.log2(x) - math.log2(grid[0]) + 0.3) / (math.log2(grid[-1]) - math.log2(grid[0]) + 0.3)
                ys.append(start - sign * (offset + drop * g ** 1.3))
        else:
            drop = span * (0.42 - 0.3 * m.efficiency) * rng.uniform(0.85, 1.15)
            x0, x_ref = grid[0] / 2, grid[-1] * 2.5
            for x in grid:
                t = math.log(x / x0) / math.log(x_ref / x0)
                ys.append(start - sign * (offset + drop * (1 - t) ** 1.4))
        return [round(y + rng.gauss(0, 0.004) * span, 2) for y in ys]

    def shifted(self, area: Area, d: Dataset, method: str, start: float, rng: random.Random) -> float:
        """The method's score under the area's shift condition (the robustness bar charts)."""
        m = self.methods[method]
        span = d.high - d.low
        drop = span * (0.4 - 0.25 * m.robustness) * rng.uniform(0.9, 1.1)
        return round(start - drop if area.higher_is_better else start + drop, 2)


def separate(columns: list[list[float]], min_gap: float, higher_is_better: bool = True) -> list[list[float]]:
    """Move the values of each column (all series at one x) apart until neighbours are min_gap apart.

    Values only move away from the standard setting (down when higher is better, up for FID), so the
    best point of a column stays where it was and no point approaches a table value; a reader can then
    tell every marker apart (no series hidden under another)."""
    out = []
    for col in columns:
        order = sorted(range(len(col)), key=lambda i: -col[i] if higher_is_better else col[i])
        res = list(col)
        for a, b in zip(order, order[1:]):
            if higher_is_better and res[b] > res[a] - min_gap:
                res[b] = res[a] - min_gap
            elif not higher_is_better and res[b] < res[a] + min_gap:
                res[b] = res[a] + min_gap
        out.append([round(v, 2) for v in res])
    return out


def off_grid(v: float) -> float:
    """Nudge a value off the 0.1 grid (a plotted value is never a round number a text might print)."""
    return round(v + 0.03, 2) if abs(v * 10 - round(v * 10)) < 0.005 else v
