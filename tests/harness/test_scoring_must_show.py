"""Must show (issue 11): over real HTTP, on the default benchmark, a model that answers from the gold is
marked right when it answers plainly or verbosely, and wrong when it hedges or lists candidates.

The scripted model server plays the answers; the real OpenAI-compatible agent asks it turn by turn
through the real runner; the run is scored from its traces like any other run. The benchmark is
whatever `RunSettings` uses by default, so the test follows the default when it changes.

Since issue 14 a reply without a tool call and without a final-answer marker is a step, not an answer;
only the budget's fallback request takes any reply as the answer. So each turn here is one such step
(a plan, with a budget of 1) and the styled answer is the reply to the fallback request, which restates
the question: every style, marked or not, reaches the matcher as the turn's recorded answer.
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from harness.episodes_io import load_episodes
from harness.settings import RunSettings

from . import answer_styles as styles

DEFAULT_EPISODES = Path(RunSettings.model_fields["episodes"].default)


STYLES = (styles.EXACT, styles.VERBOSE, styles.HEDGE, styles.LIST)


def _script(episodes) -> tuple[list[tuple[str, str]], dict[tuple[str, int], str]]:  # noqa: ANN001
    """One scripted reply per turn, in run order, each only for a request that asks that turn's question.
    The four styles take turns, so each covers every answer format about equally."""
    replies, style_of = [], {}
    k = 0
    for ep in episodes:
        for t, turn in enumerate(ep.turns, 1):
            style = STYLES[k % len(STYLES)]
            style_of[(ep.id, t)] = style
            replies.append((turn.question, styles.write(turn, style, k // len(STYLES))))
            k += 1
    return replies, style_of


@pytest.fixture(scope="module")
def gold_run(tmp_path_factory) -> tuple[Path, dict[tuple[str, int], str]]:  # noqa: ANN001
    """The default benchmark answered from the gold in four styles by a scripted model, over HTTP, scored."""
    replies, style_of = _script(load_episodes(DEFAULT_EPISODES).episodes)
    run = styles.run_scripted_answers(DEFAULT_EPISODES, replies, tmp_path_factory.mktemp("must_show"), "gold-styles")
    return run, style_of


def _rates(run_dir: Path, style_of: dict[tuple[str, int], str], formats: set[str]) -> dict[str, tuple[int, int]]:
    """style -> (turns marked right, turns) over turns of the given answer formats."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for line in (run_dir / "episode_scores.jsonl").read_text().splitlines():
        e = json.loads(line)
        for t in e["turns"]:
            if t["format"] in formats:
                s = out[style_of[(e["episode_id"], t["turn"])]]
                s[0] += t["correct"]
                s[1] += 1
    return {k: (v[0], v[1]) for k, v in out.items()}


@pytest.mark.slow
def test_gold_answers_in_exact_and_verbose_styles_are_right(gold_run):
    run, style_of = gold_run
    rates = _rates(run, style_of, {"number", "choice", "set", "text"})
    for style in (styles.EXACT, styles.VERBOSE):
        right, n = rates[style]
        assert n > 100 and right / n >= 0.95, f"{style}: {right}/{n} turns marked right"
    scores = json.loads((run / "scores.json").read_text())
    assert scores["scorer_version"] and scores["labeller"] == "matcher"


@pytest.mark.slow
def test_the_same_gold_answers_hedged_or_listed_are_wrong(gold_run):
    run, style_of = gold_run
    rates = _rates(run, style_of, {"number", "choice"})
    for style in (styles.HEDGE, styles.LIST):
        right, n = rates[style]
        assert n > 100 and right / n <= 0.05, f"{style}: {right}/{n} number and choice turns marked right"
    rows = [json.loads(x) for x in (run / "episode_scores.jsonl").read_text().splitlines()]
    hedged = [t for e in rows for t in e["turns"] if t["format"] in ("number", "choice") and t["verdict"]["hedged"]
              and style_of[(e["episode_id"], t["turn"])] in (styles.HEDGE, styles.LIST)]
    assert len(hedged) >= 0.95 * sum(rates[s][1] for s in (styles.HEDGE, styles.LIST))  # and the verdicts say why
