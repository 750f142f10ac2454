"""smolagents Tool classes generated from the harness's ToolSpecs; their `forward` calls the tool session."""
from __future__ import annotations

import json
from typing import Any, Callable

from harness.agent import BudgetExhaustedError, Observation, ToolSpec

from ._prompt import observation_text

HarnessCall = Callable[..., Observation]  # (tool name, args, raw_arguments=None) -> the session's observation

_JSON_TO_SMOL = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean",
                 "array": "array", "object": "object"}


def _smol_type(prop: dict[str, Any]) -> str:
    t = prop.get("type")
    if isinstance(t, str) and t in _JSON_TO_SMOL:
        return _JSON_TO_SMOL[t]
    return "any"


def make_smol_tools(specs: list[ToolSpec], call: HarnessCall, *, images: bool = True) -> list[Any]:
    """One smolagents Tool per offered harness tool; calling it runs the harness tool and returns its text
    (`images` False: a text-only run, whose results say their images are not available)."""
    from smolagents import Tool

    tools = []
    for spec in specs:
        props: dict[str, Any] = spec.parameters.get("properties", {})
        required = set(spec.parameters.get("required", []))
        inputs: dict[str, dict[str, Any]] = {}
        for name, prop in props.items():
            entry: dict[str, Any] = {"type": _smol_type(prop), "description": prop.get("description") or name}
            # the bounds and choices of the harness's schema (smolagents passes extra keys through to the request)
            entry.update({k: prop[k] for k in ("enum", "minimum", "maximum") if k in prop})
            if name not in required:
                entry["nullable"] = True
            inputs[name] = entry
        order = list(props)

        def forward(self: Any, *args: Any, **kwargs: Any) -> str:
            params = dict(zip(self._order, args))
            params.update({k: v for k, v in kwargs.items() if v is not None})
            return observation_text(self._call(self.name, params), images=self._images)

        cls = type(f"Harness_{spec.name}", (Tool,), {
            "name": spec.name, "description": spec.description, "inputs": inputs, "output_type": "string",
            "skip_forward_signature_validation": True, "forward": forward,
        })
        tool = cls()
        tool._order, tool._call, tool._images = order, call, images
        tools.append(tool)
    return tools


def harness_tool_calling_agent_class() -> type:
    """A ToolCallingAgent that sends every non-final call to the harness, unknown names and raw args included,
    so the tool session counts and records it (the stock agent would refuse those without a trace). A call
    past the budget is refused and recorded by the session; the model reads why."""
    from smolagents import ToolCallingAgent

    class HarnessToolCallingAgent(ToolCallingAgent):  # type: ignore[misc]
        def __init__(self, *args: Any, harness_call: HarnessCall, harness_images: bool = True, **kwargs: Any):
            self._harness_call = harness_call
            self._harness_images = harness_images
            super().__init__(*args, **kwargs)

        def execute_tool_call(self, tool_name: str, arguments: dict[str, Any] | str) -> Any:
            if tool_name == "final_answer" or tool_name in self.managed_agents:
                return super().execute_tool_call(tool_name, arguments)
            raw: str | None = None
            if isinstance(arguments, str):
                try:
                    parsed = json.loads(arguments) if arguments.strip() else {}
                except json.JSONDecodeError:
                    parsed = None
                args, raw = (parsed, None) if isinstance(parsed, dict) else ({}, arguments)
            else:
                args = dict(arguments or {})
            try:
                return observation_text(self._harness_call(tool_name, args, raw), images=self._harness_images)
            except BudgetExhaustedError as e:
                return f"ERROR: not run: {e}"

    return HarnessToolCallingAgent
