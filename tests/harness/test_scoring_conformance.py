"""The matcher against labelled answers: the human-graded shared cases and our own conformance set.

Every case names the gold answer, an answer written the way models write them, and the verdict a
careful grader gives (correct, wrong, hedged, unparseable). Any disagreement fails.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.episode import Answer
from harness.scoring.match import match_answer

HERE = Path(__file__).resolve().parent
# The human-graded cases live in ../shared beside the checkout during development; the repository keeps a
# copy so a clone stands alone, and a test below checks the copy against ../shared where it is present.
SHARED_CASES = HERE.parents[1].parent / "shared" / "answer-cases.jsonl"
HUMAN_CASES = HERE / "data" / "human_graded_answer_cases.jsonl"
CONFORMANCE = HERE / "data" / "answer_conformance.jsonl"


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def verdict_name(v) -> str:  # noqa: ANN001 - an AnswerVerdict
    if v.correct:
        return "correct"
    if v.hedged:
        return "hedged"
    return "wrong" if v.parseable else "unparseable"


def _case_id(c: dict) -> str:
    return f"{c['gold']['format']}:{c['answer'][:40]!r}"


@pytest.mark.parametrize("case", _load(HUMAN_CASES), ids=_case_id)
def test_shared_human_graded_cases(case):
    v = match_answer(case["answer"], Answer.model_validate(case["gold"]))
    assert v.correct is case["correct"], f"{case['why']}: {v.detail}"


@pytest.mark.skipif(not SHARED_CASES.is_file(), reason=f"{SHARED_CASES} not present (a clone on its own)")
def test_the_kept_copy_of_the_human_graded_cases_equals_the_shared_file():
    assert _load(HUMAN_CASES) == _load(SHARED_CASES), f"{HUMAN_CASES} differs from {SHARED_CASES}: copy it again"


CASES = _load(CONFORMANCE)


def test_conformance_set_is_large_and_covers_every_format_and_verdict():
    assert len(CASES) >= 200
    assert {c["gold"]["format"] for c in CASES} == {"number", "choice", "set", "text"}
    counts = {k: sum(c["verdict"] == k for c in CASES) for k in ("correct", "wrong", "hedged", "unparseable")}
    assert min(counts.values()) >= 20, counts


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_conformance_case(case):
    v = match_answer(case["answer"], Answer.model_validate(case["gold"]), case.get("question"))
    assert verdict_name(v) == case["verdict"], f"{case['why']}: {v.detail}"


NUMBER = Answer(format="number", value=77.23, tolerance=0.005, unit="%")
CHOICE = Answer(format="choice", value="C", choices={"A": "x", "B": "y", "C": "z"})
SET = Answer(format="set", value=["a", "b"])
TEXT = Answer(format="text", value="BresaParse")


@pytest.mark.parametrize("answer, why", [
    ("", "empty"), (" \n\t ", "whitespace"), ("\x00\x01\x02binary\x00" * 10, "binary"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "bytes"), ("77.23 " * 200_000, "1.2 MB"), ("x" * 1_000_000, "1 MB"),
    ("<think>" + "77.23 or 79.10 " * 70_000, "1 MB of unclosed reasoning"),
])
@pytest.mark.parametrize("gold", [NUMBER, CHOICE, SET, TEXT], ids=["number", "choice", "set", "text"])
def test_bad_answers_get_a_wrong_unparseable_verdict_and_never_raise(answer, why, gold):
    v = match_answer(answer, gold)
    assert not v.correct and not v.parseable, why
    assert v.detail


def test_a_long_reasoning_block_before_a_short_answer_is_still_graded():
    answer = "<think>" + "Table 2 lists 79.10 and 77.23. " * 30_000 + "</think>\nFinal answer: 77.23"
    assert len(answer) > 900_000 and match_answer(answer, NUMBER).correct


def test_the_verdict_says_hedged_and_what_it_read():
    v = match_answer("Final answer: 77.23 or 84.73", NUMBER)
    assert not v.correct and v.hedged and v.parseable and v.detail.startswith("hedged") and "84.73" in v.detail
    v = match_answer("Final answer: 77.23 ms", NUMBER)
    assert not v.correct and not v.hedged and "ms" in v.detail


# Issue 22: cases in six styles a careful grader reads differently from a naive matcher. Each has a `style`;
# the matcher must agree with the grader on at least 95% of each style (and, as a conformance case, on each).
STYLES = ("negation", "reason", "next_line", "text_hedge", "sentence_set", "fraction")


def test_each_issue_22_style_has_cases_and_the_matcher_agrees_on_95_percent():
    styled = [c for c in CASES if c.get("style")]
    assert {c["style"] for c in styled} == set(STYLES)
    low = {}
    for style in STYLES:
        cases = [c for c in styled if c["style"] == style]
        agree = sum(verdict_name(match_answer(c["answer"], Answer.model_validate(c["gold"]), c.get("question")))
                    == c["verdict"] for c in cases)
        assert len(cases) >= 10, f"{style}: only {len(cases)} cases"
        if agree < 0.95 * len(cases):
            low[style] = f"{agree}/{len(cases)}"
    assert not low, f"agreement under 95%: {low}"
