"""Episode memory: a chronological store of everything the agent observed, available in every turn."""
from __future__ import annotations

from dataclasses import dataclass, field

from .agent import Observation, TurnRecord


@dataclass
class EpisodeMemory:
    observations: list[Observation] = field(default_factory=list)
    history: list[TurnRecord] = field(default_factory=list)

    def add(self, obs: Observation) -> None:
        self.observations.append(obs)

    def finish_turn(self, turn: int, question: str, answer: str | None) -> None:
        self.history.append(TurnRecord(turn=turn, question=question, answer=answer))

    def units(self) -> set[tuple[str, str]]:
        """Every (paper, unit) in memory: what a memory-only turn can draw on."""
        return {(p.paper, p.unit) for o in self.observations if o.error is None for p in o.provenance}
