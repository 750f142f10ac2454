"""General sentence patterns of the deterministic claim extractor (issue 32's extractor leftovers from issue 31):
a pronoun subject owns no named method's number, "N versus M" follows the compared subject and object in that
order (also after "Compared with B, A is ..."), a range of settings is not one setting, a difference may carry
its quantity's name ("1.4 mIoU more"), "is last" ranks, a baseline is named by its head ("the MLP curve").
Issue 31's follow-up (patterns read off report_claims_heldout2.json's misses): ratios and fractions compare
("three times the throughput of", "half the parameters of"), "the stronger of the two" compares with the other
method named, a second value may carry a second setting ("from 60.4 at 2 layers to 66.9 at 16"), "the top score"
ranks, a tie gives both methods the value, "a 4.1-point deficit to" is a difference and a comparison, a curve that
"learns fastest" is no throughput rank, "the highest label rate, 20%" is a setting and no rank.
The sentences are new (not those of the labelled or held-out sets)."""
from __future__ import annotations

from harness.reports import Lexicon, extract_claims

LEX = Lexicon(methods=["AltoNet", "BrioNet", "CeltaNet", "MLP baseline"], datasets=["Cora", "PubMed"],
              quantities={"accuracy (%)": True, "Params (M)": False, "Throughput (img/s)": True, "mIoU (%)": True},
              settings=["label rate (%)", "number of layers"])


def claims(text: str) -> set[tuple]:
    return {(c.kind, c.subject, c.object, c.relation, c.value, c.quantity, c.dataset, c.x_label, c.x)
            for c in extract_claims(text, LEX)}


def test_a_pronoun_subject_owns_nothing_and_the_pair_follows_the_comparison() -> None:
    got = claims("It is quicker than BrioNet, 210 versus 180 img/s [P1, Table 2].")
    assert got == {("value", "BrioNet", None, "=", 180.0, "Throughput (img/s)", None, None, None)}
    assert claims("It reaches 71.5 on Cora, ahead of CeltaNet [P1, Table 1].") == set()


def test_n_versus_m_after_a_comparison_goes_subject_then_object() -> None:
    got = claims("Compared with CeltaNet, AltoNet is lighter (12.5M vs 30.1M parameters) [P1, Table 2].")
    assert ("value", "AltoNet", None, "=", 12.5, "Params (M)", None, None, None) in got
    assert ("value", "CeltaNet", None, "=", 30.1, "Params (M)", None, None, None) in got
    assert ("compare", "AltoNet", "CeltaNet", "<", None, "Params (M)", None, None, None) in got
    got = claims("BrioNet is outperformed by AltoNet on PubMed, 77.2 versus 78.0 [P1, Table 1].")
    assert ("value", "BrioNet", None, "=", 77.2, None, "PubMed", None, None) in got
    assert ("value", "AltoNet", None, "=", 78.0, None, "PubMed", None, None) in got


def test_a_range_of_settings_is_not_one_setting_and_a_difference_may_name_its_quantity() -> None:
    got = claims("Between 2 and 16 layers, CeltaNet stays below AltoNet [P1, Figure 2].")
    assert got == {("compare", "CeltaNet", "AltoNet", "<", None, None, None, None, None)}
    got = claims("BrioNet posts 48.3 mIoU on Cora, 1.4 mIoU more than CeltaNet [P1, Table 1].")
    assert ("compare", "BrioNet", "CeltaNet", ">", 1.4, "mIoU (%)", "Cora", None, None) in got
    assert not any(c[0] == "value" and c[4] == 1.4 for c in got)


def test_is_last_ranks_and_a_baseline_is_named_by_its_head() -> None:
    got = claims("The MLP baseline is last on both graphs, with 58.1 on Cora [P1, Table 1].")
    assert ("rank", "MLP baseline", None, "min", None, None, "Cora", None, None) in got
    got = claims("The MLP curve reaches 63.0 at a 20% label rate [P1, Figure 1].")
    assert got == {("value", "MLP baseline", None, "=", 63.0, None, None, "label rate (%)", 20.0)}
    assert claims("The last point of the plot is at 20% labels.") == set()


def test_ratios_and_fractions_compare_without_a_stated_difference() -> None:
    got = claims("AltoNet handles 900 img/s, about three times the throughput of BrioNet [P1, Table 2].")
    assert got == {("value", "AltoNet", None, "=", 900.0, "Throughput (img/s)", None, None, None),
                   ("compare", "AltoNet", "BrioNet", ">", None, "Throughput (img/s)", None, None, None)}
    got = claims("CeltaNet gets by with half the parameters of BrioNet [P1, Table 2].")
    assert got == {("compare", "CeltaNet", "BrioNet", "<", None, "Params (M)", None, None, None)}


def test_the_stronger_of_the_two_compares_with_the_other_method_named() -> None:
    got = claims("AltoNet and BrioNet reach 71.0 and 70.2 on Cora, respectively, which makes AltoNet the stronger "
                 "of the two [P1, Table 1].")
    assert ("compare", "AltoNet", "BrioNet", ">", None, None, "Cora", None, None) in got
    assert len(got) == 3


def test_a_second_value_carries_its_own_setting() -> None:
    got = claims("CeltaNet rises from 60.4 at 2 layers to 66.9 at 16 [P1, Figure 2].")
    assert got == {("value", "CeltaNet", None, "=", 60.4, None, None, "number of layers", 2.0),
                   ("value", "CeltaNet", None, "=", 66.9, None, None, "number of layers", 16.0)}


def test_the_top_score_ranks_and_a_tie_gives_both_methods_the_value() -> None:
    got = claims("BrioNet's 80.5 on PubMed is the top score in the table [P1, Table 1].")
    assert ("rank", "BrioNet", None, "max", None, None, "PubMed", None, None) in got
    got = claims("AltoNet and CeltaNet are level on PubMed at 79.0 [P1, Table 1].")
    assert got == {("value", "AltoNet", None, "=", 79.0, None, "PubMed", None, None),
                   ("value", "CeltaNet", None, "=", 79.0, None, "PubMed", None, None)}
    got = claims("AltoNet and CeltaNet reach 79.0 and 78.1 on PubMed [P1, Table 1].")
    assert {(c[1], c[4]) for c in got} == {("AltoNet", 79.0), ("CeltaNet", 78.1)}


def test_a_point_deficit_is_a_difference_of_a_comparison() -> None:
    got = claims("The MLP baseline reaches 65.2 on Cora, a 4.1-point deficit to AltoNet [P1, Table 1].")
    assert got == {("value", "MLP baseline", None, "=", 65.2, None, "Cora", None, None),
                   ("compare", "MLP baseline", "AltoNet", "<", 4.1, None, "Cora", None, None)}


def test_a_curve_that_learns_fastest_and_a_superlative_setting_are_no_ranks() -> None:
    assert claims("AltoNet learns fastest on PubMed [P1, Figure 1].") == set()
    assert ("rank", "AltoNet", None, "max", None, "Throughput (img/s)", None, None, None) in claims(
        "AltoNet is the fastest model, at 900 img/s [P1, Table 2].")
    got = claims("At the highest label rate, 20%, BrioNet scores 82.3 [P1, Figure 1].")
    assert got == {("value", "BrioNet", None, "=", 82.3, None, None, "label rate (%)", 20.0)}
