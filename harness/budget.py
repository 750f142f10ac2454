"""A turn's step budget: the one limit on what an agent may do in a turn, kept by the tool session.

Two units (recorded in `turn_start.budget_unit`):
- `tool_call` (default): the budget counts tool calls asked for, run or refused (a tool not offered,
  arguments that are not JSON or fail the schema). This is the paper's setting: seed 004 sec. 5.5
  varies "the maximum number of tool calls" S_max in {5, 10, 15}. Model steps that call no tool (a
  plan, an empty or unparseable reply, code that only prints) do not use the budget but are capped
  at the same number, so a model that never acts still ends.
- `model_step`: the budget counts model steps (one model action, with any number of tool calls), the
  way smolagents' `max_steps` counts them. With one tool call per step, as the paper's CodeAgent
  prompt asks, the two units agree.
Whichever runs out first ends the turn with exactly one no-tool fallback request.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .trace import BudgetUnit

RanOut = Literal["budget", "no_tool_steps"]


@dataclass
class StepBudget:
    """Counts one turn's steps in its unit and says when no further step may begin."""

    limit: int
    unit: BudgetUnit = "tool_call"
    tool_calls: int = 0  # calls that used the budget (unit tool_call) or were made (unit model_step)
    model_steps: int = 0
    no_tool_steps: int = 0
    step_open: bool = False  # a model step has begun and may still call tools
    calls_in_step: int = 0

    @property
    def used(self) -> int:
        return self.tool_calls if self.unit == "tool_call" else self.model_steps

    @property
    def left(self) -> int:
        return max(0, self.limit - self.used)

    @property
    def ran_out(self) -> RanOut | None:
        """What stops the next model step from beginning, if anything."""
        if self.used >= self.limit:
            return "budget"
        if self.unit == "tool_call" and self.no_tool_steps >= self.limit:
            return "no_tool_steps"
        return None

    def begin_step(self) -> bool:
        """Open a model step; False (nothing counted) when the budget or the no-tool cap is used up."""
        if self.ran_out is not None:
            return False
        self.model_steps += 1
        self.step_open, self.calls_in_step = True, 0
        return True

    def take_call(self) -> bool:
        """Count one tool call; False when it falls past the budget (it must be refused, not run).

        With unit model_step a call outside any open step opens one (an agent that calls tools without
        announcing its model steps still spends one step per call)."""
        if self.unit == "tool_call":
            if self.tool_calls >= self.limit:
                return False
            self.tool_calls += 1
            self.calls_in_step += 1
            return True
        implicit = not self.step_open
        if implicit and not self.begin_step():
            return False
        self.tool_calls += 1
        self.calls_in_step += 1
        if implicit:
            self.step_open = False
        return True

    def end_step_without_tool(self) -> None:
        """The open model step ended with neither a tool call nor an answer."""
        self.no_tool_steps += 1
        self.step_open = False
