"""The oracle: a self-test of the harness, not a candidate. It follows each turn's gold checklist with
real tool calls and then answers with the gold answer, so on a sound benchmark and harness it scores
ESR 100, EC 100 and MG 1.0 exactly. Reports label it as using gold (`uses_gold = True`).
"""
from __future__ import annotations

import json

from harness.agent import AgentConfig, BaseAgent, EpisodeInfo, FinalAnswer, ToolCall, TurnContext
from harness.episode import Answer, Episode

from ._report_writing import write_report


def format_gold(answer: Answer) -> str:
    """The gold value as an answer string the deterministic matcher accepts."""
    v = answer.value
    if answer.format == "set":
        items = v if isinstance(v, list) else [v]
        return "; ".join(str(x) for x in items)
    if answer.format == "number":
        f = float(v)  # type: ignore[arg-type]
        return str(int(f)) if f.is_integer() else repr(f)
    return str(v)


class OracleAgent(BaseAgent):
    """Issues exactly the checklist calls of each turn, in order, then the gold answer."""

    name = "oracle"
    uses_gold = True

    def __init__(self, config: AgentConfig):
        self.config = config
        self._episode: Episode | None = None
        self._turn = 0
        self._issued = 0

    async def start_episode(self, info: EpisodeInfo) -> None:
        if info.episode is None:
            raise ValueError("the oracle needs the gold episode (uses_gold agents get info.episode)")
        self._episode = info.episode
        self._turn = 0
        self._issued = 0

    async def step(self, ctx: TurnContext) -> ToolCall | FinalAnswer:
        assert self._episode is not None, "start_episode was not called"
        view = ctx.view
        if view.turn != self._turn:
            self._turn, self._issued = view.turn, 0
        if view.turn > len(self._episode.turns) and self._episode.report is not None:
            return self._report_step(view)
        turn = self._episode.turns[view.turn - 1]
        if not view.fallback and self._issued < len(turn.checklist):
            item = turn.checklist[self._issued]
            self._issued += 1
            return ToolCall(tool=item.tool, args=dict(item.args),
                            reasoning=f"gold checklist step {self._issued}/{len(turn.checklist)}: {json.dumps(item.args)}")
        return FinalAnswer(answer=format_gold(turn.answer), reasoning="gold answer")

    def _report_step(self, view) -> ToolCall | FinalAnswer:  # noqa: ANN001 - a TurnView
        """The report turn: open what the gold claims cite and no earlier turn opened, then write every gold
        claim, each with its citation, in varied phrasing (the self-test of the report metrics)."""
        assert self._episode is not None and self._episode.report is not None
        rep = self._episode.report
        if not view.fallback and self._issued < len(rep.checklist):
            item = rep.checklist[self._issued]
            self._issued += 1
            return ToolCall(tool=item.tool, args=dict(item.args), reasoning="gold report checklist")
        return FinalAnswer(answer=write_report(rep.gold, view.answer_spec.report, self._episode.id),
                           reasoning="the gold claim set, written out")

    async def end_episode(self) -> None:
        self._episode = None
