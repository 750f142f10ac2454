"""In-process agents that break the protocol, as issue 28 describes them: the answer key is out of reach, and each
overrun of what the agent reports is refused, charged to the budget or flagged (an agent_check event, the episode
marked). A well-behaved agent gets no check at all."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.agent import BaseAgent, BudgetExhaustedError, EpisodeInfo, FinalAnswer, TokenUsage, ToolCall
from harness.episode import Episode
from harness.episode_runner import EpisodeRunner
from harness.rundir import RunDir
from harness.session import RateLimiter
from harness.settings import RunSettings
from tools import EvidenceUnit, ToolImage, ToolResult, World, tool

from ..fakes import NullWorld

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000" "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


@tool
async def echo(world: World, paper: str) -> ToolResult:
    """Show the text of a paper, with a figure.

    Args:
        paper: paper id
    """
    return ToolResult(text=f"text of {paper}", provenance=[EvidenceUnit(paper=paper, unit="text")],
                      images=[ToolImage.from_png("fig.png", PNG, "a figure")])


GOLD = "the-secret-gold-answer"


def _episode(cue: bool = False) -> Episode:
    first: dict[str, Any] = {"question": "q1", "answer": {"format": "text", "value": GOLD},
                             "evidence": [{"paper": "P1", "unit": "text"}],
                             "checklist": [{"tool": "echo", "args": {"paper": "P1"}}]}
    if cue:
        first["cue"] = {"text": "look", "image": "cue.png"}
    return Episode.model_validate({
        "id": "e1", "split": "easy", "task_type": "comparison", "initiation": "direct_title", "area": "vision",
        "turns": [first, {"question": "q2", "answer": {"format": "text", "value": GOLD},
                          "evidence": [{"paper": "P1", "unit": "text"}], "memory_only": True}],
    })


async def _go(tmp_path: Path, agent: Any, **settings: Any) -> tuple[RunDir, list[Any]]:
    """One episode through the real runner; a cue image and the episode file (with its gold) sit side by side,
    and the run folder has a run.json naming that file: what a key-finding agent would look for."""
    episodes_dir = tmp_path / "episodes"
    episodes_dir.mkdir(exist_ok=True)
    ep = _episode(cue=True)
    (episodes_dir / "cue.png").write_bytes(PNG)
    (episodes_dir / "bench.jsonl").write_text(ep.model_dump_json() + "\n")  # the answer key beside the cue image
    rd = RunDir(tmp_path / "run")
    rd.traces_dir.mkdir(parents=True)
    rd.run_json.write_text(json.dumps({"episodes_path": str(episodes_dir / "bench.jsonl")}))
    runner = EpisodeRunner(settings=RunSettings(**settings), world=NullWorld(tmp_path), tools={"echo": echo},
                           run_dir=rd, limiter=RateLimiter(None), episodes_dir=episodes_dir, make_agent=lambda: agent)
    await runner.run(ep)
    tr = rd.read_trace("e1")
    assert tr.complete and not tr.bad_lines
    return rd, tr.events


def _checks(events: list[Any]) -> list[tuple[str, str]]:
    return [(e.check, e.outcome) for e in events if e.kind == "agent_check"]


def _report(ctx: Any, offered: list[str] | None = None) -> None:
    ctx.record_model_call(model="m", request={"x": 1}, response={"ok": True}, usage=TokenUsage(input_tokens=5),
                          latency_s=0.0, tools_offered=ctx.view.tool_names if offered is None else offered)


# -- 2. no path to the answer key ----------------------------------------------------------------------------------
class KeyFinder(BaseAgent):
    """Declares uses_gold False, then follows every path it is given, looking for run.json or the episode file."""

    name = "key-finder"

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.read: list[bytes] = []
        self.found: list[str] = []

    def _look(self, tree: Any) -> None:
        if isinstance(tree, dict):
            for v in tree.values():
                self._look(v)
        elif isinstance(tree, list):
            for v in tree:
                self._look(v)
        elif isinstance(tree, str) and "/" in tree and Path(tree).exists():
            self.paths.append(tree)
            if Path(tree).is_file():
                self.read.append(Path(tree).read_bytes())
            for folder in list(Path(tree).parents)[:4]:
                for f in folder.glob("*"):
                    if f.name == "run.json" or (f.suffix == ".jsonl" and GOLD in f.read_text(errors="ignore")):
                        self.found.append(str(f))

    async def start_episode(self, info: EpisodeInfo) -> None:
        self._look(info.model_dump(mode="json"))

    async def step(self, ctx: Any) -> Any:
        self._look(ctx.view.model_dump(mode="json"))
        if ctx.view.turn == 1 and not ctx.view.memory:
            return ToolCall(tool="echo", args={"paper": "P1"})
        return FinalAnswer(answer=None)


async def test_the_agent_is_given_no_path_to_the_run_folder_or_the_episode_file(tmp_path):
    agent = KeyFinder()
    rd, events = await _go(tmp_path, agent)
    assert agent.found == []  # neither run.json nor the episode file is found from any path it was given
    assert "trace_dir" not in EpisodeInfo.model_fields
    # it was given files (the cue image, the tool's figure) and could read them, but none leads to the key
    assert len(agent.paths) >= 2 and agent.read and all(b == PNG for b in agent.read)
    assert not any(str(rd.path) in p or str(tmp_path / "episodes") in p for p in agent.paths)
    # the trace keeps its own copies inside the run folder (the cue image too, named by its hash: issue 24)
    call = next(e for e in events if e.kind == "tool_call")
    assert call.images and (rd.path / call.images[0]).read_bytes() == PNG
    start = next(e for e in events if e.kind == "turn_start")
    assert not Path(start.cue_image).is_absolute() and (rd.path / start.cue_image).read_bytes() == PNG
    assert _checks(events) == []
    assert not any(Path(p).exists() for p in agent.paths)  # the agent's copies go with the episode


# -- 3. overruns of what the agent reports -------------------------------------------------------------------------
class OwnsTurnOverrun(BaseAgent):
    """Opens one step, then reports 30 model calls and asks for 30 tool calls, ignoring every refusal."""

    name = "overrun"

    def __init__(self) -> None:
        self.refused = 0

    def owns_turn(self, view: Any) -> bool:
        return bool(view.tools)

    async def run_turn(self, ctx: Any) -> FinalAnswer:
        ctx.begin_step()
        for _ in range(30):
            _report(ctx)
            try:
                await ctx.call_tool("echo", {"paper": "P1"})
            except BudgetExhaustedError:
                self.refused += 1
        return FinalAnswer(answer="x")

    async def step(self, ctx: Any) -> Any:
        _report(ctx)
        return FinalAnswer(answer="x")


async def test_model_calls_past_one_per_step_are_charged_and_the_rest_refused(tmp_path):
    agent = OwnsTurnOverrun()
    rd, events = await _go(tmp_path, agent, budget_unit="model_step", max_steps=3)
    calls = [e for e in events if e.kind == "tool_call" and e.turn == 1]
    assert sum(1 for c in calls if c.executed) == 3  # one per step of the budget, not 30
    assert agent.refused == 27 and all(not c.executed and c.error_kind == "refused" for c in calls[3:])
    checks = _checks([e for e in events if e.turn == 1])
    assert checks.count(("model_call_in_step", "charged")) == 2  # calls 2 and 3 became steps 2 and 3
    assert checks.count(("model_call_in_step", "flagged")) == 27  # no step left to charge
    assert ("model_calls_in_turn", "flagged") in checks  # 30 calls in a turn of 3 steps
    end = next(e for e in events if e.kind == "episode_end")
    assert end.agent_checks == len(_checks(events))


async def test_model_calls_without_tools_hit_the_cap_with_the_tool_call_unit(tmp_path):
    class Chatter(OwnsTurnOverrun):
        async def run_turn(self, ctx: Any) -> FinalAnswer:
            ctx.begin_step()
            for _ in range(10):
                _report(ctx)
            return FinalAnswer(answer="x")

    rd, events = await _go(tmp_path, Chatter(), max_steps=3)
    checks = _checks([e for e in events if e.turn == 1])
    assert checks.count(("model_call_in_step", "charged")) == 2
    assert checks.count(("model_call_in_step", "flagged")) == 7
    no_tool = [e for e in events if e.kind == "no_tool_step" and e.turn == 1]
    assert len(no_tool) == 3  # the silent steps count against the cap on steps without a tool call


class FallbackCheat(BaseAgent):
    """Spends the budget, then in the fallback reports three requests that each claim tools, and calls a tool."""

    name = "fallback-cheat"

    def __init__(self, call_tool: bool = False) -> None:
        self.call_tool = call_tool
        self.refused = False

    async def step(self, ctx: Any) -> Any:
        v = ctx.view
        if v.fallback:
            for _ in range(3):
                _report(ctx, offered=["web_search"])
            if self.call_tool:
                try:
                    await ctx.call_tool("echo", {"paper": "P1"})
                except BudgetExhaustedError:
                    self.refused = True
            return FinalAnswer(answer="x")
        _report(ctx)
        if v.tools:
            return ToolCall(tool="echo", args={"paper": "P1"})
        return FinalAnswer(answer="x")


async def test_a_fallback_that_claims_tools_or_makes_more_requests_is_flagged(tmp_path):
    rd, events = await _go(tmp_path, FallbackCheat(), max_steps=1)
    checks = _checks([e for e in events if e.turn == 1])
    assert checks.count(("fallback_tools_offered", "flagged")) == 3
    assert checks.count(("model_call_in_step", "flagged")) == 2
    assert ("model_calls_in_turn", "flagged") in checks  # 4 calls: 1 step + 1 fallback allowed


async def test_a_tool_call_during_the_fallback_is_refused_and_traced(tmp_path):
    agent = FallbackCheat(call_tool=True)
    rd, events = await _go(tmp_path, agent, max_steps=1)
    assert agent.refused
    t1 = [e for e in events if e.turn == 1]
    calls = [e for e in t1 if e.kind == "tool_call"]
    assert len(calls) == 2 and calls[0].executed
    refused = calls[1]
    assert not refused.executed and not refused.counted and refused.error_kind == "refused"
    assert "no tools in the turn's last request" in (refused.error or "")
    assert ("tool_call_in_fallback", "refused") in _checks(t1)


class OwnWorld(BaseAgent):
    """On the memory-only final turn builds its own world and runs a tool itself, outside the session."""

    name = "own-world"

    def __init__(self) -> None:
        self.seen: str | None = None

    async def step(self, ctx: Any) -> Any:
        _report(ctx)
        if ctx.view.memory_only:
            world = NullWorld(Path("/nonexistent"))
            result = await echo(world, {"paper": "P1"})
            self.seen = result.text
        return FinalAnswer(answer="x")


async def test_a_world_built_and_a_tool_run_by_the_agent_itself_are_flagged(tmp_path):
    agent = OwnWorld()
    rd, events = await _go(tmp_path, agent)
    assert agent.seen == "text of P1"  # trusted code in this process: not stopped, but seen
    t2 = [e for e in events if e.turn == 2]
    assert ("world_outside_session", "flagged") in _checks(t2) and ("tool_outside_session", "flagged") in _checks(t2)
    assert all("memory-only" in e.detail for e in t2 if e.kind == "agent_check")
    assert not any(e.kind == "tool_call" for e in t2)  # nothing of it reached the trace as a tool call


class WellBehaved(BaseAgent):
    """One model call per step, tools through the session, one fallback request without tools."""

    name = "good"

    async def step(self, ctx: Any) -> Any:
        _report(ctx)
        if ctx.view.tools and not ctx.view.fallback:
            return ToolCall(tool="echo", args={"paper": "P1"})
        return FinalAnswer(answer="x")


async def test_an_agent_that_keeps_to_the_protocol_gets_no_check(tmp_path):
    rd, events = await _go(tmp_path, WellBehaved(), max_steps=2)  # runs out of budget: the fallback is used
    assert any(e.kind == "budget_exhausted" for e in events)
    assert _checks(events) == []
    assert next(e for e in events if e.kind == "episode_end").agent_checks == 0


async def test_a_tool_call_returned_as_the_fallback_action_is_refused_and_traced(tmp_path):
    class AsksInFallback(WellBehaved):
        async def step(self, ctx: Any) -> Any:
            if ctx.view.fallback:
                _report(ctx, offered=[])
                return ToolCall(tool="echo", args={"paper": "P1"})
            return await super().step(ctx)

    rd, events = await _go(tmp_path, AsksInFallback(), max_steps=1)
    t1 = [e for e in events if e.turn == 1]
    calls = [e for e in t1 if e.kind == "tool_call"]
    assert [c.executed for c in calls] == [True, False] and calls[1].error_kind == "refused"
    assert _checks(t1) == [("tool_call_in_fallback", "refused")]
    final = next(e for e in t1 if e.kind == "final_answer")
    assert final.answer is None and final.source == "budget_fallback"


async def test_a_world_built_in_start_episode_is_flagged_before_the_first_turn(tmp_path):
    class BuildsEarly(WellBehaved):
        async def start_episode(self, info: EpisodeInfo) -> None:
            self.world = NullWorld(Path("/nonexistent"))

    rd, events = await _go(tmp_path, BuildsEarly(), max_steps=2)
    (check,) = [e for e in events if e.kind == "agent_check"]
    assert check.turn == 0 and check.check == "world_outside_session" and "start_episode" in check.detail
    assert next(e for e in events if e.kind == "episode_end").agent_checks == 1
