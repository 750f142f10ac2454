"""Assemble the benchmark: composition quotas, paper chains along the citation graph, and episodes.

The composition follows EpiBench (seed 004, sec. 3.2 and app. 0.A.2): ~40% easy / 60% hard, mostly
5 turns (4-6), task types constraint/comparison/aggregation ~35/40/25%, initiation
citation/indirect hint/direct title ~45/35/20%. About 17% of the episodes (a subset of the
indirect-hint quota, spread over splits and task types) start from an image cue instead of a text
cue: a figure of the anchor paper whose legend names its method (see _images.py). Everything is drawn from random.Random seeded by
strings, so the same ground truth and seed give byte-identical output.
"""
from __future__ import annotations

import hashlib
from collections import Counter
import random
from dataclasses import dataclass
from pathlib import Path

from sandbox.corpus.model import GroundTruth

from ._checks import check_episode
from ._cues import PaperCue, initiation_cue, link_cue
from ._facts import CorpusFacts, Group, ValueFact
from ._finals import Known, aggregation_final, comparison_final, constraint_final
from ._images import image_cue
from ._model import CueFigure, DraftEpisode, DraftTurn
from ._turns import ReadTurn, method_turn, ranking_turn, value_turn

GENERATOR_VERSION = "episodegen-1"
DEFAULT_SEED = 1
DEFAULT_COUNT = 110
SPLIT_SHARE = {"easy": 0.40, "hard": 0.60}
TASK_SHARE = {"constraint": 0.35, "comparison": 0.40, "aggregation": 0.25}
INITIATION_SHARE = {"citation": 0.45, "indirect_hint": 0.35, "direct_title": 0.20}
IMAGE_SHARE = 0.17
DEFAULT_IMAGE_DIR = "sandbox-v1-cues"
MAX_ATTEMPTS = 60


class GenerationError(RuntimeError):
    """The ground truth cannot yield the requested episodes (too few linked papers or readable values)."""


@dataclass(frozen=True)
class Slot:
    split: str
    turns: int
    task_type: str
    initiation: str
    image: bool = False


def _quota(shares: dict[str, float], n: int) -> list[str]:
    """n labels in the given shares (largest remainder rounding), in a fixed order."""
    raw = {k: v * n for k, v in shares.items()}
    counts = {k: int(v) for k, v in raw.items()}
    for k in sorted(raw, key=lambda k: raw[k] - counts[k], reverse=True)[: n - sum(counts.values())]:
        counts[k] += 1
    return [k for k in shares for _ in range(counts[k])]


def mark_image_slots(slots: list[Slot], share: float, task_types: frozenset[str] | None = None) -> list[Slot]:
    """Turn round(share * n) indirect-hint slots (of `task_types`, default all) into image-cue slots, taking
    one per (split, task type) in turn so that they spread over both; the initiation shares do not change."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, s in enumerate(slots):
        if s.initiation == "indirect_hint" and (task_types is None or s.task_type in task_types):
            groups.setdefault((s.split, s.task_type), []).append(i)
    want = min(round(share * len(slots)), sum(len(g) for g in groups.values()))
    chosen: set[int] = set()
    queues = [groups[k] for k in sorted(groups)]
    while len(chosen) < want:
        for q in queues:
            if q and len(chosen) < want:
                chosen.add(q.pop(0))
    return [Slot(s.split, s.turns, s.task_type, s.initiation, i in chosen) for i, s in enumerate(slots)]


def plan_slots(count: int, rng: random.Random, image_share: float = IMAGE_SHARE) -> list[Slot]:
    """Split, turn count, task type, initiation and image cue for each episode, matching the target shares."""
    splits = _quota(SPLIT_SHARE, count)
    tasks = _quota(TASK_SHARE, count)
    inits = _quota(INITIATION_SHARE, count)
    rng.shuffle(tasks)
    rng.shuffle(inits)
    n_easy = splits.count("easy")
    easy_turns = _quota({"4": 0.35, "5": 0.65}, n_easy)
    hard_turns = _quota({"5": 0.70, "6": 0.30}, count - n_easy)
    rng.shuffle(easy_turns)
    rng.shuffle(hard_turns)
    turns = easy_turns + hard_turns
    slots = [Slot(s, int(t), k, i) for s, t, k, i in zip(splits, turns, tasks, inits)]
    rng.shuffle(slots)
    return mark_image_slots(slots, image_share)


def _paper_plan(slot: Slot) -> list[str]:
    """Which paper each reading turn visits: 'A' is located by the cue, later letters along citations."""
    if slot.split == "easy":
        return ["A", "A", "B"] if slot.turns == 4 else ["A", "A", "B", "B"]
    return ["A", "A", "B", "C"] if slot.turns == 5 else ["A", "A", "B", "C", "D"]


class EpisodeBuilder:
    """Builds one episode for a slot from an anchor paper, or returns None if the anchor cannot serve."""

    def __init__(self, cf: CorpusFacts, slot: Slot, rng: random.Random, image_dir: str = DEFAULT_IMAGE_DIR):
        self.cf, self.slot, self.rng = cf, slot, rng
        self.reads: list[ReadTurn] = []
        self.located: dict[str, int] = {}  # paper id -> turn where it was located
        self.used_units: set[tuple[str, str]] = set()
        self.cue_texts: list[str] = []
        self.image_dir = image_dir
        self.cue_figure: CueFigure | None = None

    def _pick_fact(self, pid: str) -> ValueFact | None:
        """A value to read, preferring units not read yet and the measure (then the column) read first,
        so that the final turn compares like with like."""
        facts = [f for f in self.cf.facts[pid] if f.key not in self.used_units] or self.cf.facts[pid]
        if not facts:
            return None
        first = next((r.value for r in self.reads if r.value is not None), None)
        if first is None:
            common = Counter(f.measure for f in self.cf.facts[pid]).most_common(1)[0][0]
            facts = [f for f in facts if f.measure == common] or facts
        else:
            facts = [f for f in facts if f.measure == first.measure] or facts
            if self.rng.random() < 0.5:
                facts = [f for f in facts if f.at == first.at] or facts
        kinds = sorted({f.kind for f in facts})
        kind = self.rng.choice(kinds)
        return self.rng.choice([f for f in facts if f.kind == kind])

    def _next_paper(self, visited: list[str]) -> tuple[str, str, int] | None:
        """A new paper linked to one already visited: (paper, the visited source, source turn)."""
        options = [(dst, src) for src in visited for dst in self.cf.neighbours(src)
                   if dst not in visited and self.cf.facts[dst]]
        self.rng.shuffle(options)
        # Stay in the anchor's area when possible, so final turns fuse comparable quantities.
        area = self.cf.papers[visited[0]].area
        options.sort(key=lambda o: self.cf.papers[o[0]].area != area)
        for dst, src in options:
            return dst, src, self.located[src]
        return None

    def _read_image_first(self, pid: str, cue: PaperCue) -> ReadTurn | None:
        """Turn 1 of an image episode: a value whose question names no method (the name must come from
        the image), read from another unit than the figure shown in the cue."""
        methods = {p.method for p in self.cf.papers.values()}
        shown = f"figure:{self.cue_figure.figure}" if self.cue_figure else ""
        # Shared baseline rows can carry the same value in several papers: a wrong paper must not give
        # the right answer, so keep only values no other paper reports for the same row and column.
        elsewhere = [g for q, fs in self.cf.facts.items() if q != pid for g in fs]
        facts = [f for f in self.cf.facts[pid] if f.unit != shown
                 and not any(m in f.label or m in f.at or m in f.measure for m in methods)
                 and not any(g.label == f.label and g.at == f.at and abs(g.value - f.value) <= f.tolerance + g.tolerance
                             for g in elsewhere)]
        if not facts:
            return None
        common = Counter(f.measure for f in facts).most_common(1)[0][0]
        rt = value_turn(self.rng.choice([f for f in facts if f.measure == common]), cue, None)
        if self.cue_figure is not None:
            rt.turn.note = (f"cue image: Figure {self.cue_figure.figure} of {pid} without its caption; "
                            f"its legend names {self.cf.papers[pid].method}")
        return rt

    def _read(self, pid: str, cue: PaperCue | None, second: bool) -> ReadTurn | None:
        paper_turn = None if cue else self.located[pid]
        if second:
            kinds = ["ranking", "method", "value"]
            self.rng.shuffle(kinds)
            for kind in kinds:
                if kind == "method":
                    method = self.cf.papers[pid].method
                    if any(method.lower() in t.lower() for t in self.cue_texts):
                        continue  # the name was given away by a cue
                    return method_turn(pid, method, cue, paper_turn)
                if kind == "ranking":
                    groups = [g for g in self.cf.groups[pid] if (g.paper, g.unit) not in self.used_units]
                    self.rng.shuffle(groups)
                    for g in groups[:6]:
                        if (rt := ranking_turn(g, cue, paper_turn, self.rng)) is not None:
                            return rt
                    continue
                break
        fact = self._pick_fact(pid)
        return value_turn(fact, cue, paper_turn) if fact else None

    def _first_cue(self, anchor: str, ep_id: str) -> PaperCue | None:
        if not self.slot.image:
            return initiation_cue(self.cf, anchor, self.slot.initiation, self.rng)
        found = image_cue(self.cf, anchor, f"{self.image_dir}/{ep_id}.png", self.rng)
        if found is None:
            return None
        self.cue_figure = CueFigure(paper=anchor, figure=found[1])
        return found[0]

    def build(self, anchor: str, ep_id: str, source: str) -> DraftEpisode | None:
        if not self.cf.facts[anchor]:
            return None
        cue = self._first_cue(anchor, ep_id)
        if cue is None:
            return None
        letters: dict[str, str] = {"A": anchor}
        visited = [anchor]
        for i, letter in enumerate(_paper_plan(self.slot)):
            turn_no = i + 1
            turn_cue: PaperCue | None = None
            if letter not in letters:
                nxt = self._next_paper(visited)
                if nxt is None:
                    return None
                dst, src, src_turn = nxt
                turn_cue = link_cue(self.cf, src, src_turn, dst, self.rng)
                if turn_cue is None:
                    return None
                letters[letter] = dst
                visited.append(dst)
            elif turn_no == 1:
                turn_cue = cue
            pid = letters[letter]
            if turn_cue is not None:
                self.located[pid] = turn_no
                self.cue_texts += [turn_cue.text, turn_cue.search_query]
            second = i > 0 and _paper_plan(self.slot)[i - 1] == letter
            if turn_no == 1 and self.slot.image:
                rt = self._read_image_first(pid, cue)
            else:
                rt = self._read(pid, turn_cue, second)
            if rt is None:
                return None
            self.reads.append(rt)
            self.used_units |= rt.exposed
        final = self._final()
        if final is None:
            return None
        p = self.cf.papers[anchor]
        return DraftEpisode(id=ep_id, split=self.slot.split, task_type=self.slot.task_type,  # type: ignore[arg-type]
                            initiation=self.slot.initiation, area=p.area,  # type: ignore[arg-type]
                            turns=[r.turn for r in self.reads] + [final], source=source,
                            cue_figure=self.cue_figure)

    def _final(self) -> DraftTurn | None:
        known = [Known(i + 1, r.value, self.located[r.paper]) for i, r in enumerate(self.reads) if r.value]
        hard = self.slot.split == "hard"
        if self.slot.task_type == "comparison":
            return comparison_final(known, self.rng, hard)
        if self.slot.task_type == "aggregation":
            return aggregation_final(known, self.rng, hard)
        exposed = set().union(*(r.exposed for r in self.reads))
        groups: list[tuple[Group, int]] = [
            (g, self.located[pid]) for pid in dict.fromkeys(r.paper for r in self.reads)
            for g in self.cf.groups[pid] if (g.paper, g.unit) in exposed
        ]
        return constraint_final(known, groups, self.rng, hard)


def generate_episodes(gt: GroundTruth, *, seed: int = DEFAULT_SEED, count: int = DEFAULT_COUNT,
                      image_share: float = 0.0, image_dir: str = DEFAULT_IMAGE_DIR) -> list[DraftEpisode]:
    """The benchmark episodes for a ground truth; raises GenerationError if it cannot fill every slot.

    With image_share > 0 (the benchmark uses IMAGE_SHARE) that share of episodes starts from an image
    cue named `<image_dir>/<episode id>.png` (relative to the episode file's folder); render those PNGs
    with `write_cue_images`. The default 0 gives text cues only, so no PDFs are needed."""
    cf = CorpusFacts(gt)
    rng = random.Random(f"episodes:{seed}")
    slots = plan_slots(count, rng, image_share)
    anchors = [pid for pid in cf.ids if cf.facts[pid] and cf.neighbours(pid)]
    if not anchors:
        raise GenerationError("no paper has both readable values and a citation link")
    rng.shuffle(anchors)
    source = f"sandbox.episodegen {GENERATOR_VERSION} seed={seed} ground_truth={gt.generator_version}/seed={gt.seed}"
    width = max(3, len(str(count)))
    episodes: list[DraftEpisode] = []
    for i, slot in enumerate(slots):
        ep_id = f"sbx-{i + 1:0{width}d}"
        for attempt in range(MAX_ATTEMPTS):
            anchor = anchors[(i + attempt * 7) % len(anchors)]
            builder = EpisodeBuilder(cf, slot, random.Random(f"{seed}:{i}:{attempt}"), image_dir)
            ep = builder.build(anchor, ep_id, source)
            if ep is None:
                continue
            problems = check_episode(ep, cf)
            if problems:
                raise GenerationError(f"episode {ep_id} breaks a generator rule: {'; '.join(problems)}")
            episodes.append(ep)
            break
        else:
            raise GenerationError(f"could not build episode {ep_id} ({slot}) after {MAX_ATTEMPTS} anchors")
    return episodes


def write_episodes(episodes: list[DraftEpisode], out: Path) -> str:
    """Write one episode per line; returns the sha256 of the file."""
    data = "".join(ep.to_json_line() + "\n" for ep in episodes).encode("utf-8")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    return hashlib.sha256(data).hexdigest()
