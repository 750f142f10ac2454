"""The agent protocol: the first file a new agent author reads.

Per turn the harness gives the agent a TurnContext: the question, the seed cue, the tools it may call
(name, description, JSON schema), its remaining step budget and the episode memory. The agent answers
with an Action: a ToolCall or a FinalAnswer. The harness runs the tool through the tool session
(checking the allowed set and the budget, recording the trace, appending to memory) and asks again.

Agents that own their loop (smolagents) implement `run_turn` instead and call `ctx.call_tool`, which
goes through the same tool session. Either way an agent never touches a tool directly.

When the step budget runs out, the harness calls `step` once more with `ctx.view.fallback = True` and
no tools: the agent must return a FinalAnswer from what it gathered (one model request, no tools).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from tools import EvidenceUnit

from .episode import AnswerFormat, Episode
from .trace import TokenUsage


class ToolSpec(BaseModel):
    """A tool as the model sees it."""

    name: str
    description: str
    parameters: dict[str, Any]


class MemoryImage(BaseModel):
    path: str = Field(description="PNG file saved next to the trace")
    caption: str | None = None


class Observation(BaseModel):
    """What one tool call showed the agent; also one item of the episode memory."""

    turn: int
    step: int
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    text: str = ""
    images: list[MemoryImage] = Field(default_factory=list)
    data: dict[str, Any] | None = None
    provenance: list[EvidenceUnit] = Field(default_factory=list, description="the evidence units the result exposed")
    error: str | None = None


class TurnRecord(BaseModel):
    """A finished turn as kept in memory: the question and the answer the agent gave."""

    turn: int
    question: str
    answer: str | None


class AnswerSpec(BaseModel):
    """What kind of answer is expected (never the gold value)."""

    format: AnswerFormat
    choices: dict[str, str] | None = None
    unit: str | None = None


class TurnView(BaseModel):
    """Everything an agent may know at one decision point of a turn."""

    episode_id: str
    turn: int = Field(description="1-based turn index")
    n_turns: int
    question: str
    cue_text: str | None = None
    cue_image: str | None = Field(default=None, description="absolute path of the cue image, if any")
    answer_spec: AnswerSpec
    tools: list[ToolSpec]
    max_steps: int
    steps_used: int
    memory_only: bool = False
    fallback: bool = Field(default=False, description="budget used up: answer now, no tools")
    memory: list[Observation] = Field(default_factory=list, description="every observation of the episode so far")
    history: list[TurnRecord] = Field(default_factory=list, description="earlier turns and their answers")

    @property
    def budget_left(self) -> int:
        return max(0, self.max_steps - self.steps_used)

    @property
    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]


class ToolCall(BaseModel):
    kind: Literal["tool_call"] = "tool_call"
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    reasoning: str | None = None
    call_id: str | None = None


class FinalAnswer(BaseModel):
    kind: Literal["final_answer"] = "final_answer"
    answer: str | None
    reasoning: str | None = None


Action = ToolCall | FinalAnswer


class BudgetExhaustedError(Exception):
    """Raised by ctx.call_tool when the turn's step budget is used up (loop agents)."""


class ProviderError(Exception):
    """The model endpoint failed (rate limit, 5xx, timeout, connection) after retries."""


class ModelOutputError(Exception):
    """The model gave no usable output (empty, unparseable) and the agent cannot go on."""


class TurnContext(ABC):
    """The harness side of a turn, handed to the agent. Implemented by harness.session."""

    view: TurnView

    @abstractmethod
    async def call_tool(self, tool: str, args: dict[str, Any], reasoning: str | None = None) -> Observation:
        """Run a tool through the tool session (loop agents). Counts a step; raises BudgetExhaustedError."""

    @abstractmethod
    def record_model_call(
        self,
        *,
        model: str,
        request: dict[str, Any] | None,
        response: dict[str, Any] | None,
        usage: TokenUsage,
        latency_s: float,
        tools_offered: list[str],
    ) -> None:
        """Write a model_call event (the agent reports every request it makes)."""

    @abstractmethod
    def record_retry(self, attempt: int, error: str, wait_s: float) -> None:
        """Write a retry event for a provider error that is being retried."""

    async def model_slot(self) -> None:
        """Await this before each model request: it applies the run's shared rate limit for model requests."""
        return None


class AgentConfig(BaseModel):
    """Options shared by agents; each agent reads what it needs."""

    model: str | None = Field(default=None, description="model name at the endpoint")
    base_url: str | None = Field(default=None, description="OpenAI-compatible base URL")
    api_key_env: str = Field(default="OPENAI_API_KEY", description="environment variable holding the API key")
    temperature: float | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    memory_mode: Literal["conversation", "summary"] = "conversation"
    context_tokens: int | None = Field(default=None, description="summarize older turns past this size")
    request_timeout_s: float = 60.0
    max_retries: int = 4
    replay_run: Path | None = Field(default=None, description="replay agent: the run to replay")
    extra: dict[str, Any] = Field(default_factory=dict)


class EpisodeInfo(BaseModel):
    """What an agent learns at episode start. `episode` (with gold answers) only for uses_gold agents."""

    episode_id: str
    n_turns: int
    split: str
    task_type: str
    initiation: str
    area: str
    episode: Episode | None = None
    trace_dir: str | None = None


@runtime_checkable
class Agent(Protocol):
    name: str
    uses_gold: bool

    async def start_episode(self, info: EpisodeInfo) -> None: ...

    async def step(self, ctx: TurnContext) -> Action: ...

    async def end_episode(self) -> None: ...
