"""The composition of a benchmark and what every generator version shares around its episodes.

The composition follows EpiBench (seed 004, sec. 3.2 and app. 0.A.2): ~40% easy / 60% hard, mostly
5 turns (4-6), task types constraint/comparison/aggregation ~35/40/25%, initiation
citation/indirect hint/direct title ~45/35/20%, a share of the indirect-hint slots starting from an image
cue. Everything is drawn from random.Random seeded by strings, so the same seed gives the same slots.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from pathlib import Path

from tools import call_signature

from .model import DraftEpisode, DraftTurn

SPLIT_SHARE = {"easy": 0.40, "hard": 0.60}
TASK_SHARE = {"constraint": 0.35, "comparison": 0.40, "aggregation": 0.25}
INITIATION_SHARE = {"citation": 0.45, "indirect_hint": 0.35, "direct_title": 0.20}
IMAGE_TASKS = frozenset({"comparison", "aggregation"})


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


def plan_slots(count: int, rng: random.Random, image_share: float) -> list[Slot]:
    """Split, turn count, task type, initiation and image cue for each episode, matching the target shares.
    Image cues go to a share of the indirect-hint slots of comparison and aggregation episodes, spread over
    both splits (a constraint final reads the anchor's figure at the setting, which an image cue must not show)."""
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
    return mark_image_slots(slots, image_share, IMAGE_TASKS)


def paper_plan(slot: Slot) -> list[str]:
    """Which paper each reading turn visits: 'A' is located by the cue, later letters along citations."""
    if slot.split == "easy":
        return ["A", "A", "B"] if slot.turns == 4 else ["A", "A", "B", "B"]
    return ["A", "A", "B", "C"] if slot.turns == 5 else ["A", "A", "B", "C", "D"]


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


def write_episodes(episodes: list[DraftEpisode], out: Path) -> str:
    """Write one episode per line; returns the sha256 of the file."""
    data = "".join(ep.to_json_line() + "\n" for ep in episodes).encode("utf-8")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    return hashlib.sha256(data).hexdigest()
