"""Prompt text shared by the model-backed agents, in the spirit of EpiBench's evaluation prompt (app. 0.D.3).

One base prompt for all turns (plan, then act; cite what the tools showed), an answer-format suffix
per turn, and the requests without tools (memory-only turns, the budget fallback) and the reminder
after a step that neither acted nor answered, each in the answer form of the agent asking
(`AnswerStyle`: a `Final answer:` line, the final_answer tool, or final_answer() in code). Also:
turning a TurnView into the turn's user message, and answer clean-up.
"""
from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from pathlib import Path

from harness.agent import AnswerSpec, NoToolReason, Observation, TurnView

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
   `Final answer: <answer>` in the format the turn asks for, with the value itself in place of <answer>."""
FINAL_BY_TOOL = """5. When you can answer, call the `final_answer` tool with the answer alone, in the format the
   turn asks for (`final_answer(answer="<answer>")`, the value itself in place of <answer>). In turns
   without tools, reply with a last line `Final answer: <answer>`."""
FINAL_BY_CODE = """5. When you can answer, call `final_answer("<answer>")` in your code with the answer alone, in
   the format the turn asks for (the value itself in place of <answer>). In turns without tools, reply
   with a last line `Final answer: <answer>`."""


def system_prompt(final: str = FINAL_BY_TEXT) -> str:
    """The base prompt; `final` says how this kind of agent gives its answer (text line, tool, or code)."""
    return _BASE_PROMPT.format(final=final)


SYSTEM_PROMPT = system_prompt()


@dataclass(frozen=True)
class AnswerStyle:
    """How one kind of agent gives its final answer: in turns with tools and in requests without any."""

    final_instruction: str  # item 5 of the system prompt
    with_tools: str  # how to answer when tools are offered
    without_tools: str  # how to answer in a request without tools (memory-only turn, budget fallback)
    example_form: str  # "{}" is replaced by a placeholder of the answer's form

    def example(self, placeholder: str) -> str:
        """The answer form with a placeholder that no gold answer can be (`<number>`, never `12.5`): a model
        that copies the example gives no answer (harness.agent.is_placeholder_answer) instead of a guess
        that may happen to be right."""
        return self.example_form.format(placeholder)


TEXT_STYLE = AnswerStyle(FINAL_BY_TEXT, "reply with a last line `Final answer: <answer>`",
                         "reply with a last line `Final answer: <answer>`", "`Final answer: {}`")
TOOL_STYLE = AnswerStyle(FINAL_BY_TOOL, "call the `final_answer` tool with the answer",
                         "reply with a last line `Final answer: <answer>` (no tool can be called)", "`Final answer: {}`")
CODE_STYLE = AnswerStyle(FINAL_BY_CODE, 'call `final_answer("<answer>")` in a <code> block',
                         'reply with a <code> block that calls `final_answer("<answer>")` (no tool can be called)',
                         '`final_answer("{}")`')

MEMORY_ONLY_SUFFIX = (
    "No tools are available in this turn: answer from the evidence already gathered in this episode."
)


IMAGE_OFF = "not available in this run (text only): work from the question and the cue text"


def fallback_prompt(view: TurnView, style: AnswerStyle = TEXT_STYLE) -> str:
    """The one request after the budget ran out: restate the question, no tools, answer in the agent's form."""
    return (f"Your step budget for turn {view.turn} is used up and no more tools can be called. Question: "
            f"{view.question}\n{answer_instructions(view.answer_spec, style)}\nBased only on the evidence gathered "
            f"so far, give your best answer now: {style.without_tools}.")


def no_tool_feedback(view: TurnView, reason: NoToolReason, style: AnswerStyle = TEXT_STYLE, detail: str = "") -> str:
    """What the model is told after a step that neither called a tool nor answered: what happened and the
    two ways to act (the step has not been recorded yet, so this counts it)."""
    left = view.budget_left if view.budget_unit == "model_step" else max(0, view.no_tool_left - 1)
    what = {
        "empty": "Your last reply was empty (no text and no tool call)",
        "plan": "Your last reply called no tool and gave no final answer",
        "over_long": "Your last reply was cut off at the length limit before it called a tool or gave a final answer",
        "unparseable": "Your last reply could not be read as an action",
        "code_error": "Your code raised an error before calling any tool",
        "code_without_tool": "Your code ran but called no tool and gave no final answer",
        "other": "Your last step called no tool and gave no final answer",
    }[reason]
    if left == 0:  # the turn's last step: the request for the final answer follows in the same message
        parts = [f"{what}; it counted as a step, the last one allowed without a tool call in this turn."]
        return "\n".join(parts + ([detail] if detail else []))
    parts = [f"{what}; it counted as a step ({left} more without a tool call allowed in this turn)."]
    if detail:
        parts.append(detail)
    if view.tools:
        parts.append(f"To act, either call one of the tools ({', '.join(view.tool_names)}), or {style.with_tools}.")
    else:
        parts.append(f"No tools can be called in this turn: {style.without_tools}.")
    return "\n".join(parts)


def answer_instructions(spec: AnswerSpec, style: AnswerStyle = TEXT_STYLE) -> str:
    """The answer-format suffix of a turn (never reveals the gold answer)."""
    if spec.format == "choice":
        opts = "\n".join(f"  {k}. {v}" for k, v in sorted((spec.choices or {}).items()))
        return (f"This is a multiple-choice question. Options:\n{opts}\nAnswer with the option letter only: "
                f"{style.example('<letter>')}, with one of the letters above in place of <letter>.")
    if spec.format == "number":
        unit = f" in {spec.unit}" if spec.unit else ""
        return (f"Answer with a single number{unit}, without extra words: {style.example('<number>')}, with the "
                "value in place of <number>.")
    if spec.format == "report" and spec.report is not None:
        return report_instructions(spec)
    if spec.format == "set":
        return ("Answer with every item that qualifies, names exactly as printed, on one line separated by "
                f"semicolons: {style.example('<item>; <item>')}, one name in place of each <item>.")
    return "Answer with a short phrase (a name exactly as printed, or a value), without explanation."


def report_instructions(spec: AnswerSpec) -> str:
    """A report turn's instructions: the reader, the length, the one citation syntax."""
    brief = spec.report
    assert brief is not None
    parts = [f"Write the report in markdown, at most {brief.max_words} words. Cite the evidence of every number, "
             f"ranking or comparison right after it as {brief.citation_syntax}; cite only figures and tables you opened."]
    if brief.persona is not None:
        p = brief.persona
        parts.append(f"The reader: {p.role} ({p.expertise}). They care about {', '.join(p.cares_about)}. {p.context}")
        if p.constraints:
            parts.append("Their constraints: " + "; ".join(c.text for c in p.constraints) + ".")
    return "\n".join(parts)


def turn_message_text(view: TurnView, style: AnswerStyle = TEXT_STYLE, *, image_attached: bool = True) -> str:
    """The user message that opens a turn: question, cue, answer format, budget (or that no tool can be called).
    `image_attached` False (a text-only run, `--no-images`): the cue image is said to be unavailable."""
    parts = [f"Turn {view.turn} of {view.n_turns}.", f"Question: {view.question}"]
    if view.cue_text:
        parts.append(f"Cue: {view.cue_text}")
    if view.cue_image:
        parts.append("Cue image: attached below." if image_attached else f"Cue image: {IMAGE_OFF}.")
    parts.append(answer_instructions(view.answer_spec, style))
    if view.tools:
        noun = "tool calls" if view.budget_unit == "tool_call" else "steps (each reply that acts is one step)"
        parts.append(f"Step budget for this turn: {view.max_steps} {noun}. Tools: {', '.join(view.tool_names)}.")
    else:
        parts.append(f"{MEMORY_ONLY_SUFFIX} To answer, {style.without_tools}.")
    return "\n".join(parts)


def observation_text(obs: Observation, limit: int = 12000, *, images: bool = True) -> str:
    """What a tool result looks like to the model (text, truncated on long papers); `images` False (a
    text-only run): each image is said to be unavailable instead of shown."""
    text = obs.text or ("(no text)" if obs.error is None else f"ERROR: {obs.error}")
    if len(text) > limit:
        text = text[:limit] + f"\n... [truncated {len(text) - limit} characters]"
    if obs.images:
        where = "shown below" if images else "not shown: images are not available in this run (text only)"
        text += "\n" + "\n".join(f"[image {i + 1}: {Path(im.path).name}; {where}]" for i, im in enumerate(obs.images))
    return text


_BULLET = re.compile(r"^(?:[-*\u2022]|\d+[.)])\s+")
_FINAL_RE = re.compile(r"final\s*answer\s*[:：]", re.I)


def clean_final_answer(text: str | None) -> str | None:
    """The answer part of a model's reply: what follows the last `Final answer:`, else the last line.

    One line after the marker is the answer; a list under it (one item per bullet line) is one set answer.
    When more lines follow (an explanation, or `or 84.7` on the next line), the answer keeps them under its
    `Final answer:` line: the grader reads the whole span after the marker, and an alternative offered
    below the answer is a hedge (harness/README.md, "How answers are matched")."""
    if text is None:
        return None
    t = text.strip()
    if not t:
        return None
    matches = list(_FINAL_RE.finditer(t))
    if matches:
        span = t[matches[-1].end():].strip()
        lines = [ln.strip() for ln in span.splitlines() if ln.strip()]
        items = [_BULLET.sub("", ln) for ln in lines if _BULLET.match(ln)]
        if len(items) == len(lines) and len(items) > 1:
            ans = "; ".join(items)
        elif len(lines) > 1:
            return f"Final answer: {span.strip('*` ')}".strip()
        else:
            ans = lines[0] if lines else ""
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
