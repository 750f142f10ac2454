"""Must show (issue 22): a model right on every turn that gives reasons naming other options or values is right.

A careful grader reads `Final answer: D, because C is lower` as D and `77.2, vs. 70.1 for NorloDet` as 77.2: a
reason, comparison or negation that mentions another option is not an alternative. The scripted model server
answers every turn of five default-benchmark episodes whose final turn is a choice, always with the gold
answer and a reason that names a wrong option or value; the real OpenAI-compatible agent asks it turn by turn
through the real runner (as in test_scoring_must_show), and the run is scored from its traces: ESR 5 of 5.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.episode import Turn
from harness.episodes_io import load_episodes
from harness.settings import RunSettings

from .answer_styles import run_scripted_answers

DEFAULT_EPISODES = Path(RunSettings.model_fields["episodes"].default)
OTHER = "SolbelParse"


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def with_reason(turn: Turn, k: int) -> str:
    """The gold answer with a reason that names another option or value (k rotates the phrasing)."""
    a = turn.answer
    if a.format == "number":
        v = float(a.value)  # type: ignore[arg-type]
        other = _num(round(v + max(1.0, abs(v) * 0.1), 2))
        return [f"Final answer: {_num(v)}, vs. {other} for {OTHER}",
                f"Final answer: {_num(v)}, lower than the {other} of {OTHER}",
                f"Final answer: {_num(v)}\n\nThe neighbouring series, {OTHER}, reaches {other} at that setting."][k % 3]
    if a.format == "choice":
        letter = str(a.value)
        other = next(x for x in sorted(a.choices or {"A": "", "B": ""}) if x != letter)
        return [f"Final answer: {letter}, because {other} is lower",
                f"Final answer: {letter} (not {other})",
                f"The answer is {letter} because it beats {other}."][k % 3]
    if a.format == "set":
        return "Final answer: " + " and ".join(map(str, a.value)) + f", while {OTHER} does not qualify"  # type: ignore[arg-type]
    return f"Final answer: {a.value}, because {OTHER} is only a baseline"


def _episodes():  # noqa: ANN202
    eps = [e for e in load_episodes(DEFAULT_EPISODES).episodes if e.turns[-1].answer.format == "choice"]
    return eps[:5]


@pytest.fixture(scope="module")
def reasons_run(tmp_path_factory) -> Path:  # noqa: ANN001
    tmp_path = tmp_path_factory.mktemp("reasons")
    episodes = _episodes()
    sub = tmp_path / "episodes.jsonl"
    sub.write_text("".join(e.model_dump_json(exclude_none=False) + "\n" for e in episodes), encoding="utf-8")
    for cues in DEFAULT_EPISODES.parent.glob(f"{DEFAULT_EPISODES.stem}-cues"):  # image cues are read beside the file
        shutil.copytree(cues, tmp_path / cues.name)
    replies = [(turn.question, with_reason(turn, k)) for k, turn in enumerate(t for ep in episodes for t in ep.turns)]
    return run_scripted_answers(sub, replies, tmp_path, "reasons")


def test_a_model_right_on_every_turn_that_gives_reasons_scores_esr_5_of_5(reasons_run):
    scores = json.loads((reasons_run / "scores.json").read_text())
    rows = [json.loads(x) for x in (reasons_run / "episode_scores.jsonl").read_text().splitlines()]
    wrong = [(e["episode_id"], t["turn"], t["answer"], t["verdict"]["detail"]) for e in rows for t in e["turns"] if not t["correct"]]
    assert len(rows) == 5 and not wrong, wrong
    assert scores["all"]["esr"] == 100.0 and scores["all"]["acc_final"] == 100.0
    finals = [e["turns"][-1] for e in rows]
    assert all(t["format"] == "choice" and not t["verdict"]["hedged"] for t in finals)
