"""One settings model for a run: every field described; flags, a TOML file and named presets fill it.

The `epi run` options are generated from these fields (harness.cli._options): a field's description
is its help text, a Literal its choices, and `cli(...)` (harness.fieldmeta) only renames a flag or
gives it a short form. Agent names come from the agent registry and presets from PRESETS, so no help
text lists them by hand.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from agents import AGENT_FACTORIES, SPEC_FORMS, AgentLoadError, check_name

from .agent import AgentConfig
from .fieldmeta import cli
from .trace import BudgetUnit

DEFAULT_BENCHMARK = "sandbox-v3.jsonl"  # sandbox-v1 and sandbox-v2 stay runnable on their corpora (episodes/README.md)


def _default_episodes() -> Path:
    """The sandbox benchmark: ./episodes/sandbox-v3.jsonl if present, else the one beside the installed code."""
    local = Path("episodes") / DEFAULT_BENCHMARK
    if local.is_file():
        return local
    from sandbox.paths import REPO_DIR

    shipped = REPO_DIR / "episodes" / DEFAULT_BENCHMARK
    return shipped if shipped.is_file() else local


DEFAULT_EPISODES = _default_episodes()


class RunSettings(BaseModel):
    """Everything that decides what a run does. Stored whole in results/<run>/run.json."""

    model_config = ConfigDict(extra="forbid")

    agent: str = Field(default="heuristic", description=f"agent: {', '.join(AGENT_FACTORIES)}, one an installed package "
                                                        f"registers (entry points epiharness.agents), or your own "
                                                        f"{SPEC_FORMS} (in-process, trusted)",
                       json_schema_extra=cli(short="-a"))
    episodes: Path = Field(default=DEFAULT_EPISODES, description="episode file (JSONL) to run", json_schema_extra=cli(short="-e"))
    world: Literal["sandbox", "live"] = Field(default="sandbox", description="where papers come from: the offline corpus or the web")
    sandbox: Path | None = Field(
        default=None, description="corpus folder of the sandbox world (default: $EPI_SANDBOX_DIR, else sandbox/build); "
                                  "e.g. one made by `epi sandbox add --sandbox DIR`")
    max_steps: int = Field(
        default=10, ge=1, description="per-turn step budget, in --budget-unit; then one no-tool fallback request")
    budget_unit: BudgetUnit = Field(
        default="tool_call",
        description="what the budget counts: tool_call (the paper's maximum number of tool calls, sec. 5.5; model steps "
                    "without a tool call are capped at the same number) or model_step (smolagents' steps)",
    )
    disable_tools: list[str] = Field(default_factory=list, description="tools removed from every turn (ablation)",
                                     json_schema_extra=cli("--disable-tool"))
    enable_tools: list[str] = Field(default_factory=list, description="auxiliary tools switched on, e.g. code_exec",
                                    json_schema_extra=cli("--enable-tool"))
    final_turn_tools: bool = Field(default=False, description="offer tools on memory-only final turns too (ablation)")
    concurrency: int = Field(default=4, ge=1, le=256, description="episodes run at once (with the ray executor: per worker)",
                             json_schema_extra=cli(short="-j"))
    model_rps: float | None = Field(
        default=None, gt=0,
        description="rate limit for model requests per second, per model, shared by every run of a grid and every worker",
    )
    epochs: int = Field(default=1, description="times each episode is run; each repeat (epoch) writes its own trace")
    reducer: str = Field(
        default="mean",
        description="how scoring reduces an episode's epochs: mean, majority, pass@K or pass^K (harness/scoring/epochs.py)",
    )
    executor: Literal["local", "ray"] = Field(
        default="local", description="where episodes run: local (asyncio in this process) or ray (a Ray cluster)"
    )
    ray_address: str | None = Field(
        default=None,
        description="Ray cluster (host:port, ray://host:port or auto); default $RAY_ADDRESS, else a private local instance",
    )
    ray_workers: int | None = Field(
        default=None, ge=1, description="Ray worker processes, each running `concurrency` episodes; default one per cluster CPU"
    )
    ray_copy_back: bool = Field(
        default=False,
        description="Ray workers send finished traces back to this machine (no shared results folder between nodes)",
        json_schema_extra=cli(off="--ray-shared-results"),
    )
    job_retries: int = Field(
        default=3, ge=0, description="times a job lost with its worker (process or node died) is run again; never a model failure"
    )
    limit: int | None = Field(default=None, ge=1, description="run only the first N episodes of the file")
    episode_ids: list[str] = Field(default_factory=list, description="run only these episode ids",
                                   json_schema_extra=cli("--episode"))
    run_id: str | None = Field(default=None, description="name of the run directory (default: agent and time)")
    results: Path = Field(default=Path("results"), description="folder that holds run directories")
    max_episode_tokens: int | None = Field(default=None, ge=1, description="per-episode cap on model tokens")
    max_episode_seconds: float | None = Field(default=None, gt=0, description="per-episode cap on wall time")
    step_timeout_s: float = Field(
        default=600.0, gt=0,
        description="seconds an agent step may take before it ends the episode (a turn an agent runs itself: this per "
                    "model step it may take); unset, at least the longest one model request may take with "
                    "--request-timeout and its retries (raise it for the human player)",
        json_schema_extra=cli("--step-timeout"))
    seed: int = Field(default=0, description="seed passed to agents that sample")
    score: bool = Field(default=True, description="score the run when it ends")
    agent_config: AgentConfig = Field(default_factory=AgentConfig, description="model, endpoint and decoding options")

    @field_validator("agent")
    @classmethod
    def _agent(cls, v: str) -> str:
        """Only the form is checked here (a stored run's settings are read without importing anything);
        the run's setup loads the class (harness.runner.check_settings)."""
        try:
            return check_name(v)
        except AgentLoadError as e:
            raise ValueError(str(e)) from None

    @model_validator(mode="after")
    def _bridge_command(self) -> "RunSettings":
        """`--agent-cmd` runs the agent program through the bridge: the agent is `bridge` (set when not given)."""
        cmd = self.agent_config.agent_cmd
        if cmd is not None and self.agent != "bridge":
            if "agent" in self.model_fields_set:
                raise ValueError(f"--agent-cmd runs an agent program through the bridge; it does not go with "
                                 f"--agent {self.agent} (leave --agent out)")
            self.agent = "bridge"
        if self.agent == "bridge" and not (cmd or "").strip():
            raise ValueError("the bridge agent runs an agent program: give its command with --agent-cmd")
        return self

    @field_validator("epochs")
    @classmethod
    def _epochs(cls, v: int) -> int:
        if v < 1:
            raise ValueError(f"must be 1 or more (each episode runs this many times), got {v}")
        return v

    @field_validator("reducer")
    @classmethod
    def _reducer(cls, v: str) -> str:
        if not re.fullmatch(r"mean|majority|pass[@^][1-9][0-9]*", v.strip().lower()):
            raise ValueError(f"{v!r} is not one of mean, majority, pass@K, pass^K (K a whole number), e.g. pass^3")
        return v.strip().lower()

    @model_validator(mode="after")
    def _reducer_fits_epochs(self) -> "RunSettings":
        if self.reducer.startswith("pass") and int(self.reducer[5:]) > self.epochs:
            raise ValueError(f"reducer {self.reducer} needs at least {self.reducer[5:]} epochs; --epochs is {self.epochs}")
        return self

    @model_validator(mode="after")
    def _step_outlasts_a_request(self) -> "RunSettings":
        """A step must not time out while its model request is still within its own timeout and retries: left
        unset, the step timeout covers the longest a request may take (every attempt timing out, every wait at
        its cap) plus a minute, so a slow server is reported as a timed-out request, not as a stuck agent."""
        if "step_timeout_s" not in self.model_fields_set:
            ac = self.agent_config
            waits = ac.max_retries * float(ac.extra.get("retry_max_wait_s", 60.0)) * 1.1
            worst = (ac.max_retries + 1) * ac.request_timeout_s + waits + 60.0
            self.step_timeout_s = max(self.step_timeout_s, worst)
        return self

    @field_validator("run_id")
    @classmethod
    def _run_id(cls, v: str | None) -> str | None:
        from .safe_paths import check_folder_name

        return None if v is None else check_folder_name(v)


PRESETS: dict[str, dict[str, Any]] = {
    "epibench": {"max_steps": 10, "budget_unit": "tool_call", "final_turn_tools": False, "disable_tools": []},
    "quick": {"limit": 10, "concurrency": 4},
    "no-rag": {"disable_tools": ["pdf_rag"]},
    "final-turn-tools": {"final_turn_tools": True},
    "tight-budget": {"max_steps": 5},
}


class SettingsError(ValueError):
    """Settings that cannot be used; the message names the field and the source."""


def load_toml(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SettingsError(f"config file {path} does not exist") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SettingsError(f"config file {path} is not valid TOML: {e}") from None
    return data.get("run", data)


def build_settings(*layers: dict[str, Any], source: str = "options") -> RunSettings:
    """Merge layers (defaults < preset < config file < flags) and validate, naming bad fields."""
    merged: dict[str, Any] = {}
    for layer in layers:
        for k, v in layer.items():
            if v is None:
                continue
            if k == "agent_config" and isinstance(v, dict):
                merged.setdefault("agent_config", {}).update({a: b for a, b in v.items() if b is not None})
            else:
                merged[k] = v
    try:
        settings = RunSettings.model_validate(merged)
    except ValidationError as e:
        msgs = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors())
        raise SettingsError(f"invalid run settings ({source}): {msgs}") from None
    ac = settings.agent_config
    if ac.context_tokens is not None and ac.memory_mode != "summary":
        raise SettingsError(f"invalid run settings ({source}): --context-tokens only applies with --memory-mode summary")
    return settings


PRESET_HELP = "named preset: " + "; ".join(f"{k} ({', '.join(f'{a}={b}' for a, b in v.items())})" for k, v in PRESETS.items())


def preset(name: str) -> dict[str, Any]:
    if name not in PRESETS:
        raise SettingsError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
    return dict(PRESETS[name])
