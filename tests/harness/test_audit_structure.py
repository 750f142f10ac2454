"""Audit checks that read the episode file alone: each flags the flaw it names, passes a sound file, and
says "not checked" where an episode lacks the annotation the check needs."""
from __future__ import annotations

import asyncio
import copy

from harness.audit._priors import MIN_TURNS, answer_free_priors
from harness.audit._structure import (
    duplicate_turns,
    finals_on_own_replies,
    finals_without_figure,
    mixed_settings,
    repeats_across_episodes,
    unused_papers,
    vacuous_conditions,
)
from harness.episode import Episode

from .test_audit_annotations import annotated_episode


def ep(data: dict) -> Episode:
    return Episode.model_validate(data)


def test_a_sound_annotated_episode_passes_every_structural_check():
    eps = [ep(annotated_episode())]
    for check in (duplicate_turns(eps), unused_papers(eps), vacuous_conditions(eps), mixed_settings(eps),
                  *finals_without_figure(eps)):
        assert check.status == "pass", (check.id, check.findings)


def test_a_turn_asking_the_same_thing_of_a_second_paper_is_a_duplicate():
    data = annotated_episode()
    again = copy.deepcopy(data["turns"][0])
    again["evidence"] = [{"paper": "P009", "unit": "figure:2"}]
    again["reads"][0]["paper"] = "P009"
    data["turns"].insert(2, again)
    check = duplicate_turns([ep(data)])
    assert check.status == "fail" and [(f.episode, f.turn) for f in check.findings] == [("a1", 3)]
    assert "repeats turn 1" in check.findings[0].message
    again["answer"]["value"] = 55.0  # a different answer is a different question
    assert duplicate_turns([ep(data)]).count == 0


def test_paper_found_but_unused_by_the_final_is_named():
    data = annotated_episode()
    data["turns"][2]["reads"].pop(1)
    data["turns"][2]["evidence"].pop(1)
    check = unused_papers([ep(data)])
    assert check.status == "fail" and check.count == 1
    assert check.findings[0].turn == 2 and "P002" in check.findings[0].message


def test_hard_final_without_a_figure_value_breaks_both_thresholds():
    data = annotated_episode()
    final = data["turns"][2]
    final["reads"], final["evidence"] = final["reads"][1:], final["evidence"][1:]
    share, hard = finals_without_figure([ep(data)])
    assert (share.status, share.count, share.total) == ("fail", 1, 1)
    assert (hard.status, hard.count) == ("fail", 1)
    easy = copy.deepcopy(data)
    easy["split"] = "easy"
    fig_final = annotated_episode("f")
    share, hard = finals_without_figure([ep(easy)] + [ep(dict(fig_final, id=f"f{i}")) for i in range(4)])
    assert (share.count, share.total, share.status) == (1, 5, "pass")  # 20% is allowed
    assert hard.status == "pass"


def test_condition_that_every_candidate_passes_is_vacuous():
    data = annotated_episode()
    d = data["turns"][2]["derivation"]
    d["op"] = "filter"
    d["candidates"] = ["Ours", "Baseline", "Other"]
    d["conditions"] = [{"text": "above 70 at 100 epochs", "passes": ["Ours", "Other"]},
                       {"text": "above the baseline of paper 2", "passes": ["Ours", "Baseline", "Other"]}]
    check = vacuous_conditions([ep(data)])
    assert (check.status, check.count, check.total) == ("fail", 1, 2)
    assert "condition 2" in check.findings[0].message
    d["conditions"][1]["passes"] = ["Ours", "Baseline"]  # now each condition removes a candidate
    assert vacuous_conditions([ep(data)]).status == "pass"


def test_condition_that_does_not_change_an_argmax_answer_is_vacuous():
    data = annotated_episode()
    d = data["turns"][2]["derivation"]
    d["op"] = "argmax"
    d["conditions"] = [{"text": "above 60", "passes": ["Ours"]}]  # without it, argmax still picks Ours (71.3 > 68.2)
    check = vacuous_conditions([ep(data)])
    assert check.count == 1 and "the answer stays" in check.findings[0].message
    d["op"] = "argmin"  # without the condition argmin would pick Baseline: the condition binds
    assert vacuous_conditions([ep(data)]).count == 0


def test_values_from_different_datasets_or_x_settings_are_a_mixed_comparison():
    data = annotated_episode()
    data["turns"][2]["reads"][1]["dataset"] = "ImageNet-1K"
    check = mixed_settings([ep(data)])
    assert check.status == "fail" and "dataset" in check.findings[0].message
    data = annotated_episode()
    extra = dict(data["turns"][2]["reads"][0], x=50)
    data["turns"][2]["reads"].append(extra)
    check = mixed_settings([ep(data)])
    assert check.status == "fail" and "x differ" in check.findings[0].message


def test_checks_needing_annotations_say_not_checked_for_plain_episodes():
    data = annotated_episode()
    for t in data["turns"]:
        t.pop("reads", None)
        t.pop("derivation", None)
    for check in (vacuous_conditions([ep(data)]), mixed_settings([ep(data)])):
        assert check.status == "not checked" and check.not_checked == 1
        assert "no `reads`/`derivation` annotation" in (check.not_checked_why or "")
    # the ones that can use evidence instead still judge
    assert unused_papers([ep(data)]).status == "pass"


def _choice_episode(i: int, right: str) -> dict:
    return {"id": f"c{i}", "split": "easy", "task_type": "comparison", "initiation": "citation", "area": "x",
            "turns": [{"question": "Which value you read is the highest?", "memory_only": True,
                       "answer": {"format": "choice", "value": right,
                                  "choices": {"A": "the first value", "B": "the second one", "C": "a third value here"}},
                       "evidence": [{"paper": "P001", "unit": "table:1"}]}]}


def test_answer_free_prior_catches_a_position_bias_and_passes_a_balanced_file():
    biased = [ep(_choice_episode(i, "A")) for i in range(MIN_TURNS)]
    check = asyncio.run(answer_free_priors(biased, reader=None))  # memory-only turns: no paper is read
    assert check.status == "fail" and check.shown.startswith("always option 1 (by letter): 100.0% vs chance 33.3%")
    balanced = [ep(_choice_episode(i, "ABC"[i % 3])) for i in range(3 * MIN_TURNS)]
    check = asyncio.run(answer_free_priors(balanced, reader=None))
    assert check.status == "pass" and check.value is not None and check.value <= 5.0
    few = asyncio.run(answer_free_priors(biased[:3], reader=None))
    assert few.status == "not checked"


def test_a_figure_value_or_turn_another_episode_asks_too_is_reported():
    first, second = annotated_episode("a1"), annotated_episode("a2")
    second["turns"][1]["question"] = "In Table 1, what is the CIFAR-10 value of \"Baseline\"?"  # turn 2 differs
    check = repeats_across_episodes([ep(first), ep(second)])
    assert (check.status, check.count, check.total) == ("report", 2, 2)  # figure:2 "Ours" at 100, asked by both
    assert check.breakdown[0].count == 2  # turn 1 of both episodes, verbatim
    assert any(f.episode == "a1" and f.turn == 1 and "also asked by a2" in f.message for f in check.findings)
    assert any(f.episode == "a2" and "the same turn as a1 turn 1" in f.message for f in check.findings)
    for t in (second["turns"][0], second["turns"][2]["reads"][0]):  # another x: nothing repeats
        t.get("reads", [t])[0]["x"] = 50
    second["turns"][0]["question"] = second["turns"][0]["question"].replace("100 epochs", "50 epochs")
    check = repeats_across_episodes([ep(first), ep(second)])
    assert (check.count, check.breakdown[0].count) == (0, 0)


def test_finals_whose_operands_are_all_earlier_answers_are_reported():
    data = annotated_episode()
    check = finals_on_own_replies([ep(data)])
    assert (check.status, check.count, check.total) == ("report", 1, 1)  # both operands are turns 1 and 2's answers
    assert "turn(s) 1, 2" in check.findings[0].message
    # an operand the agent saw in turn 2's table but was not asked for: the final needs recall
    data["turns"][2]["reads"][1]["series"] = "Ours"
    data["turns"][2]["derivation"]["candidates"] = ["Ours", "Ours (table)"]
    data["turns"][2]["derivation"]["conditions"][0]["passes"] = ["Ours"]
    assert finals_on_own_replies([ep(data)]).count == 0
    plain = annotated_episode("plain")
    plain["turns"][2].pop("reads")
    plain["turns"][2].pop("derivation")
    check = finals_on_own_replies([ep(plain)])
    assert check.status == "not checked" and check.not_checked == 1 and "annotation" in check.not_checked_why
