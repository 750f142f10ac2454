"""Assemble benchmark v3 (`episodes/sandbox-v3.jsonl`) from a corpus-v3 ground truth.

As in v2, each episode is planned around one aligned setting K = (dataset, x axis, x): the anchor paper A is
found from the turn-1 cue and read at K, every further paper is reached by a cue that needs reading (a numbered
reference, a baseline of an earlier main table, a citing paper) or an indirect hint and read at K too, and the
memory-only final fuses those values. What v3 changes (issue 26):
- figure values are asked only where the PDF shows them as pixels (facts.py), and only where text guesses miss;
- every choice and set answer is arranged against every prior the audit learns (priors.py);
- no turn asks for the method's name (the title prints it), no table cell the title prints;
- a (paper, figure, series, x) is asked at most once in the whole file, and no turn repeats another's;
- most finals need a value the agent saw but was not asked to report (finals.py; `MEMORY_SHARE`).
Composition follows EpiBench as v1 and v2 do. Deterministic: the same ground truth, seed and probe give the same
bytes.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

from sandbox.corpus.model import GroundTruth

from .model import CueFigure, DraftEpisode, DraftTurn
from .probe import NoProbe, Probe
from .slots import Slot, drop_repeated_steps, paper_plan, plan_slots, write_episodes
from .checks import check_episode, file_problems
from .cues import Cue, baseline_cue, citation_cue, citing_cue, hint_cue, image_cue, ref_cue, title_cue
from .facts import Point, V3Facts
from .finals import Operand, constraint, count, difference, is_memory_final, mean, rank, spread
from .priors import PriorBalancer
from .turns import FIND, FIND_IMAGE, TextShare, figure_choice_turn, figure_value_turn, stay, table_choice_turn, \
    table_value_turn

GENERATOR_VERSION = "episodegen-3.0"
DEFAULT_SEED = 3
DEFAULT_COUNT = 160
IMAGE_SHARE = 0.15
DEFAULT_IMAGE_DIR = "sandbox-v3-cues"
MAX_ATTEMPTS = 240
MEMORY_SHARE = 0.6  # at least this share of finals needs a value seen but not reported (issue 26 item 2)
MIN_AREAS = 6
MIN_PAPERS_PER_AREA = 12  # fewer and the link cues (references, baselines, citers at one setting) cannot be met
LINK_KINDS = ("ref", "baseline", "citing", "hint")


class GenerationError(RuntimeError):
    """The ground truth cannot yield the requested episodes."""


@dataclass
class _Paper:
    pid: str
    located: int
    figure: int
    cue: Cue | None


@dataclass
class Ledger:
    """What the whole file has asked so far: no (paper, figure, series, x), table cell or turn twice."""

    points: set[tuple] = field(default_factory=set)
    cells: set[tuple] = field(default_factory=set)
    columns: set[tuple] = field(default_factory=set)
    turns: set[tuple] = field(default_factory=set)
    finals: int = 0
    memory: int = 0

    def copy(self) -> "Ledger":
        return Ledger(set(self.points), set(self.cells), set(self.columns), set(self.turns), self.finals, self.memory)


def point_key(q: Point) -> tuple:
    return (q.paper, q.n, q.label, q.x)


def turn_key(t: DraftTurn) -> tuple:
    """A turn without how it points at its paper (the lead sentence): its question, evidence and answer."""
    q = t.question
    for lead in (FIND, FIND_IMAGE):
        q = q.removeprefix(lead)
    if q.startswith("Stay with the paper from turn "):
        q = q.split(". ", 1)[-1]
    ans = t.answer.value
    return (q, tuple(e.key for e in t.evidence), tuple(ans) if isinstance(ans, list) else ans)


def check_recipe(gt: GroundTruth, count: int) -> None:
    """GenerationError before anything is built when the corpus cannot serve the composition's rules."""
    if not gt.generator_version.startswith("corpus-3."):
        raise GenerationError(f"benchmark v3 is made over a corpus-v3 ground truth, not {gt.generator_version} "
                              "(build it with `epi sandbox build --corpus v3`)")
    areas: dict[str, int] = {}
    for p in gt.papers:
        areas[p.area] = areas.get(p.area, 0) + 1
    served = sorted(a for a, n in areas.items() if n >= MIN_PAPERS_PER_AREA)
    if len(served) < MIN_AREAS:
        raise GenerationError(
            f"the corpus has {len(gt.papers)} papers with {len(served)} area(s) of at least {MIN_PAPERS_PER_AREA} papers; "
            f"benchmark v3 needs {MIN_AREAS} such areas (each episode's later papers are linked to the first by "
            f"references, baselines or citers at one setting); build a larger corpus (--papers)")
    if count < 1:
        raise GenerationError(f"count must be at least 1 (got {count})")


def drop_searches_adding_nothing(turns: list[DraftTurn], probe: Probe) -> None:
    """Leave out of each checklist a search that, replayed after the earlier ones, surfaces no paper not surfaced
    already and moves none of its turn's papers up: the process metrics count it redundant (harness/scoring/
    process.py, `_search_adds`), so the minimal checklist, and the oracle replaying it, opens the paper the
    earlier results listed. Needs the search engine (a probe without one checks nothing)."""
    rank: dict[str, int] = {}
    for turn in turns:
        targets = {e.paper for e in turn.evidence}
        kept = []
        for step in turn.checklist:
            if step.tool == "web_search":
                listed = probe.hits(str(step.args["query"]))
                if listed is None:
                    return  # no search engine: nothing to replay, every checklist stays as it is
                hits = [p for p in listed[: int(step.args.get("k", 5))] if p]
                new = any(p not in rank for p in hits)
                moved = any(p in targets and r < rank.get(p, r + 1) for r, p in enumerate(hits, 1))
                for r, p in enumerate(hits, 1):
                    rank[p] = min(r, rank.get(p, r))
                if not (new or moved):
                    continue
            kept.append(step)
        turn.checklist = kept


class EpisodeBuilder:
    def __init__(self, f: V3Facts, slot: Slot, rng: random.Random, probe: Probe, bal: PriorBalancer,
                 text: TextShare, ledger: Ledger, image_dir: str, need_memory: bool):
        self.f, self.slot, self.rng, self.probe = f, slot, rng, probe
        self.bal, self.text, self.ledger, self.image_dir = bal, text, ledger, image_dir
        self.need_memory = need_memory

    def _settings(self, anchor: str) -> list[tuple[int, str, str, float]]:
        out = []
        for n, d, xl in self.f.combos(anchor):
            for x in sorted({q.x for q in self.f.points[anchor] if q.n == n and q.x is not None}):
                out.append((n, d, xl, x))
        self.rng.shuffle(out)
        return out

    def _whole(self, pid: str, n: int) -> bool:
        fig = self.f.figure(pid, n)
        return fig.bbox is None or self.probe.figure_whole(pid, n, fig.bbox)

    def _askable(self, pid: str, n: int, x: float) -> list[Point]:
        if not self._whole(pid, n):
            return []
        return [q for q in self.f.line_points(pid, n, x) if self.f.askable(q) and point_key(q) not in self.ledger.points]

    def _link(self, papers: list[_Paper], d: str, xl: str, x: float, turn: int) -> _Paper | None:
        f, rng = self.f, self.rng
        used = {p.pid for p in papers}
        area = f.papers[papers[0].pid].area
        kinds = [k for k in LINK_KINDS if k != "hint"]
        rng.shuffle(kinds)
        kinds = ["hint"] + kinds if rng.random() < 0.2 else kinds + ["hint"]
        for kind in kinds:
            for src in reversed(papers):
                if kind == "ref":
                    pool = f.cites[src.pid]
                elif kind == "baseline":
                    t = f.main_table(src.pid)
                    pool = [f.by_method[r[0]] for r in (t.rows if t else []) if r[0] in f.by_method]
                elif kind == "citing":
                    pool = f.cited_by[src.pid]
                else:
                    pool = [q for q in f.ids if f.papers[q].area == area]
                pool = [q for q in pool if q not in used and f.figure_with(q, d, xl) is not None]
                rng.shuffle(pool)
                for q in pool[:12]:
                    n = f.figure_with(q, d, xl)
                    if n is None or not self._askable(q, n, x):
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

    def _side_turn(self, pid: str, lead: str, cue: Cue | None, k_figure: int, unnamed: bool = False) -> DraftTurn | None:
        """A reading turn for variety: a table cell, a table ranking, a series ranking, another figure's value.
        `unnamed`: only kinds whose question names no method (turn 1 of an image cue)."""
        f, rng = self.f, self.rng
        kinds = ["table_choice", "figure_choice"] if unnamed else ["table", "table_choice", "figure", "figure_choice"]
        rng.shuffle(kinds)
        for kind in kinds:
            if kind == "figure_choice":
                settings = [(g.n, float(x)) for g in f.papers[pid].figures if g.n != k_figure and len(g.series) == 3
                            and g.n in {n for n, _, _ in f.combos(pid)} and self._whole(pid, g.n) for x in g.series[0].x]
                rng.shuffle(settings)
                for gn, gx in settings[:8]:
                    pts = f.line_points(pid, gn, gx)
                    if any(point_key(q) in self.ledger.points for q in pts):
                        continue
                    t = figure_choice_turn(f, pts, lead, cue, self.bal, self.text)
                    if t is not None:
                        self.ledger.points |= {point_key(q) for q in pts}
                        return t
            elif kind == "table":
                cells = [c for c in f.cells(pid) if not f.cell_recurs(c) and not f.number_in_title(pid, c.value)
                         and (c.paper, c.n, c.row, c.column) not in self.ledger.cells]
                if cells:
                    c = rng.choice(cells)
                    self.ledger.cells.add((c.paper, c.n, c.row, c.column))
                    return table_value_turn(c, lead, cue, f)
            elif kind == "table_choice":
                t = table_choice_turn(f, pid, lead, cue, self.bal, self.ledger.columns)
                if t is not None:
                    return t
            else:
                pts = [q for q in f.points[pid] if q.n != k_figure and f.askable(q) and point_key(q) not in self.ledger.points
                       and self._whole(pid, q.n)]
                if pts:
                    q = rng.choice(pts)
                    self.ledger.points.add(point_key(q))
                    return figure_value_turn(f, q, lead, cue)
        return None

    def build(self, anchor: str, ep_id: str, source: str) -> DraftEpisode | None:
        for n, d, xl, x in self._settings(anchor)[:16]:
            self.turns: list[DraftTurn] = []
            saved = (self.bal.copy(), self.text.copy(), self.ledger.copy())
            ep = self._build_at(anchor, n, d, xl, x, ep_id, source)
            if ep is not None:
                return ep
            self.bal, self.text, self.ledger = saved
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
        a_points = self._askable(anchor, n, x)
        if not a_points:
            return None
        plan = paper_plan(slot)
        papers = [_Paper(anchor, 1, n, cue)]
        later: list[tuple[_Paper, bool]] = []
        for i in range(2, len(plan)):
            if plan[i] == plan[i - 1]:
                later.append((papers[-1], False))
                continue
            link = self._link(papers, d, xl, x, turn=i + 1)
            if link is None:
                return None
            papers.append(link)
            later.append((link, True))
        # an image cue's turn 1 names no method, so it ranks (the options carry the names) and K is read in turn 2
        k_first = not slot.image and (slot.task_type == "constraint" or rng.random() < 0.5)
        a_turn = 1 if k_first else 2
        choice = self._operands(anchor, n, x, a_turn, a_points, later)
        if choice is None:
            return None
        ops, final = choice
        lead1 = FIND_IMAGE if slot.image else FIND
        if k_first:
            self.turns.append(figure_value_turn(f, ops[0].point, lead1, cue))
            second = self._side_turn(anchor, stay(1), None, n)
            if second is None:
                return None
            self.turns.append(second)
        else:
            first = self._side_turn(anchor, lead1, cue, n, unnamed=slot.image)
            if first is None:
                return None
            self.turns += [first, figure_value_turn(f, ops[0].point, stay(1), None)]
        for (paper, located), op in zip(later, ops[1:]):
            lead = FIND if located else stay(paper.located)
            self.turns.append(figure_value_turn(f, op.point, lead, paper.cue if located else None))
        self.turns.append(final)
        keys = [turn_key(t) for t in self.turns[:-1]]
        if len(set(keys)) != len(keys) or any(k in self.ledger.turns for k in keys):
            return None
        self.ledger.turns |= set(keys)
        for t in self.turns:
            for r in t.reads or []:
                if r.unit.startswith("figure:"):
                    self.ledger.points.add((r.paper, int(r.unit.split(":")[1]), r.series, r.x))
        drop_repeated_steps(self.turns)
        drop_searches_adding_nothing(self.turns, self.probe)
        cue_fig = CueFigure(paper=anchor, figure=cue.figure) if cue.image and cue.figure else None
        if cue_fig is not None:
            self.turns[0].note = f"cue image: Figure {cue.figure} of {anchor} without its caption"
        return DraftEpisode(id=ep_id, split=slot.split, task_type=slot.task_type, initiation=slot.initiation,  # type: ignore[arg-type]
                            area=f.papers[anchor].area, turns=self.turns, source=source, cue_figure=cue_fig)

    def _unreported(self, papers: list[tuple[str, int, int]], taken: set[tuple], x: float) -> list[Operand]:
        """Values the agent saw but did not report: other series of a figure an earlier turn read at K."""
        out = []
        for pid, n, turn in papers:
            for q in self._askable(pid, n, x):
                if (q.paper, q.label) not in taken:
                    out.append(Operand(turn, q, reported=False))
        self.rng.shuffle(out)
        return out

    def _operands(self, anchor: str, n: int, x: float, a_turn: int, a_points: list[Point],
                  later: list[tuple[_Paper, bool]]) -> tuple[list[Operand], DraftTurn] | None:
        choices: list[list[Point]] = [a_points]
        for paper, _ in later:
            choices.append(self._askable(paper.pid, paper.figure, x))
        combos = list(itertools.islice(itertools.product(*choices), 1500))
        self.rng.shuffle(combos)
        for combo in combos[:300]:
            keys = [(q.paper, q.label) for q in combo]
            asked = [(q.n, q.label) for q in combo]
            if len(set(keys)) != len(keys) or len(set(asked)) != len(asked):
                continue
            ops = [Operand(a_turn, combo[0])] + [Operand(3 + i, q) for i, q in enumerate(combo[1:])]
            figs = [(anchor, n, a_turn)] + [(q.paper, q.n, 3 + i) for i, q in enumerate(combo[1:])]
            figs = list({(p, m): (p, m, t) for p, m, t in reversed(figs)}.values())  # the first turn reading each figure
            extra = self._unreported(figs, set(keys), x)
            trial = (self.bal.copy(), self.ledger.copy())
            final = self._final(ops, extra, anchor, n, x)
            if final is not None:
                return ops, final
            self.bal, self.ledger = trial
        return None

    def _final(self, ops: list[Operand], extra: list[Operand], anchor: str, n: int, x: float) -> DraftTurn | None:
        kind, rng, f, bal = self.slot.task_type, self.rng, self.f, self.bal
        if kind == "constraint":
            cands = f.line_points(anchor, n, x)
            if any(point_key(c) in self.ledger.points for c in cands if c not in {o.point for o in ops}):
                return None
            refs = ops if self.slot.split == "easy" else [o for o in ops if o.point.paper != anchor]
            return constraint(cands, ops[0].turn, refs, rng, bal, f)
        attempts: list[list[Operand]] = [[u] + ops for u in extra[:4]]
        if not self.need_memory or not attempts:
            attempts.append(ops)
        papers = {o.point.paper for o in ops}
        for group in attempts:
            t = self._fuse(kind, group)
            if t is not None and papers <= {r.paper for r in t.reads or []}:
                return t
        return None

    def _fuse(self, kind: str, group: list[Operand]) -> DraftTurn | None:
        rng, f, bal = self.rng, self.f, self.bal
        if kind == "comparison":
            options = [rank, spread, difference] if len(group) >= 3 else [difference]
            rng.shuffle(options)
            for make in options:
                if make is difference and len(group) > 3:
                    continue
                ops = group if make is not difference else [group[0], group[-1]]
                trial = bal.copy()
                t = make(ops, f, bal)
                if t is not None and {o.point.paper for o in group} <= {r.paper for r in t.reads or []}:
                    return t
                bal.__dict__.update(trial.__dict__)
            return None
        options = ["mean", "count"]
        rng.shuffle(options)
        for o in options:
            t = mean(group, f, bal) if o == "mean" else count(group[0], group[1:], f, bal)
            if t is not None:
                return t
        return None


def generate_episodes(gt: GroundTruth, *, seed: int = DEFAULT_SEED, count: int = DEFAULT_COUNT,
                      image_share: float = 0.0, image_dir: str = DEFAULT_IMAGE_DIR,
                      probe: Probe | None = None) -> list[DraftEpisode]:
    """Benchmark-v3 episodes for a corpus-v3 ground truth; GenerationError (before anything is written) if the
    corpus cannot serve the recipe or a slot cannot be filled."""
    check_recipe(gt, count)
    f = V3Facts(gt)
    probe = probe or NoProbe()
    rng = random.Random(f"episodes-v3:{seed}")
    slots = plan_slots(count, rng, image_share)
    areas = sorted({p.area for p in gt.papers})
    anchors = {a: [pid for pid in f.ids if f.papers[pid].area == a and f.combos(pid)] for a in areas}
    for a in areas:
        rng.shuffle(anchors[a])
    bal = PriorBalancer(random.Random(f"episodes-v3:{seed}:balance"))
    text = TextShare()
    ledger = Ledger()
    source = f"sandbox.episodegen {GENERATOR_VERSION} seed={seed} ground_truth={gt.generator_version}/seed={gt.seed}"
    width = max(3, len(str(count)))
    built: dict[int, DraftEpisode] = {}
    used: dict[str, int] = {}
    # the scarcest slots first: a constraint final takes every series of a figure at one x, so those are built
    # while the file has asked the least (ids keep the slot order)
    order = sorted(range(len(slots)), key=lambda k: (slots[k].task_type != "constraint", slots[k].split != "hard", k))
    for i in order:
        slot = slots[i]
        ep_id = f"sbx3-{i + 1:0{width}d}"
        area = areas[i % len(areas)]
        pool = sorted(anchors[area], key=lambda pid: used.get(pid, 0))[:MAX_ATTEMPTS // 2]
        pool += sorted((pid for a in areas if a != area for pid in anchors[a]), key=lambda pid: used.get(pid, 0))
        # a final without an unseen value only while the file stays above the memory share with room to spare
        need_memory = ledger.memory < (MEMORY_SHARE + 0.1) * (ledger.finals + 1)
        for attempt in range(min(MAX_ATTEMPTS, len(pool))):
            anchor = pool[attempt % len(pool)]
            builder = EpisodeBuilder(f, slot, random.Random(f"{seed}:{i}:{attempt}"), probe, bal.copy(), text.copy(),
                                     ledger.copy(), image_dir, need_memory)
            ep = builder.build(anchor, ep_id, source)
            if ep is None:
                continue
            problems = check_episode(ep, f)
            if problems:
                raise GenerationError(f"episode {ep_id} breaks a generator rule: {'; '.join(problems)}")
            bal, text, ledger = builder.bal, builder.text, builder.ledger
            ledger.finals += 1
            ledger.memory += is_memory_final(ep.turns)
            for t in ep.turns:
                for e in t.evidence:
                    used[e.paper] = used.get(e.paper, 0) + 1
            built[i] = ep
            break
        else:
            raise GenerationError(f"could not build episode {ep_id} ({slot}) in area {area} after {MAX_ATTEMPTS} anchors")
    episodes = [built[i] for i in range(len(slots))]
    problems = file_problems(episodes, f)
    if problems:
        raise GenerationError("the episode set breaks a generator rule: " + "; ".join(problems[:5]))
    return episodes
