"""Rules every benchmark-v3 episode keeps, and rules the whole file keeps; the generator refuses to write a set
that breaks any (and the tests run each on data with the flaw).

Per episode, the replay rules (checklists name units that exist; evidence is exposed by the
turn's own or an earlier checklist; no checklist step repeats; a final's reads point to earlier turns' evidence
at one setting and every paper feeds it; constraint conditions bind; choice derivations list the options):
- a figure value is asked only on a figure that shows it as pixels (raster, or vector with embedded marks);
- no scored text or number answer is printed in its paper's title; no turn asks for the method's name;
- a count, mean or ranking takes at least two values (a spread or ranking three);
- an image cue's question and hint name no method, title, author or venue, and its legend singles the paper out.
Per file: a (paper, figure, series, x) is read in one episode only; no turn repeats another episode's turn; at
least MEMORY_SHARE of the finals need a value the agent saw but was not asked to report.
"""
from __future__ import annotations

from typing import Callable

from tools import call_signature, exposed_units

from .model import DraftEpisode, DraftTurn
from .cues import legend_singles_out
from .facts import V3Facts, pixels_only
from .finals import is_memory_final

MEMORY_SHARE = 0.6
MIN_OPERANDS = {"count": 3, "mean": 2, "range": 3, "argmax": 2, "argmin": 2, "difference": 2}
KNOWN_TOOLS = ("web_search", "pdf_extract", "pdf_rag", "figure_extract", "table_extract", "code_exec")


def checklist_problems(turns: list[DraftTurn], unit_exists: Callable[[str, str], bool]) -> list[str]:
    """The replay rules: checklist steps use known tools and name units that exist; a memory-only turn's
    evidence was exposed by earlier checklists, a tool turn's by its own or an earlier one (EC credits memory);
    no step repeats an earlier step of the episode, so the oracle makes no redundant call."""
    problems: list[str] = []
    earlier: set[tuple[str, str]] = set()
    made: set[tuple[str, str]] = set()
    for ti, turn in enumerate(turns, start=1):
        own: set[tuple[str, str]] = set()
        for step in turn.checklist:
            sig = call_signature(step.tool, step.args)
            if sig in made:
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
        reach = earlier if turn.memory_only else own | earlier
        for ev in turn.evidence:
            if ev.key not in reach:
                problems.append(f"turn {ti}: evidence {ev.key} not exposed by the checklist it may use")
        earlier |= own
    return problems


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


def _unit_exists(f: V3Facts, paper: str, unit: str) -> bool:
    if paper not in f.papers:
        return False
    if unit == "text":
        return True
    kind, n = unit.split(":")
    items = f.papers[paper].figures if kind == "figure" else f.papers[paper].tables
    return any(x.n == int(n) for x in items)


def _image_problems(ep: DraftEpisode, f: V3Facts) -> list[str]:
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
    elif not legend_singles_out(f, fig.paper, [s.label for s in f.figure(fig.paper, fig.figure).series]):
        problems.append("turn 1: the cue image's legend does not single out its paper")
    return problems


def _turn_problems(ti: int, turn: DraftTurn, f: V3Facts) -> list[str]:
    problems = []
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
    if "name of the method" in turn.question:
        problems.append(f"turn {ti}: asks for the method's name, which the title prints")
    for r in turn.reads or []:
        if r.turn is None and r.unit.startswith("figure:") and _unit_exists(f, r.paper, r.unit):
            if not pixels_only(f.figure(r.paper, int(r.unit.split(":")[1]))):
                problems.append(f"turn {ti}: asks a value of {r.paper} {r.unit}, whose vector drawing gives it exactly")
    paper = turn.evidence[0].paper if turn.evidence else None
    if paper in f.papers and not turn.memory_only:
        if a.format == "text" and f.in_title(paper, str(a.value)):
            problems.append(f"turn {ti}: the answer {a.value!r} is printed in the title of {paper}")
        if a.format == "number" and isinstance(a.value, (int, float)) and f.number_in_title(paper, float(a.value)):
            problems.append(f"turn {ti}: the answer {a.value} is printed in the title of {paper}")
    d = turn.derivation
    if d is not None and d.op in MIN_OPERANDS:
        operands = len({(r.paper, r.unit, r.series, r.x, r.turn) for r in turn.reads or []}) if turn.memory_only \
            else len(d.candidates)
        if operands < MIN_OPERANDS[d.op]:
            problems.append(f"turn {ti}: a {d.op} over {operands} value(s)")
    return problems


def check_episode(ep: DraftEpisode, f: V3Facts) -> list[str]:
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
    problems += checklist_problems(ep.turns, lambda paper, unit: _unit_exists(f, paper, unit))
    for ti, turn in enumerate(ep.turns, start=1):
        if turn.memory_only and turn.checklist:
            problems.append(f"turn {ti}: a memory-only turn has a checklist")
        for ev in turn.evidence:
            if not _unit_exists(f, ev.paper, ev.unit):
                problems.append(f"turn {ti}: evidence names a missing unit {ev.key}")
        problems += _turn_problems(ti, turn, f)
    final = ep.turns[-1]
    if len({e.paper for e in final.evidence}) < 2:
        problems.append("final: it must fuse evidence from at least two papers")
    problems += _final_problems(ep, final)
    return problems


def _figure_reads(ep: DraftEpisode) -> set[tuple]:
    return {(r.paper, r.unit, r.series, r.x) for t in ep.turns for r in t.reads or [] if r.unit.startswith("figure:")}


def file_problems(episodes: list[DraftEpisode], f: V3Facts | None = None) -> list[str]:
    """Rules of the whole file: a (paper, figure, series, x) read in one episode only; no turn repeating another
    episode's turn; at least MEMORY_SHARE of finals needing a value seen but not reported."""
    from .generate import turn_key

    problems: list[str] = []
    owner: dict[tuple, str] = {}
    turns: dict[tuple, str] = {}
    for ep in episodes:
        for key in sorted(_figure_reads(ep), key=str):
            if key in owner:
                problems.append(f"{ep.id}: {key[0]} {key[1]} {key[2]!r} at x={key[3]:g} is also read in {owner[key]}")
            else:
                owner[key] = ep.id
        for ti, t in enumerate(ep.turns[:-1], start=1):
            k = turn_key(t)
            if k in turns and turns[k] != ep.id:
                problems.append(f"{ep.id} turn {ti} repeats a turn of {turns[k]}")
            turns.setdefault(k, ep.id)
    if episodes:
        memory = sum(is_memory_final(ep.turns) for ep in episodes)
        if memory < MEMORY_SHARE * len(episodes):
            problems.append(f"only {memory} of {len(episodes)} finals need a value seen but not reported "
                            f"(at least {MEMORY_SHARE:.0%} must)")
    return problems
