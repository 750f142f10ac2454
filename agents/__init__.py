"""Candidate agents behind the harness's agent protocol (harness.agent). Looked up by name."""
from __future__ import annotations

import importlib
from typing import Any

from harness.agent import Agent, AgentConfig

AGENT_FACTORIES: dict[str, str] = {
    "oracle": "agents.oracle:OracleAgent",
    "heuristic": "agents.heuristic:HeuristicAgent",
    "text-only": "agents.text_only:TextOnlyAgent",
    "openai": "agents.openai_chat:OpenAIChatAgent",
    "smol-code": "agents.smol:SmolCodeAgent",
    "smol-tools": "agents.smol:SmolToolCallingAgent",
    "replay": "agents.replay:ReplayAgent",
    "human": "agents.human:HumanAgent",
    "bridge": "harness.bridge.agent:BridgeAgent",
}


class UnknownAgent(KeyError):
    def __str__(self) -> str:
        return self.args[0]


def agent_class(name: str) -> type[Any]:
    """The class registered under `name` (its module is imported now; class attributes such as
    `memory_modes` can be read without building an agent)."""
    if name not in AGENT_FACTORIES:
        raise UnknownAgent(f"unknown agent {name!r}; known agents: {', '.join(AGENT_FACTORIES)}")
    mod_name, cls_name = AGENT_FACTORIES[name].split(":")
    cls: type[Any] = getattr(importlib.import_module(mod_name), cls_name)
    return cls


def make_agent(name: str, config: AgentConfig | None = None) -> Agent:
    """Build the agent registered under `name` with its config."""
    agent: Agent = agent_class(name)(config or AgentConfig())
    return agent
