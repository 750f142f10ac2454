"""Rules every benchmark-v2 episode keeps; the generator refuses to write one that breaks any.

On top of v1's replay rules (checklists name units that exist; a memory-only turn's evidence is exposed
by earlier checklists), a tool turn's evidence is exposed by its own checklist or an earlier one, and
no checklist step repeats an earlier step of the episode (so the oracle, replaying the checklists, makes
no redundant call); v2 checks its annotations: every value turn
says what it read; every final read points to the earlier turn that read it; a final's numeric
operands share dataset, metric and x setting; every paper of the episode feeds the final; every
constraint condition binds; choice derivations list the options in order; no question repeats; an
image cue's question and hint name no method, title, author or venue.
"""
from __future__ import annotations

from ..episodegen_v1._checks import checklist_problems
from ..episodegen_v1._model import DraftEpisode, DraftTurn
from .facts import V2Facts


def _unit_exists(f: V2Facts, paper: str, unit: str) -> bool:
    if paper not in f.papers:
        return False
    if unit == "text":
        return True
    kind, n = unit.split(":")
    items = f.papers[paper].figures if kind == "figure" else f.papers[paper].tables
    return any(x.n == int(n) for x in items)


def _final_problems(ep: DraftEpisode, final: DraftTurn) -> list[str]:
    problems = []
    reads = final.reads or []
    if not reads:
        return ["final: no reads annotation"]
    for r in reads:
        if r.turn is None or not 1 <= r.turn < len(ep.turns):
            problems.append(f"final: read {r.paper} {r.unit} names no earlier turn")
            continue
        earlier = ep.turns[r.turn - 1]
        if (r.paper, r.unit) not in {e.key for e in earlier.evidence}:
            problems.append(f"final: read {r.paper} {r.unit} is not evidence of turn {r.turn}")
    numeric = [r for r in reads if isinstance(r.value, (int, float))]
    if len({(r.dataset, r.metric, r.x, r.x_label) for r in numeric}) > 1:
        problems.append("final: operands measured at different settings")
    episode_papers = {e.paper for t in ep.turns for e in t.evidence}
    if episode_papers - {r.paper for r in reads}:
        problems.append(f"final: papers {sorted(episode_papers - {r.paper for r in reads})} feed nothing into it")
    d = final.derivation
    if d is None:
        problems.append("final: no derivation")
    elif d.conditions:
        passing = set(d.candidates)
        for c in d.conditions:
            if not set(c.passes) <= set(d.candidates):
                problems.append(f"final: condition {c.text!r} passes a non-candidate")
            passing &= set(c.passes)
        for k in range(len(d.conditions)):
            rest = set(d.candidates)
            for j, c in enumerate(d.conditions):
                if j != k:
                    rest &= set(c.passes)
            if rest == passing:
                problems.append(f"final: condition {d.conditions[k].text!r} does not bind")
    return problems


def _image_problems(ep: DraftEpisode, f: V2Facts) -> list[str]:
    first = ep.turns[0]
    shown = first.question + " " + (first.cue.text or "" if first.cue else "")
    problems = []
    for p in f.papers.values():
        for name in (p.method, p.title, f.surname(p.id) + " et al.", p.venue):
            if name and name in shown:
                problems.append(f"turn 1: an image cue's question or hint names {name!r}")
    fig = ep.cue_figure
    if fig is None:
        problems.append("turn 1: image cue without its figure")
    else:
        labels = [s.label for s in f.figure(fig.paper, fig.figure).series]
        if f.papers[fig.paper].method in labels:
            problems.append("turn 1: the cue image's legend names the paper's own method")
    return problems


def check_episode(ep: DraftEpisode, f: V2Facts) -> list[str]:
    """Every broken rule of one generated episode, as readable strings (empty when all hold)."""
    problems: list[str] = []
    first = ep.turns[0]
    if first.cue is None or not first.checklist or first.checklist[0].tool != "web_search":
        problems.append("turn 1 must have a cue and start its checklist with web_search")
    if first.cue is not None and first.cue.image is not None:
        problems += _image_problems(ep, f)
    if not ep.turns[-1].memory_only:
        problems.append("the final turn must be memory-only")
    if len({t.question for t in ep.turns}) != len(ep.turns):
        problems.append("two turns ask the same question")
    problems += checklist_problems(ep.turns, lambda paper, unit: _unit_exists(f, paper, unit), minimal=True)
    for ti, turn in enumerate(ep.turns, start=1):
        if turn.memory_only and turn.checklist:
            problems.append(f"turn {ti}: a memory-only turn has a checklist")
        for ev in turn.evidence:
            if not _unit_exists(f, ev.paper, ev.unit):
                problems.append(f"turn {ti}: evidence names a missing unit {ev.key}")
        a = turn.answer
        if a.format == "number" and a.tolerance is None:
            problems.append(f"turn {ti}: number answer without tolerance")
        if a.format == "choice":
            if not a.choices or a.value not in a.choices:
                problems.append(f"turn {ti}: choice answer not among its options")
            elif turn.derivation is None or turn.derivation.candidates != list(a.choices.values()):
                problems.append(f"turn {ti}: choice derivation must list the options in order")
        if not turn.memory_only and a.format in ("number", "text") and not turn.reads:
            problems.append(f"turn {ti}: a value turn without its read")
    final = ep.turns[-1]
    if len({e.paper for e in final.evidence}) < 2:
        problems.append("final: it must fuse evidence from at least two papers")
    problems += _final_problems(ep, final)
    return problems
