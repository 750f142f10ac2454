"""The protocol rules the runner enforces: allowed tools, budgets, fallback, memory-only turns, buckets."""
from __future__ import annotations

import json
from pathlib import Path

from harness.agent import BaseAgent, FinalAnswer, NoToolStep, ProviderError, TokenUsage, ToolCall, ToolCalls
from harness.episode import Episode
from harness.episode_runner import EpisodeRunner
from harness.rundir import RunDir
from harness.session import RateLimiter
from harness.settings import RunSettings
from harness.trace import SCHEMA_VERSION
from tools import EvidenceUnit, ToolResult, World, tool

from ..fakes import NullWorld as TinyWorld


@tool
async def echo(world: World, paper: str) -> ToolResult:
    """Show the text of a paper.

    Args:
        paper: paper id
    """
    return ToolResult(text=f"text of {paper}", provenance=[EvidenceUnit(paper=paper, unit="text")])


@tool
async def broken(world: World, paper: str) -> ToolResult:
    """A tool with a bug in our code.

    Args:
        paper: paper id
    """
    raise RuntimeError("boom")


def _episode(eid="e1", final_memory_only=True) -> Episode:
    return Episode.model_validate({
        "id": eid, "split": "easy", "task_type": "comparison", "initiation": "direct_title", "area": "vision",
        "turns": [
            {"question": "q1", "answer": {"format": "text", "value": "a"}, "evidence": [{"paper": "P1", "unit": "text"}],
             "checklist": [{"tool": "echo", "args": {"paper": "P1"}}]},
            {"question": "q2", "answer": {"format": "text", "value": "b"}, "evidence": [{"paper": "P1", "unit": "text"}],
             "memory_only": final_memory_only},
        ],
    })


class ScriptedAgent(BaseAgent):
    """Plays a list of actions per turn and records every view it was shown."""

    name = "scripted"
    uses_gold = False

    def __init__(self, per_turn: dict[int, list], record_calls: bool = False):
        self.per_turn = {k: list(v) for k, v in per_turn.items()}
        self.views = []
        self.record_calls = record_calls

    async def start_episode(self, info):
        pass

    async def step(self, ctx):
        v = ctx.view
        self.views.append(v.model_copy(deep=True))
        if self.record_calls:
            ctx.record_model_call(model="m", request={"n": len(self.views)}, response=None,
                                  usage=TokenUsage(input_tokens=100, output_tokens=10), latency_s=0.0,
                                  tools_offered=v.tool_names)
        if v.fallback:
            return FinalAnswer(answer="from fallback")
        queue = self.per_turn.get(v.turn, [])
        action = queue.pop(0) if queue else FinalAnswer(answer="done")
        if isinstance(action, Exception):
            raise action
        return action

    async def end_episode(self):
        pass


def _runner(tmp_path: Path, agent, tools=None, **settings) -> tuple[EpisodeRunner, RunDir]:
    rd = RunDir(tmp_path / "run")
    rd.traces_dir.mkdir(parents=True)
    s = RunSettings(**settings)
    r = EpisodeRunner(
        settings=s, world=TinyWorld(tmp_path), tools=tools or {"echo": echo}, run_dir=rd,
        limiter=RateLimiter(None), episodes_dir=tmp_path, make_agent=lambda: agent,
    )
    return r, rd


def _events(rd: RunDir, eid="e1"):
    tr = rd.read_trace(eid)
    assert tr.complete and not tr.bad_lines
    return tr.events


async def test_disallowed_tool_is_an_error_observation_and_counts_a_step(tmp_path):
    agent = ScriptedAgent({1: [ToolCall(tool="pdf_rag", args={"paper": "P1"}), ToolCall(tool="echo", args={"paper": "P1"})]})
    r, rd = _runner(tmp_path, agent, max_steps=5)
    await r.run(_episode())
    calls = [e for e in _events(rd) if e.kind == "tool_call"]
    assert [c.tool for c in calls] == ["pdf_rag", "echo"]
    assert calls[0].error and "not available" in calls[0].error and calls[0].budget_left == 4
    assert calls[1].error is None and calls[1].provenance[0].unit == "text" and calls[1].budget_left == 3
    # the agent saw the refusal in memory before its next decision
    assert agent.views[1].memory[0].error is not None


async def test_bad_arguments_are_an_error_observation_and_count_a_step(tmp_path):
    agent = ScriptedAgent({1: [ToolCall(tool="echo", args={"papr": "P1"})]})
    r, rd = _runner(tmp_path, agent, max_steps=5)
    await r.run(_episode())
    call = next(e for e in _events(rd) if e.kind == "tool_call")
    assert call.error_kind == "bad_arguments" and call.budget_left == 4


async def test_a_call_that_fails_the_schema_is_refused_not_run_and_costs_no_tool_call(tmp_path):
    """Issue 22: a wrong type, a missing and an extra argument are refused like a tool not offered: a step of the
    budget and an error observation, never an executed call, so MG and the cost count only the call that ran."""
    from harness.scoring import score_run

    runs: list[str] = []

    @tool(name="pdf_extract")
    async def counting_echo(world: World, paper: str, part: int = 1) -> ToolResult:
        """Show the text of a paper.

        Args:
            paper: paper id
            part: which part
        """
        runs.append(paper)
        return ToolResult(text=f"text of {paper}", provenance=[EvidenceUnit(paper=paper, unit="text")])

    bad = [{"paper": "P1", "part": "abc"}, {"part": 2}, {"paper": "P1", "extra": True}]
    agent = ScriptedAgent({1: [ToolCall(tool="pdf_extract", args=a) for a in bad]
                           + [ToolCall(tool="pdf_extract", args={"paper": "P1"}), FinalAnswer(answer="alpha")],
                           2: [FinalAnswer(answer="beta")]})
    r, rd = _runner(tmp_path, agent, tools={"pdf_extract": counting_echo}, max_steps=5)
    episode = Episode.model_validate({**_episode().model_dump(), "turns": [
        {**t.model_dump(), "answer": {"format": "text", "value": v},
         "checklist": [{"tool": "pdf_extract", "args": {"paper": "P1"}}] if t.checklist else []}
        for t, v in zip(_episode().turns, ("alpha", "beta"))]})
    (tmp_path / "episodes.jsonl").write_text(episode.model_dump_json() + "\n")
    await r.run(episode)
    calls = [e for e in _events(rd) if e.kind == "tool_call"]
    assert [c.executed for c in calls] == [False, False, False, True] and runs == ["P1"]
    assert all(c.error_kind == "bad_arguments" and "bad arguments" in c.error for c in calls[:3])
    assert [c.budget_left for c in calls] == [4, 3, 2, 1]  # each refused call still used a step
    assert agent.views[1].memory[0].error is not None  # the agent saw why
    end = next(e for e in _events(rd) if e.kind == "episode_end")
    assert end.tool_calls == 1
    rd.run_json.write_text(json.dumps({"run_id": "run", "episodes": str(tmp_path / "episodes.jsonl")}))
    s = score_run(rd.path, episodes_path=tmp_path / "episodes.jsonl")
    assert s.all.esr == 100.0 and s.all.mg == 1.0 and s.all.tool_calls == 1
    assert (s.all.behaviour.malformed_calls, s.all.refused_calls) == (3, 0)  # the model wrote them wrong; no rule refused them


async def test_budget_exhaustion_gives_exactly_one_no_tool_fallback(tmp_path):
    agent = ScriptedAgent({1: [ToolCall(tool="echo", args={"paper": "P1"})] * 10})
    r, rd = _runner(tmp_path, agent, max_steps=3)
    await r.run(_episode())
    ev = [e for e in _events(rd) if e.turn == 1]
    kinds = [e.kind for e in ev]
    assert kinds.count("tool_call") == 3 and kinds.count("budget_exhausted") == 1
    fallback_views = [v for v in agent.views if v.turn == 1 and v.fallback]
    assert len(fallback_views) == 1 and fallback_views[0].tools == []
    fa = next(e for e in ev if e.kind == "final_answer")
    assert fa.source == "budget_fallback" and fa.answer == "from fallback"
    assert kinds.index("budget_exhausted") < kinds.index("final_answer")


async def test_memory_only_final_turn_offers_no_tools_and_refuses_calls(tmp_path):
    agent = ScriptedAgent({1: [ToolCall(tool="echo", args={"paper": "P1"})], 2: [ToolCall(tool="echo", args={"paper": "P1"})]})
    r, rd = _runner(tmp_path, agent, max_steps=4)
    await r.run(_episode())
    ev = _events(rd)
    ts2 = next(e for e in ev if e.kind == "turn_start" and e.turn == 2)
    assert ts2.allowed_tools == [] and ts2.memory_only
    v2 = [v for v in agent.views if v.turn == 2][0]
    assert v2.tools == [] and len(v2.memory) == 1 and v2.history[0].answer == "done"
    call2 = next(e for e in ev if e.kind == "tool_call" and e.turn == 2)
    assert call2.error and "no tools are offered" in call2.error


async def test_final_turn_tools_ablation_offers_tools_on_memory_only_turn(tmp_path):
    agent = ScriptedAgent({})
    r, rd = _runner(tmp_path, agent, final_turn_tools=True)
    await r.run(_episode())
    ts2 = next(e for e in _events(rd) if e.kind == "turn_start" and e.turn == 2)
    assert ts2.allowed_tools == ["echo"]


async def test_agent_exception_fails_episode_with_pipeline_bucket_and_answers_none(tmp_path):
    agent = ScriptedAgent({1: [RuntimeError("agent bug")]})
    r, rd = _runner(tmp_path, agent)
    out = await r.run(_episode())
    assert out.status == "failed" and out.bucket == "pipeline"
    ev = _events(rd)
    err = next(e for e in ev if e.kind == "error")
    assert err.bucket == "pipeline" and "agent bug" in err.message
    finals = [e for e in ev if e.kind == "final_answer"]
    assert [f.turn for f in finals] == [1, 2] and all(f.answer is None for f in finals)
    assert ev[-1].kind == "episode_end" and ev[-1].status == "failed"


async def test_provider_error_gets_provider_bucket(tmp_path):
    agent = ScriptedAgent({1: [ProviderError("429 after 4 retries")]})
    r, rd = _runner(tmp_path, agent)
    out = await r.run(_episode())
    assert out.bucket == "provider"


async def test_bug_inside_a_tool_fails_the_episode_not_the_run(tmp_path):
    agent = ScriptedAgent({1: [ToolCall(tool="broken", args={"paper": "P1"})]})
    r, rd = _runner(tmp_path, agent, tools={"broken": broken})
    out = await r.run(_episode())
    assert out.bucket == "pipeline"
    err = next(e for e in _events(rd) if e.kind == "error")
    assert "RuntimeError" in err.message and "boom" in (err.detail or "")


async def test_garbage_action_is_a_model_failure(tmp_path):
    agent = ScriptedAgent({1: ["not an action"]})
    r, rd = _runner(tmp_path, agent)
    out = await r.run(_episode())
    assert out.bucket == "model"


async def test_token_limit_fires_and_is_recorded(tmp_path):
    agent = ScriptedAgent({1: [ToolCall(tool="echo", args={"paper": "P1"})] * 5}, record_calls=True)
    r, rd = _runner(tmp_path, agent, max_episode_tokens=250)
    out = await r.run(_episode())
    ev = _events(rd)
    lim = next(e for e in ev if e.kind == "limit_hit")
    assert lim.limit == "tokens" and lim.value >= 250
    assert out.status == "failed"
    assert next(e for e in ev if e.kind == "final_answer" and e.turn == 1).source == "limit_fallback"
    assert ev[-1].usage.input_tokens >= 200


async def test_trace_is_written_as_part_then_committed(tmp_path):
    agent = ScriptedAgent({})
    r, rd = _runner(tmp_path, agent)
    await r.run(_episode())
    assert rd.trace_path("e1").is_file()
    assert not list(rd.traces_dir.glob("*.part"))
    lines = rd.trace_path("e1").read_text().splitlines()
    assert all(json.loads(l)["schema_version"] == SCHEMA_VERSION for l in lines)
    assert rd.completed_episodes() == {"e1"}


async def test_an_agent_that_never_answers_is_stopped_by_the_step_timeout(tmp_path):
    import asyncio

    class Stuck(ScriptedAgent):
        async def step(self, ctx):
            await asyncio.sleep(60)

    r, rd = _runner(tmp_path, Stuck({}), step_timeout_s=0.2)
    out = await r.run(_episode())
    assert out.status == "failed" and out.bucket == "model"
    err = next(e for e in _events(rd) if e.kind == "error")
    assert "longer than" in err.message


async def test_a_harness_error_in_one_episode_does_not_stop_the_run(tmp_path, monkeypatch, tiny_sandbox, tiny_episodes):
    from harness import runner as runner_mod
    from harness.episode_runner import EpisodeRunner as ER

    real_run = ER.run
    bad_id = json.loads(tiny_episodes.read_text().splitlines()[0])["id"]

    async def one_bad(self, ep):
        if ep.id == bad_id:
            raise RuntimeError("disk on fire")
        return await real_run(self, ep)

    monkeypatch.setattr(ER, "run", one_bad)
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(tiny_sandbox))
    summary = await runner_mod.run_episodes(
        RunSettings(agent="oracle", episodes=tiny_episodes, results=tmp_path, run_id="r", score=False)
    )
    by_id = {o.episode_id: o for o in summary.outcomes}
    assert by_id[bad_id].status == "failed" and by_id[bad_id].bucket == "pipeline"
    assert sum(o.status == "completed" for o in summary.outcomes) == len(by_id) - 1


async def test_the_turn_view_is_read_only_the_session_owns_it(tmp_path):
    import pydantic
    import pytest

    agent = ScriptedAgent({})
    r, rd = _runner(tmp_path, agent)
    await r.run(_episode())
    with pytest.raises(pydantic.ValidationError):
        agent.views[0].fallback = True  # type: ignore[misc]


async def test_steps_without_a_tool_do_not_use_the_tool_call_budget_but_are_capped(tmp_path):
    idle = NoToolStep(reason="plan", reply="Plan: think", feedback="call a tool or answer")
    agent = ScriptedAgent({1: [idle, ToolCall(tool="echo", args={"paper": "P1"}), idle, idle, ToolCall(tool="echo", args={"paper": "P1"})]})
    r, rd = _runner(tmp_path, agent, max_steps=3)
    await r.run(_episode())
    ev = [e for e in _events(rd) if e.turn == 1]
    (call,) = [e for e in ev if e.kind == "tool_call"]
    assert call.budget_left == 2  # the plan before it used no tool call
    steps = [e for e in ev if e.kind == "no_tool_step"]
    assert [(s.reason, s.no_tool_steps, s.cap, s.feedback) for s in steps] == [
        ("plan", 1, 3, "call a tool or answer"), ("plan", 2, 3, "call a tool or answer"), ("plan", 3, 3, "call a tool or answer")]
    (ex,) = [e for e in ev if e.kind == "budget_exhausted"]
    assert (ex.ran_out, ex.tool_calls, ex.no_tool_steps, ex.model_steps) == ("no_tool_steps", 1, 3, 4)
    assert next(e for e in ev if e.kind == "final_answer").source == "budget_fallback"
    assert [v.no_tool_steps for v in agent.views if v.turn == 1] == [0, 1, 1, 2, 3]  # the last: the fallback's view


async def test_the_model_step_unit_counts_a_reply_with_several_calls_as_one_step(tmp_path):
    two = ToolCalls(calls=[ToolCall(tool="echo", args={"paper": "P1"}), ToolCall(tool="echo", args={"paper": "P2"})])
    agent = ScriptedAgent({1: [two, ToolCall(tool="echo", args={"paper": "P3"}), ToolCall(tool="echo", args={"paper": "P4"})]})
    r, rd = _runner(tmp_path, agent, max_steps=2, budget_unit="model_step")
    await r.run(_episode())
    ev = [e for e in _events(rd) if e.turn == 1]
    assert [e.args["paper"] for e in ev if e.kind == "tool_call"] == ["P1", "P2", "P3"]
    assert next(e for e in ev if e.kind == "turn_start").budget_unit == "model_step"
    (ex,) = [e for e in ev if e.kind == "budget_exhausted"]
    assert (ex.unit, ex.model_steps, ex.tool_calls) == ("model_step", 2, 3)


async def test_calls_of_one_reply_past_the_tool_call_budget_are_recorded_not_run(tmp_path):
    three = ToolCalls(calls=[ToolCall(tool="echo", args={"paper": p}, call_id=p) for p in ("P1", "P2", "P3")])
    agent = ScriptedAgent({1: [three]})
    r, rd = _runner(tmp_path, agent, max_steps=2)
    await r.run(_episode())
    calls = [e for e in _events(rd) if e.kind == "tool_call" and e.turn == 1]
    assert [(c.args["paper"], c.executed, c.counted, c.error_kind) for c in calls] == [
        ("P1", True, True, None), ("P2", True, True, None), ("P3", False, False, "refused")]
    fallback = [v for v in agent.views if v.fallback][0]
    assert [(o.call_id, o.counted) for o in fallback.memory] == [("P1", True), ("P2", True), ("P3", False)]


class LoopAgent(BaseAgent):
    """Owns its loop and never stops on its own: only the session's budget can end the turn."""

    name = "loop"

    def __init__(self, announce_steps: bool):
        self.announce = announce_steps

    def owns_turn(self, view):
        return bool(view.tools)

    async def run_turn(self, ctx):
        while True:
            if self.announce:
                ctx.begin_step()
            await ctx.call_tool("echo", {"paper": "P1"})

    async def step(self, ctx):
        return FinalAnswer(answer="fallback" if ctx.view.fallback else "memory")


async def test_a_loop_agent_is_held_to_the_same_budget(tmp_path):
    # announcing its steps, the 4th step is refused before its call; calling tools without announcing, each
    # call is a model step and the 4th is refused and recorded
    for announce, unit, counted in ((True, "tool_call", [True] * 3), (True, "model_step", [True] * 3),
                                    (False, "tool_call", [True, True, True, False]),
                                    (False, "model_step", [True, True, True, False])):
        r, rd = _runner(tmp_path / f"{unit}-{announce}", LoopAgent(announce), max_steps=3, budget_unit=unit)
        out = await r.run(_episode())
        ev = _events(rd)
        calls = [e for e in ev if e.kind == "tool_call" and e.turn == 1]
        assert [c.counted for c in calls] == counted, (unit, announce)
        assert out.answers == ["fallback", "memory"]
        assert next(e for e in ev if e.kind == "final_answer").source == "budget_fallback"


async def test_an_object_that_is_not_an_agent_is_refused_before_the_run(tmp_path, tiny_sandbox, tiny_episodes, monkeypatch):
    import pytest

    from harness.runner import RunSetupError, run_episodes

    class NotAnAgent:
        name = "half"

        async def step(self, ctx):
            return FinalAnswer(answer="x")

    monkeypatch.setenv("EPI_SANDBOX_DIR", str(tiny_sandbox))
    settings = RunSettings(agent="oracle", episodes=tiny_episodes, results=tmp_path, run_id="r", score=False)
    with pytest.raises(RunSetupError, match=r"NotAnAgent does not implement the agent protocol.*missing uses_gold, "
                                            r"memory_modes, preflight, start_episode, owns_turn, run_turn, end_episode"):
        await run_episodes(settings, agent_factory=NotAnAgent)


def test_the_harness_never_probes_an_agent_for_attributes():
    root = Path(__file__).resolve().parents[2] / "harness"
    hits = [f"{p}:{n}" for p in root.rglob("*.py") for n, line in enumerate(p.read_text().splitlines(), 1)
            if "getattr(agent" in line or "hasattr(agent" in line]
    assert hits == []
