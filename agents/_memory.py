"""Summary memory: earlier turns replaced by a deterministic digest that says what the model lost.

The digest keeps every earlier question and answer and each tool result cut to `chars` characters;
images and earlier reasoning go. A result shown whole (short text, no image, no error) keeps its
evidence units in the model's view; a cut result or one whose image was removed drops them. The
digest tells the model which units it can no longer see, and the agent records the same split in the
trace (`ctx.record_memory`), so the scorer's EC counts only units the model still had.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from harness.agent import EvidenceUnit, MemoryCompaction, Observation, TurnView


@dataclass(frozen=True)
class Digest:
    text: str
    compaction: MemoryCompaction


def _label(u: EvidenceUnit) -> str:
    return f"{u.paper}/{u.unit}"


def _units(obs: list[Observation]) -> list[EvidenceUnit]:
    seen: dict[tuple[str, str], EvidenceUnit] = {}
    for o in obs:
        for u in o.provenance:
            seen.setdefault(u.key, u)
    return list(seen.values())


def _body(o: Observation) -> str:
    return " ".join((o.text or o.error or "").split())


def digest_earlier_turns(view: TurnView, *, chars: int, note: str = "") -> Digest:
    """A digest of every turn before `view.turn`, and what it keeps and drops of the model's evidence."""
    history = [r for r in view.history if r.turn < view.turn]
    earlier = [o for o in view.memory if o.turn < view.turn]
    shown = [o for o in earlier if o.error is None and o.counted]
    whole = [o for o in shown if not o.images and len(_body(o)) <= chars]
    kept = _units(whole)
    kept_keys = {u.key for u in kept}
    dropped = [u for u in _units(shown) if u.key not in kept_keys]
    cut = sum(1 for o in earlier if len(_body(o)) > chars)
    images = sum(len(o.images) for o in earlier)
    head = [f"Summary of earlier turns in this episode. To save context they are summarized: each tool result "
            f"is cut to {chars} characters, images and your earlier reasoning are removed."]
    if dropped:
        head.append("Evidence you can no longer see in full (call the tools again where they are offered): "
                    + ", ".join(_label(u) for u in dropped) + ".")
    if kept:
        head.append("Evidence still shown in full below: " + ", ".join(_label(u) for u in kept) + ".")
    if images:
        head.append(f"{images} image(s) from earlier tool results are no longer shown.")
    if note:
        head.append(note)
    lines = head + [""]
    for rec in history:
        lines.append(f"- Turn {rec.turn}: Q: {rec.question} -> your answer: {rec.answer}")
        for o in (o for o in earlier if o.turn == rec.turn):
            args = o.raw_arguments if o.raw_arguments is not None else json.dumps(o.args, ensure_ascii=False)
            body = _body(o)
            if len(body) > chars:
                body = body[:chars] + " ... [cut]"
            units = ", ".join(_label(u) for u in o.provenance)
            image = f" [{len(o.images)} image(s) removed]" if o.images else ""
            lines.append(f"    {o.tool}({args[:200]}){' [' + units + ']' if units else ''}{image}: {body}")
    compaction = MemoryCompaction(
        turns=[r.turn for r in history], kept=kept, dropped=dropped, images_dropped=images, results_cut=cut,
        note="\n".join(head),
    )
    return Digest(text="\n".join(lines), compaction=compaction)
