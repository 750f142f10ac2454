"""Text guessers for figure values, learned on the second benchmark and scored on the audited file.

The calibrated guess: the same method's table value for the same dataset, plus the median gap between
plotted and tabled values learned per (dataset, metric, x) (falling back to (metric, x), then x). The learned
regressor: gradient boosting over the named features of `_features` (what the tools return as text), predicting
the gap to the table value. Both are trained on one part of the second benchmark's papers and validated on the
held-out rest before they are scored on the audited file.
"""
from __future__ import annotations

import hashlib
import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from ._features import CATEGORICAL, NUMERIC, FigureCase, features, table_value, x_key

HELD_OUT = 0.25  # share of the second benchmark's papers kept out of training, to validate on
MIN_TRAIN = 60  # fewer training figure values than this: nothing is learned ("not checked")


def held_out(paper: str) -> bool:
    """A fixed, seed-free split of papers (by hash of the id)."""
    return int(hashlib.sha256(paper.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < HELD_OUT


def within(guess: float | None, case: FigureCase) -> bool:
    return guess is not None and not math.isnan(guess) and abs(guess - case.value) <= case.tolerance + 1e-9


@dataclass
class CalibratedGuess:
    """Table value + the median offset of plotted values from it, learned per dataset, metric and x."""

    name: str = "calibrated guess"
    offsets: dict[tuple, float] = field(default_factory=dict)

    def fit(self, cases: list[FigureCase]) -> CalibratedGuess:
        gaps: dict[tuple, list[float]] = defaultdict(list)
        for c in cases:
            t = table_value(c)
            if t is None:
                continue
            for key in self._keys(c):
                gaps[key].append(c.value - t)
        self.offsets = {k: statistics.median(v) for k, v in gaps.items()}
        return self

    @staticmethod
    def _keys(c: FigureCase) -> list[tuple]:
        x = x_key(c)
        return [("d", c.dataset, c.metric, x), ("m", c.metric, x), ("x", x)]

    def predict(self, c: FigureCase) -> float | None:
        t = table_value(c)
        if t is None:
            return None
        for key in self._keys(c):
            if key in self.offsets:
                return t + self.offsets[key]
        return t


@dataclass
class LearnedRegressor:
    """Gradient boosting over the named text features, predicting the gap between plotted and tabled value."""

    name: str = "learned regressor"
    model: object | None = None
    vocab: dict[str, dict[str, int]] = field(default_factory=dict)
    keep: list[int] = field(default_factory=list)  # feature columns the training data gives a value in

    def _row(self, c: FigureCase) -> list[float]:
        f = features(c)
        row = [float(f[k]) if f[k] is not None else math.nan for k in NUMERIC]  # type: ignore[arg-type]
        for k in CATEGORICAL:
            code = self.vocab[k].get(str(f[k])) if f[k] is not None else None
            row.append(float(code) if code is not None else math.nan)
        return [row[j] for j in self.keep] if self.keep else row

    def fit(self, cases: list[FigureCase]) -> LearnedRegressor:
        from sklearn.ensemble import HistGradientBoostingRegressor
        from threadpoolctl import threadpool_limits

        usable = [c for c in cases if table_value(c) is not None]
        for k in CATEGORICAL:
            seen = sorted({str(features(c)[k]) for c in usable if features(c)[k] is not None})
            self.vocab[k] = {v: i for i, v in enumerate(seen)}
        self.keep = []
        x = np.array([self._row(c) for c in usable])
        self.keep = [j for j in range(x.shape[1]) if not np.isnan(x[:, j]).all()]
        x = x[:, self.keep]
        y = [c.value - (table_value(c) or 0.0) for c in usable]
        cat = [j >= len(NUMERIC) for j in self.keep]
        model = HistGradientBoostingRegressor(loss="absolute_error", max_iter=200, learning_rate=0.08,
                                              categorical_features=cat, random_state=0)
        with threadpool_limits(1):  # OpenMP threads spin against each other on a busy 2-core machine
            self.model = model.fit(x, np.array(y))
        return self

    def predict(self, c: FigureCase) -> float | None:
        t = table_value(c)
        if t is None or self.model is None:
            return None
        return self.predict_many([c])[0]

    def predict_many(self, cases: list[FigureCase]) -> list[float | None]:
        idx = [i for i, c in enumerate(cases) if table_value(c) is not None]
        out: list[float | None] = [None] * len(cases)
        if idx and self.model is not None:
            preds = self.model.predict(np.array([self._row(cases[i]) for i in idx]))  # type: ignore[attr-defined]
            for i, p in zip(idx, preds):
                out[i] = (table_value(cases[i]) or 0.0) + float(p)
        return out


Guesser = CalibratedGuess | LearnedRegressor


def guesses(g: Guesser, cases: list[FigureCase]) -> list[float | None]:
    if isinstance(g, LearnedRegressor):
        return g.predict_many(cases)
    return [g.predict(c) for c in cases]


def hit_rate(g: Guesser, cases: list[FigureCase]) -> tuple[int, int]:
    got = guesses(g, cases)
    return sum(within(v, c) for v, c in zip(got, cases)), len(cases)
