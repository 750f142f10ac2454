"""The built-in agents on a report benchmark, as the rows of the Reports tables in README.md and harness/README.md
(issue 31 item 5): runs `epi run` for the oracle, heuristic and text-only agents (or reads runs made before) and
prints each report metric with its 95% interval.

    PYTHONPATH=. .venv/bin/python bench/report_agents.py [--episodes episodes/sandbox-v3-report.jsonl]
        [--results /tmp/report-runs] [--reuse]

The numbers depend on the claim extractor (harness/reports/_extract.py, _lexicon.py): re-run after changing it.
Each call makes new runs `<results>/<agent>-report-N`; `--reuse` reads the latest one instead of running the
agent again (after a scorer change, re-score it first with `epi score RUN`).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

AGENTS = ("oracle", "heuristic", "text-only")
LABELS = {"oracle": "oracle (self-test)", "heuristic": "heuristic", "text-only": "text-only (gold checklist)"}
COLUMNS = (("Right", "claim_correctness"), ("FA", "factual_accuracy"), ("FID", "citation_fidelity"),
           ("CC", "citation_coverage"), ("Trace-verified cit.", "trace_verified_citations"),
           ("Trace-verified FID", "trace_verified_fidelity"), ("Visual integrity", "visual_integrity"),
           ("Claim P", "coverage_precision"), ("Claim R", "coverage_recall"), ("Persona viol.", "persona_violation_rate"))


def cell(m: dict) -> str:
    """'75.2 [58.9, 86.3]'; the estimate alone when the interval has nothing to resample; n/a with no denominator."""
    if not m or m.get("value") is None:
        return "n/a"
    iv = m.get("interval") or {}
    if not iv or iv.get("all_equal") or iv.get("low") == iv.get("high"):
        return f"{m['value']:.1f}"
    return f"{m['value']:.1f} [{iv['low']:.1f}, {iv['high']:.1f}]"


def run(agent: str, episodes: Path, results: Path, reuse: bool) -> dict:
    """scores.json of `agent` on `episodes`: a new run (`<agent>-report-N`, the first N not taken) unless `reuse`
    finds one made before."""
    made = sorted(results.glob(f"{agent}-report-*/scores.json"), key=lambda p: int(p.parent.name.rsplit("-", 1)[1]))
    if reuse and made:
        return json.loads(made[-1].read_text())
    run_id = f"{agent}-report-{len(made) + 1}"
    cmd = [sys.executable, "-c", "from harness.cli import main; main()", "run", "--episodes", str(episodes),
           "--agent", agent, "--results", str(results), "--run-id", run_id]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return json.loads((results / run_id / "scores.json").read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=Path, default=Path("episodes/sandbox-v3-report.jsonl"))
    ap.add_argument("--results", type=Path, default=Path("/tmp/report-runs"))
    ap.add_argument("--reuse", action="store_true", help="read runs made before instead of running again")
    a = ap.parse_args()
    print(f"{a.episodes}: report metrics in %, 95% intervals (bootstrap over episodes)")
    print("| Run | " + " | ".join(c for c, _ in COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    for agent in AGENTS:
        s = run(agent, a.episodes, a.results, a.reuse)
        rep = s["report"]
        print(f"| {LABELS[agent]} | " + " | ".join(cell(rep.get(k) or {}) for _, k in COLUMNS) + " |")
        print(f"  {agent}: {rep['reports']} reports, {rep['claims']} claims, scorer {s.get('scorer_version')}, "
              f"extraction {rep.get('extraction')}", file=sys.stderr)


if __name__ == "__main__":
    main()
