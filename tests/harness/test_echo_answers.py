"""No echo is an answer (issue 27 item 7): the answer instructions show placeholders that no gold answer can be,
and a reply that repeats a placeholder or the instructions' example is scored as no answer."""
from __future__ import annotations

import re

import pytest

from agents._answers import read_reply
from agents._prompt import CODE_STYLE, SYSTEM_PROMPT, TEXT_STYLE, TOOL_STYLE, answer_instructions, system_prompt
from harness.agent import AnswerSpec
from harness.episode import Answer
from harness.scoring.match import match_answer

GOLDS = {
    "choice": Answer(format="choice", value="B", choices={"A": "yes", "B": "no", "C": "maybe"}),
    "number": Answer(format="number", value=12.5),
    "set": Answer(format="set", value=["Method X", "Method Y"]),
    "text": Answer(format="text", value="answer"),
}
STYLES = {"text": TEXT_STYLE, "tool": TOOL_STYLE, "code": CODE_STYLE}
_EXAMPLE = re.compile(r"`(Final answer: [^`]+|final_answer\(\"[^`]*\"\))`")


def examples(text: str) -> list[str]:
    """Every answer example an instruction text shows, as a reply would write it."""
    return _EXAMPLE.findall(text)


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("fmt", ["choice", "number", "set"])
def test_the_instruction_example_echoed_is_no_answer(style, fmt):
    gold = GOLDS[fmt]
    spec = AnswerSpec(format=fmt, choices=gold.choices)
    shown = examples(answer_instructions(spec, STYLES[style]))
    assert shown, "the instructions show the answer's form"
    for example in shown:
        assert not re.search(r"\d|\b[A-Z]\b", example), f"{example!r} shows a value that could be gold"
        answer = read_reply(example).answer  # what an agent records when the model copies the example
        verdict = match_answer(answer, gold)
        assert not verdict.correct and not verdict.parseable and "placeholder" in verdict.detail


@pytest.mark.parametrize("prompt", [SYSTEM_PROMPT, system_prompt(TOOL_STYLE.final_instruction),
                                    system_prompt(CODE_STYLE.final_instruction)])
def test_the_system_prompts_example_echoed_is_no_answer(prompt):
    shown = examples(prompt) + re.findall(r"final_answer\([^)]*\)", prompt)
    assert shown
    for example in shown:
        assert not re.search(r"\d", example)
        for gold in GOLDS.values():
            verdict = match_answer(read_reply(example).answer or example, gold)
            assert not verdict.correct and not verdict.parseable, (example, gold.format)


def test_a_real_answer_beside_the_placeholder_form_still_counts():
    assert match_answer("Final answer: B", GOLDS["choice"]).correct
    assert match_answer("Final answer: 12.5", GOLDS["number"]).correct
    assert match_answer("Final answer: Method X; Method Y", GOLDS["set"]).correct
