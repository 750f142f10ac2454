"""A built-in agent (`openai`, `smol-tools`, ...) as an agent program: `python -m harness.bridge.host openai`.

It speaks the bridge protocol on stdin/stdout and gives the agent a TurnContext whose every call goes to the
bridge: tool calls to the tool endpoint, model requests (the agent's own client) to the model endpoint with
the episode token as the key. The turn loop is the runner's, played on this side: model steps until an
answer or until the budget (mirrored from the turn line and the tool endpoint's answers) is used up, then one
request without tools. The harness keeps the real budget and writes the trace; this side records nothing.

Why: the agents we trust, run both ways on the same scripted model, must leave the same trace
(tests/bridge/test_bridge_builtin.py): that shows the bridge adds nothing and loses nothing. Runs unconfined
(or with the harness installed where the sandbox can see it): it imports the harness.
"""
from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import httpx

from harness.agent import (
    AgentConfig,
    AnswerSpec,
    BudgetExhaustedError,
    EpisodeInfo,
    FinalAnswer,
    MemoryCompaction,
    MemoryImage,
    NoToolStep,
    Observation,
    ToolCall,
    ToolCalls,
    ToolSpec,
    TurnContext,
    TurnRecord,
    TurnView,
)
from harness.budget import StepBudget
from harness.chat_body import ChatBody
from harness.trace import TokenUsage
from tools import EvidenceUnit


class RemoteContext(TurnContext):
    """One turn's context on the program's side: the view and a mirror of the budget; tools over HTTP."""

    def __init__(self, view: TurnView, client: httpx.AsyncClient, tool_url: str, memory: list[Observation],
                 images_dir: Path):
        self._view = view
        self._client = client
        self._tool_url = tool_url
        self._memory = memory
        self._images = images_dir
        self.budget = StepBudget(limit=view.max_steps, unit=view.budget_unit)
        self.fallback = False

    @property
    def view(self) -> TurnView:
        return self._view

    def _refresh(self, **update: Any) -> None:
        b = self.budget
        self._view = self._view.model_copy(update={"steps_used": b.used, "no_tool_steps": b.no_tool_steps,
                                                   "memory": list(self._memory), **update})

    def enter_fallback(self) -> None:
        self.fallback = True
        self.budget.step_open = False
        self._refresh(fallback=True, tools=[])

    @property
    def exhausted(self) -> bool:
        return self.fallback or self.budget.ran_out is not None

    def begin_step(self) -> None:
        if self.fallback or not self.budget.begin_step():
            raise BudgetExhaustedError("the turn's budget is used up")
        self._refresh()

    async def call_tool(self, tool: str, args: dict[str, Any], reasoning: str | None = None, *,
                        raw_arguments: str | None = None, call_id: str | None = None) -> Observation:
        body: dict[str, Any] = {"name": tool, "arguments": raw_arguments if raw_arguments is not None else args}
        if call_id is not None:
            body["id"] = call_id
        if reasoning is not None:
            body["reasoning"] = reasoning
        counted = not self.fallback and self.budget.take_call()
        resp = await self._client.post(self._tool_url, content=json.dumps(body))
        data = resp.json()
        if resp.status_code != 200:
            raise RuntimeError(f"the bridge's tool endpoint answered {resp.status_code}: {data}")
        images = []
        for im in data.get("images") or []:
            png = base64.b64decode(im["base64"])
            p = self._images / f"{hashlib.sha256(png).hexdigest()}.png"
            if not p.exists():
                p.write_bytes(png)
            images.append(MemoryImage(path=str(p), caption=im.get("caption")))
        obs = Observation(turn=self._view.turn, step=self.budget.used, tool=tool, args=args if raw_arguments is None else {},
                          raw_arguments=raw_arguments, call_id=call_id, text=data.get("content") or "", images=images,
                          provenance=[EvidenceUnit.model_validate(p) for p in data.get("provenance") or []],
                          error=data.get("error"), counted=counted and not data.get("refused"))
        self._memory.append(obs)
        self._refresh()
        if not obs.counted:
            raise BudgetExhaustedError(data.get("error") or "refused")
        return obs

    def no_tool_step(self, step: NoToolStep) -> None:
        if not self.budget.step_open and self.budget.unit == "model_step":
            self.budget.begin_step()
        self.budget.end_step_without_tool()
        self._refresh()

    def record_model_call(self, *, model: str, request: dict[str, Any] | None, response: dict[str, Any] | None,
                          usage: TokenUsage, latency_s: float, tools_offered: list[str], body: ChatBody | None = None,
                          error: str | None = None) -> None:
        return None  # the bridge records what it forwarded

    def record_retry(self, attempt: int, error: str, wait_s: float) -> None:
        return None

    def record_memory(self, compaction: MemoryCompaction) -> None:
        return None

    async def model_slot(self) -> None:
        return None


def _view(episode: dict[str, Any], line: dict[str, Any], memory: list[Observation],
          history: list[TurnRecord]) -> TurnView:
    tools = [ToolSpec(name=t["function"]["name"], description=t["function"].get("description") or "",
                      parameters=t["function"].get("parameters") or {}) for t in line["tools"]]
    cue = line.get("cue_image")
    return TurnView(episode_id=episode["episode_id"], turn=line["turn"], n_turns=line["n_turns"],
                    question=line["question"], cue_text=line.get("cue_text"), cue_image=cue["path"] if cue else None,
                    answer_spec=AnswerSpec.model_validate(line["answer_spec"]), tools=tools,
                    max_steps=line["budget"]["max_steps"], budget_unit=line["budget"]["unit"],
                    memory_only=line.get("memory_only", False), memory=list(memory), history=list(history))


async def _turn(agent: Any, ctx: RemoteContext) -> FinalAnswer | None:
    """The runner's turn loop (harness.episode_runner), on this side of the bridge."""
    if agent.owns_turn(ctx.view):
        try:
            result: FinalAnswer = await agent.run_turn(ctx)
            return result
        except BudgetExhaustedError:
            return None
    while True:
        try:
            ctx.begin_step()
        except BudgetExhaustedError:
            return None
        action = await agent.step(ctx)
        if isinstance(action, FinalAnswer):
            return action
        if isinstance(action, (ToolCall, ToolCalls)):
            for call in action.calls if isinstance(action, ToolCalls) else [action]:
                try:
                    await ctx.call_tool(call.tool, call.args, call.reasoning, raw_arguments=call.raw_arguments,
                                        call_id=call.call_id)
                except BudgetExhaustedError:
                    continue
        elif isinstance(action, NoToolStep):
            ctx.no_tool_step(action)
        if ctx.exhausted:
            return None


async def main(name: str) -> None:
    from agents import make_agent

    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    episode = json.loads(await reader.readline())
    os.environ["EPI_BRIDGE_KEY"] = episode["token"]
    config = AgentConfig(model=episode["model"], base_url=episode["base_url"], api_key_env="EPI_BRIDGE_KEY",
                         max_retries=0)
    agent = make_agent(name, config)
    if name == "smol-code":  # its code runs here, in this program's sandbox (a jail cannot start inside one)
        agent.run_code_here = True  # type: ignore[attr-defined]
    images = Path(episode["scratch"]) / "tool-images"
    images.mkdir(parents=True, exist_ok=True)
    client = httpx.AsyncClient(headers={"Authorization": f"Bearer {episode['token']}",
                                        "Content-Type": "application/json"}, timeout=600)
    tools = [ToolSpec(name=t["function"]["name"], description=t["function"].get("description") or "",
                      parameters=t["function"].get("parameters") or {}) for t in episode["tools"]]
    await agent.start_episode(EpisodeInfo(episode_id=episode["episode_id"], n_turns=episode["n_turns"], split="",
                                          task_type="", initiation="", area="", tools=tools))
    memory: list[Observation] = []
    history: list[TurnRecord] = []
    try:
        while raw := await reader.readline():
            line = json.loads(raw)
            if line["type"] == "end":
                break
            ctx = RemoteContext(_view(episode, line, memory, history), client, episode["tool_call_url"], memory, images)
            action = await _turn(agent, ctx)
            if action is None:
                ctx.enter_fallback()
                fallback = await agent.step(ctx)
                action = fallback if isinstance(fallback, FinalAnswer) else FinalAnswer(answer=None)
            history.append(TurnRecord(turn=line["turn"], question=line["question"], answer=action.answer))
            sys.stdout.write(json.dumps({"type": "answer", "turn": line["turn"], "answer": action.answer,
                                         "reasoning": action.reasoning}) + "\n")
            sys.stdout.flush()
    finally:
        await agent.end_episode()
        await client.aclose()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m harness.bridge.host AGENT   (a built-in agent name, e.g. openai)")
    asyncio.run(main(sys.argv[1]))
