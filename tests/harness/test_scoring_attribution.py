"""Error attribution: one label per failed episode, in the documented order, at the first wrong turn."""
from harness.episode import Episode
from harness.scoring.metrics import score_episode
from harness.trace_fold import fold_events

from .scoring_fixture import CHOICE_A, NUM, TraceBuilder, episode, turn


def _score(ep_dict: dict, tb: TraceBuilder):
    ep = Episode.model_validate(ep_dict)
    return score_episode(ep, fold_events(ep.id, tb.events))


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
    assert (e.failure.type, e.failure.step, e.bucket) == ("others", 1, "model") and "budget" in e.failure.why
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


# -- the first error wins, always (issue 11) ------------------------------------------------

def test_a_later_outage_never_relabels_an_earlier_failure():
    ep = episode("A1", "easy", [turn("t1", NUM, [("P001", "figure:1")], checklist=1), turn("t2", CHOICE_A, [], checklist=1)])
    tb = (TraceBuilder("A1").turn().call("figure_extract", ("P001", "figure:1")).answer("12")
          .turn().retry().error("provider", "HTTP 503 after 4 retries").answer(None, source="none")
          .end(status="failed", bucket="provider"))
    e = _score(ep, tb)
    assert (e.failure.type, e.failure.turn, e.failure.step) == ("perception", 1, 1)
    assert e.bucket is None  # the first failure is the model's: no outage bucket, no validity discount


def test_an_outage_on_the_first_wrong_turn_is_others_with_its_bucket():
    ep = episode("A1", "easy", [turn("t1", NUM, [("P001", "figure:1")], checklist=1), turn("t2", CHOICE_A, [], checklist=1)])
    tb = (TraceBuilder("A1").turn().call("figure_extract", ("P001", "figure:1")).answer("35.2")
          .turn().error("pipeline", "table_extract raised KeyError").answer(None, source="none")
          .end(status="failed", bucket="pipeline"))
    f = _score(ep, tb).failure
    assert (f.type, f.turn) == ("others", 2) and "pipeline" in f.why


def test_reading_memory_needs_the_units_exposed_in_an_earlier_turn():
    ep = episode("A1", "easy", [turn("t1", NUM, [("P001", "text")], checklist=1),
                                turn("t2", CHOICE_A, [("P001", "table:2")], memory_only=True)])
    tb = (TraceBuilder("A1").turn().call("pdf_extract", ("P001", "text")).answer("35.2")
          .turn(memory_only=True).answer("B").end())
    f = _score(ep, tb).failure
    assert f.type == "others" and "P001 table:2" in f.why and "never" in f.why


def test_final_turn_tools_label_by_what_the_agent_did_not_by_the_memory_only_flag():
    ep = episode("A1", "easy", [turn("t1", NUM, [("P001", "table:2")], checklist=1),
                                turn("t2", NUM, [("P002", "table:1")], checklist=1),
                                turn("t3", CHOICE_A, [("P001", "table:2"), ("P002", "table:1")], memory_only=True)])
    reread = (TraceBuilder("A1", n_turns=3).turn().call("table_extract", ("P001", "table:2")).answer("35.2")
              .turn().call("table_extract", ("P002", "table:1")).answer("35.2")
              .turn(memory_only=True, tools=["table_extract"]).call("table_extract", ("P001", "table:2"))
              .call("table_extract", ("P002", "table:1")).answer("B").end())
    assert _score(ep, reread).failure.type == "reasoning"  # both units read again on the final turn
    recalled = (TraceBuilder("A1", n_turns=3).turn().call("table_extract", ("P001", "table:2")).answer("35.2")
                .turn().call("table_extract", ("P002", "table:1")).answer("35.2")
                .turn(memory_only=True, tools=["table_extract"]).answer("B").end())
    assert _score(ep, recalled).failure.type == "reading_memory"  # tools were there, the agent used memory


def test_a_turn_whose_budget_ran_out_is_others_even_with_a_parseable_fallback_answer():
    tb = (TraceBuilder("A1").turn(budget=2).call("figure_extract", ("P001", "figure:1")).call("pdf_extract", ("P001", "text"))
          .exhausted(2).answer("12", source="budget_fallback").turn().answer("A").end())
    f = _score(_one_turn([("P001", "figure:1")]), tb).failure
    assert (f.type, f.turn, f.step) == ("others", 1, 2) and "budget" in f.why


def test_a_hedged_answer_is_a_wrong_value_not_an_unparseable_one():
    tb = (TraceBuilder("A1").turn().call("figure_extract", ("P001", "figure:1")).answer("35.2 or 36.0")
          .turn().answer("A").end())
    e = _score(_one_turn([("P001", "figure:1")]), tb)
    assert e.turns[0].verdict.hedged and e.failure.type == "perception" and "hedged" in e.failure.why


def test_a_paper_located_by_a_call_that_failed_on_another_argument_is_not_never_reached():
    """Issue 27: the call named the title, the tool matched it to the paper and refused another argument; the
    label says the paper was located and the call failed, at that call's step, not "never reached"."""
    bad_part = "part must be between 1 and 12 for paper P001; got 1000000000000000"
    tb = (TraceBuilder("A1").turn().call("web_search")
          .call("pdf_extract", args={"paper": "Sparse Mixture Routing for Long Documents", "part": 10**15}, error=bad_part,
                error_kind="bad_arguments")
          .answer(None).turn().answer("A").end())
    f = _score(_one_turn([("P001", "figure:1")]), tb).failure
    assert (f.type, f.turn, f.step) == ("others", 1, 2)
    assert f.why.startswith("required paper P001 located (turn 1 step 2, pdf_extract) but the call failed: part must be")
    refused = (TraceBuilder("A1").turn().call("figure_extract", args={"paper": "p001", "figure": 0}, error="figure_extract: bad "
               "arguments (figure: Input should be greater than or equal to 1)", error_kind="refused")
               .answer(None).turn().answer("A").end())
    f = _score(_one_turn([("P001", "figure:1")]), refused).failure
    assert f.type == "others" and "P001 located (turn 1 step 1, figure_extract) but the call refused" in f.why
    # a call that names another paper, or an error that does not name the required one, locates nothing
    other = (TraceBuilder("A1").turn().call("pdf_extract", args={"paper": "P0012"}, error="part must be between 1 and 3 for "
             "paper P0012; got 9", error_kind="bad_arguments").answer(None).turn().answer("A").end())
    assert _score(_one_turn([("P001", "figure:1")]), other).failure.type == "retrieve"
