"""Repeated runs (epochs) reduced per episode: mean, majority, pass@k, pass^k (tau-bench).

A run with `--epochs N` scores every (episode, epoch) trace alike; the outcome numbers (ESR, Acc_final,
Acc_pre) then reduce each episode's (or each turn's) N verdicts to one value in [0, 1]:
- `mean` (the default): the share of epochs that were right; ESR is then the success rate over every
  (episode, epoch), each episode weighted alike;
- `majority`: 1 when more than half of the epochs were right (a tie counts as wrong);
- `pass@k`: the chance that at least one of k epochs drawn without replacement was right;
- `pass^k`: the chance that all k of them were (tau-bench's reliability measure); k <= N.
With one epoch every reducer gives the verdict itself, so a single run scores exactly as before.
Everything else (EC, MG, cost, failure types, process) counts every epoch's trace.
"""
from __future__ import annotations

import re
from typing import Literal, Sequence

from pydantic import BaseModel, ConfigDict

from .model import EpisodeScore

DEFAULT_REDUCER = "mean"
REDUCER_HELP = ("how an episode's epochs reduce to one score: mean (share of epochs right; default), majority "
                "(more than half right), pass@K (at least one of K right), pass^K (all K right; tau-bench)")
_PASS = re.compile(r"^pass([@^])([1-9][0-9]*)$")


class ReducerError(ValueError):
    """A reducer that is not one of the four, or a pass@k / pass^k with more epochs than the run has."""


class Reducer(BaseModel):
    """How the verdicts of one episode's (or one turn's) epochs become one value in [0, 1]."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["mean", "majority", "pass_at", "pass_hat"] = "mean"
    k: int = 1

    @classmethod
    def parse(cls, text: str | None) -> "Reducer":
        t = (text or DEFAULT_REDUCER).strip().lower()
        if t in ("mean", "majority"):
            return cls(kind=t)  # type: ignore[arg-type]
        m = _PASS.match(t)
        if m:
            return cls(kind="pass_at" if m.group(1) == "@" else "pass_hat", k=int(m.group(2)))
        raise ReducerError(f"reducer {text!r} is not one of mean, majority, pass@K, pass^K (K a whole number, "
                           "at most the run's epochs), e.g. pass^3")

    @property
    def name(self) -> str:
        return {"mean": "mean", "majority": "majority", "pass_at": f"pass@{self.k}", "pass_hat": f"pass^{self.k}"}[self.kind]

    def describe(self) -> str:
        """One clause a report can print after the reducer's name."""
        return {
            "mean": "the share of an episode's epochs that were right",
            "majority": "right when more than half of an episode's epochs were (a tie counts as wrong)",
            "pass_at": f"the chance that at least one of {self.k} of an episode's epochs was right (pass@{self.k})",
            "pass_hat": f"the chance that {self.k} of an episode's epochs, drawn at random, were all right "
                        f"(pass^{self.k}, tau-bench)",
        }[self.kind]

    def check(self, epochs: int, where: str) -> None:
        """Refuse a pass@k / pass^k that needs more epochs than `where` has."""
        if self.kind in ("pass_at", "pass_hat") and self.k > epochs:
            raise ReducerError(f"reducer {self.name} needs at least {self.k} epochs; {where} has {epochs}")

    def reduce(self, verdicts: Sequence[bool]) -> float:
        """One value in [0, 1] from the verdicts of the epochs of one episode or one turn."""
        from .stats import episode_pass_at_k, episode_pass_hat_k

        n, c = len(verdicts), sum(1 for v in verdicts if v)
        if n == 0:
            raise ReducerError("nothing to reduce: no epochs")
        if self.kind == "mean":
            return c / n
        if self.kind == "majority":
            return 1.0 if 2 * c > n else 0.0
        self.check(n, "this episode")
        return episode_pass_at_k(c, n, self.k) if self.kind == "pass_at" else episode_pass_hat_k(c, n, self.k)

    def units(self, verdicts: Sequence[bool]) -> list[float]:
        """What an interval counts for one episode or turn: with `mean`, every epoch's verdict (epochs are
        units clustered in their episode); otherwise the one reduced value."""
        if self.kind == "mean":
            return [1.0 if v else 0.0 for v in verdicts]
        return [self.reduce(verdicts)]

    def binary(self, epochs: int) -> bool:
        """True when the reduced value is always 0 or 1 for this many epochs (a paired McNemar test applies)."""
        return epochs == 1 or self.kind == "majority" or (self.kind in ("pass_at", "pass_hat") and self.k == epochs)


def by_episode(scores: Sequence[EpisodeScore]) -> list[list[EpisodeScore]]:
    """The scores grouped by episode, episodes in order of first appearance, each group by epoch."""
    groups: dict[str, list[EpisodeScore]] = {}
    for s in scores:
        groups.setdefault(s.episode_id, []).append(s)
    return [sorted(g, key=lambda s: s.epoch) for g in groups.values()]


def epochs_of(scores: Sequence[EpisodeScore]) -> int:
    """The number of epochs behind these scores (the most of any episode; 1 when there are none)."""
    return max((len(g) for g in by_episode(scores)), default=1)
