"""Precision and recall of the report claim extractor on the hand-labelled sentences (issue 31 item 3).

    PYTHONPATH=. .venv/bin/python bench/report_extractor.py [--show-misses] [EXTRA.json ...]

Every set tests/harness/data/report_claims_*.json is measured (tests/harness/test_report_claims_data.py checks each
is well-formed), then any file named on the command line (a new held-out set, in the same format). The sets:
report_claims_labelled.json (68 sentences, written and committed before the extractor existed),
report_claims_heldout.json (32 sentences, issue 31's held-out set, a development set since issue 32),
report_claims_heldout2.json (40 sentences over three new contexts, first run after issue 32's changes: precision
0.901, recall 0.889; a development set since scorer 10), report_claims_heldout3.json (68 sentences over five new
contexts, run once after scorer 10's changes: 0.882 / 0.855; a development set since scorer 13) and
report_claims_heldout4.json (84 sentences over five new contexts, written by someone who never read the extractor's
code, run once after scorer 13's extractor was frozen: 0.708 / 0.735; a development set since scorer 17) and
report_claims_heldout5.json (114 sentences over seven new contexts, written by someone who never read or ran the
extractor, run once after scorer 17's extractor was frozen: 0.846 / 0.846; a development set since scorer 18) and
report_claims_heldout6.json (144 sentences over eight new contexts, written by someone who never read or ran the
extractor, run once after scorer 18's extractor was frozen: 0.839 / 0.845; a development set since scorer 19) and
report_claims_heldout7.json (137 sentences over eight new contexts, written by someone who never read or ran the
extractor, run once after scorer 19's extractor was frozen: 0.869 / 0.835; a development set since scorer 20) and
report_claims_heldout8.json (124 sentences over eight new contexts, written by someone who never read or ran the
extractor, run once after scorer 20's extractor was frozen: 0.925 / 0.908, the first above the 0.9 goal).
A set this script does not know is reported as held out.
An extracted claim matches a labelled one when kind, subject, object, relation, quantity,
dataset, setting (x_label, x), value and citations all agree (greedy one-to-one per sentence).
"""
from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

from harness.episode import Claim
from harness.reports import Lexicon, extract_claims
from harness.reports._lexicon import norm_name

DATA = Path(__file__).resolve().parents[1] / "tests" / "harness" / "data" / "report_claims_labelled.json"
HELDOUT = DATA.with_name("report_claims_heldout.json")
HELDOUT2 = DATA.with_name("report_claims_heldout2.json")
HELDOUT3 = DATA.with_name("report_claims_heldout3.json")
HELDOUT4 = DATA.with_name("report_claims_heldout4.json")
HELDOUT5 = DATA.with_name("report_claims_heldout5.json")
HELDOUT6 = DATA.with_name("report_claims_heldout6.json")
HELDOUT7 = DATA.with_name("report_claims_heldout7.json")
HELDOUT8 = DATA.with_name("report_claims_heldout8.json")
SETS = (DATA, HELDOUT, HELDOUT2, HELDOUT3, HELDOUT4, HELDOUT5, HELDOUT6, HELDOUT7, HELDOUT8)
# how each set is used: a development set was read to change the extractor; a held-out one is measured once
ROLES = {DATA: "development set", HELDOUT: "development set", HELDOUT2: "development set",
         HELDOUT3: "development set (held out once: 0.882 / 0.855)",
         HELDOUT4: "development set since scorer 17 (held out once, scorer 13: 0.708 / 0.735)",
         HELDOUT5: "development set since scorer 18 (held out once, scorer 17: 0.846 / 0.846)",
         HELDOUT6: "development set since scorer 19 (held out once, scorer 18: 0.839 / 0.845)",
         HELDOUT7: "development set since scorer 20 (held out once, scorer 19: 0.869 / 0.835)",
         HELDOUT8: "held out: run once, after scorer 20's extractor was frozen"}


def all_sets(extra: list[str] = ()) -> list[Path]:  # type: ignore[assignment]
    """The known sets first, then every other report_claims_*.json of the data folder, then the named files."""
    found = sorted(DATA.parent.glob("report_claims_*.json"))
    out = list(SETS) + [p for p in found if p not in SETS] + [Path(e).resolve() for e in extra]
    return list(dict.fromkeys(out))


@dataclass
class ExtractorScore:
    labelled: int = 0
    extracted: int = 0
    matched: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.matched / self.extracted if self.extracted else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.labelled if self.labelled else 0.0


def _same(c: Claim, lab: dict) -> bool:
    def close(a: float | None, b: float | None) -> bool:
        return (a is None and b is None) or (a is not None and b is not None and math.isclose(a, b, abs_tol=1e-9))

    return (c.kind == lab["kind"] and norm_name(c.subject) == norm_name(lab["subject"])
            and norm_name(c.object or "") == norm_name(lab.get("object") or "")
            and c.relation == lab.get("relation", "=") and c.quantity == lab.get("quantity")
            and c.dataset == lab.get("dataset") and c.x_label == lab.get("x_label") and close(c.x, lab.get("x"))
            and close(c.value, lab.get("value")) and sorted(u.label() for u in c.cites) == sorted(lab["cites"]))


def _show(c: Claim) -> str:
    return json.dumps({k: v for k, v in c.model_dump(exclude={"sentence", "tolerance", "unit"}).items()
                       if v not in (None, [], "=")} | {"cites": [u.label() for u in c.cites]})


def evaluate(path: Path = DATA) -> ExtractorScore:
    data = json.loads(path.read_text(encoding="utf-8"))
    lexicons = {k: Lexicon(methods=v["methods"], datasets=v["datasets"], quantities=v["quantities"],
                           settings=v["settings"]) for k, v in data["contexts"].items()}
    out = ExtractorScore()
    for s in data["sentences"]:
        got = extract_claims(s["text"], lexicons[s["context"]])
        labels = s["claims"]
        out.labelled += len(labels)
        out.extracted += len(got)
        used: set[int] = set()
        for c in got:
            hit = next((i for i, lab in enumerate(labels) if i not in used and _same(c, lab)), None)
            if hit is None:
                out.misses.append(f"{s['id']} extra: {_show(c)}")
            else:
                used.add(hit)
                out.matched += 1
        for i, lab in enumerate(labels):
            if i not in used:
                out.misses.append(f"{s['id']} missed: {json.dumps(lab)}")
    return out


def main() -> None:
    extra = [a for a in sys.argv[1:] if not a.startswith("--")]
    for path in extra:
        if not Path(path).is_file():
            print(f"report_extractor: no such file: {path}", file=sys.stderr)
            raise SystemExit(2)
    for path in all_sets(extra):
        try:
            r = evaluate(path)
        except (ValueError, KeyError, TypeError) as e:
            print(f"report_extractor: {path}: not a labelled claim set ({type(e).__name__}: {e})", file=sys.stderr)
            raise SystemExit(2) from None
        print(f"{path.name}: labelled claims {r.labelled}, extracted {r.extracted}, matched {r.matched}; "
              f"precision {r.precision:.3f}  recall {r.recall:.3f}  [{ROLES.get(path, 'held out')}]")
        if "--show-misses" in sys.argv:
            print("\n".join(r.misses))


if __name__ == "__main__":
    main()
