"""Answer-free priors: rules that pick a choice option without reading any value (always the first
option, always letter C, the paper's own method, the longest option). A benchmark whose best such rule
beats chance by more than 5 points can be passed in part by guessing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from harness.episode import Episode, Turn

from ._model import Breakdown, CheckResult, Finding
from ._texts import PaperReader, names

MAX_POINTS_OVER_CHANCE = 5.0
_HIGHEST = re.compile(r"\b(highest|largest|best)\b", re.I)
MIN_TURNS = 20  # a prior that applies to fewer choice turns is listed but not judged (too noisy)


@dataclass
class PriorTally:
    """How often one rule is right on the choice turns where it picks an option."""

    name: str
    right: int = 0
    turns: int = 0
    chance_sum: float = 0.0
    examples: list[Finding] = field(default_factory=list)

    def add(self, ok: bool, n_options: int, finding: Finding) -> None:
        self.turns += 1
        self.right += ok
        self.chance_sum += 1.0 / n_options
        if ok and len(self.examples) < 20:
            self.examples.append(finding)

    @property
    def accuracy(self) -> float:
        return 100.0 * self.right / self.turns if self.turns else 0.0

    @property
    def chance(self) -> float:
        return 100.0 * self.chance_sum / self.turns if self.turns else 0.0


def _unique(letters: list[str]) -> str | None:
    return letters[0] if len(letters) == 1 else None


async def answer_free_priors(episodes: list[Episode], reader: PaperReader) -> CheckResult:
    """The best answer-free rule on choice turns, against chance (the mean of 1/options where it applies)."""
    tallies: dict[str, PriorTally] = {}

    def tally(name: str) -> PriorTally:
        return tallies.setdefault(name, PriorTally(name))

    choice_turns: list[tuple[Episode, int, Turn]] = [
        (ep, ti, t) for ep in episodes for ti, t in enumerate(ep.turns) if t.answer.format == "choice" and t.answer.choices]
    for ep, ti, turn in choice_turns:
        choices = turn.answer.choices or {}
        letters = sorted(choices)
        gold = str(turn.answer.value)
        where = Finding(episode=ep.id, turn=ti + 1, message="")
        rules: dict[str, Callable[[], str | None]] = {
            f"always option {i + 1} (by letter)": (lambda i=i: letters[i] if i < len(letters) else None) for i in range(5)}
        rules["always the last option"] = lambda: letters[-1]
        rules["the longest option"] = lambda: _unique([k for k in letters if len(choices[k]) == max(len(v) for v in choices.values())])
        rules["the shortest option"] = lambda: _unique([k for k in letters if len(choices[k]) == min(len(v) for v in choices.values())])
        for name, rule in rules.items():
            pick = rule()
            if pick is not None:
                tally(name).add(pick == gold, len(letters), where.model_copy(update={"message": f"{name}: {pick}"}))
        if not turn.memory_only:
            papers = {e.paper for e in turn.evidence}
            if len(papers) == 1:
                method = (await reader.paper(next(iter(papers)), figures=False)).method()
                if method:
                    pick = _unique([k for k in letters if names(choices[k], method)])
                    if pick is not None:
                        found = where.model_copy(update={"message": f"the paper's own method {method!r} is option {pick}"})
                        tally("the paper's own method").add(pick == gold, len(letters), found)
                        if _HIGHEST.search(turn.question):  # papers claim to win: own method on "highest" questions
                            tally("the paper's own method, when the highest is asked").add(pick == gold, len(letters), found)
    judged = [t for t in tallies.values() if t.turns >= MIN_TURNS]
    lines = [Breakdown(label=f"{t.name}: {t.accuracy:.1f}% vs chance {t.chance:.1f}%", count=t.right, total=t.turns)
             for t in sorted(tallies.values(), key=lambda t: -(t.accuracy - t.chance))]
    if not judged:
        return CheckResult(id="answer_free_prior", title="best answer-free prior against chance", shown="no rule applies to "
                           f">= {MIN_TURNS} choice turns", threshold=f"<= chance + {MAX_POINTS_OVER_CHANCE:g} points",
                           status="not checked", total=len(choice_turns), breakdown=lines,
                           not_checked=len(choice_turns), not_checked_why=f"fewer than {MIN_TURNS} choice turns per rule")
    best = max(judged, key=lambda t: t.accuracy - t.chance)
    over = best.accuracy - best.chance
    return CheckResult(
        id="answer_free_prior", title="best answer-free prior against chance", count=best.right, total=best.turns,
        value=over, shown=f"{best.name}: {best.accuracy:.1f}% vs chance {best.chance:.1f}% ({over:+.1f} points)",
        threshold=f"<= chance + {MAX_POINTS_OVER_CHANCE:g} points",
        status="fail" if over > MAX_POINTS_OVER_CHANCE else "pass", breakdown=lines,
        findings=best.examples if over > MAX_POINTS_OVER_CHANCE else [],
        note=f"{len(choice_turns)} choice turns; rules applying to fewer than {MIN_TURNS} are listed, not judged")
