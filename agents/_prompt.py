"""Prompt text shared by the model-backed agents, in the spirit of EpiBench's evaluation prompt (app. 0.D.3).

One base prompt for all turns (plan, then act; cite what the tools showed), an answer-format suffix
per turn, and a suffix for the no-tool final request. Also: turning a TurnView into the turn's user
message, a deterministic digest of earlier turns (summary memory mode), and answer clean-up.
"""
from __future__ import annotations

import base64
import json
import re
from pathlib import Path

from harness.agent import AnswerSpec, Observation, TurnView

_BASE_PROMPT = """\
You are a research assistant working through a short research episode about scientific papers.
Each turn asks one question. Papers are not named directly: use the cue (a citation, an indirect
hint or an image) to search for them, open them, and read the exact figure, table or passage the
question needs. Later turns may build on evidence you gathered earlier; it stays in this
conversation, so reuse it instead of fetching it again.

How to work:
1. First write a short plan: which paper(s) you need, which figure/table/section, and which tool
   calls get you there.
2. Then act: call one tool at a time and read its result before deciding the next call.
3. Every tool call counts against the turn's step budget. Do not repeat a call you already made.
4. Read values from the evidence itself (table cells, plotted points, legend labels); do not
   answer from prior knowledge.
{final}
"""

FINAL_BY_TEXT = """5. When you can answer, reply with no tool call and a last line of the form
   `Final answer: <answer>` in the format the turn asks for."""
FINAL_BY_TOOL = """5. When you can answer, call the `final_answer` tool with the answer alone, in the format the
   turn asks for (e.g. `final_answer(answer="12.5")`). In turns without tools, reply with a last
   line `Final answer: <answer>`."""
FINAL_BY_CODE = """5. When you can answer, call `final_answer("<answer>")` in your code with the answer alone, in
   the format the turn asks for (e.g. `final_answer("12.5")`). In turns without tools, reply with a
   last line `Final answer: <answer>`."""


def system_prompt(final: str = FINAL_BY_TEXT) -> str:
    """The base prompt; `final` says how this kind of agent gives its answer (text line, tool, or code)."""
    return _BASE_PROMPT.format(final=final)


SYSTEM_PROMPT = system_prompt()

FINAL_NO_TOOL_SUFFIX = (
    "Your step budget for this turn is used up and no more tools can be called. Based only on the "
    "evidence gathered so far, give your best answer now. Reply with a last line "
    "`Final answer: <answer>` in the required format."
)

MEMORY_ONLY_SUFFIX = (
    "No tools are available in this turn: answer from the evidence already gathered in this episode."
)


def answer_instructions(spec: AnswerSpec) -> str:
    """The answer-format suffix of a turn (never reveals the gold answer)."""
    if spec.format == "choice":
        opts = "\n".join(f"  {k}. {v}" for k, v in sorted((spec.choices or {}).items()))
        return f"This is a multiple-choice question. Options:\n{opts}\nAnswer with the option letter only (e.g. `Final answer: B`)."
    if spec.format == "number":
        unit = f" in {spec.unit}" if spec.unit else ""
        return f"Answer with a single number{unit}, without extra words (e.g. `Final answer: 12.5`)."
    if spec.format == "set":
        return ("Answer with every item that qualifies, names exactly as printed, on one line separated by "
                "semicolons (e.g. `Final answer: Method X; Method Y`).")
    return "Answer with a short phrase (a name exactly as printed, or a value), without explanation."


def turn_message_text(view: TurnView) -> str:
    """The user message that opens a turn: question, cue, answer format, budget."""
    parts = [f"Turn {view.turn} of {view.n_turns}.", f"Question: {view.question}"]
    if view.cue_text:
        parts.append(f"Cue: {view.cue_text}")
    if view.cue_image:
        parts.append("Cue image: attached below.")
    parts.append(answer_instructions(view.answer_spec))
    if view.tools:
        parts.append(f"Step budget for this turn: {view.budget_left} tool calls. Tools: {', '.join(view.tool_names)}.")
    else:
        parts.append(MEMORY_ONLY_SUFFIX)
    return "\n".join(parts)


def observation_text(obs: Observation, limit: int = 12000) -> str:
    """What a tool result looks like to the model (text, truncated on long papers)."""
    text = obs.text or ("(no text)" if obs.error is None else f"ERROR: {obs.error}")
    if len(text) > limit:
        text = text[:limit] + f"\n... [truncated {len(text) - limit} characters]"
    if obs.images:
        text += "\n" + "\n".join(f"[image {i + 1}: {Path(im.path).name}; shown below]" for i, im in enumerate(obs.images))
    return text


def memory_digest(view: TurnView, *, per_obs_chars: int = 600, before_turn: int | None = None) -> str:
    """A compact, deterministic text summary of earlier turns: questions, answers, what tools showed."""
    upto = view.turn if before_turn is None else before_turn
    lines = ["Summary of earlier turns in this episode:"]
    for rec in view.history:
        if rec.turn >= upto:
            continue
        lines.append(f"- Turn {rec.turn}: Q: {rec.question} -> your answer: {rec.answer}")
        for obs in view.memory:
            if obs.turn != rec.turn:
                continue
            args = json.dumps(obs.args, ensure_ascii=False)[:200]
            body = " ".join((obs.text or obs.error or "").split())
            if len(body) > per_obs_chars:
                body = body[:per_obs_chars] + " ..."
            units = ", ".join(f"{p.paper}/{p.unit}" for p in obs.provenance)
            lines.append(f"    {obs.tool}({args}){' [' + units + ']' if units else ''}: {body}")
    return "\n".join(lines)


_BULLET = re.compile(r"^(?:[-*\u2022]|\d+[.)])\s+")
_FINAL_RE = re.compile(r"final\s*answer\s*[:：]\s*(.+)", re.I | re.S)


def clean_final_answer(text: str | None) -> str | None:
    """The answer part of a model's reply: what follows the last `Final answer:`, else the last line."""
    if text is None:
        return None
    t = text.strip()
    if not t:
        return None
    matches = list(_FINAL_RE.finditer(t))
    if matches:
        lines = [ln.strip() for ln in matches[-1].group(1).strip().splitlines() if ln.strip()]
        items = [_BULLET.sub("", ln) for ln in lines if _BULLET.match(ln)]
        # a list written under `Final answer:` (one item per bullet line) is one set answer
        ans = "; ".join(items) if len(items) == len(lines) and len(items) > 1 else (lines[0] if lines else "")
    else:
        ans = t.splitlines()[-1].strip()
    ans = ans.strip("*` ").strip()
    return ans or None


def image_data_url(path: str | Path) -> str:
    """A PNG/JPEG file as a base64 data URL for image content parts."""
    p = Path(path)
    mime = "image/jpeg" if p.suffix.lower() in (".jpg", ".jpeg") else "image/png"
    return f"data:{mime};base64,{base64.b64encode(p.read_bytes()).decode('ascii')}"


def strip_data_urls(obj: object) -> object:
    """A copy of a request with base64 image payloads replaced by a short marker (keeps traces small)."""
    if isinstance(obj, dict):
        return {k: strip_data_urls(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [strip_data_urls(v) for v in obj]
    if isinstance(obj, str) and obj.startswith("data:") and ";base64," in obj:
        head = obj.split(",", 1)[0]
        return f"{head},<{len(obj)} chars omitted>"
    return obj
