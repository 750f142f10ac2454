"""The ablation, budget and cost plots draw every ESR (and, on the ablation bars, Acc_final and Acc_pre) with
its 95% interval as an error bar: the bars span exactly the interval of scores.json, not a fixed width."""
from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.container import BarContainer, ErrorbarContainer

from harness.scoring import plots, score_run

from .scoring_fixture import NUM, TraceBuilder, episode, main_run, turn, write_run


@pytest.fixture()
def runs(tmp_path: Path):
    (tmp_path / "a").mkdir()
    a = score_run(main_run(tmp_path / "a"))  # ESR: 1 of 3 episodes succeed (E4, errored, is left out)
    (tmp_path / "b").mkdir()
    eps = [episode("E1", "easy", [turn("t1", NUM, [("P001", "table:2")], checklist=1)])]
    tb = TraceBuilder("E1", n_turns=1).turn(budget=5).model(10, 1).call("table_extract", ("P001", "table:2")).answer("35.2").end()
    b = score_run(write_run(tmp_path / "b", eps, {"E1": tb.lines()}, run_id="steps5", config={"max_steps": 5}))
    return [a, b]


@pytest.fixture()
def figures(monkeypatch):
    """Keep each figure a plot function draws instead of only its PNG."""
    kept = []
    real = plots._save

    def keep(fig, path):  # noqa: ANN001, ANN202
        kept.append(fig)
        fig.canvas.draw()
        return real(fig, path)

    monkeypatch.setattr(plots, "_save", keep)
    return kept


def _spans(container: ErrorbarContainer) -> list[tuple[float, float]]:
    (bars,) = container.lines[2]
    return sorted((round(min(s[0][1], s[1][1]), 2), round(max(s[0][1], s[1][1]), 2)) for s in bars.get_segments())


def _esr_spans(runs) -> list[tuple[float, float]]:  # noqa: ANN001
    return sorted((round(r.all.intervals.esr.low, 2), round(r.all.intervals.esr.high, 2)) for r in runs)


def test_budget_and_cost_plots_draw_the_esr_intervals(runs, figures, tmp_path):
    # by hand: 1 of 3 episodes = Wilson [6.15, 79.23]; 1 of 1 = [20.65, 100.00]
    assert _esr_spans(runs) == [(6.15, 79.23), (20.65, 100.0)]
    plots.budget_curve(runs, tmp_path / "budget.png")
    plots.cost_vs_success(["a", "b"], runs, tmp_path / "cost.png")
    budget, cost = figures
    (line,) = [c for c in budget.axes[0].containers if isinstance(c, ErrorbarContainer)]
    assert _spans(line) == _esr_spans(runs)
    per_run = [c for c in cost.axes[0].containers if isinstance(c, ErrorbarContainer)]
    assert sorted(s for c in per_run for s in _spans(c)) == _esr_spans(runs)


def test_ablation_bars_carry_the_interval_of_each_number(runs, figures, tmp_path):
    plots.ablation_bars(["a", "b"], runs, tmp_path / "ablation.png")
    (fig,) = figures
    bars = [c for c in fig.axes[0].containers if isinstance(c, BarContainer)]
    assert len(bars) == 3  # ESR, Acc_final, Acc_pre
    assert runs[1].all.intervals.acc_pre is None and runs[0].all.intervals.acc_pre is not None
    for key, container in zip(("esr", "acc_final", "acc_pre"), bars):
        ivs = [getattr(r.all.intervals, key) for r in runs]
        # a number that is n/a (run b has no non-final turn: Acc_pre) is a bar of 0 without an interval
        want = sorted((0.0, 0.0) if iv is None else (round(iv.low, 2), round(iv.high, 2)) for iv in ivs)
        assert _spans(container.errorbar) == want, key
