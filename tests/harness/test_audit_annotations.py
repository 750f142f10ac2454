"""The `reads`/`derivation` annotations (shared spec of issue 13): accepted as written, optional, and
refused with file, line, episode and field when they point at nothing."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from harness.episode import Episode
from harness.episodes_io import EpisodeFileError, load_episodes


def annotated_episode(ep_id: str = "a1") -> dict:
    """Two figure reads and a constraint final over them, annotated as the v2 generator writes them."""
    fig_q = 'Figure 2 plots accuracy (%) against training epochs. What is the accuracy of "Ours" at 100 epochs?'
    return {
        "id": ep_id, "split": "hard", "task_type": "constraint", "initiation": "citation", "area": "vision",
        "turns": [
            {"question": fig_q, "answer": {"format": "number", "value": 71.3, "tolerance": 0.5},
             "evidence": [{"paper": "P001", "unit": "figure:2"}],
             "checklist": [{"tool": "figure_extract", "args": {"paper": "P001", "figure": 2}}],
             "reads": [{"paper": "P001", "unit": "figure:2", "series": "Ours", "dataset": "CIFAR-100",
                        "metric": "accuracy (%)", "x": 100, "x_label": "training epochs", "value": 71.3}]},
            {"question": "In Table 1, what is the CIFAR-100 value of \"Baseline\"?",
             "answer": {"format": "number", "value": 68.2, "tolerance": 0.005},
             "evidence": [{"paper": "P002", "unit": "table:1"}],
             "checklist": [{"tool": "table_extract", "args": {"paper": "P002", "table": 1}}],
             "reads": [{"paper": "P002", "unit": "table:1", "series": "Baseline", "column": "CIFAR-100",
                        "dataset": "CIFAR-100", "metric": "accuracy (%)", "value": 68.2}]},
            {"question": "Which method you read scores above 70?", "memory_only": True,
             "answer": {"format": "choice", "value": "A", "choices": {"A": "Ours", "B": "Baseline"}},
             "evidence": [{"paper": "P001", "unit": "figure:2"}, {"paper": "P002", "unit": "table:1"}],
             "reads": [{"paper": "P001", "unit": "figure:2", "turn": 1, "series": "Ours", "dataset": "CIFAR-100",
                        "metric": "accuracy (%)", "x": 100, "x_label": "training epochs", "value": 71.3},
                       {"paper": "P002", "unit": "table:1", "turn": 2, "series": "Baseline", "dataset": "CIFAR-100",
                        "metric": "accuracy (%)", "value": 68.2}],
             "derivation": {"op": "filter", "candidates": ["Ours", "Baseline"],
                            "conditions": [{"text": "above 70", "passes": ["Ours"]}]}},
        ],
    }


def _write(tmp_path: Path, *episodes: dict) -> Path:
    path = tmp_path / "eps.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in episodes), encoding="utf-8")
    return path


def test_annotations_load_and_older_files_without_them_stay_valid(tmp_path):
    plain = annotated_episode("plain")
    for t in plain["turns"]:
        t.pop("reads", None)
        t.pop("derivation", None)
    eps = load_episodes(_write(tmp_path, annotated_episode(), plain))
    final = eps.episodes[0].turns[-1]
    assert [r.turn for r in final.reads] == [1, 2] and final.reads[0].x == 100.0
    assert final.derivation is not None and final.derivation.conditions[0].passes == ["Ours"]
    assert eps.episodes[1].turns[-1].reads == [] and eps.episodes[1].turns[-1].derivation is None


@pytest.mark.parametrize("mutate, field, what", [
    (lambda e: e["turns"][2]["reads"][0].update(turn=3), "turns[2].reads[0].turn", "not an earlier turn"),
    (lambda e: e["turns"][0]["reads"][0].update(turn=1), "turns[0].reads[0].turn", "not an earlier turn"),
    (lambda e: e["turns"][2]["reads"][1].update(turn=1), "turns[2].reads[1].paper", "not among the evidence of turn 1"),
    (lambda e: e["turns"][0]["reads"][0].update(unit="figure:3"), "turns[0].reads[0].unit", "not among the evidence of turn 1"),
])
def test_reads_that_point_at_nothing_are_refused_with_line_episode_and_field(tmp_path, mutate, field, what):
    ep = annotated_episode()
    mutate(ep)
    with pytest.raises(EpisodeFileError) as e:
        load_episodes(_write(tmp_path, annotated_episode("ok"), ep))
    msg = str(e.value)
    assert f"eps.jsonl:2: episode 'a1': {field}: " in msg and what in msg


def test_condition_passing_a_non_candidate_is_refused(tmp_path):
    ep = annotated_episode()
    ep["turns"][2]["derivation"]["conditions"][0]["passes"] = ["Ours", "Mystery"]
    with pytest.raises(EpisodeFileError) as e:
        load_episodes(_write(tmp_path, ep))
    assert "turns[2].derivation" in str(e.value) and "'Mystery'" in str(e.value)
    with pytest.raises(ValidationError):
        Episode.model_validate(ep)


def test_validate_counts_annotated_turns(tmp_path, monkeypatch, capsys):
    from harness.cli import app

    monkeypatch.setenv("EPI_SANDBOX_DIR", str(tmp_path / "not-built"))
    with pytest.raises(SystemExit) as e:
        app(["episodes", "validate", str(_write(tmp_path, annotated_episode()))])
    assert e.value.code == 0
    assert "3 turn(s) carry reads/derivation annotations" in capsys.readouterr().out
