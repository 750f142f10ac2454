"""Process metrics pinned to values worked out by hand on fixture traces (issue 17, must show).

Three episodes: R1 repeats calls, F1 reformulates its search query, M1 ends on a memory-only turn
computed from earlier answers; U1 answers with values printed nowhere. The traces are written with the
real trace events, scored with `score_run` like any run, and every number below is counted by hand
from the trace in the comment beside it.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.scoring import score_run
from harness.scoring.process import search_hits
from harness.scoring.run import read_episode_scores
from tools import SearchHit
from tools.web_search import format_hits

from .scoring_fixture import TraceBuilder, write_run

NUM = {"format": "number", "value": 35.2, "tolerance": 0.05}


def results(query: str, *ids: str) -> str:
    """A web_search observation exactly as the tool writes it, listing these papers in rank order."""
    return format_hits(query, [SearchHit(title=f"Paper {p} on {query}", url=f"https://x/{p}", paper_id=p) for p in ids])


def turn(question: str, answer: dict, evidence: list[tuple[str, str]], checklist: list[tuple[str, dict]] = (),
         memory_only: bool = False) -> dict:
    return {"question": question, "answer": answer, "memory_only": memory_only,
            "evidence": [{"paper": p, "unit": u} for p, u in evidence],
            "checklist": [{"tool": t, "args": a} for t, a in checklist]}


def ep(eid: str, turns: list[dict], split: str = "easy") -> dict:
    return {"id": eid, "split": split, "task_type": "comparison", "initiation": "citation", "area": "ml", "turns": turns}


S_ALPHA = {"query": "alpha"}
T12 = {"paper": "P001", "table": 2}
F11 = {"paper": "P001", "figure": 1}


def repeated_calls() -> tuple[dict, TraceBuilder]:
    e = ep("R1", [
        turn("In Table 2 of the alpha paper, what is the accuracy?", NUM, [("P001", "table:2")],
             [("web_search", S_ALPHA), ("table_extract", T12)]),
        turn("In Figure 1 of that paper, what is the peak?", {"format": "number", "value": 12, "tolerance": 0.5},
             [("P001", "figure:1")], [("figure_extract", F11)]),
    ])
    b = (TraceBuilder("R1").turn(tools=["web_search", "table_extract", "pdf_extract", "figure_extract"])
         .call("web_search", args=S_ALPHA, text=results("alpha", "P009", "P001"))           # 1 useful: P001 listed
         .call("table_extract", ("P001", "table:2"), args=T12, text="Table 2\n| acc | 35.2 |")  # 2 useful
         .call("table_extract", ("P001", "table:2"), args=T12, text="Table 2\n| acc | 35.2 |")  # 3 repeat, re-read
         .call("pdf_extract", ("P009", "text"), args={"paper": "P009"}, text="P009 text")  # 4 off target
         .answer("Final answer: 35.2")
         .turn(tools=["table_extract", "figure_extract"])
         .call("table_extract", ("P001", "table:2"), args=T12, text="Table 2\n| acc | 35.2 |")  # 1 repeat of turn 1
         .call("figure_extract", ("P001", "figure:1"), args=F11, text="Figure 1 of P001: accuracy over epochs")  # 2 useful
         .answer("12").end())
    return e, b


def reformulated_query() -> tuple[dict, TraceBuilder]:
    e = ep("F1", [turn("Which method does the heterophily paper introduce?", {"format": "text", "value": "GalvoGCN"},
                       [("P005", "text")], [("web_search", {"query": "galvogcn"}), ("pdf_extract", {"paper": "P005"})])])
    b = (TraceBuilder("F1", n_turns=1).turn(tools=["web_search", "pdf_extract"])
         .call("web_search", args={"query": "graph learning"}, text=results("graph learning", "P010", "P011"))  # absent
         .call("web_search", args={"query": "heterophily graphs"}, text=results("heterophily graphs", "P010", "P011", "P005"))
         .call("web_search", args={"query": "GalvoGCN heterophily"}, text=results("GalvoGCN heterophily", "P005", "P010"))
         .call("web_search", args={"query": "galvogcn  HETEROPHILY"}, text=results("galvogcn heterophily", "P005"))
         .call("web_search", args={"query": "GalvoGCN"}, text=results("GalvoGCN", "P012", "P005"))
         .call("pdf_extract", ("P005", "text"), args={"paper": "P005"}, text="We introduce GalvoGCN, a model for ...")
         .answer("The paper introduces GalvoGCN.").end())
    return e, b


def memory_only_final() -> tuple[dict, TraceBuilder]:
    pct = {"format": "number", "unit": "%", "tolerance": 0.005}
    e = ep("M1", [
        turn("Table 2 of P001: Cora accuracy?", {**pct, "value": 77.23}, [("P001", "table:2")], [("table_extract", T12)]),
        turn("Table 1 of P002: CiteSeer accuracy?", {**pct, "value": 67.21}, [("P002", "table:1")],
             [("table_extract", {"paper": "P002", "table": 1})]),
        turn("The first minus the second, and Figure 1 of P003 too?", {**pct, "value": 10.02, "tolerance": 0.01},
             [("P001", "table:2"), ("P002", "table:1"), ("P003", "figure:1")], memory_only=True),
    ])
    b = (TraceBuilder("M1", n_turns=3).turn(tools=["table_extract"])
         .call("table_extract", ("P001", "table:2"), args=T12, text="Table 2 of P001\n| Cora | 77.23 |").answer("77.23 %")
         .turn(tools=["table_extract"])
         .call("table_extract", ("P002", "table:1"), args={"paper": "P002", "table": 1}, text="Table 1\n| CiteSeer | 67.21 |")
         .answer("67.21%")
         .turn(memory_only=True).answer("Final answer: 10.02").end())
    return e, b


def untraceable() -> tuple[dict, TraceBuilder]:
    e = ep("U1", [
        turn("What accuracy does P004 report?", {"format": "number", "value": 91.7}, [("P004", "text")],
             [("pdf_extract", {"paper": "P004"})]),
        turn("Which methods beat the baseline?", {"format": "set", "value": ["XNet", "YNet"]}, [("P004", "text")],
             memory_only=True),
    ])
    b = (TraceBuilder("U1").turn(tools=["pdf_extract"])
         .call("pdf_extract", ("P004", "text"), args={"paper": "P004"}, text="XNet reaches 80.1 on Table 3 (2 runs).")
         .answer("91.7").turn(memory_only=True).answer("XNet; ZNet").end())
    return e, b


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> dict:  # noqa: ANN001
    root = tmp_path_factory.mktemp("process")
    built = [repeated_calls(), reformulated_query(), memory_only_final(), untraceable()]
    run = write_run(root, [e for e, _ in built], {b.ep: b.lines() for _, b in built})
    score_run(run)
    return {"run": run, **{e.episode_id: e for e in read_episode_scores(run)}}


def test_search_results_are_read_back_in_rank_order():
    text = format_hits("q", [SearchHit(title="1. A title that starts with a number", url="u", paper_id="P3"),
                             SearchHit(title="web page", url="v"), SearchHit(title="t", url="w", snippet="2. x", paper_id="P1")])
    assert search_hits(text) == ["P3", None, "P1"]


def test_repeated_calls_count_as_redundant_and_their_units_as_re_read(scored):
    p = scored["R1"].process
    t1, t2 = p.turns
    assert t1.repeated_calls == [3] and t1.reread_units == 1 and t1.redundant_calls == [3]
    assert t2.repeated_calls == [1] and t2.reread_units == 1 and t2.redundant_calls == [1]  # turn 1 had shown table:2
    assert (p.repeated_calls, p.reread_units, p.redundant_calls, p.executed_calls) == (2, 2, 2, 6)
    assert p.redundancy == pytest.approx(2 / 6)
    # efficiency: turn 1 steps 1 (P001 listed) and 2 (table:2 required; step 3 showed it again: redundant, not
    # useful); turn 2 step 2 (figure:1) -> 3 of 6
    assert t1.useful_calls == [1, 2] and t2.useful_calls == [2]
    assert (t1.efficiency, t2.efficiency, p.efficiency) == (0.5, 0.5, 0.5)
    # breadth and depth: 1 query; P009, P001 surfaced and opened; P001 table:2, P009 text, P001 figure:1 read
    assert (p.distinct_queries, p.papers_surfaced, p.papers_opened, p.units_read) == (1, 2, 2, 3)
    assert p.units_per_paper == 1.5 and (p.float_reads, p.text_reads) == (4, 1)
    assert p.reformulations == 0 and p.reuse is None
    # grounding: 35.2 is printed in the table; 12 is printed nowhere but turn 2 opened Figure 1
    assert t1.grounding.source == "observation" and t1.grounding.where == "turn 1 step 2 table_extract"
    assert t2.grounding.source == "figure" and "P001 figure:1" in t2.grounding.where
    assert (p.grounded, p.gradable, p.grounding, p.ungrounded_turns) == (2, 2, 1.0, [])


def test_a_reformulated_query_that_moves_the_target_up_is_counted(scored):
    p = scored["F1"].process
    (t,) = p.turns
    # 4 distinct queries ("galvogcn  HETEROPHILY" normalises to the third): three reformulations, then
    # the fifth search; P005 is absent, 3rd, 1st, (1st, not new), 2nd
    assert t.queries == ["graph learning", "heterophily graphs", "galvogcn heterophily", "galvogcn"]
    steps = [(r.step, r.rank_before, r.rank_after, r.moved_up) for r in t.reformulations]
    assert steps == [(2, None, 3, True), (3, 3, 1, True), (5, 1, 2, False)]
    assert (p.reformulations, p.moved_up) == (3, 2)
    # not identical calls, but the fourth search surfaced no new paper and left P005 at rank 1: redundant; the
    # fifth surfaced P012
    assert t.repeated_calls == [] and t.redundant_calls == [4]
    assert (p.papers_surfaced, p.papers_opened, p.units_read) == (4, 1, 1)
    assert t.useful_calls == [2, 3, 5, 6] and p.efficiency == pytest.approx(4 / 6)  # the first search listed no target
    assert t.grounding.source == "observation" and t.grounding.value == "The paper introduces GalvoGCN"


def test_a_memory_only_final_is_reused_from_memory_and_grounded_in_earlier_answers(scored):
    p = scored["M1"].process
    final = p.turns[2]
    assert final.memory_only and final.executed_calls == 0 and final.efficiency is None
    assert (final.reuse_hit, final.reuse_need, final.reuse) == (2, 3, pytest.approx(2 / 3))  # P003 figure:1 never read
    assert (p.reuse_hit, p.reuse_need) == (2, 3)
    assert final.grounding.source == "earlier_answers" and final.grounding.where == "turn 1 - turn 2"
    assert [t.grounding.source for t in p.turns[:2]] == ["observation", "observation"]
    assert (p.redundancy, p.efficiency, p.grounding) == (0.0, 1.0, 1.0)


def test_answers_traceable_to_nothing_are_flagged(scored):
    p = scored["U1"].process
    t1, t2 = p.turns
    assert t1.grounding.source == "none"  # 91.7 is printed nowhere (80.1, Table 3 and 2 runs are), no figure opened
    assert t2.grounding.source == "none" and (t2.grounding.items_found, t2.grounding.items) == (1, 2)  # ZNet nowhere
    assert (p.grounded, p.gradable, p.ungrounded_turns, p.grounding) == (0, 2, [1, 2], 0.0)


def test_run_summary_pools_the_episodes(scored):
    s = json.loads((scored["run"] / "scores.json").read_text())["all"]["process"]
    assert s["episodes"] == 4
    # executed calls 6 + 6 + 2 + 1 = 15; redundant 2 + 1; useful 3 + 4 + 2 + 1 = 10
    assert s["redundancy"] == pytest.approx(3 / 15) and s["efficiency"] == pytest.approx(10 / 15)
    assert (s["reformulations"], s["moved_up"], s["moved_up_rate"]) == (3, 2, pytest.approx(2 / 3))
    assert s["reuse"] == pytest.approx(3 / 4) and s["ungrounded"] == 2  # M1 2 of 3, U1 1 of 1
    assert s["grounding"] == pytest.approx(6 / 8)  # R1 2, F1 1, M1 3 grounded; U1 0 of 2
    assert s["queries_per_episode"] == pytest.approx((1 + 4 + 0 + 0) / 4)
    report = (scored["run"] / "report.md").read_text()
    assert "## Process from the trace" in report and "- U1 turn 1: `91.7`" in report
    assert "## Process against outcome" in report


def test_a_missing_trace_has_no_process_metrics(tmp_path: Path):
    e, b = repeated_calls()
    run = write_run(tmp_path, [e, ep("gone", [turn("q", NUM, [])])], {"R1": b.lines()})
    score_run(run)
    got = {x.episode_id: x for x in read_episode_scores(run)}
    assert got["gone"].process is None and got["R1"].process is not None


def test_text_is_re_read_only_on_the_same_page():
    """pdf_rag passages of other pages, and other parts of a paper from pdf_extract (no page), are new reading;
    the same part shown again (any spelling of the call) is not."""
    from harness.episode import Episode
    from harness.scoring.process import process_of
    from harness.trace_fold import fold_events
    from tools import EvidenceUnit

    e = ep("T1", [turn("What does P001 say?", {"format": "text", "value": "x"}, [("P001", "text")])])
    b = TraceBuilder("T1", n_turns=1).turn(tools=["pdf_rag", "pdf_extract"])
    pages = {1: [2, 3], 2: [3, 4], 3: [2], 4: [None], 5: [None], 6: [None]}
    parts = {4: ("p001", 1), 5: ("P001", 2), 6: ("P001", "1")}  # step 6 asks for part 1 again, spelled otherwise
    for step, ps in pages.items():
        if step <= 3:
            tool, args, text = "pdf_rag", {"paper": "P001", "query": f"q{step}"}, "..."
        else:
            tool, args, text = "pdf_extract", {"paper": parts[step][0], "part": parts[step][1]}, f"part {int(parts[step][1])}"
        b.call(tool, args=args, text=text)
        b.events[-1].provenance = [EvidenceUnit(paper="P001", unit="text", page=p) for p in ps]
    b.answer("x").end()
    t = process_of(Episode.model_validate(e), fold_events("T1", b.events)).turns[0]
    # step 2 re-reads page 3 (and reads page 4: not redundant); step 3 only re-reads page 2; step 6 shows part 1
    # again (not an identical call: another spelling)
    assert (t.reread_units, t.redundant_calls, t.repeated_calls) == (3, [3, 6], [])
    assert t.units_read == ["P001 text"] and t.efficiency == pytest.approx(4 / 6)


def test_a_section_number_and_a_repeated_guess_ground_nothing(tmp_path: Path):
    # the heuristic's pattern on sandbox-v2: it answers "4.3" from "section 4.3" in the text it opened, then gives
    # the same guess on the next turn; neither answer is traceable (scorer 9: before, the first counted as printed
    # in an observation and each repeat as computed from earlier answers)
    num = {"format": "number", "value": 26.42, "tolerance": 0.3}
    text = "P001 text. The schedule is described in section 4.3 and Eq. 2.1; the main results follow."
    e = ep("S1", [
        turn("What FID does P001 report on FFHQ?", num, [("P001", "text")], [("pdf_extract", {"paper": "P001"})]),
        turn("And on CelebA?", num, [("P001", "text")], [("pdf_extract", {"paper": "P001"})]),
        turn("In Table 1 of P001, the FID of XNet?", num, [("P001", "table:1")], [("table_extract", {"paper": "P001", "table": 1})]),
        turn("What is the sum of your answers to turns 1 and 3?", num, [("P001", "table:1")], memory_only=True),
    ])
    b = (TraceBuilder("S1").turn(tools=["pdf_extract"])
         .call("pdf_extract", ("P001", "text"), args={"paper": "P001"}, text=text).answer("4.3")
         .turn(tools=["pdf_extract"])
         .call("pdf_extract", ("P001", "text"), args={"paper": "P001", "page": 2}, text=text).answer("4.3")
         .turn(tools=["table_extract"])
         .call("table_extract", ("P001", "table:1"), args={"paper": "P001", "table": 1}, text="Table 1 | XNet | 4.3 | 2.1 |")
         .answer("2.1").turn(memory_only=True).answer("6.4").end())
    run = write_run(tmp_path, [e], {"S1": b.lines()})
    score_run(run)
    (p,) = [x.process for x in read_episode_scores(run)]
    t1, t2, t3, t4 = (t.grounding for t in p.turns)
    assert t1.source == "none", t1  # "section 4.3" is a reference, not a value
    assert t2.source == "none", t2  # the same guess again: an ungrounded answer grounds nothing later
    # a value printed in a table cell is a value, even where the same digits were a section number elsewhere
    assert t3.source == "observation" and t3.where == "turn 3 step 1 table_extract"
    assert t4.source == "none", t4  # 6.4 = 4.3 + 2.1 combines an ungrounded answer: not a trace
    assert (p.grounded, p.gradable, p.ungrounded_turns) == (1, 4, [1, 2, 4])


def test_a_search_respelled_is_redundant_even_when_the_engine_ranks_it_otherwise():
    """The same query in another case, with a trailing period or other spacing (and the same other arguments) is
    the same search, even though the dense half of the engine embeds the period and lists one more paper in its
    tail (sandbox-v3: 17 of 38 such variants of the padding oracle surfaced a new paper and escaped). Another
    query or another `k` is another search and is judged by what it surfaced."""
    from harness.episode import Episode
    from harness.scoring.process import process_of
    from harness.trace_fold import fold_events

    e = ep("Q1", [turn("Which method does the heterophily paper introduce?", {"format": "text", "value": "GalvoGCN"},
                       [("P005", "text")], [("web_search", {"query": "GalvoGCN heterophily"})])])
    b = (TraceBuilder("Q1", n_turns=1).turn(tools=["web_search"])
         .call("web_search", args={"query": "GalvoGCN heterophily"}, text=results("q", "P010", "P005"))         # 1 new
         .call("web_search", args={"query": "GalvoGCN heterophily."}, text=results("q", "P010", "P005", "P011"))  # 2 respelled
         .call("web_search", args={"query": "galvogcn  HETEROPHILY"}, text=results("q", "P005", "P010"))          # 3 respelled
         .call("web_search", args={"query": "GalvoGCN heterophily", "k": 20}, text=results("q", "P010", "P005", "P012"))  # 4 k
         .call("web_search", args={"query": "GalvoGCN heterophily paper"}, text=results("q", "P005", "P013"))  # 5 another
         .call("web_search", args={"query": "GalvoGCN heterophily!", "k": "20"}, text=results("q", "P014"))  # 6 respelled 4
         .answer("GalvoGCN").end())
    t = process_of(Episode.model_validate(e), fold_events("Q1", b.events)).turns[0]
    assert t.redundant_calls == [2, 3, 6] and t.repeated_calls == []
    assert t.queries == ["galvogcn heterophily", "galvogcn heterophily paper"]


@pytest.mark.parametrize("opened, source", [("figure:1", "figure"), ("figure:2", "figure_other"), (None, "none")])
def test_only_the_figure_the_turn_requires_grounds_a_number_printed_nowhere(opened, source):
    """Issue 22 item 2: another figure of the right paper is reported as `figure_other`, not grounded; a figure of a
    paper the turn is not about grounds nothing (`none`)."""
    from harness.episode import Episode
    from harness.scoring.process import process_of
    from harness.trace_fold import fold_events

    e = ep("G1", [turn("In Figure 1 of P001, what is the peak?", {"format": "number", "value": 12, "tolerance": 0.5},
                       [("P001", "figure:1")], [("figure_extract", F11)])])
    b = TraceBuilder("G1", n_turns=1).turn(tools=["figure_extract"])
    b.call("figure_extract", ("P009", "figure:1"), args={"paper": "P009", "figure": 1}, text="Figure 1 of P009")
    if opened:
        b.call("figure_extract", ("P001", opened), args={"paper": "P001", "figure": int(opened[-1])}, text=f"Figure {opened[-1]} of P001")
    b.answer("Final answer: 12").end()
    p = process_of(Episode.model_validate(e), fold_events("G1", b.events))
    g = p.turns[0].grounding
    assert g.source == source and g.grounded is (source == "figure")
    assert p.grounding == (1.0 if source == "figure" else 0.0) and p.ungrounded_turns == ([] if source == "figure" else [1])
