"""Issue 22's gaming agents on the default benchmark: what redundancy, efficiency and grounding show for them.

Runs the plain oracle, the padding oracle (every search five times in other spellings, every figure or table read
three times), and the one-read agents (one figure or one table of a paper no episode asks about, then random
numbers) from tests/harness/test_process_gaming.py on its ten episodes, scores them, and prints the process numbers
beside the oracle's (the baseline). Needs the default sandbox built. Usage: python bench/process_gaming.py
"""
from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.oracle import OracleAgent  # noqa: E402
from harness.agent import AgentConfig  # noqa: E402
from harness.scoring import SCORER_VERSION  # noqa: E402
from tests.harness import test_process_gaming as gaming  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        print(f"scorer {SCORER_VERSION}; episodes {', '.join(gaming._episode_ids())}; irrelevant paper {gaming.IRRELEVANT}")
        runs = {"oracle (baseline)": gaming._run(root, "oracle", lambda: OracleAgent(AgentConfig()), max_steps=40),
                "padding oracle": gaming._run(root, "padded", lambda: gaming.PaddingOracle(AgentConfig()), max_steps=40)}
        base = None
        for name, run in runs.items():
            s = json.loads((run / "scores.json").read_text())["all"]
            p = s["process"]
            base = base or s["tool_calls"]
            print(f"{name}: ESR {s['esr']:.0f}, {s['tool_calls']} calls ({s['tool_calls'] / base:.2f}x the oracle's), "
                  f"redundancy {p['redundancy']:.2f}, efficiency {p['efficiency']:.2f}, identical repeats {p['repeated_calls']}")
        for tool in ("figure_extract", "table_extract"):
            run = gaming._run(root, f"one-{tool}", lambda: gaming.OneReadAgent(tool))
            p = json.loads((run / "scores.json").read_text())["all"]["process"]
            rows = [json.loads(x) for x in (run / "episode_scores.jsonl").read_text().splitlines()]
            numbers = [t["grounding"]["source"] for e in rows for t in e["process"]["turns"]
                       if t["grounding"] and t["grounding"]["items"] is None]
            print(f"one {tool.split('_')[0]} read + random numbers: grounding {p['grounding']:.2f}, "
                  f"{len(numbers)} numbers checked, sources {dict(Counter(numbers))}")


if __name__ == "__main__":
    main()
