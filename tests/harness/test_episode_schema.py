"""The public episode schema: field names users write by hand, and what it refuses."""
import pytest
from pydantic import ValidationError

from harness.episode import Episode


def _episode(**over):
    base = {
        "id": "ep1", "split": "easy", "task_type": "comparison", "initiation": "citation", "area": "vision",
        "turns": [
            {"question": "Which paper?", "cue": {"text": "the 2021 paper by Okafor et al."},
             "answer": {"format": "text", "value": "Foo", "aliases": ["FooNet"]},
             "evidence": [{"paper": "P001", "unit": "text"}],
             "checklist": [{"tool": "web_search", "args": {"query": "Okafor 2021"}}]},
            {"question": "Final?", "answer": {"format": "number", "value": 3.5, "tolerance": 0.1, "unit": "%"},
             "evidence": [{"paper": "P001", "unit": "table:1"}], "memory_only": True},
        ],
    }
    base.update(over)
    return base


def test_valid_episode_parses_with_public_field_names():
    ep = Episode.model_validate(_episode())
    assert ep.requires_reuse and ep.checklist_length == 1 and ep.papers == ["P001"]
    assert ep.turns[1].answer.tolerance == 0.1


@pytest.mark.parametrize(
    "patch, field",
    [
        ({"split": "medium"}, "split"),
        ({"turns": []}, "turns"),
        ({"task_type": "other"}, "task_type"),
    ],
)
def test_invalid_top_level_fields_are_named(patch, field):
    with pytest.raises(ValidationError) as e:
        Episode.model_validate(_episode(**patch))
    assert field in str(e.value)


def test_unknown_answer_format_and_bad_unit_are_refused():
    ep = _episode()
    ep["turns"][0]["answer"]["format"] = "essay"
    with pytest.raises(ValidationError, match="format"):
        Episode.model_validate(ep)
    ep = _episode()
    ep["turns"][0]["evidence"][0]["unit"] = "fig 2"
    with pytest.raises(ValidationError, match="unit"):
        Episode.model_validate(ep)


def test_memory_only_turn_cannot_list_tool_calls():
    ep = _episode()
    ep["turns"][1]["checklist"] = [{"tool": "pdf_extract", "args": {"paper": "P001"}}]
    with pytest.raises(ValidationError, match="memory_only"):
        Episode.model_validate(ep)
