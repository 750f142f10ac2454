"""Reading turns: locate a paper (from a cue) and read one value, one ranking, or the method's name.

Every reading turn's checklist is the minimal tool path (a web_search with the cue when a new paper
is located, then the one extractor that exposes the evidence), and its evidence is what that path exposes.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from ._cues import PaperCue
from ._facts import Group, ValueFact, x_text
from ._model import DraftAnswer, DraftCue, DraftRef, DraftStep, DraftTurn

LETTERS = "ABCDEF"


@dataclass
class ReadTurn:
    """A built reading turn and what later turns may reuse from it."""

    turn: DraftTurn
    paper: str
    value: ValueFact | None = None
    exposed: set[tuple[str, str]] = field(default_factory=set)


def extract_step(paper: str, kind: str, n: int) -> DraftStep:
    if kind == "table":
        return DraftStep(tool="table_extract", args={"paper": paper, "table": n})
    return DraftStep(tool="figure_extract", args={"paper": paper, "figure": n})


def cue_model(cue: PaperCue | None) -> DraftCue | None:
    if cue is None:
        return None
    return DraftCue(text=cue.text or None, image=cue.image)


def _lead(cue: PaperCue | None, paper_turn: int | None) -> str:
    if cue is not None and cue.image is not None:
        return ("The cue image is a figure (its caption cut off) from the paper to find. "
                "Find that paper. ")
    if cue is not None:
        return "Find the paper described by the cue. "
    return f"Stay with the paper from turn {paper_turn}. "


def _opening(cue: PaperCue | None) -> list[DraftStep]:
    return [DraftStep(tool="web_search", args={"query": cue.search_query})] if cue is not None else []


def read_question(f: ValueFact) -> str:
    """How to ask for one fact, naming the table or figure, the row or series, and the column or x."""
    if f.kind == "table":
        metric = f" ({f.measure})" if f.measure != f.at else ""
        return f'In Table {f.n}, what value{metric} is reported for the {f.row_kind} "{f.label}" in the column "{f.at}"?'
    if f.bar:
        return (f'Figure {f.n} is a bar chart. What is the height of the "{f.label}" bar at "{f.at}" '
                f'({f.measure})? Read it from the figure.')
    return (f'Figure {f.n} plots {f.measure} against {f.x_label}. What is the {f.measure} of the series '
            f'"{f.label}" at {f.x_label} = {x_text(f.at)}? Read it from the figure.')


def number_answer(value: float, tolerance: float, unit: str | None) -> DraftAnswer:
    return DraftAnswer(format="number", value=round(value, 4), tolerance=round(tolerance, 4), unit=unit)


def value_turn(f: ValueFact, cue: PaperCue | None, paper_turn: int | None) -> ReadTurn:
    turn = DraftTurn(
        question=_lead(cue, paper_turn) + read_question(f),
        cue=cue_model(cue),
        answer=number_answer(f.value, f.tolerance, f.unit_label),
        evidence=[DraftRef(paper=f.paper, unit=f.unit)],
        checklist=_opening(cue) + [extract_step(f.paper, f.kind, f.n)],
    )
    return ReadTurn(turn, f.paper, f, {f.key})


def separated(values: list[ValueFact], best: ValueFact) -> bool:
    """True if `best` stays apart from every other value even when each is misread within tolerance."""
    return all(abs(best.value - v.value) > best.tolerance + v.tolerance for v in values if v is not best)


def choice_options(correct: str, others: list[str], rng: random.Random, k: int = 4) -> tuple[dict[str, str], str]:
    """Up to k shuffled options (letters -> text) containing `correct`; returns them and its letter."""
    picks = rng.sample(others, min(k - 1, len(others))) + [correct]
    rng.shuffle(picks)
    choices = {LETTERS[i]: t for i, t in enumerate(picks)}
    return choices, next(letter for letter, t in choices.items() if t == correct)


def ranking_turn(g: Group, cue: PaperCue | None, paper_turn: int | None, rng: random.Random) -> ReadTurn | None:
    """Which row (or series) has the highest / lowest value: a choice answer, only if there is no near-tie."""
    for highest in rng.sample([True, False], 2):
        best = (max if highest else min)(g.members, key=lambda m: m.value)
        if not separated(list(g.members), best):
            continue
        word = "highest" if highest else "lowest"
        if g.kind == "table":
            q = f'In Table {g.n}, which {g.members[0].row_kind} has the {word} value in the column "{g.at}"?'
        else:
            m0 = g.members[0]
            q = f"In Figure {g.n}, which series has the {word} {m0.measure} at {m0.x_label} = {x_text(g.at)}? Read it from the figure."
        choices, letter = choice_options(best.label, [m.label for m in g.members if m is not best], rng)
        turn = DraftTurn(
            question=_lead(cue, paper_turn) + q + " Answer with the letter of the option.",
            cue=cue_model(cue),
            answer=DraftAnswer(format="choice", value=letter, choices=choices),
            evidence=[DraftRef(paper=g.paper, unit=g.unit)],
            checklist=_opening(cue) + [extract_step(g.paper, g.kind, g.n)],
        )
        return ReadTurn(turn, g.paper, None, {(g.paper, g.unit)})
    return None


def method_turn(paper: str, method: str, cue: PaperCue | None, paper_turn: int | None) -> ReadTurn:
    """The name of the method the paper introduces: a text answer read from the paper's text."""
    turn = DraftTurn(
        question=_lead(cue, paper_turn) + "What is the name of the method this paper introduces?",
        cue=cue_model(cue),
        answer=DraftAnswer(format="text", value=method, aliases=[method.replace("-", " ")] if "-" in method else []),
        evidence=[DraftRef(paper=paper, unit="text")],
        checklist=_opening(cue) + [DraftStep(tool="pdf_extract", args={"paper": paper})],
    )
    return ReadTurn(turn, paper, None, {(paper, "text")})


def fact_phrase(f: ValueFact, paper_turn: int) -> str:
    """A fact named for a memory-only question: where it was read, never its value."""
    where = f"of the paper from turn {paper_turn}"
    if f.kind == "table":
        return f'the "{f.at}" value of "{f.label}" in Table {f.n} {where}'
    if f.bar:
        return f'the height of the "{f.label}" bar at "{f.at}" in Figure {f.n} {where}'
    return f'the {f.measure} of "{f.label}" at {f.x_label} = {x_text(f.at)} in Figure {f.n} {where}'
