"""Error attribution: one label per failed episode, in the documented order, at the first wrong turn."""
from harness.episode import Episode
from harness.rundir import TraceRead
from harness.scoring.metrics import score_episode
from harness.scoring.run import match_answer_labeller

from .scoring_fixture import CHOICE_A, NUM, TraceBuilder, episode, turn


def _score(ep_dict: dict, tb: TraceBuilder):
    ep = Episode.model_validate(ep_dict)
    return score_episode(ep, TraceRead(episode_id=ep.id, events=tb.events), match_answer_labeller)


def _one_turn(evidence, answer=NUM):
    return episode("A1", "easy", [turn("t1", answer, evidence, checklist=1), turn("t2", CHOICE_A, [], memory_only=True)])


def test_retrieve_when_the_required_paper_was_never_reached():
    tb = TraceBuilder("A1").turn().call("web_search").call("pdf_extract", ("P009", "text")).answer("12").turn().answer("A").end()
    f = _score(_one_turn([("P001", "figure:1")]), tb).failure
    assert (f.type, f.turn, f.step) == ("retrieve", 1, 3) and "P001" in f.why


def test_an_errored_tool_call_exposes_nothing():
    tb = (TraceBuilder("A1").turn().call("figure_extract", ("P001", "figure:1"), error="not found", error_kind="not_found")
          .answer("12").turn().answer("A").end())
    assert _score(_one_turn([("P001", "figure:1")]), tb).failure.type == "retrieve"


def test_perception_on_a_single_figure_turn_fires_at_the_reading_step():
    tb = (TraceBuilder("A1").turn().call("pdf_extract", ("P001", "text")).call("figure_extract", ("P001", "figure:1"))
          .call("web_search").answer("12").turn().answer("B").end())
    e = _score(_one_turn([("P001", "figure:1")]), tb)
    assert (e.failure.type, e.failure.turn, e.failure.step) == ("perception", 1, 2)  # first wrong turn, not turn 2


def test_reading_memory_on_a_memory_only_turn_after_correct_reads():
    ep = episode("A1", "easy", [turn("t1", NUM, [("P001", "table:2")], checklist=1),
                                turn("t2", CHOICE_A, [("P001", "table:2")], memory_only=True)])
    tb = TraceBuilder("A1").turn().call("table_extract", ("P001", "table:2")).answer("35.2").turn(memory_only=True).answer("B").end()
    e = _score(ep, tb)
    assert (e.failure.type, e.failure.turn) == ("reading_memory", 2)
    assert e.turns[1].evidence_hit == 1  # memory-only turn: memory counts as accessed


def test_reading_memory_when_evidence_came_from_an_earlier_turn():
    ep = episode("A1", "easy", [turn("t1", NUM, [("P001", "table:2")], checklist=1),
                                turn("t2", CHOICE_A, [("P001", "table:2"), ("P002", "text")], checklist=1)])
    tb = (TraceBuilder("A1").turn().call("table_extract", ("P001", "table:2")).answer("35.2")
          .turn().call("pdf_extract", ("P002", "text")).answer("B").end())
    assert _score(ep, tb).failure.type == "reading_memory"


def test_reasoning_when_all_evidence_was_read_this_turn():
    tb = (TraceBuilder("A1").turn().call("table_extract", ("P001", "table:1")).call("table_extract", ("P002", "table:1"))
          .answer("99").turn().answer("A").end())
    f = _score(_one_turn([("P001", "table:1"), ("P002", "table:1")]), tb).failure
    assert (f.type, f.turn, f.step) == ("reasoning", 1, 3)


def test_others_for_budget_exhausted_without_answer_and_for_unparseable_answers():
    tb = (TraceBuilder("A1").turn(budget=1).call("pdf_extract", ("P001", "text")).exhausted(1)
          .answer(None, source="budget_fallback").turn().answer("A").end())
    e = _score(_one_turn([("P001", "table:1")]), tb)
    assert (e.failure.type, e.failure.step, e.bucket) == ("others", 1, "model")
    tb2 = TraceBuilder("A1").turn().call("table_extract", ("P001", "table:1")).answer("no idea").turn().answer("A").end()
    assert _score(_one_turn([("P001", "table:1")]), tb2).failure.type == "others"


def test_an_outage_is_never_a_model_failure_even_if_the_paper_was_not_reached():
    tb = (TraceBuilder("A1").turn().error("data_access", "P001 could not be parsed")
          .answer(None, source="none").end(status="failed", bucket="data_access"))
    e = _score(_one_turn([("P001", "figure:1")]), tb)
    assert (e.failure.type, e.bucket) == ("others", "data_access") and "not a model failure" in e.failure.why


def test_successful_episode_has_no_label():
    tb = (TraceBuilder("A1").turn().call("figure_extract", ("P001", "figure:1")).answer("35.2").turn().answer("A").end())
    e = _score(_one_turn([("P001", "figure:1")]), tb)
    assert e.success and e.failure is None and e.bucket is None and e.mg_ratio == 1.0
