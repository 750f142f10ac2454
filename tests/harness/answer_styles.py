"""How a model that knows the gold answer writes it: exact, verbose, hedged, or as a list of candidates.

Used by the must-show test: a scripted model answers every turn of the default benchmark in one of
these styles over real HTTP, and the matcher must mark exact and verbose answers right and hedged
and listed ones wrong. Verbose answers rotate through the ways real models dress an answer
(reasoning blocks, markdown, LaTeX boxes, identifiers and references around the value, no
final-answer line).
"""
from __future__ import annotations

import re

from harness.episode import Answer, Turn

EXACT, VERBOSE, HEDGE, LIST = "exact", "verbose", "hedge", "list"
OTHER_NAMES = ["SolbelParse", "KeskaMask", "TavquinGNN"]


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _other_number(v: float, k: int = 1) -> str:
    step = max(1.0, abs(v) * 0.05)
    return _num(round(v + k * step, 2))


def _ref(question: str) -> str:
    m = re.search(r"\b(Table|Figure) \d+", question)
    return m.group(0) if m else "the paper"


def _letters(a: Answer) -> list[str]:
    return sorted(a.choices) if a.choices else ["A", "B", "C"]


def exact(turn: Turn) -> str:
    a = turn.answer
    if a.format == "number":
        return f"Final answer: {_num(float(a.value))}"  # type: ignore[arg-type]
    if a.format == "set":
        return "Final answer: " + "; ".join(map(str, a.value))  # type: ignore[arg-type]
    return f"Final answer: {a.value}"


def verbose(turn: Turn, k: int) -> str:
    """The k-th verbose dressing of the gold answer (k rotates through the templates)."""
    a, q = turn.answer, turn.question
    paper = turn.evidence[0].paper if turn.evidence else "the paper"
    if a.format == "number":
        v = _num(float(a.value))  # type: ignore[arg-type]
        u = a.unit or ""
        forms = [
            f"Looking at {_ref(q)} of {paper}, the requested entry reads {v}{u}.\n\n**Final answer:** {v}{u}",
            f"<think>The question points to {_ref(q)}; the row and column give {v}, the neighbouring cell is "
            f"{_other_number(float(a.value))}.</think>\nFinal answer: {v}",
            f"{paper} reports {v}{u} in {_ref(q)} for this setting.",
            f"Reading the value from {_ref(q)}:\n\nThe answer is $\\boxed{{{v}}}$.",
            f"### Final Answer\n{v} {u}".rstrip(),
        ]
    elif a.format == "choice":
        letter = str(a.value)
        text = (a.choices or {}).get(letter, "")
        forms = [
            f"Comparing the values gathered so far, {text[:60]} is the one asked for.\nFinal answer: {letter}",
            f"**Final Answer:** ({letter}) {text}",
            f"<think>Option A ... option B ... the one that fits is {letter}.</think>\nThe answer is {letter}.",
            f"Final answer: $\\boxed{{{letter}}}$",
            f"Final answer: {letter}.",
        ]
    elif a.format == "set":
        items = [str(x) for x in a.value]  # type: ignore[union-attr]
        bullets = "\n".join(f"- {x}" for x in items)
        forms = [
            f"The items that satisfy the condition are listed below.\nFinal answer:\n{bullets}",
            "Final answer: " + (", ".join(items[:-1]) + ", and " + items[-1] if len(items) > 1 else items[0]),
            "**Final answer:** " + "; ".join(f"**{x}**" for x in items),
            "Final answer: " + " and ".join(items),
            "Final answer: " + ", ".join(items) + ".",
        ]
    else:
        x = str(a.value)
        forms = [
            f"The paper introduces {x}.\nFinal answer: {x}",
            f"The method proposed in this paper is called **{x}**.",
            f"Final answer: `{x}`",
            f"<think>The title names it.</think>\n{x}",
            f"Final answer: \"{x}\"",
        ]
    return forms[k % len(forms)]


def hedge(turn: Turn) -> str:
    a = turn.answer
    if a.format == "number":
        v = float(a.value)  # type: ignore[arg-type]
        return f"Final answer: {_num(v)} or {_other_number(v)}"
    if a.format == "choice":
        other = next(x for x in _letters(a) if x != str(a.value))
        return f"Final answer: {a.value}, or possibly {other}"
    if a.format == "set":
        return "Final answer: " + ", ".join(map(str, a.value)) + ", or possibly " + OTHER_NAMES[1]  # type: ignore[arg-type]
    return f"Final answer: {a.value} or {OTHER_NAMES[0]}"


def candidates(turn: Turn) -> str:
    a = turn.answer
    if a.format == "number":
        v = float(a.value)  # type: ignore[arg-type]
        return f"Final answer: {_other_number(v, -1)}, {_num(v)}, {_other_number(v)}"
    if a.format == "choice":
        return "Final answer: " + ", ".join(_letters(a))
    if a.format == "set":
        return "Final answer: " + "; ".join([*map(str, a.value), *OTHER_NAMES[:2]])  # type: ignore[arg-type]
    return "Final answer: " + ", ".join([str(a.value), *OTHER_NAMES[:2]])


def write(turn: Turn, style: str, k: int = 0) -> str:
    return {EXACT: lambda: exact(turn), VERBOSE: lambda: verbose(turn, k), HEDGE: lambda: hedge(turn),
            LIST: lambda: candidates(turn)}[style]()


FALLBACK_PROMPT = "is used up and no more tools can be called. Question: "


def run_scripted_answers(episodes_path, replies: list[tuple[str, str]], results, run_id: str):  # noqa: ANN001, ANN201
    """Run the OpenAI agent over `episodes_path` against the scripted model server with a budget of 1: each
    turn is one plan step, then the fallback request, answered by the reply scripted for its question
    (`replies`: (question, reply) in run order). Returns the run folder, scored."""
    import asyncio
    from pathlib import Path

    import pytest

    from harness.agent import AgentConfig
    from harness.runner import run_episodes
    from harness.scoring import score_run
    from harness.settings import RunSettings
    from sandbox.model_server import Script, ScriptedModelServer, ScriptItem

    from ..fakes import NullWorld

    items = [ScriptItem(content=reply, match={"contains": f"{FALLBACK_PROMPT}{question}"}) for question, reply in replies]
    script = Script(responses=items, default=ScriptItem(content="Plan: recall where this was reported."))
    mp = pytest.MonkeyPatch()
    mp.setenv("EPI_SCRIPTED_KEY", "sk-test")
    try:
        with ScriptedModelServer(script) as srv:
            cfg = AgentConfig(model="scripted", base_url=srv.base_url, api_key_env="EPI_SCRIPTED_KEY",
                              request_timeout_s=30, max_retries=1, images=False)
            settings = RunSettings(agent="openai", episodes=episodes_path, results=results, run_id=run_id,
                                   concurrency=1, score=False, agent_config=cfg, max_steps=1)
            summary = asyncio.run(run_episodes(settings, world=NullWorld(Path(results) / "cache")))
            assert srv.remaining() == 0, f"{srv.remaining()} scripted replies were never asked for"
    finally:
        mp.undo()
    score_run(summary.run_dir)
    return Path(summary.run_dir)
