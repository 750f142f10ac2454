"""The agent protocol: the first file a new agent author reads. Everything the runner calls is here.

Per turn the harness gives the agent a TurnContext: the question, the seed cue, the tools it may call
(name, description, JSON schema), its step budget and the episode memory. A step agent answers each
`step` with one Action, one model step: a ToolCall, several ToolCalls from one reply, a FinalAnswer,
or a NoToolStep (a reply that neither called a tool nor answered: a plan, an empty or unparseable
reply). The harness runs the calls through the tool session and asks again.

Agents that own their loop (smolagents) say so per turn with `owns_turn(view)`; the runner then calls
`run_turn`, and the agent opens each model step with `ctx.begin_step()`, runs tools with
`ctx.call_tool` and reports steps without a tool call with `ctx.no_tool_step`: the same session, so
the same budget. Either way an agent never touches a tool directly and keeps no limit of its own.

The budget (one, the harness's, enforced by the session): `budget_unit="tool_call"` counts tool calls,
the paper's "maximum number of tool calls" (seed 004 sec. 5.5), and caps model steps without a tool
call at the same number; `"model_step"` counts model steps, as smolagents' `max_steps` does. When
either runs out, the runner calls `step` once more with `ctx.view.fallback` set and no tools: the
agent makes exactly one model request and returns a FinalAnswer.

Your own agent: subclass BaseAgent in a file of your own and run it with `epi run --agent
path/to/my_agent.py:MyAgent` (or `package.module:MyAgent`, or a name registered in the entry-point group
`epiharness.agents`); its constructor takes the run's AgentConfig, or nothing. It runs in the harness's
process (trusted: reports label it "in-process (trusted)"); the tool session checks what it reports (one model
call per step, a fallback without tools) and writes what breaks the rules as `agent_check` trace events.
"""
from __future__ import annotations

import re
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from tools import EvidenceUnit

from .chat_body import ChatBody
from .episode import CITATION_SYNTAX, AnswerFormat, Episode, Persona
from .fieldmeta import cli
from .trace import BudgetUnit, NoToolReason, TokenUsage

MemoryMode = Literal["conversation", "summary"]
FallbackKind = Literal["budget_fallback", "limit_fallback"]

__all__ = [
    "Action", "Agent", "AgentConfig", "AgentProgramError", "AnswerSpec", "BaseAgent", "BudgetExhaustedError", "BudgetUnit", "EpisodeInfo",
    "EvidenceUnit", "FallbackKind", "FinalAnswer", "MemoryCompaction", "MemoryImage", "MemoryMode", "ModelOutputError",
    "NoToolReason", "NoToolStep", "Observation", "ProviderError", "ReportBrief", "TokenUsage", "ToolCall", "ToolCalls",
    "ToolChoice", "ToolSpec", "TurnContext", "TurnRecord", "TurnView", "agent_protocol_problems", "is_placeholder_answer",
]


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
    raw_arguments: str | None = Field(default=None, description="arguments that were not a JSON object, as written")
    call_id: str | None = Field(default=None, description="the id the agent gave the call (matches a ToolCall)")
    text: str = ""
    images: list[MemoryImage] = Field(default_factory=list)
    data: dict[str, Any] | None = None
    provenance: list[EvidenceUnit] = Field(default_factory=list, description="the evidence units the result exposed")
    error: str | None = None
    counted: bool = Field(default=True, description="False: asked for after the budget ran out, not run")


class TurnRecord(BaseModel):
    """A finished turn as kept in memory: the question and the answer the agent gave."""

    turn: int
    question: str
    answer: str | None


class ReportBrief(BaseModel):
    """What a report turn asks for: who reads it, how long it may be, how to cite (never the gold claims)."""

    max_words: int = 1500
    persona: Persona | None = None
    citation_syntax: str = CITATION_SYNTAX


class AnswerSpec(BaseModel):
    """What kind of answer is expected (never the gold value). A report turn has format "report" and a brief."""

    format: AnswerFormat | Literal["report"]
    choices: dict[str, str] | None = None
    unit: str | None = None
    report: ReportBrief | None = None


class TurnView(BaseModel):
    """Everything an agent may know at one decision point of a turn. Read-only: the tool session owns it
    and hands out a new view when the turn moves on (a step, a tool result, the fallback)."""

    model_config = ConfigDict(frozen=True)

    episode_id: str
    turn: int = Field(description="1-based turn index")
    n_turns: int
    question: str
    cue_text: str | None = None
    cue_image: str | None = Field(default=None, description="absolute path of the cue image, if any (the agent's own copy in a scratch folder outside the run, deleted at episode end)")
    answer_spec: AnswerSpec
    tools: list[ToolSpec]
    max_steps: int
    budget_unit: BudgetUnit = "tool_call"
    steps_used: int = Field(default=0, description="budget used so far, in budget_unit")
    no_tool_steps: int = Field(default=0, description="model steps of this turn that called no tool")
    memory_only: bool = False
    fallback: bool = Field(default=False, description="budget used up: answer now, no tools")
    memory: list[Observation] = Field(default_factory=list, description="every observation of the episode so far")
    history: list[TurnRecord] = Field(default_factory=list, description="earlier turns and their answers")

    @property
    def budget_left(self) -> int:
        return max(0, self.max_steps - self.steps_used)

    @property
    def no_tool_left(self) -> int:
        """Model steps without a tool call still allowed (the cap; with unit model_step, the budget itself)."""
        if self.budget_unit == "model_step":
            return self.budget_left
        return max(0, self.max_steps - self.no_tool_steps)

    @property
    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]

    @property
    def budget_text(self) -> str:
        """The budget left, in words the model understands ("3 tool calls", "3 steps")."""
        n = self.budget_left
        noun = "tool call" if self.budget_unit == "tool_call" else "step"
        return f"{n} {noun}{'' if n == 1 else 's'}"


class ToolCall(BaseModel):
    kind: Literal["tool_call"] = "tool_call"
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = Field(
        default=None, description="set when the model's arguments were not a JSON object: the session refuses the call")
    reasoning: str | None = None
    call_id: str | None = None


class ToolCalls(BaseModel):
    """Several tool calls from one model reply: one model step. Calls past the budget are refused, not run."""

    kind: Literal["tool_calls"] = "tool_calls"
    calls: list[ToolCall] = Field(min_length=1)


class FinalAnswer(BaseModel):
    kind: Literal["final_answer"] = "final_answer"
    answer: str | None
    reasoning: str | None = None


_PLACEHOLDER = re.compile(r"<\s*[A-Za-z][\w .'-]{0,40}>")
_PLACEHOLDER_GLUE = re.compile(r"\b(?:and|or)\b|[\s;,./|`*\"'()\[\]-]+", re.I)


def is_placeholder_answer(answer: str | None) -> bool:
    """An answer that only repeats a placeholder of the answer instructions (`<answer>`, `<letter>`, `<number>`,
    `<item>; <item>`): no answer. The instructions give placeholders, never a value, as their example, so a
    model that copies the example gives this, and the matcher and the agents treat it as no answer."""
    if not answer or not _PLACEHOLDER.search(answer):
        return False
    rest = _PLACEHOLDER.sub(" ", answer)
    return not _PLACEHOLDER_GLUE.sub("", rest).strip()


class NoToolStep(BaseModel):
    """A model step that neither called a tool nor answered. `feedback` is what the agent tells the model
    about it in its next request (the error, and the two ways to act); the session records both."""

    kind: Literal["no_tool_step"] = "no_tool_step"
    reason: NoToolReason
    reply: str | None = None
    feedback: str = ""


Action = ToolCall | ToolCalls | FinalAnswer | NoToolStep


class MemoryCompaction(BaseModel):
    """What a summary memory mode did to the model's view of earlier turns (recorded in the trace)."""

    turns: list[int]
    kept: list[EvidenceUnit] = Field(default_factory=list)
    dropped: list[EvidenceUnit] = Field(default_factory=list)
    images_dropped: int = 0
    results_cut: int = 0
    note: str = ""


class BudgetExhaustedError(Exception):
    """Raised by the tool session when the turn's budget (or its cap on steps without a tool) is used up."""


class ProviderError(Exception):
    """The model endpoint failed (rate limit, 5xx, timeout, connection) after retries."""


class AgentProgramError(Exception):
    """An agent program run through the bridge failed: it did not start, exited or hung mid-episode, or wrote
    something that is not the protocol. The episode ends as the agent's own failure (bucket `model`: a
    program cannot leave the score by crashing); `detail` is the tail of its stderr, kept in the trace."""

    def __init__(self, message: str, detail: str | None = None):
        super().__init__(message)
        self.detail = detail


class ModelOutputError(Exception):
    """The model gave no usable output and the agent cannot go on."""


class TurnContext(ABC):
    """The harness side of a turn, handed to the agent. Implemented by harness.session.ToolSession."""

    @property
    @abstractmethod
    def view(self) -> TurnView:
        """The agent's view of the turn now (a new object after every change)."""

    @property
    @abstractmethod
    def exhausted(self) -> bool:
        """True once no further model step may begin (the budget or the no-tool cap is used up)."""

    @abstractmethod
    def begin_step(self) -> None:
        """Open one model step; call before each model request that may act. BudgetExhaustedError when none is left."""

    @abstractmethod
    async def call_tool(self, tool: str, args: dict[str, Any], reasoning: str | None = None, *,
                        raw_arguments: str | None = None, call_id: str | None = None) -> Observation:
        """Run a tool through the tool session. A call past the budget is recorded as refused and raises
        BudgetExhaustedError; a tool not offered or bad arguments come back as an error observation."""

    @abstractmethod
    def no_tool_step(self, step: NoToolStep) -> None:
        """Record that the open model step called no tool (loop agents; the runner does it for step agents)."""

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
        body: ChatBody | None = None,
        error: str | None = None,
    ) -> None:
        """Write a model_call event (the agent reports every request it makes, failed attempts too). `body`:
        the exact bytes sent, as parts (then `request` may be None); the trace stores them by content hash.
        `error`: the provider error of an attempt that failed (response None; not counted as a model call)."""

    @abstractmethod
    def record_retry(self, attempt: int, error: str, wait_s: float) -> None:
        """Write a retry event for a provider error that is being retried."""

    @abstractmethod
    def record_memory(self, compaction: MemoryCompaction) -> None:
        """Write what a summary memory mode dropped from the model's view (the scorer's EC follows it)."""

    @abstractmethod
    async def model_slot(self) -> None:
        """Await this before each model request: it applies the run's shared rate limit for model requests."""


ToolChoice = Literal["auto", "required", "none", "omit"]


class AgentConfig(BaseModel):
    """Options shared by agents; each agent reads what it needs."""

    model: str | None = Field(default=None, description="model name at the endpoint")
    base_url: str | None = Field(default=None, description="OpenAI-compatible base URL")
    api_key_env: str = Field(default="OPENAI_API_KEY", description="environment variable holding the API key")
    temperature: float | None = Field(default=None, description="sampling temperature (the endpoint's default if unset)")
    max_tokens: int | None = Field(default=None, ge=1, description="cap on the tokens of one model reply")
    reasoning_effort: str | None = Field(default=None, description="reasoning effort for models that take one (low, medium, high)")
    memory_mode: MemoryMode = Field(
        default="conversation",
        description="conversation: the model sees every earlier turn in full; summary: earlier turns become a digest "
                    "that says what was dropped (model agents only)",
    )
    context_tokens: int | None = Field(
        default=None, ge=1, description="with summary memory: compact only once the conversation grows past this many tokens")
    summary_chars: int = Field(default=600, ge=50, description="with summary memory: characters kept of each earlier tool result")
    tool_choice: ToolChoice = Field(
        default="auto",
        description="tool_choice sent with every request that offers tools: auto (the model chooses; llama-cpp-python "
                    "ignores the tools unless asked this way), required (a tool call every step; llama-cpp-python refuses "
                    "it), none, or omit (not sent: the server's default); requests without tools never carry it")
    images: bool = Field(
        default=True,
        description="send cue and figure images to the model; --no-images: a text-only run (images are not sent and "
                    "the prompt says they are not available), for a server or model without vision")
    request_timeout_s: float = Field(default=300.0, gt=0, description="seconds before one model request times out",
                                     json_schema_extra=cli("--request-timeout"))
    max_retries: int = Field(default=4, ge=0, description="retries of a model request that failed for a provider reason")
    replay_run: Path | None = Field(default=None, description="replay agent: the run to replay")
    agent_cmd: str | None = Field(
        default=None,
        description="run an agent program of your own through the bridge (agent `bridge`): its command line, started "
                    "once per episode; turns as JSON lines on stdin/stdout, model and tools through the harness "
                    "(harness/bridge/PROTOCOL.md)")
    agent_dir: list[Path] = Field(
        default_factory=list,
        description="bridge: a folder the agent program needs (its script, venv or node install), bound read-only into "
                    "its sandbox at the same path; repeatable; the first is its working folder")
    agent_env: list[str] = Field(
        default_factory=list,
        description="bridge: an environment variable the agent program gets (NAME, taken from this environment, or "
                    "NAME=VALUE); repeatable; it gets no other")
    agent_sandbox: Literal["auto", "bwrap", "none"] = Field(
        default="auto",
        description="bridge: bwrap (the agent program runs in a bubblewrap sandbox, or the run refuses), none (runs "
                    "unconfined, labelled so), auto (bwrap where it works, else unconfined, labelled)")
    agent_timeout_s: float = Field(default=600.0, gt=0, description="bridge: seconds an agent program may take for one turn",
                                   json_schema_extra=cli("--agent-timeout"))
    agent_long_lived: bool = Field(
        default=False,
        description="bridge: one agent program takes the run's episodes one after another (after `end`, it reads the "
                    "next episode line) instead of one program per episode; it can carry state across episodes and "
                    "epochs, so the run is labelled -long-lived in every report")
    agent_memory_mb: int | None = Field(default=4096, ge=64,
                                        description="bridge: memory cap of the agent program (its data segment and private writable mappings), in MB")
    extra: dict[str, Any] = Field(default_factory=dict, description="agent-specific options (TOML config only)",
                                  json_schema_extra=cli(hide=True))


class EpisodeInfo(BaseModel):
    """What an agent learns at episode start. `episode` (with gold answers) only for uses_gold agents. Nothing
    here names a place on disk (the run folder, the episode file, the corpus): what an agent sees of the task
    comes through the turn's view and the tool session."""

    episode_id: str
    n_turns: int
    split: str
    task_type: str
    initiation: str
    area: str
    tools: list[ToolSpec] = Field(default_factory=list, description="every tool the run offers on tool turns")
    episode: Episode | None = None


@runtime_checkable
class Agent(Protocol):
    """What the runner calls on an agent, and nothing else. `BaseAgent` supplies the defaults."""

    name: str
    uses_gold: bool
    memory_modes: tuple[MemoryMode, ...]

    async def preflight(self) -> None:
        """Before any episode: refuse to start (ValueError/OSError with a clear message) if unusable."""

    async def start_episode(self, info: EpisodeInfo) -> None: ...

    def owns_turn(self, view: TurnView) -> bool:
        """True: the runner calls `run_turn` for this turn; False: it calls `step` until an answer."""

    async def step(self, ctx: TurnContext) -> Action: ...

    async def run_turn(self, ctx: TurnContext) -> FinalAnswer: ...

    async def end_episode(self) -> None: ...


class BaseAgent:
    """Defaults for the protocol: no gold, full memory only, no pre-run check, a step agent."""

    name: ClassVar[str] = "agent"
    uses_gold: ClassVar[bool] = False
    memory_modes: ClassVar[tuple[MemoryMode, ...]] = ("conversation",)

    async def preflight(self) -> None:
        return None

    async def start_episode(self, info: EpisodeInfo) -> None:
        return None

    def owns_turn(self, view: TurnView) -> bool:
        return False

    async def step(self, ctx: TurnContext) -> Action:
        raise NotImplementedError(f"{type(self).__name__} implements neither step nor run_turn")

    async def run_turn(self, ctx: TurnContext) -> FinalAnswer:
        raise NotImplementedError(f"{type(self).__name__} does not run its own turn loop (owns_turn is False)")

    async def end_episode(self) -> None:
        return None


_MEMBERS = ("name", "uses_gold", "memory_modes", "preflight", "start_episode", "owns_turn", "step", "run_turn",
            "end_episode")


def agent_protocol_problems(agent: object) -> list[str]:
    """The protocol members `agent` lacks (empty when it implements Agent); for one clear setup error."""
    present = set(dir(agent))
    return [m for m in _MEMBERS if m not in present]
