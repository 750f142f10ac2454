"""Assemble benchmark v2 (`episodes/sandbox-v2.jsonl`) from a corpus-v2 ground truth.

Each episode is planned around one aligned setting K = (dataset, x axis, x) of its area: the anchor
paper A is found from the turn-1 cue and read at K; every further paper is reached by a cue that
needs reading (a numbered reference, a baseline of an earlier table, a citing paper) or an indirect
hint, and is read at K too; the memory-only final fuses those values. Composition follows EpiBench
(seed 004, app. 0.A.2) as in v1. Deterministic: the same ground truth, seed and probe give the same bytes.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from sandbox.corpus.model import GroundTruth
from tools import call_signature

from ..episodegen_v1 import _generate as v1
from ..episodegen_v1._model import CueFigure, DraftEpisode, DraftTurn
from .checks import check_episode
from .cues import Cue, baseline_cue, citation_cue, citing_cue, hint_cue, image_cue, ref_cue, title_cue
from .facts import Point, V2Facts
from .finals import Operand, constraint, count, difference, mean, rank, spread
from .probe import NoProbe, Probe
from .turns import FIND, FIND_IMAGE, Balancer, figure_choice_turn, figure_value_turn, method_turn, stay, \
    table_choice_turn, table_value_turn

GENERATOR_VERSION = "episodegen-2.1"  # 2.1: no checklist step repeats an earlier one
DEFAULT_SEED = 2
DEFAULT_COUNT = 132
IMAGE_SHARE = 0.15
DEFAULT_IMAGE_DIR = "sandbox-v2-cues"
MAX_ATTEMPTS = 160
LINK_KINDS = ("ref", "baseline", "citing", "hint")


class GenerationError(RuntimeError):
    """The ground truth cannot yield the requested episodes."""


@dataclass
class _Paper:
    pid: str
    located: int  # the turn whose cue found it
    figure: int  # its figure at the episode's setting
    cue: Cue | None


class EpisodeBuilder:
    """Builds one episode for a slot from an anchor paper, or returns None if the anchor cannot serve it."""

    def __init__(self, f: V2Facts, slot: v1.Slot, rng: random.Random, probe: Probe, bal: Balancer, image_dir: str):
        self.f, self.slot, self.rng, self.probe, self.bal, self.image_dir = f, slot, rng, probe, bal, image_dir

    # ---- the setting and the papers ---------------------------------------------------------
    def _settings(self, anchor: str) -> list[tuple[int, str, str, float]]:
        """(figure, dataset, x axis, x) settings of the anchor, the two lowest budgets of each sweep first:
        there methods differ most in how much they lose, so plotted values follow their table scores least
        and a final cannot be answered from the tables."""
        low, high = [], []
        for n, d, xl in self.f.combos(anchor):
            xs = sorted({q.x for q in self.f.points[anchor] if q.n == n and q.x is not None})
            for i, x in enumerate(xs):
                (low if i < 2 else high).append((n, d, xl, x))
        self.rng.shuffle(low)
        self.rng.shuffle(high)
        return low + high

    def _whole(self, pid: str, n: int) -> bool:
        return self.probe.figure_whole(pid, n, self.f.figure(pid, n).bbox)

    def _askable(self, pid: str, n: int, x: float, avoid: set[str] = frozenset()) -> list[Point]:
        if not self._whole(pid, n):
            return []
        return [q for q in self.f.line_points(pid, n, x) if self.f.askable(q) and q.label not in avoid]

    def _link(self, papers: list[_Paper], d: str, xl: str, x: float, turn: int) -> _Paper | None:
        """A new paper with a figure at the setting, and a cue reaching it from the papers found so far."""
        f, rng = self.f, self.rng
        used = {p.pid for p in papers}
        area = f.papers[papers[0].pid].area
        # Cues that need reading an earlier paper come first; an indirect hint leads in a fifth of the
        # cases and is otherwise the fallback, so most later papers are reached along the evidence.
        kinds = [k for k in LINK_KINDS if k != "hint"]
        rng.shuffle(kinds)
        kinds = ["hint"] + kinds if rng.random() < 0.2 else kinds + ["hint"]
        for kind in kinds:
            srcs = list(reversed(papers))
            for src in srcs:
                if kind == "ref":
                    pool = f.cites[src.pid]
                elif kind == "baseline":
                    pool = [f.by_method[r[0]] for r in f.table(src.pid, 1).rows if r[0] in f.by_method]
                elif kind == "citing":
                    pool = f.cited_by[src.pid]
                else:
                    pool = [q for q in f.ids if f.papers[q].area == area]
                pool = [q for q in pool if q not in used and f.figure_with(q, d, xl) is not None]
                rng.shuffle(pool)
                for q in pool[:12]:
                    n = f.figure_with(q, d, xl)
                    if not self._askable(q, n, x):
                        continue
                    if kind == "ref":
                        cue = ref_cue(f, src.pid, src.located, q, self.probe)
                    elif kind == "baseline":
                        cue = baseline_cue(f, src.pid, src.located, q, rng, self.probe)
                    elif kind == "citing":
                        cue = citing_cue(f, src.pid, src.located, q, self.probe)
                    else:
                        cue = hint_cue(f, q, rng, self.probe)
                    if cue is not None:
                        return _Paper(q, turn, n, cue)
                if kind == "hint":
                    break
        return None

    # ---- turns ------------------------------------------------------------------------------
    def _side_turn(self, pid: str, lead: str, cue: Cue | None, k_figure: int) -> DraftTurn | None:
        """A reading turn for variety: a table cell, a table ranking, the method's name, a bar, another figure."""
        f, rng = self.f, self.rng
        kinds = ["table", "table_choice", "method", "bar", "figure", "figure_choice"]
        rng.shuffle(kinds)
        for kind in kinds:
            if kind == "figure_choice":  # rank the series of a line chart at one setting
                settings = [(g.n, float(x)) for g in f.papers[pid].figures if g.kind == "line" and len(g.series) >= 3
                            and self._whole(pid, g.n) for x in g.series[0].x]
                rng.shuffle(settings)
                for gn, gx in settings[:8]:
                    t = figure_choice_turn(f, f.line_points(pid, gn, gx), lead, cue, self.bal)
                    if t is not None:
                        return t
            elif kind == "table":
                cells = [c for c in f.cells(pid) if not f.cell_recurs(c)]
                if cells:
                    return table_value_turn(rng.choice(cells), lead, cue, f)
            elif kind == "table_choice":
                t = table_choice_turn(f, pid, lead, cue, self.bal)
                if t is not None:
                    return t
            elif kind == "method":
                if not any(f.papers[pid].method in (c.text or "") for c in self.cues):
                    return method_turn(f, pid, lead, cue)
            else:
                pts = [q for q in f.points[pid] if f.askable(q) and (q.kind == "bar") == (kind == "bar")
                       and q.n != k_figure and self._whole(pid, q.n)]
                if pts:
                    return figure_value_turn(f, rng.choice(pts), lead, cue)
        return None

    def build(self, anchor: str, ep_id: str, source: str) -> DraftEpisode | None:
        """An episode for the slot anchored at `anchor`, trying up to 12 of its settings; None if none serves."""
        for n, d, xl, x in self._settings(anchor)[:12]:
            self.turns: list[DraftTurn] = []
            self.cues: list[Cue] = []
            ep = self._build_at(anchor, n, d, xl, x, ep_id, source)
            if ep is not None:
                return ep
        return None

    def _first_cue(self, anchor: str, n: int, ep_id: str) -> Cue | None:
        f, rng = self.f, self.rng
        if self.slot.image:
            return image_cue(f, anchor, f"{self.image_dir}/{ep_id}.png", rng, self.probe, avoid_figure=n)
        if self.slot.initiation == "direct_title":
            return title_cue(f, anchor, self.probe)
        if self.slot.initiation == "citation":
            return citation_cue(f, anchor, self.probe)
        return hint_cue(f, anchor, rng, self.probe)

    def _build_at(self, anchor: str, n: int, d: str, xl: str, x: float, ep_id: str, source: str) -> DraftEpisode | None:
        f, rng, slot = self.f, self.rng, self.slot
        cue = self._first_cue(anchor, n, ep_id)
        if cue is None:
            return None
        self.cues.append(cue)
        only_ours = {q.label for q in f.line_points(anchor, n, x)} - {"Ours"} if slot.image else set()
        a_points = self._askable(anchor, n, x, only_ours)
        if not a_points:
            return None
        plan = v1._paper_plan(slot)  # e.g. ["A", "A", "B", "C"]: the paper each reading turn visits
        papers = [_Paper(anchor, 1, n, cue)]
        later: list[tuple[_Paper, bool]] = []  # (paper, located in this turn?) for turns 3..
        for i in range(2, len(plan)):
            if plan[i] == plan[i - 1]:
                later.append((papers[-1], False))
                continue
            link = self._link(papers, d, xl, x, turn=i + 1)
            if link is None:
                return None
            papers.append(link)
            self.cues.append(link.cue)  # type: ignore[arg-type]
            later.append((link, True))
        k_first = slot.image or slot.task_type == "constraint" or rng.random() < 0.5
        a_turn = 1 if k_first else 2
        choice = self._operands(anchor, n, x, a_turn, a_points, later)
        if choice is None:
            return None
        ops, final = choice
        lead1 = FIND_IMAGE if slot.image else FIND
        if k_first:
            self.turns.append(figure_value_turn(f, ops[0].point, lead1, cue))
            second = self._side_turn(anchor, stay(1), None, n)
            if second is None or second.question.split(". ", 1)[-1] == self.turns[0].question.split(". ", 1)[-1]:
                return None
            self.turns.append(second)
        else:
            first = self._side_turn(anchor, lead1, cue, n)
            if first is None:
                return None
            self.turns += [first, figure_value_turn(f, ops[0].point, stay(1), None)]
        for (paper, located), op in zip(later, ops[1:]):
            lead = FIND if located else stay(paper.located)
            self.turns.append(figure_value_turn(f, op.point, lead, paper.cue if located else None))
        self.turns.append(final)
        drop_repeated_steps(self.turns)
        cue_fig = CueFigure(paper=anchor, figure=cue.figure) if cue.image and cue.figure else None
        if cue_fig is not None:
            self.turns[0].note = f"cue image: Figure {cue.figure} of {anchor} without its caption"
        return DraftEpisode(id=ep_id, split=slot.split, task_type=slot.task_type, initiation=slot.initiation,  # type: ignore[arg-type]
                            area=f.papers[anchor].area, turns=self.turns, source=source, cue_figure=cue_fig)

    def _operands(self, anchor: str, n: int, x: float, a_turn: int, a_points: list[Point],
                  later: list[tuple[_Paper, bool]]) -> tuple[list[Operand], DraftTurn] | None:
        """The series each turn reads at the setting, chosen so that the final has a sound answer."""
        choices: list[list[Point]] = [a_points]
        for paper, _ in later:
            choices.append(self._askable(paper.pid, paper.figure, x))
        combos = list(itertools.islice(itertools.product(*choices), 1500))
        self.rng.shuffle(combos)
        for combo in combos:
            keys = [(q.paper, q.label) for q in combo]
            asked = [(q.n, q.label) for q in combo]  # same figure number and series: the same question text
            if len(set(keys)) != len(keys) or len(set(asked)) != len(asked):
                continue
            ops = [Operand(a_turn, combo[0])] + [Operand(3 + i, q) for i, q in enumerate(combo[1:])]
            trial = self.bal.copy()
            final = self._final(ops, anchor, n, x, trial)
            if final is not None:
                self.bal.__dict__.update(trial.__dict__)
                return ops, final
        return None

    def _final(self, ops: list[Operand], anchor: str, n: int, x: float, bal: Balancer) -> DraftTurn | None:
        kind, rng = self.slot.task_type, self.rng
        if kind == "constraint":
            cands = self.f.line_points(anchor, n, x)
            # hard: the other papers' readings; easy (one other paper): A's own reading joins them
            refs = ops if self.slot.split == "easy" else [o for o in ops if o.point.paper != anchor]
            return constraint(cands, 1, refs, rng, bal, self.f)  # the figure turn 1 read (constraints read K first)
        if kind == "comparison":
            options = [rank, spread] if len(ops) >= 3 else [difference, rank]
            rng.shuffle(options)
            for make in options:
                t = make(ops, bal, self.f) if make is rank else make(ops, self.f, bal)
                if t is not None:
                    return t
            return None
        options = ["mean", "count"]
        rng.shuffle(options)
        for o in options:
            t = mean(ops, self.f, bal) if o == "mean" else count(ops[0], ops[1:], self.f, bal)
            if t is not None:
                return t
        return None


def drop_repeated_steps(turns: list[DraftTurn]) -> None:
    """Leave out of each checklist the steps an earlier turn's checklist already made (same tool, same
    arguments). Their result is already in the conversation (a later turn reading another series of the
    figure an earlier turn opened, or the reference list of a paper whose text an earlier turn read), so
    the minimal checklist, and the oracle replaying it, makes the call once. A turn left with no step is
    still a tool turn; its evidence was exposed earlier, which evidence correctness credits from memory."""
    seen: set[tuple[str, str]] = set()
    for turn in turns:
        kept = []
        for step in turn.checklist:
            sig = call_signature(step.tool, step.args)
            if sig not in seen:
                seen.add(sig)
                kept.append(step)
        turn.checklist = kept


def plan_slots(count: int, rng: random.Random, image_share: float) -> list[v1.Slot]:
    """v1's composition (splits, turns, task types, initiations); image cues go to a share of the
    indirect-hint slots of comparison and aggregation episodes, spread over both splits (a constraint
    final reads the anchor's figure at the setting, which an image cue must not show too)."""
    slots = v1.plan_slots(count, rng, 0.0)
    return v1.mark_image_slots(slots, image_share, frozenset({"comparison", "aggregation"}))


def generate_episodes(gt: GroundTruth, *, seed: int = DEFAULT_SEED, count: int = DEFAULT_COUNT,
                      image_share: float = 0.0, image_dir: str = DEFAULT_IMAGE_DIR,
                      probe: Probe | None = None) -> list[DraftEpisode]:
    """Benchmark-v2 episodes for a corpus-v2 ground truth; GenerationError if a slot cannot be filled.

    With `probe` (a ToolProbe over the built sandbox) every checklist query is run through the search
    engine and reference entries are located in pdf_extract's parts; without one, nothing is verified."""
    f = V2Facts(gt)
    probe = probe or NoProbe()
    rng = random.Random(f"episodes-v2:{seed}")
    slots = plan_slots(count, rng, image_share)
    areas = sorted({p.area for p in gt.papers})
    anchors = {a: [pid for pid in f.ids if f.papers[pid].area == a and f.combos(pid)] for a in areas}
    for a in areas:
        rng.shuffle(anchors[a])
    bal = Balancer(random.Random(f"episodes-v2:{seed}:balance"))
    source = f"sandbox.episodegen {GENERATOR_VERSION} seed={seed} ground_truth={gt.generator_version}/seed={gt.seed}"
    width = max(3, len(str(count)))
    episodes: list[DraftEpisode] = []
    used: dict[str, int] = {}
    for i, slot in enumerate(slots):
        ep_id = f"sbx2-{i + 1:0{width}d}"
        area = areas[i % len(areas)]
        # the slot's area first; if none of its papers can serve the slot, the other areas'
        pool = sorted(anchors[area], key=lambda pid: used.get(pid, 0))[:MAX_ATTEMPTS // 2]
        pool += sorted((pid for a in areas if a != area for pid in anchors[a]), key=lambda pid: used.get(pid, 0))
        for attempt in range(min(MAX_ATTEMPTS, len(pool))):
            anchor = pool[attempt % len(pool)]
            trial = bal.copy()  # a failed attempt leaves the balance as it was
            builder = EpisodeBuilder(f, slot, random.Random(f"{seed}:{i}:{attempt}"), probe, trial, image_dir)
            ep = builder.build(anchor, ep_id, source)
            if ep is None:
                continue
            bal = trial
            problems = check_episode(ep, f)
            if problems:
                raise GenerationError(f"episode {ep_id} breaks a generator rule: {'; '.join(problems)}")
            for t in ep.turns:
                for e in t.evidence:
                    used[e.paper] = used.get(e.paper, 0) + 1
            episodes.append(ep)
            break
        else:
            raise GenerationError(f"could not build episode {ep_id} ({slot}) in area {area} after {MAX_ATTEMPTS} anchors")
    return episodes


write_episodes = v1.write_episodes  # one line per episode, the same for both benchmark versions
