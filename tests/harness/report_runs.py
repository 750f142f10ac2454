"""A hand-written run of two report episodes and a scripted report judge for it (issue 32's tests and screenshot).

R1 (a persona: only Alpha, at most 40M parameters) reads Table 1 in turn 1 and Table 2 in the report turn, never
Figure 1. Its report has one claim of each kind of mark: true (ZNet 75.0, cited, read), false (XNet 71.0: Table 1
says 70.0), uncited (ZNet outperforms XNet), cited but unread (ZNet at 10 epochs cites Figure 1), off-persona (YNet's
60M parameters), and a sentence the rules cannot parse ("It also reaches 52.0 on Beta"), which the judge extracts
as ZNet's (true in Table 1, off-persona: Beta). R2 (no persona) states four table values, one of them false.

Planted support verdicts (rules' verdict in brackets):
  R1: ZNet 75.0 SUPPORTED [yes], XNet 71.0 SUPPORTED [no], YNet 60M SUPPORTED [yes], ZNet Beta 52.0 UNSUPPORTED [yes]
  R2: XNet 20M SUPPORTED [yes], YNet 72.0 SUPPORTED [yes], ZNet 8 GFLOPs UNSUPPORTED [yes], XNet Beta 49.0 UNSUPPORTED [no]
"""
from __future__ import annotations

import json
from pathlib import Path

from sandbox.model_server import Script, ScriptItem

from .scoring_fixture import TraceBuilder, write_run

T1, T2, F1 = ({"paper": "P001", "unit": u} for u in ("table:1", "table:2", "figure:1"))
FACTS = [
    {"paper": "P001", "unit": "table:1", "kind": "table", "metric": "accuracy (%)", "tolerance": 0.005,
     "columns": ["Method", "Alpha", "Beta"],
     "rows": [["XNet", "70.0", "50.0"], ["YNet", "72.0", "49.0"], ["ZNet (ours)", "75.0", "52.0"]]},
    {"paper": "P001", "unit": "table:2", "kind": "table", "tolerance": 0.005, "columns": ["Method", "Params (M)", "GFLOPs"],
     "rows": [["XNet", "20", "5"], ["YNet", "60", "12"], ["ZNet (ours)", "30", "8"]], "lower_is_better": ["Params (M)", "GFLOPs"]},
    {"paper": "P001", "unit": "figure:1", "kind": "line", "metric": "accuracy (%)", "dataset": "Alpha",
     "x_label": "training epochs", "tolerance": 0.5,
     "series": [{"label": "XNet", "x": [10, 20], "y": [60.0, 65.0]}, {"label": "Ours", "method": "ZNet", "x": [10, 20], "y": [66.0, 70.0]}]},
]
TABLE1_TEXT = ("Table 1 of P001: accuracy (%).\n\n| Method | Alpha | Beta |\n|---|---|---|\n| XNet | 70.0 | 50.0 |\n"
               "| YNet | 72.0 | 49.0 |\n| ZNet (ours) | 75.0 | 52.0 |")
TABLE2_TEXT = ("Table 2 of P001: size and compute.\n\n| Method | Params (M) | GFLOPs |\n|---|---|---|\n| XNet | 20 | 5 |\n"
               "| YNet | 60 | 12 |\n| ZNet (ours) | 30 | 8 |")
GOLD = [
    {"kind": "value", "subject": "ZNet", "dataset": "Alpha", "value": 75.0, "tolerance": 0.005, "cites": [T1]},
    {"kind": "value", "subject": "XNet", "dataset": "Alpha", "value": 70.0, "tolerance": 0.005, "cites": [T1]},
    {"kind": "value", "subject": "ZNet", "quantity": "Params (M)", "value": 30, "tolerance": 0.005, "cites": [T2]},
]
PERSONA = {"role": "edge engineer", "expertise": "ships small vision models", "cares_about": ["model size", "accuracy"],
           "context": "Deploys on phones; evaluates on Alpha only.",
           "constraints": [{"text": "only Alpha results matter", "field": "dataset", "op": "==", "value": "Alpha"},
                           {"text": "at most 40M parameters", "field": "Params (M)", "op": "<=", "value": 40}]}
QUESTION = "Write a short report comparing the methods of P001 for the reader below, with citations."
R1_REPORT = """# Findings for an edge engineer

ZNet reaches 75.0 on Alpha [P001, Table 1]. XNet scores 71.0 on Alpha [P001, Table 1]. On Alpha, ZNet outperforms XNet.

After 10 training epochs on Alpha, ZNet is at 66.0 [P001, Figure 1]. YNet has 60 M parameters [P001, Table 2].
It also reaches 52.0 on Beta [P001, Table 1]. <img src=x onerror=alert(1)> is not markup here."""
R2_REPORT = ("XNet has 20 M parameters [P001, Table 2]. YNet reaches 72.0 on Alpha [P001, Table 1]. "
             "ZNet has 8 GFLOPs [P001, Table 2]. XNet reaches 49.0 on Beta [P001, Table 1].")


def _episode(eid: str, persona: dict | None) -> dict:
    return {"id": eid, "split": "easy", "task_type": "comparison", "initiation": "citation", "area": "ml",
            "turns": [{"question": "What does ZNet reach on Alpha in Table 1 of P001?",
                       "answer": {"format": "number", "value": 75.0}, "evidence": [T1]}],
            "report": {"question": QUESTION, "persona": persona, "gold": GOLD, "facts": FACTS,
                       "papers": [{"paper": "P001", "method": "ZNet", "year": 2021}]}}


def report_run(root: Path) -> Path:
    r1 = (TraceBuilder("R1", n_turns=2).turn().call("table_extract", ("P001", "table:1"), text=TABLE1_TEXT,
                                                     args={"paper": "P001", "table": 1}).answer("75.0")
          .turn(QUESTION).call("table_extract", ("P001", "table:2"), text=TABLE2_TEXT, args={"paper": "P001", "table": 2})
          .answer(R1_REPORT).end())
    r2 = (TraceBuilder("R2", n_turns=2).turn().call("table_extract", ("P001", "table:1"), text=TABLE1_TEXT,
                                                     args={"paper": "P001", "table": 1}).answer("75.0")
          .turn(QUESTION).call("table_extract", ("P001", "table:2"), text=TABLE2_TEXT, args={"paper": "P001", "table": 2})
          .answer(R2_REPORT).end())
    return write_run(root, [_episode("R1", PERSONA), _episode("R2", None)], {"R1": r1.lines(), "R2": r2.lines()})


def _on(marker: str, content: str) -> ScriptItem:
    return ScriptItem(content=content, match={"contains": marker})


SUPPORT = [  # (a substring of the claim the support request names, the planted verdict)
    ("Claim: ZNet: score on Alpha is 75", "SUPPORTED"),
    ("Claim: XNet: score on Alpha is 71", "SUPPORTED"),
    ("Claim: YNet: Params (M) is 60", "SUPPORTED"),
    ("Claim: ZNet: score on Beta is 52", "UNSUPPORTED"),
    ("Claim: XNet: Params (M) is 20", "SUPPORTED"),
    ("Claim: YNet: score on Alpha is 72", "**Supported**"),
    ("Claim: ZNet: GFLOPs is 8", "UNSUPPORTED"),
    ("Claim: XNet: score on Beta is 49", "<think>Table 1 says 50.0.</think>\nUNSUPPORTED"),
]
FLAE_R1 = ({"read": 0.8, "insh": 0.6, "stru": 0.5}, {"w_read": 0.2, "w_insh": 0.5, "w_stru": 0.3}, 0.25)
FLAE_R2 = ({"read": 0.4, "insh": 0.2, "stru": 0.1}, {"w_read": 1, "w_insh": 1, "w_stru": 2}, 0.5)
P_WEIGHTS = {"goal_alignment": 0.4, "content_alignment": 0.3, "presentation_fit": 0.1, "actionability": 0.2}
P_SCORES = {"goal_alignment": (8, 6), "content_alignment": (7, 5), "presentation_fit": (9, 9), "actionability": (4, 2)}
DEFINITION = {"goal_alignment": "Goal Alignment", "content_alignment": "Content Alignment",
              "presentation_fit": "Presentation Fit", "actionability": "Actionability"}


def judge_script() -> Script:
    """Replies per request kind, matched on what the request's last user message says; none left over."""
    items = [_on("Sentence: It also reaches 52.0 on Beta",
                 'Claims:\n```json\n[{"kind": "value", "subject": "ZNet", "value": 52.0, "dataset": "Beta"}]\n```')]
    for dims, w, alpha in (FLAE_R1, FLAE_R2):  # R1 is scored first, then R2
        items += [_on("Score the report on three dimensions", json.dumps(dims)), _on("Produce weights over", json.dumps(w)),
                  _on("Choose alpha", json.dumps({"alpha": alpha}))]
    items.append(_on("Analyse what this user needs", json.dumps(P_WEIGHTS)))
    for d, name in DEFINITION.items():
        crits = [{"criterion": f"{name} check {i + 1}", "explanation": "for this reader", "weight": w}
                 for i, w in enumerate((3, 1))]  # normalised to 0.75 / 0.25
        items.append(_on(f"Dimension: {name}", json.dumps(crits)))
    items.append(_on("<criteria_list>", json.dumps({d: [{"criterion": f"{DEFINITION[d]} check {i + 1}", "analysis": "ok",
                                                         "target_score": s} for i, s in enumerate(P_SCORES[d])]
                                                    for d in DEFINITION})))
    items += [_on(marker, verdict) for marker, verdict in SUPPORT]
    return Script(responses=items, default=ScriptItem(content="(no reply scripted for this request)"))
