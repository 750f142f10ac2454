"""The text-only adversary: navigates with gold checklists, reads only text, answers with text-derived
guesses, and its answers do not change when every figure image is blanked."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from agents._text_guess import Line, guess_choice, guess_figure_value, numbers, parse_figure_ask

HEADER = ("Method", "ImageNet-1K", "CIFAR-100")


def _row(*cells: str) -> Line:
    return Line("table:1", " | ".join(cells), tuple(cells), HEADER)


def test_figure_question_is_parsed_into_series_setting_and_category():
    line = parse_figure_ask('Figure 2 plots top-1 accuracy (%) against Training epochs. What is the top-1 accuracy (%) '
                            'of the series "CaltoFormer" at Training epochs = 400? Read it from the figure.')
    assert (line.figure, line.series, line.x, line.category) == (2, "CaltoFormer", 400.0, None)
    bar = parse_figure_ask('Figure 3 is a bar chart. What is the height of the "MirtorFormer" bar at "CIFAR-100" '
                           '(top-1 accuracy (%))? Read it from the figure.')
    assert (bar.figure, bar.series, bar.x, bar.category) == (3, "MirtorFormer", None, "CIFAR-100")
    choice = parse_figure_ask('In Figure 1, which series has the lowest box AP at Training epochs = 200?')
    assert choice.highest is False and choice.x == 200.0


def test_numbers_skip_labels_that_are_no_measurements():
    text = "(page 4, section 4.3 Analysis) Figure 2 shows CIFAR-100 results; Part 1 of 2 [3] top-1 reaches 85.14 and -2.5"
    assert numbers(text) == [85.14, -2.5]


def test_bar_value_is_read_from_the_series_row_in_the_category_column():
    lines = [_row("Plain baseline", "71.27", "72.74"), _row("MirtorFormer", "80.30", "83.41"),
             Line("figure:3", "Figure 3: Per-dataset comparison of MirtorFormer (page 4).")]
    ask = parse_figure_ask('Figure 3 is a bar chart. What is the height of the "MirtorFormer" bar at "CIFAR-100"?')
    assert guess_figure_value(ask, lines) == 83.41


def test_curve_value_prefers_a_sentence_at_the_asked_x_then_the_dataset_the_caption_names():
    caption = Line("figure:1", "Figure 1: Effect of the training epochs on top-1 accuracy on CIFAR-100 for MirtorFormer.")
    ask = parse_figure_ask('Figure 1 plots accuracy. What is the accuracy of the series "MirtorFormer" at Training epochs = 100?')
    lines = [_row("MirtorFormer", "80.30", "83.41"), caption]
    assert guess_figure_value(ask, lines) == 83.41  # the row, in the column the caption names
    lines.append(Line("text", "At 100 epochs MirtorFormer reaches 61.5 on CIFAR-100."))
    assert guess_figure_value(ask, lines) == 61.5
    assert guess_figure_value(ask, [caption]) is None  # nothing printed: no number to guess from


def test_choice_follows_a_table_ranking_then_a_ranking_sentence_then_the_own_method():
    choices = {"A": "Plain baseline", "B": "MirtorFormer"}
    rows = [list(HEADER), ["Plain baseline", "71.27", "72.74"], ["MirtorFormer", "80.30", "83.41"]]
    q = 'In Table 1, which method has the lowest value in the column "CIFAR-100"?'
    assert guess_choice(choices, q, [], rows_column=(rows, "CIFAR-100")) == "A"
    fq = "In Figure 2, which series has the highest accuracy at Training epochs = 50?"
    ask = parse_figure_ask(fq)
    said = [Line("figure:2", "The curve of Plain baseline lies above the others early in training.")]
    assert guess_choice(choices, fq, said, ask=ask) == "A"
    assert guess_choice(choices, "Which series has the highest accuracy in Figure 2?", [], own_method="MirtorFormer",
                        ask=ask) == "B"


@pytest.fixture(scope="module")
def generated_episodes(tiny_sandbox: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sandbox.corpus.build import load_ground_truth
    from sandbox.legacy.episodegen_v1 import generate_episodes, write_episodes

    out = tmp_path_factory.mktemp("text_only_eps") / "generated.jsonl"
    write_episodes(generate_episodes(load_ground_truth(tiny_sandbox), count=8), out)
    return out


async def _run(episodes: Path, results: Path, sandbox: Path, run_id: str):
    from harness.runner import run_episodes
    from harness.scoring.run import read_episode_scores
    from harness.settings import RunSettings
    from sandbox.world import SandboxWorld

    settings = RunSettings(agent="text-only", episodes=episodes, results=results, run_id=run_id, concurrency=2)
    summary = await run_episodes(settings, world=SandboxWorld(sandbox))
    answers = {(e.episode_id, t.turn): t.answer for e in read_episode_scores(summary.run_dir) for t in e.turns}
    images = {p.name.rsplit("_", 1)[-1] for p in Path(summary.run_dir).glob("traces/*/*.png")}
    return summary, answers, images


@pytest.mark.slow
async def test_text_only_navigates_with_gold_and_never_depends_on_an_image(tiny_sandbox, generated_episodes, tmp_path,
                                                                          monkeypatch):
    summary, answers, images = await _run(generated_episodes, tmp_path / "res", tiny_sandbox, "seeing")
    scores = summary.scores
    assert scores.uses_gold  # every report says it navigates with gold checklists, in its own words
    assert "text-only adversary" in scores.note and "gold checklists" in scores.note and "oracle" not in scores.note
    from harness.scoring.report import header_lines

    assert any("never an image" in line for line in header_lines(scores))
    assert scores.all.ec == 100.0  # the gold checklists reach every evidence unit
    eps = [json.loads(line) for line in generated_episodes.read_text().splitlines()]
    table_turns = [(e["id"], i + 1) for e in eps for i, t in enumerate(e["turns"])
                   if not t["memory_only"] and t["answer"]["format"] == "number"
                   and t["evidence"][0]["unit"].startswith("table:")]
    gold = {(e["id"], i + 1): t["answer"]["value"] for e in eps for i, t in enumerate(e["turns"])}
    assert table_turns and all(abs(float(answers[k]) - float(gold[k])) < 0.01 for k in table_turns)

    # Its figure answers are right where the audit finds the value printed as text, and only there.
    from harness.audit import audit_episodes
    from harness.episodes_io import load_episodes
    from sandbox.world import SandboxWorld

    world = SandboxWorld(tiny_sandbox)
    report = await audit_episodes(load_episodes(generated_episodes, catalog=world.catalog), world, corpus="tiny",
                                  papers={p.id: p.area for p in world.catalog.papers})
    printed = {(f.episode, f.turn) for f in report.check("figure_values_in_text").findings}
    figure_turns = [(e["id"], i + 1) for e in eps for i, t in enumerate(e["turns"])
                    if not t["memory_only"] and t["answer"]["format"] == "number"
                    and t["evidence"][0]["unit"].startswith("figure:")]
    tol = {(e["id"], i + 1): t["answer"].get("tolerance") or 0 for e in eps for i, t in enumerate(e["turns"])}
    right = {k for k in figure_turns if answers[k] is not None and abs(float(answers[k]) - float(gold[k])) <= tol[k] + 1e-9}
    assert printed and len(right & printed) >= 0.8 * len(printed)
    assert len(right - printed) <= 1, sorted(right - printed)

    # Blank every figure image the tools return: a text-only reader must answer exactly the same.
    import tools.pdf as pdf  # figure_extract takes crop_figure from here on each call

    real_crop = pdf.crop_figure

    def blank_crop(data, ref, **kw):
        import pymupdf

        crop = real_crop(data, ref, **kw)
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, crop.width, crop.height), False)
        pix.set_rect(pix.irect, (255, 255, 255))
        return dataclasses.replace(crop, png=pix.tobytes("png"))

    monkeypatch.setattr(pdf, "crop_figure", blank_crop)
    _, blind, blank_images = await _run(generated_episodes, tmp_path / "res", tiny_sandbox, "blind")
    assert images and blank_images and not images & blank_images  # the second run really saw other pictures
    assert blind == answers


def test_memory_only_final_applies_the_annotated_operation_to_its_own_earlier_answers():
    from agents.text_only import TextOnlyAgent
    from harness.agent import AgentConfig, AnswerSpec, TurnView
    from harness.episode import Turn

    reads = [{"paper": "P001", "unit": "figure:2", "turn": 1, "value": 71.3},
             {"paper": "P002", "unit": "table:1", "turn": 2, "value": 68.2}]
    agent = TextOnlyAgent(AgentConfig())
    agent._answers = {1: "70.5", 2: "68.2"}  # its own (text-derived) answers, not the annotated values

    def final(op: str, question: str, fmt: str = "number", choices=None) -> str | None:
        turn = Turn.model_validate({"question": question, "memory_only": True, "reads": reads,
                                    "answer": {"format": fmt, "value": "A" if choices else 1, "choices": choices},
                                    "derivation": {"op": op, "candidates": list((choices or {}).values())}})
        view = TurnView(episode_id="e", turn=3, n_turns=3, question=question, memory_only=True, tools=[],
                        answer_spec=AnswerSpec(format=fmt, choices=choices), max_steps=10, steps_used=0)
        return agent._fuse(view, turn)

    assert final("difference", "By how much does the first exceed the second?") == "2.3"
    assert final("sum", "What is the sum?") == "138.7"
    assert final("count", "How many of the values you read are greater than 69?") == "1"
    assert final("argmin", "Which is the lowest?", "choice", {"A": "the first value", "B": "the second value"}) == "B"
