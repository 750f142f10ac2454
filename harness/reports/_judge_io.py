"""Reading a judge's JSON reply (after any reasoning block, in or out of a code fence) and turning report text into
prompt text. Judge replies are untrusted: bounded in size, read as data, never executed or shown unescaped."""
from __future__ import annotations

import json
import math
from typing import Any

from harness.episode import Claim, Persona
from harness.scoring.answer_text import strip_reasoning

MAX_REPLY_CHARS = 200_000
_MAX_STARTS = 400


def read_json(text: str | None, want: type) -> Any | None:
    """The last JSON value of type `want` (dict or list) in a reply, or None."""
    if not text:
        return None
    body = strip_reasoning(text)[:MAX_REPLY_CHARS]
    opener = "{" if want is dict else "["
    decoder = json.JSONDecoder()
    starts = [i for i, ch in enumerate(body) if ch == opener][:_MAX_STARTS]
    found = None
    i = 0
    while i < len(starts):
        try:
            value, end = decoder.raw_decode(body, starts[i])
        except (json.JSONDecodeError, RecursionError):  # RecursionError: brackets nested past the parser's depth
            i += 1
            continue
        if isinstance(value, want):
            found = value
        while i < len(starts) and starts[i] < end:  # skip the brackets inside what was read
            i += 1
    return found


def number(v: Any, low: float | None = None, high: float | None = None) -> float | None:
    """A finite number (or a numeric string) within [low, high], else None; booleans are not numbers."""
    if isinstance(v, bool):
        return None
    if isinstance(v, str):
        try:
            v = float(v.strip().replace(",", ""))
        except ValueError:
            return None
    if not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        return None
    v = float(v)
    if (low is not None and v < low) or (high is not None and v > high):
        return None
    return v


def weights(data: Any, keys: tuple[str, ...], prefix: str = "") -> dict[str, float] | None:
    """Non-negative weights for every key (key or prefix+key), normalised to sum 1; None if any is missing or all are 0."""
    if not isinstance(data, dict):
        return None
    out: dict[str, float] = {}
    for k in keys:
        w = number(data.get(prefix + k, data.get(k)), 0.0)
        if w is None:
            return None
        out[k] = w
    total = sum(out.values())
    if total <= 0:
        return None
    return {k: w / total for k, w in out.items()}


def persona_text(p: Persona | None) -> str:
    if p is None:
        return "(no persona: a general reader)"
    lines = [f"Role: {p.role}", f"Expertise: {p.expertise}", f"Cares about: {'; '.join(p.cares_about)}"]
    if p.constraints:
        lines.append("Constraints: " + "; ".join(c.text for c in p.constraints))
    lines.append(f"Context: {p.context}")
    return "\n".join(lines)


def describe_claim(c: Claim) -> str:
    """A claim as one plain sentence for a judge ("XNet: accuracy (%) on Alpha is 70.0")."""
    what = c.quantity or "score"
    where = (f" on {c.dataset}" if c.dataset else "") + (f" at {c.x_label} = {c.x:g}" if c.x is not None and c.x_label else "")
    if c.kind == "value":
        unit = c.unit or ""
        return f"{c.subject}: {what}{where} is {c.value:g}{unit}"
    if c.kind == "compare":
        by = f", by {c.value:g}" if c.value is not None else ""
        word = "higher" if c.relation == ">" else "lower"
        return f"{c.subject} has a {word} {what} than {c.object}{where}{by} (raw values, whichever direction is better)"
    word = "highest" if c.relation == "max" else "lowest"
    return f"{c.subject} has the {word} {what} of the methods compared{where} (raw values)"
