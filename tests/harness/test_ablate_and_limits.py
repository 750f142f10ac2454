"""Ablations are run options and one command; the model-request rate limit spaces requests."""
from __future__ import annotations

import json

import pytest

from harness.session import RateLimiter

from .test_run_cli import epi


async def test_rate_limiter_spaces_requests_across_the_run(monkeypatch):
    clock = {"now": 100.0}
    slept: list[float] = []

    async def fake_sleep(d):
        slept.append(round(d, 6))
        clock["now"] += d

    monkeypatch.setattr("harness.session.time.monotonic", lambda: clock["now"])
    monkeypatch.setattr("harness.session.asyncio.sleep", fake_sleep)
    lim = RateLimiter(rps=4.0)
    for _ in range(4):
        await lim.wait()
    assert slept == [0.25, 0.25, 0.25]  # the first request goes at once, then one every 1/rps seconds
    await RateLimiter(None).wait()  # no limit: never sleeps
    assert len(slept) == 3


@pytest.mark.slow
def test_ablate_runs_every_combination_and_writes_one_comparison(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    code, out = epi(["ablate", "--agent", "heuristic", "--episodes", str(tiny_episodes), "--limit", "2",
                     "--max-steps", "1,10", "--final-turn-tools", "off,on", "--disable-tool", "none,pdf_rag",
                     "--results", str(tmp_path), "--name", "grid", "--json"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    result = json.loads(out[out.index("{"):])
    runs = result["runs"]
    assert len(runs) == 8
    configs = [json.loads((tmp_path / "grid" / r.split("/")[-1] / "run.json").read_text()) for r in runs]
    combos = {(c["max_steps"], c["final_turn_tools"], tuple(c["disable_tools"])) for c in configs}
    assert combos == {(s, f, d) for s in (1, 10) for f in (False, True) for d in ((), ("pdf_rag",))}
    for c in configs:  # a removed tool is never offered; the final-turn switch reaches the trace
        assert ("pdf_rag" in c["tools"]) == (c["disable_tools"] == [])
    comparison = (tmp_path / "grid" / "comparison.md").read_text()
    assert all(r.split("/")[-1] in comparison for r in runs)
    plots = {p.name for p in (tmp_path / "grid" / "plots").glob("*.png")}
    assert any("budget" in p for p in plots) and any("ablation" in p for p in plots), plots
    # one budget-1 run: the heuristic needs more than one call per turn, so the budget runs out
    s1 = json.loads((tmp_path / "grid" / "steps1-finaloff-all" / "scores.json").read_text())
    assert s1["all"]["max_steps_rate"] > 0
    # every run paired with the first; removing pdf_rag, which the heuristic never calls, changes no episode
    assert [p["baseline"] for p in result["paired"]] == ["steps1-finaloff-all"] * 7
    (no_rag,) = [p["verdict"] for p in result["paired"] if p["run"] == "steps1-finaloff-no_pdf_rag"]
    assert no_rag.startswith("steps1-finaloff-no_pdf_rag against steps1-finaloff-all: no detectable difference, "
                             "ESR +0.0 points"), no_rag


def test_ablate_refuses_bad_grids(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    for args, needle in ((["--max-steps", "0,5"], "at least 1"), (["--final-turn-tools", "maybe"], "on or off"),
                         (["--disable-tool", "none,telepathy"], "unknown tool 'telepathy'")):
        code, out = epi(["ablate", "--episodes", str(tiny_episodes), "--results", str(tmp_path), *args],
                        capsys, monkeypatch, tiny_sandbox)
        assert code == 2 and needle in out and "Traceback" not in out, out
        assert not (tmp_path / "grid").exists() and not any(tmp_path.glob("ablate-*")), "nothing runs before the check"
