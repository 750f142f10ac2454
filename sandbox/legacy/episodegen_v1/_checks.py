"""Rules every generated episode must keep; the generator refuses to write one that breaks any.

Replaying an episode's checklists must expose all its evidence (so the oracle agent scores evidence
correctness 1.0): a tool turn's evidence comes from its own checklist, a memory-only turn's from the
checklists of earlier turns (benchmark v2 also lets a tool turn use earlier checklists). Checklist
arguments name papers, figures and tables that exist.
"""
from __future__ import annotations

from typing import Callable

from tools import call_signature, exposed_units

from ._facts import CorpusFacts
from ._images import legend_identifies
from ._model import DraftEpisode, DraftTurn

KNOWN_TOOLS = ("web_search", "pdf_extract", "pdf_rag", "figure_extract", "table_extract", "code_exec")


def checklist_problems(turns: list[DraftTurn], unit_exists: Callable[[str, str], bool], *, minimal: bool) -> list[str]:
    """The replay rules of both benchmark versions: checklist steps use known tools and name units that
    exist, and a memory-only turn's evidence was exposed by earlier checklists. A tool turn's evidence is
    exposed by its own checklist (v1) or, `minimal` (v2), by its own or an earlier one (EC credits memory);
    then no step may repeat an earlier step of the episode, so the oracle makes no redundant call."""
    problems: list[str] = []
    earlier: set[tuple[str, str]] = set()
    made: set[tuple[str, str]] = set()
    for ti, turn in enumerate(turns, start=1):
        own: set[tuple[str, str]] = set()
        for step in turn.checklist:
            sig = call_signature(step.tool, step.args)
            if minimal and sig in made:
                problems.append(f"turn {ti}: checklist step {step.tool} {sig[1]} repeats an earlier step")
            made.add(sig)
            if step.tool not in KNOWN_TOOLS:
                problems.append(f"turn {ti}: unknown tool {step.tool}")
                continue
            exposed = exposed_units(step.tool, step.args)
            for key in exposed:
                if not unit_exists(*key):
                    problems.append(f"turn {ti}: checklist names a missing unit {key}")
            own |= exposed
        reach = earlier if turn.memory_only else ((own | earlier) if minimal else own)
        for ev in turn.evidence:
            if ev.key not in reach:
                problems.append(f"turn {ti}: evidence {ev.key} not exposed by the checklist it may use")
        earlier |= own
    return problems


def _unit_exists(cf: CorpusFacts, paper: str, unit: str) -> bool:
    if paper not in cf.papers:
        return False
    if unit == "text":
        return True
    kind, n = unit.split(":")
    found = cf.figure(paper, int(n)) if kind == "figure" else cf.table(paper, int(n))
    return found is not None


def _image_cue_problems(ep: DraftEpisode, cf: CorpusFacts) -> list[str]:
    """An image cue shows an identifying figure of the turn-1 paper; the search is its method name, and
    the question and hint name no method, title, author or venue."""
    first = ep.turns[0]
    target = first.evidence[0].paper if first.evidence else ""
    problems: list[str] = []
    fig = ep.cue_figure
    if ep.initiation != "indirect_hint":
        problems.append("an image cue episode must have initiation indirect_hint")
    if fig is None or fig.paper != target or cf.figure(target, fig.figure) is None \
            or not legend_identifies(cf, target, cf.figure(target, fig.figure)):  # type: ignore[arg-type]
        problems.append("turn 1: the cue image must be a figure of the paper to find whose legend identifies it")
    if not first.checklist or first.checklist[0].tool != "web_search" \
            or target not in cf.papers or first.checklist[0].args.get("query") != cf.papers[target].method:
        problems.append("turn 1: an image cue's checklist must start with web_search(query=the method in the legend)")
    shown = " ".join([first.question, first.cue.text or ""]) if first.cue else first.question
    for p in cf.papers.values():
        for name in (p.method, p.title, cf.surname(p.id) + " et al.", p.venue):
            if name and name in shown:
                problems.append(f"turn 1: an image cue's question or hint names {name!r}")
    return problems


def check_episode(ep: DraftEpisode, cf: CorpusFacts) -> list[str]:
    """Every broken rule of one generated episode, as readable strings (empty when all hold)."""
    problems: list[str] = []
    first = ep.turns[0]
    if first.cue is not None and first.cue.image is not None:
        problems += _image_cue_problems(ep, cf)
    elif first.cue is None or not first.checklist or first.checklist[0].tool != "web_search" \
            or first.checklist[0].args.get("query") != first.cue.text:
        problems.append("turn 1 must have a cue and start its checklist with web_search(query=cue text)")
    if not ep.turns[-1].memory_only:
        problems.append("the final turn must be memory-only")
    problems += checklist_problems(ep.turns, lambda paper, unit: _unit_exists(cf, paper, unit), minimal=False)
    for ti, turn in enumerate(ep.turns, start=1):
        if not turn.evidence:
            problems.append(f"turn {ti}: no evidence")
        if turn.memory_only and turn.checklist:
            problems.append(f"turn {ti}: memory-only turn with a checklist")
        if not turn.memory_only and not turn.checklist:
            problems.append(f"turn {ti}: tool turn without a checklist")
        for ev in turn.evidence:
            if not _unit_exists(cf, ev.paper, ev.unit):
                problems.append(f"turn {ti}: evidence names a missing unit {ev.key}")
            elif ev.unit.startswith("figure:"):
                fig = cf.figure(ev.paper, int(ev.unit.split(":")[1]))
                if fig is not None and fig.values_in_text:
                    problems.append(f"turn {ti}: {ev.key} has values printed in the text")
        if turn.memory_only and len({ev.paper for ev in turn.evidence}) < 2:
            problems.append(f"turn {ti}: a memory-only turn must fuse evidence from at least two papers")
        a = turn.answer
        if a.format == "number" and a.tolerance is None:
            problems.append(f"turn {ti}: number answer without tolerance")
        if a.format == "choice" and (not a.choices or a.value not in a.choices):
            problems.append(f"turn {ti}: choice answer not among its options")
    return problems
