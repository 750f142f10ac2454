"""The README's leaderboard (what `make run` prints) shows every number with its 95% interval, and those
intervals, the paired test and the minimal detectable difference quoted under it are the ones the scorer
computes from the table's own counts: a number edited by hand, or a scorer change the README missed, fails."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.scoring import stats
from harness.settings import DEFAULT_BENCHMARK, RunSettings

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
# the leaderboard is what `make run` prints: `epi run` on its default episode file
DEFAULT_EPISODES = RunSettings.model_fields["episodes"].default
EPISODES = sum(1 for line in Path(DEFAULT_EPISODES).read_text().splitlines() if line.strip())
CELL = re.compile(r"^(-?[\d.]+) \[(-?[\d.]+), (-?[\d.]+)\]$")
ALL_EQUAL = re.compile(r"^(-?[\d.]+) \[all (\d+) equal\]$")  # a bootstrap with nothing to resample (scorer 11)


def _leaderboard() -> dict[str, dict[str, tuple[float, float, float] | None]]:
    lines = README[README.index("| Agent | ESR %"):].splitlines()
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        parsed = {}
        for name, cell in zip(head[1:], cells[1:]):
            if name == "MG" and cell == "n/a":  # MG is over successful episodes: none, no number
                parsed[name] = None
                continue
            same = ALL_EQUAL.match(cell)
            if same:  # a constant statistic: no interval, never a zero-width one; n is the episodes it is taken over
                assert name == "MG", f"README leaderboard: {cells[0]} {name}: only MG is a bootstrap"
                parsed[name] = (float(same.group(1)), float(same.group(1)), float(same.group(1)))
                continue
            m = CELL.match(cell)
            assert not (m and m.group(2) == m.group(3)), f"README leaderboard: {cells[0]} {name} {cell!r} has zero width"
            assert m, f"README leaderboard: {cells[0]} {name} {cell!r} is not 'estimate [low, high]'"
            parsed[name] = tuple(float(x) for x in m.groups())
        rows[cells[0].split(" (")[0]] = parsed
    return rows


def test_the_readme_shows_a_leaderboard_with_intervals():
    board = _leaderboard()
    assert set(board) == {"heuristic", "text-only", "oracle"}
    for agent, cells in board.items():
        assert list(cells) == ["ESR %", "Acc_final %", "Acc_pre %", "EC %", "MG"]
        for name, cell in cells.items():
            if cell is None:
                assert name == "MG" and cells["ESR %"][0] == 0.0, f"{agent}: only MG may be n/a, and only with no success"
                continue
            est, low, high = cell
            assert low <= est <= high, (agent, name)


@pytest.mark.parametrize("metric", ["ESR %", "Acc_final %"])
def test_episode_level_intervals_are_the_wilson_intervals_of_their_counts(metric):
    # one 0/1 value per episode: the interval is Wilson's at the benchmark's episode count, whatever the agent
    assert Path(DEFAULT_EPISODES).name == DEFAULT_BENCHMARK == "sandbox-v3.jsonl"
    assert EPISODES == 160
    assert f"all {EPISODES} episodes of `{DEFAULT_BENCHMARK.removesuffix('.jsonl')}`" in README, "the README names the benchmark it measured"
    for agent, cells in _leaderboard().items():
        est, low, high = cells[metric]
        k = round(est * EPISODES / 100)
        assert 100 * k / EPISODES == pytest.approx(est, abs=0.05), (agent, metric)
        iv = stats.wilson_interval(k, EPISODES)
        assert (low, high) == (pytest.approx(100 * iv.low, abs=0.05), pytest.approx(100 * iv.high, abs=0.05)), (agent, metric)
    assert _leaderboard()["oracle"]["ESR %"] == (100.0, 97.7, 100.0), "100% gets an honest interval"
    assert _leaderboard()["heuristic"]["ESR %"] == (0.0, 0.0, 2.3), "0% gets an honest interval"


def test_the_paired_sentence_is_what_mcnemar_newcombe_and_connor_give_for_these_counts():
    board = _leaderboard()
    heur = round(board["heuristic"]["ESR %"][0] * EPISODES / 100)
    orc = round(board["oracle"]["ESR %"][0] * EPISODES / 100)
    m = re.search(r"ESR \+([\d.]+) points \[\+([\d.]+), \+([\d.]+)\] \(McNemar exact p = ([\d.e-]+): (\d+)\s+episodes "
                  r"succeed\s+only with the oracle, (\d+) only with the heuristic\)", README)
    assert m, "the README quotes the oracle against the heuristic"
    diff, low, high, p = (float(x) for x in m.groups()[:4])
    only_orc, only_heur = int(m.group(5)), int(m.group(6))
    assert only_orc - only_heur == orc - heur  # the discordant episodes agree with the two ESRs
    both = heur - only_heur
    a = [True] * both + [True] * only_orc + [False] * only_heur + [False] * (EPISODES - both - only_orc - only_heur)
    b = [True] * both + [False] * only_orc + [True] * only_heur + [False] * (EPISODES - both - only_orc - only_heur)
    mc = stats.mcnemar(a, b)
    assert f"{mc.p_exact:.2g}" == f"{p:.2g}"
    nd = stats.newcombe_paired_difference(a, b)
    assert (100 * nd.estimate, 100 * nd.low, 100 * nd.high) == (
        pytest.approx(diff, abs=0.05), pytest.approx(low, abs=0.05), pytest.approx(high, abs=0.05))
    mdd = re.search(r"smallest\s+detectable ESR difference is ([\d.]+) points", README)
    assert mdd, "the README quotes the minimal detectable difference"
    want = stats.minimal_detectable_difference(EPISODES, stats.discordance(a, b))
    assert 100 * want.mdd == pytest.approx(float(mdd.group(1)), abs=0.05)
    text_flat = " ".join(README.split())
    m = re.search(r"no detectable difference, ESR \+0\.0 points .*?\(([\d.]+) points at 10% discordance, ([\d.]+) at 30%\)",
                  text_flat)
    assert m, "the README quotes the heuristic without pdf_rag against the heuristic"
    for share, quoted in ((0.1, m.group(1)), (0.3, m.group(2))):
        assert 100 * stats.minimal_detectable_difference(EPISODES, share).mdd == pytest.approx(float(quoted), abs=0.05)


def test_the_text_only_acc_final_sentence_is_what_mcnemar_and_newcombe_give_for_these_counts():
    board = _leaderboard()
    heur = round(board["heuristic"]["Acc_final %"][0] * EPISODES / 100)
    text = round(board["text-only"]["Acc_final %"][0] * EPISODES / 100)
    flat = " ".join(README.split())
    m = re.search(r"Acc_final \(\+([\d.]+) points \[([+-]?[\d.]+), \+([\d.]+)\], McNemar exact p = ([\d.e-]+): (\d+) finals "
                  r"right only with text-only, (\d+) only with the heuristic\)", flat)
    assert m, "the README quotes text-only against the heuristic on Acc_final"
    diff, low, high, p = (float(x) for x in m.groups()[:4])
    only_text, only_heur = int(m.group(5)), int(m.group(6))
    assert only_text - only_heur == text - heur
    both = heur - only_heur
    rest = EPISODES - both - only_text - only_heur
    a = [True] * both + [True] * only_text + [False] * only_heur + [False] * rest
    b = [True] * both + [False] * only_text + [True] * only_heur + [False] * rest
    assert f"{stats.mcnemar(a, b).p_exact:.3g}" == f"{p:.3g}"
    nd = stats.newcombe_paired_difference(a, b)
    assert (100 * nd.estimate, 100 * nd.low, 100 * nd.high) == (
        pytest.approx(diff, abs=0.05), pytest.approx(low, abs=0.05), pytest.approx(high, abs=0.05))
