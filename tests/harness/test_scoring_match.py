"""The deterministic matcher: tolerant of how answers are written, never of a different value."""
import pytest

from harness.episode import Answer
from harness.scoring.match import match_answer

CHOICE = Answer(format="choice", value="B", choices={"A": "the cat", "B": "a dog", "C": "fish"})


@pytest.mark.parametrize("text", ["B", "(B)", "B) a dog", "Answer: B", "dog", "The answer is (B)", "b", "B."])
def test_choice_accepts_letter_forms_and_option_text(text):
    assert match_answer(text, CHOICE).correct


@pytest.mark.parametrize("text, parseable", [("C", True), ("(A) the cat", True), ("fish", True), ("no idea", False)])
def test_choice_rejects_other_options(text, parseable):
    v = match_answer(text, CHOICE)
    assert not v.correct and v.parseable is parseable


def test_number_strips_units_percent_and_commas_with_default_relative_tolerance():
    gold = Answer(format="number", value=1234.5, unit="%")
    for text in ["1234.5", "1,234.5 %", "Answer: 1234.5%", "1.2345e3"]:
        assert match_answer(text, gold).correct, text
    assert not match_answer("1234.6", gold).correct
    assert match_answer("1234.5000001", gold).correct  # within 1e-6 relative


def test_number_uses_the_episode_tolerance():
    gold = Answer(format="number", value=0.5, tolerance=0.01)
    assert match_answer("0.509", gold).correct
    assert not match_answer("0.52", gold).correct
    assert not match_answer("about half", gold).parseable


def test_text_normalises_case_punctuation_articles_and_aliases():
    gold = Answer(format="text", value="The Transformer", aliases=["Vaswani et al. model"])
    assert match_answer("transformer.", gold).correct
    assert match_answer("  vaswani ET AL model ", gold).correct
    assert not match_answer("Transformer-XL", gold).correct


def test_set_half_right_has_precision_and_recall_half_and_is_wrong():
    gold = Answer(format="set", value=["ResNet-50", "ViT-B/16"])
    v = match_answer("ResNet-50; BERT", gold)
    assert (v.precision, v.recall, v.f1, v.correct) == (0.5, 0.5, 0.5, False)


@pytest.mark.parametrize("text", ["vit-b/16; ResNet-50", '["ResNet-50", "ViT-B/16"]', "ResNet-50, ViT-B/16",
                                  "ResNet-50\nViT-B/16", "ResNet-50; ViT-B/16; resnet-50"])
def test_set_accepts_any_order_and_separator(text):
    gold = Answer(format="set", value=["ResNet-50", "ViT-B/16"])
    v = match_answer(text, gold)
    assert v.correct and v.precision == 1.0 and v.recall == 1.0


def test_set_greedy_one_to_one_and_item_aliases():
    gold = Answer(format="set", value=["BERT", "GPT-2", "T5"], aliases=["GPT-2=gpt2"])
    v = match_answer("gpt2; BERT", gold)  # superset missing T5: precision 1, recall 2/3
    assert v.precision == 1.0 and v.recall == pytest.approx(2 / 3) and not v.correct
    assert match_answer("T5; gpt2; bert", gold).correct
    extra = match_answer("T5; GPT-2; BERT; XLNet", gold)
    assert extra.precision == 0.75 and extra.recall == 1.0 and not extra.correct


def test_set_numbers_compare_by_value():
    gold = Answer(format="set", value=["3.5", "12"])
    assert match_answer("12.0; 3.50", gold).correct


def test_no_answer_is_wrong_and_unparseable():
    for text in (None, "", "   "):
        v = match_answer(text, CHOICE)
        assert not v.correct and not v.parseable


def test_set_items_with_commas_are_read_whole_when_that_fits_better():
    gold = Answer(format="set", value=["Smith, J."])
    assert match_answer("Smith, J.", gold).correct
    two = Answer(format="set", value=["Smith, J.", "Lee, K."])
    assert match_answer("Smith, J.; Lee, K.", two).correct  # the oracle's '; '-joined form
