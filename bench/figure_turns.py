"""How often a run is right on the turns that ask for a figure: figure-number turns and figure-choice turns.

Issue 13 bounds what text alone buys on benchmark v2: the text-only adversary (`epi run --agent text-only`)
may be right on at most 5% of figure-number turns and at most chance + 10 points of figure-choice turns
(chance = the mean of 1/options over those turns). A figure turn is a turn whose evidence is figures only
(no table, no text unit). Figure-number turns are the reading turns (a final computes from several
readings: its numeric answers are reported apart); figure-choice turns are reading turns that rank a
figure's series and finals that rank values read from figures. The thresholds are printed next to the
figures; exit 1 when one is broken.

    python bench/figure_turns.py RUN_DIR [--episodes episodes/sandbox-v2.jsonl]
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.episodes_io import load_episodes  # noqa: E402

NUMBER_CEILING = 0.05
CHOICE_MARGIN = 0.10


@dataclass
class FigureTurns:
    number_turns: int = 0
    number_right: int = 0
    choice_turns: int = 0
    choice_right: int = 0
    choice_chance: float = 0.0  # sum of 1/options
    choice_finals: int = 0  # of choice_turns
    choice_finals_right: int = 0
    number_finals: int = 0  # computed finals (difference, mean, ...) over figure values: reported apart
    number_finals_right: int = 0

    @property
    def number_rate(self) -> float:
        return self.number_right / self.number_turns if self.number_turns else 0.0

    @property
    def choice_rate(self) -> float:
        return self.choice_right / self.choice_turns if self.choice_turns else 0.0

    @property
    def chance(self) -> float:
        return self.choice_chance / self.choice_turns if self.choice_turns else 0.0

    def within_ceiling(self) -> bool:
        return self.number_rate <= NUMBER_CEILING and self.choice_rate <= self.chance + CHOICE_MARGIN


def figure_turns(run_dir: Path, episodes: Path) -> FigureTurns:
    """Count the run's right answers on figure-only turns of `episodes` (every epoch's trace counts once)."""
    turns = {(ep.id, i): t for ep in load_episodes(episodes).episodes for i, t in enumerate(ep.turns, start=1)}
    out = FigureTurns()
    for line in (run_dir / "episode_scores.jsonl").read_text().splitlines():
        row = json.loads(line)
        for ts in row["turns"]:
            t = turns.get((row["episode_id"], ts["turn"]))
            if t is None or not t.evidence or not all(e.unit.startswith("figure:") for e in t.evidence):
                continue
            final = ts["turn"] == row["n_turns"]
            right = bool(ts.get("correct"))
            if t.answer.format == "number" and final:
                out.number_finals += 1
                out.number_finals_right += right
            elif t.answer.format == "number" and not t.memory_only:
                out.number_turns += 1
                out.number_right += right
            elif t.answer.format == "choice":
                out.choice_turns += 1
                out.choice_right += right
                out.choice_chance += 1 / len(t.answer.choices or {"": ""})
                out.choice_finals += final
                out.choice_finals_right += right and final
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--episodes", type=Path, default=None, help="episode file (default: the run's, from run.json)")
    a = ap.parse_args()
    episodes = a.episodes or Path(json.loads((a.run_dir / "run.json").read_text())["settings"]["episodes"])
    f = figure_turns(a.run_dir, episodes)
    print(f"{a.run_dir.name} on {episodes}")
    print(f"figure-number turns right: {f.number_right}/{f.number_turns} ({100 * f.number_rate:.1f}%)   "
          f"ceiling {100 * NUMBER_CEILING:.0f}%")
    print(f"figure-choice turns right: {f.choice_right}/{f.choice_turns} ({100 * f.choice_rate:.1f}%)   "
          f"ceiling chance {100 * f.chance:.1f}% + {100 * CHOICE_MARGIN:.0f} points "
          f"(reading turns {f.choice_right - f.choice_finals_right}/{f.choice_turns - f.choice_finals}, "
          f"finals {f.choice_finals_right}/{f.choice_finals})")
    print(f"numeric finals over figure values right: {f.number_finals_right}/{f.number_finals} (reported)")
    ok = f.within_ceiling()
    print("PASS" if ok else "FAIL: above the ceiling text alone may reach")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
