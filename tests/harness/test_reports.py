"""Report metrics (issue 31, must show): fixture reports with planted defects move each metric exactly as
counted by hand; bad input is scored with the reason; the extractor's precision and recall on the
hand-labelled sentences; the report benchmark's gold and personas."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.episode import Episode, ReportTurn
from harness.episodes_io import EpisodeFileError, load_episodes
from harness.reports import score_report, summarize_reports
from harness.trace import FinalAnswerEvent, ToolCallEvent, TurnStart
from harness.trace_fold import fold_events

ROOT = Path(__file__).resolve().parents[2]

FACTS = [
    {"paper": "P001", "unit": "table:1", "kind": "table", "metric": "accuracy (%)", "tolerance": 0.005,
     "columns": ["Method", "Alpha", "Beta"],
     "rows": [["XNet", "70.0", "50.0"], ["YNet", "72.0", "49.0"], ["ZNet (ours)", "75.0", "52.0"]]},
    {"paper": "P001", "unit": "table:2", "kind": "table", "tolerance": 0.005, "columns": ["Method", "Params (M)", "GFLOPs"],
     "rows": [["XNet", "20", "5"], ["YNet", "60", "12"], ["ZNet (ours)", "30", "8"]],
     "lower_is_better": ["Params (M)", "GFLOPs"]},
    {"paper": "P001", "unit": "figure:1", "kind": "line", "metric": "accuracy (%)", "dataset": "Alpha",
     "x_label": "training epochs", "tolerance": 0.5,
     "series": [{"label": "XNet", "x": [10, 20], "y": [60.0, 65.0]}, {"label": "Ours", "method": "ZNet", "x": [10, 20], "y": [66.0, 70.0]},
                {"label": "YNet", "x": [10, 20], "y": [62.0, 68.0]}]},
]
T1 = [{"paper": "P001", "unit": "table:1"}]
GOLD = [
    {"kind": "value", "subject": "ZNet", "dataset": "Alpha", "value": 75.0, "tolerance": 0.005, "cites": T1},
    {"kind": "value", "subject": "XNet", "dataset": "Alpha", "value": 70.0, "tolerance": 0.005, "cites": T1},
    {"kind": "compare", "subject": "ZNet", "object": "XNet", "relation": ">", "dataset": "Alpha", "tolerance": 0.005, "cites": T1},
    {"kind": "value", "subject": "ZNet", "quantity": "Params (M)", "value": 30, "tolerance": 0.005,
     "cites": [{"paper": "P001", "unit": "table:2"}]},
    {"kind": "value", "subject": "ZNet", "dataset": "Alpha", "x_label": "training epochs", "x": 10, "value": 66.0,
     "tolerance": 0.5, "cites": [{"paper": "P001", "unit": "figure:1"}]},
]
PERSONA = {"role": "edge engineer", "expertise": "small models", "cares_about": ["size"], "context": "Uses Alpha.",
           "constraints": [{"text": "only Alpha", "field": "dataset", "op": "==", "value": "Alpha"},
                           {"text": "at most 40M parameters", "field": "Params (M)", "op": "<=", "value": 40}]}
TURN = ReportTurn.model_validate({"question": "Compare them.", "persona": PERSONA, "gold": GOLD, "facts": FACTS,
                                  "papers": [{"paper": "P001", "method": "ZNet", "year": 2021}]})
S = {"z": "ZNet reaches 75.0 on Alpha [P001, Table 1].", "x": "XNet scores 70.0 on Alpha [P001, Table 1].",
     "c": "On Alpha, ZNet outperforms XNet [P001, Table 1].", "p": "ZNet has 30 M parameters [P001, Table 2].",
     "f": "After 10 training epochs on Alpha, ZNet is at 66.0 [P001, Figure 1]."}
ALL_UNITS = [("P001", "table:1"), ("P001", "table:2"), ("P001", "figure:1")]


def score(text: str | None, opened=ALL_UNITS, turn: ReportTurn = TURN):  # noqa: ANN001, ANN201
    mk = dict(run_id="r", episode_id="E", turn=1, ts=1.0)
    ev = [TurnStart(step=0, question="q", allowed_tools=[], budget=10, **mk)]
    ev += [ToolCallEvent(step=1, tool="table_extract", provenance=[{"paper": p, "unit": u} for p, u in opened], **mk)]
    ev += [FinalAnswerEvent(step=2, answer=text, source="agent", **mk)]
    return score_report(turn, fold_events("E", ev), 1)


def report(**changes: str | None) -> str:
    return " ".join(v for k, v in {**S, **changes}.items() if v)


def rates(s) -> dict:  # noqa: ANN001
    return {"right": (s.right, s.claims), "FA": (s.paper_supported, s.cited), "FID": (s.unit_supported, s.cited),
            "CC": (s.cited, s.claims), "trace_cit": (s.citations_opened, s.citations), "trace_FID": (s.opened_supported, s.cited),
            "visual": (s.figure_supported, s.figure_claims), "P": (s.gold_covered, s.claims), "R": (s.gold_covered, s.gold),
            "persona": (s.persona_violations, s.claims + s.recommendations)}


CLEAN = {"right": (5, 5), "FA": (5, 5), "FID": (5, 5), "CC": (5, 5), "trace_cit": (5, 5), "trace_FID": (5, 5),
         "visual": (1, 1), "P": (5, 5), "R": (5, 5), "persona": (0, 5)}


def test_a_complete_faithful_report_is_100_on_every_metric() -> None:
    s = score(report())
    assert rates(s) == CLEAN and s.problems == []


@pytest.mark.parametrize("name, text, opened, moved", [
    # XNet's value is 70.0 in Table 1: a false 71.0 is wrong, unsupported by its paper and unit, covers no gold claim
    ("false value", report(x="XNet scores 71.0 on Alpha [P001, Table 1]."), ALL_UNITS,
     {"right": (4, 5), "FA": (4, 5), "FID": (4, 5), "trace_FID": (4, 5), "P": (4, 5), "R": (4, 5)}),
    # 30 M parameters is true (Table 2) but cited to Table 1: right, the cited paper supports it, the cited unit does not
    ("wrong citation", report(p="ZNet has 30 M parameters [P001, Table 1]."), ALL_UNITS,
     {"FID": (4, 5), "trace_FID": (4, 5)}),
    # no citation: one claim fewer cited; FA and FID are over cited claims only
    ("uncited claim", report(x="XNet scores 70.0 on Alpha."), ALL_UNITS,
     {"FA": (4, 4), "FID": (4, 4), "CC": (4, 5), "trace_cit": (4, 4), "trace_FID": (4, 4)}),
    # Table 2 never opened in the trace: its citation is not trace-verified, nor the claim's support
    ("unit never opened", report(), [("P001", "table:1"), ("P001", "figure:1")],
     {"trace_cit": (4, 5), "trace_FID": (4, 5)}),
    # YNet has 60M parameters, over the reader's 40M: a true claim about it violates the persona and covers no gold
    ("persona violation", report() + " YNet reaches 72.0 on Alpha [P001, Table 1].", ALL_UNITS,
     {"right": (6, 6), "FA": (6, 6), "FID": (6, 6), "CC": (6, 6), "trace_cit": (6, 6), "trace_FID": (6, 6),
      "P": (5, 6), "persona": (1, 6)}),
    # a recommendation of an excluded method is a violation too (no claim: no number)
    ("persona recommendation", report() + " We recommend YNet for this reader.", ALL_UNITS, {"persona": (1, 6)}),
    # the figure claim left out: recall drops, visual integrity has nothing to judge
    ("missing gold claim", report(f=None), ALL_UNITS,
     {"right": (4, 4), "FA": (4, 4), "FID": (4, 4), "CC": (4, 4), "trace_cit": (4, 4), "trace_FID": (4, 4),
      "visual": (0, 0), "P": (4, 4), "R": (4, 5), "persona": (0, 4)}),
    # a figure value read wrong (68 where 66.0 +- 0.5 is plotted): visual integrity (MOSAIC) catches it
    ("misread figure", report(f="After 10 training epochs on Alpha, ZNet is at 68.0 [P001, Figure 1]."), ALL_UNITS,
     {"right": (4, 5), "FA": (4, 5), "FID": (4, 5), "trace_FID": (4, 5), "visual": (0, 1), "P": (4, 5), "R": (4, 5)}),
])
def test_each_planted_defect_moves_each_metric_as_counted_by_hand(name, text, opened, moved) -> None:  # noqa: ANN001
    s = score(text, opened)
    assert rates(s) == {**CLEAN, **moved}, name


def test_unread_citations_are_flagged_in_the_problems() -> None:
    s = score(report(), [("P001", "table:1"), ("P001", "figure:1")])
    assert s.unread == ["P001 table:2"] and any("never opened" in p for p in s.problems)


@pytest.mark.parametrize("text, why", [
    (None, "empty report"), ("   ", "empty report"),
    ("ZNet reaches 75.0 on Alpha. XNet scores 70.0 on Alpha.", "no citations"),
    ("ZNet reaches 75.0 on Alpha [P001 Table 1].", "is not in the syntax"),
    ("ZNet reaches 75.0 on Alpha [12].", "is not in the syntax"),
    ("ZNet reaches 75.0 on Alpha [P999, Table 1].", "unknown paper P999"),
    ("ZNet reaches 75.0 on Alpha [P001, Figure 9].", "unknown unit P001 figure:9"),
    ("word " * 1600, "over the word limit: 1600 words > 1500"),
    ("An overview with no numbers at all [P001].", "no claims about named methods"),
])
def test_bad_reports_are_scored_with_the_reason(text, why) -> None:  # noqa: ANN001
    s = score(text)
    assert any(why in p for p in s.problems), s.problems
    assert s.gold == 5 and s.unit_supported == 0  # scored, never crashed; no citation supports anything


def test_a_report_turn_that_never_ran_is_scored_zero_with_the_reason() -> None:
    s = score_report(TURN, fold_events("E", []), 3)
    assert not s.ran and s.problems == ["no report: the turn never ran"] and s.gold_covered == 0


def test_the_run_summary_pools_counts_with_intervals() -> None:
    a, b = score(report()), score(report(x="XNet scores 71.0 on Alpha [P001, Table 1]."))
    summ = summarize_reports([("E1", a), ("E2", b)])
    assert summ is not None and summ.reports == 2
    assert (summ.claim_correctness.num, summ.claim_correctness.den) == (9, 10)
    assert summ.claim_correctness.value == pytest.approx(90.0)
    iv = summ.claim_correctness.interval
    assert iv is not None and iv.low <= 90.0 <= iv.high and iv.low >= 80.0
    assert summarize_reports([]) is None


def test_report_turns_are_validated_with_file_line_and_field(tmp_path: Path) -> None:
    ep = {"id": "R1", "split": "easy", "task_type": "comparison", "initiation": "citation", "area": "ml",
          "turns": [{"question": "q", "answer": {"format": "number", "value": 1}}],
          "report": {"question": "Compare.", "persona": {**PERSONA, "role": ""}, "gold": GOLD[:1] + [{**GOLD[1], "cites": []}],
                     "facts": FACTS, "checklist": [{"tool": "table_extract", "args": {"paper": "P001"}}]}}
    f = tmp_path / "e.jsonl"
    f.write_text("\n" + json.dumps(ep) + "\n")
    with pytest.raises(EpisodeFileError) as err:
        load_episodes(f)
    msg = str(err.value)
    assert "e.jsonl:2: episode 'R1': report.persona.role" in msg
    ep["report"]["persona"] = PERSONA
    f.write_text(json.dumps(ep) + "\n")
    with pytest.raises(EpisodeFileError) as err:
        load_episodes(f)
    assert "report: Value error, gold[1] cites nothing" in str(err.value) or "gold[1] cites nothing" in str(err.value)
    ep["report"]["gold"] = GOLD
    f.write_text(json.dumps(ep) + "\n")
    with pytest.raises(EpisodeFileError) as err:
        load_episodes(f)
    assert "report.checklist[0].args: missing argument(s) 'table'" in str(err.value)


def test_the_extractor_keeps_its_precision_and_recall_on_the_hand_labelled_sentences(capsys) -> None:  # noqa: ANN001
    from bench.report_extractor import (DATA, HELDOUT, HELDOUT2, HELDOUT3, HELDOUT4, HELDOUT5, HELDOUT6, HELDOUT7,
                                        HELDOUT8, evaluate)

    # floors just under the measured numbers (scorer 20): labelled 1.000/1.000, development sets 0.966/0.966,
    # 1.000/1.000 and 1.000/1.000, held-out4 (a development set since scorer 17; 0.708/0.735 at its one held-out run)
    # 0.981/0.975, held-out5 (a development set since scorer 18; 0.846/0.846 at its one held-out run, scorer 17)
    # 1.000/1.000, held-out6 (a development set since scorer 19; 0.839/0.845 at its one held-out run, scorer 18)
    # 0.996/0.996, held-out7 (a development set since scorer 20; 0.869/0.835 at its one held-out run, scorer 19)
    # 0.964/0.957, held-out8 (held out: its one run, scorer 20, the first above the 0.9 goal) 0.925/0.908
    for path, p_floor, r_floor in ((DATA, 0.99, 0.99), (HELDOUT, 0.95, 0.95), (HELDOUT2, 0.99, 0.99),
                                   (HELDOUT3, 0.99, 0.99), (HELDOUT4, 0.96, 0.95),
                                   (HELDOUT5, 0.99, 0.99), (HELDOUT6, 0.99, 0.99),
                                   (HELDOUT7, 0.96, 0.95), (HELDOUT8, 0.92, 0.90)):
        r = evaluate(path)
        print(f"{path.name}: {r.labelled} labelled claims, precision {r.precision:.3f}, recall {r.recall:.3f}")
        assert r.labelled >= 58 and r.precision >= p_floor and r.recall >= r_floor, r.misses
    assert len(json.loads(DATA.read_text())["sentences"]) >= 60
    assert len(json.loads(HELDOUT3.read_text())["sentences"]) >= 60


# the report benchmarks and the corpus each is built on: sandbox-v3-report (the default corpus v3) and the
# frozen sandbox-v2-report (corpus v2)
BENCHES = {"v3": ROOT / "episodes" / "sandbox-v3-report.jsonl", "v2": ROOT / "episodes" / "sandbox-v2-report.jsonl"}


@pytest.mark.parametrize("version", sorted(BENCHES))
def test_the_report_benchmark_has_40_episodes_10_personas_and_pairs_that_change_gold_by_30_percent(version: str) -> None:
    from sandbox.episodegen.report import MIN_CHANGE, change_share

    bench = BENCHES[version]
    eps = [json.loads(line) for line in bench.read_text().splitlines()]
    assert len(eps) >= 40 and "report" in bench.name
    assert len({(e["report"]["persona"]["role"]) for e in eps}) >= 10
    assert all(f"ground_truth=corpus-{version[1]}." in e["source"] for e in eps)
    for e in eps:
        Episode.model_validate(e)
    by_q: dict[str, list[dict]] = {}
    for e in eps:
        by_q.setdefault(e["id"].rsplit("-", 1)[0], []).append(e)
    for q, pair in by_q.items():
        assert len(pair) == 2 and pair[0]["report"]["question"] == pair[1]["report"]["question"]
        assert change_share(pair[0]["report"]["gold"], pair[1]["report"]["gold"]) >= MIN_CHANGE, q


@pytest.mark.parametrize("version", sorted(BENCHES))
def test_no_figure_claim_of_the_report_benchmark_is_printed_in_its_paper(version: str) -> None:
    """The audit of report gold: a value cited to a figure is not given by any number the paper prints."""
    import re

    from sandbox.corpus.model import GroundTruth
    from sandbox.corpus.versions import corpus_version

    gt_path = corpus_version(version).default_dir() / "ground_truth.json"  # the report benchmark's corpus
    if not gt_path.is_file():
        pytest.skip(f"corpus {version} is not built (`epi sandbox build --corpus {version}`)")
    gt = GroundTruth.model_validate_json(gt_path.read_text())
    papers = {p.id: p for p in gt.papers}
    n = 0
    for line in BENCHES[version].read_text().splitlines():
        for g in json.loads(line)["report"]["gold"]:
            if g["kind"] != "value" or not g["cites"][0]["unit"].startswith("figure:"):
                continue
            p = papers[g["cites"][0]["paper"]]
            text = " ".join([p.abstract, *[x for s in p.sections for x in s.paragraphs], *[f.caption for f in p.figures],
                             *[c for t in p.tables for r in t.rows for c in r]])
            printed = [float(x) for x in re.findall(r"(?<![\w.])\d+\.\d+", text)]
            assert not any(abs(v - g["value"]) <= g["tolerance"] for v in printed), (p.id, g)
            n += 1
    assert n >= 40
