"""Must show (issue 16): `epi compare` says in words whether a difference between two real runs is real.

The built-in agents run the first episodes of the default benchmark (whatever `RunSettings` uses by default, so
the test follows the default when it changes) on the built sandbox, through `epi run`, like a user would:
- the heuristic against the heuristic with `pdf_rag` removed, a tool it never calls: the two runs answer
  alike, and `epi compare` prints "no detectable difference";
- the oracle against the heuristic: a detectable one (McNemar's exact test on episode success).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.rundir import RunDir
from harness.settings import RunSettings

from .test_run_cli import epi

pytestmark = pytest.mark.slow

DEFAULT_EPISODES = Path(RunSettings.model_fields["episodes"].default)
LIMIT = 12


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:  # noqa: ANN001
    """The three runs, each through the real runner on the built sandbox, scored as `epi run` scores them."""
    import asyncio

    from harness.agent import AgentConfig
    from harness.runner import run_episodes
    from sandbox import paths
    from sandbox.world import SandboxWorld

    if not paths.catalog_path().is_file():
        pytest.skip("the default sandbox is not built (`make sandbox`); CI builds it before the tests")
    root = tmp_path_factory.mktemp("must_show_compare")
    out: dict[str, Path] = {}
    for name, agent, removed in (("heuristic", "heuristic", []), ("heuristic-no-rag", "heuristic", ["pdf_rag"]),
                                 ("oracle", "oracle", [])):
        settings = RunSettings(agent=agent, episodes=DEFAULT_EPISODES, results=root, run_id=name, limit=LIMIT,
                               disable_tools=removed, concurrency=2, agent_config=AgentConfig())
        summary = asyncio.run(run_episodes(settings, world=SandboxWorld()))
        out[name] = Path(summary.run_dir)
    return out


def _tools_called(run: Path) -> set[str]:
    rd = RunDir(run)
    called = set()
    for eid in rd.iter_trace_ids():
        called |= {ev.tool for ev in rd.read_trace(eid).events if ev.kind == "tool_call" and ev.executed}
    return called


def test_removing_a_tool_the_heuristic_never_calls_makes_no_detectable_difference(runs, capsys, monkeypatch):
    assert "pdf_rag" not in _tools_called(runs["heuristic"]), "the premise: the heuristic never calls pdf_rag"
    assert "pdf_rag" in json.loads((runs["heuristic"] / "run.json").read_text())["tools"]
    code, out = epi(["compare", str(runs["heuristic"]), str(runs["heuristic-no-rag"])], capsys, monkeypatch)
    assert code == 0, out
    assert "heuristic-no-rag against heuristic: no detectable difference, ESR +0.0 points" in out, out
    assert "the runs agree on every episode" in out
    code, out = epi(["compare", str(runs["heuristic"]), str(runs["heuristic-no-rag"]), "--json"], capsys, monkeypatch)
    (c,) = json.loads(out[out.index("{"):])["paired"]
    assert c["episodes"] == LIMIT and c["mcnemar"]["n10"] == c["mcnemar"]["n01"] == 0
    assert all(r["detectable"] in (False, None) for r in c["rows"]), c["rows"]


def test_the_oracle_against_the_heuristic_is_a_detectable_difference(runs, capsys, monkeypatch, tmp_path):
    code, out = epi(["compare", str(runs["heuristic"]), str(runs["oracle"]), "--out", str(tmp_path / "board")],
                    capsys, monkeypatch)
    assert code == 0, out
    assert "oracle against heuristic: a detectable difference, ESR +" in out, out
    code, out = epi(["compare", str(runs["heuristic"]), str(runs["oracle"]), "--json"], capsys, monkeypatch)
    payload = json.loads(out[out.index("{"):])
    (c,) = payload["paired"]
    oracle = payload["runs"][1]
    assert oracle["all"]["esr"] == 100.0 and oracle["all"]["intervals"]["esr"]["high"] == 100.0
    assert oracle["all"]["intervals"]["esr"]["low"] < 100.0, "100% gets an honest interval"
    esr = c["rows"][0]
    assert esr["test"] == "mcnemar-exact" and esr["p_value"] < 0.05 and esr["detectable"] is True
    assert c["mcnemar"]["n01"] == 0 and c["mcnemar"]["n10"] >= 6  # every discordant episode favours the oracle
    md = (tmp_path / "board" / "comparison.md").read_text()
    assert "### oracle against heuristic" in md and "a detectable difference" in md
