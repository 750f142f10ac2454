"""What the agent opened, per the trace: the units each executed call exposed, under the paper id the world gave
them and under the reference the agent passed (`paper=` of the call: an arXiv URL, a page URL, a title), so that a
live-world citation naming the page as the agent named it (`[https://arxiv.org/abs/2101.00001, Figure 2]`) is
matched to what it read."""
from __future__ import annotations

from typing import Iterator

from harness.trace import ToolCallEvent
from harness.trace_fold import EpisodeFold

Key = tuple[str, str]


def call_keys(ev: ToolCallEvent) -> list[Key]:
    """The (paper, unit) keys of the units a call exposed, also under the paper reference it was called with."""
    keys = [u.key for u in ev.exposed]
    ref = ev.args.get("paper") if isinstance(ev.args, dict) else None
    if isinstance(ref, str) and ref.strip():
        ref = ref.strip()
        keys += [(ref, u.unit) for u in ev.exposed if u.paper != ref]
    return keys


def opened_calls(fold: EpisodeFold, upto: int) -> Iterator[tuple[int, ToolCallEvent, list[Key]]]:
    """(turn, call, keys) of every executed call up to turn `upto`, in trace order."""
    for t, tf in sorted(fold.turns.items()):
        if t > upto:
            continue
        for ev in tf.events:
            if isinstance(ev, ToolCallEvent) and ev.exposed:
                yield t, ev, call_keys(ev)


def opened_keys(fold: EpisodeFold, upto: int) -> set[Key]:
    return {k for _, _, keys in opened_calls(fold, upto) for k in keys}
