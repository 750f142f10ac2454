"""smolagents is pinned to the version the adapter was tested with, and every smolagents hook the adapter
overrides or relies on is fingerprinted: an upgrade that changes one fails here, loudly, naming it."""
from __future__ import annotations

import hashlib
import importlib.metadata
import inspect
import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# source fingerprint (sha256, 16 hex) of each hook, with what agents/smol.py relies on
HOOKS: dict[str, tuple[str, str]] = {
    "agents.MultiStepAgent.run": (
        "f58983487e59694e", "resets interrupt_switch, rebuilds the system prompt, appends the task with its images"),
    "agents.MultiStepAgent._run_stream": (
        "9438b1f428e1273e", "checks interrupt_switch before each step, gives every step the task images, runs step "
                            "callbacks before the next step, re-raises AgentGenerationError"),
    "agents.MultiStepAgent._finalize_step": ("e297d37f6e7d09c8", "calls the step callbacks with the finished step"),
    "agents.MultiStepAgent.interrupt": ("55d6bb61ddcc0656", "sets interrupt_switch"),
    "agents.MultiStepAgent.write_memory_to_messages": (
        "e76592bc95622f62", "system prompt first, then every memory step's messages (turns without tools replace the first)"),
    "agents.ToolCallingAgent._step_stream": (
        "fd06141842bc9645", "a reply without tool calls raises AgentParsingError (a step without a tool call)"),
    "agents.ToolCallingAgent.execute_tool_call": (
        "49f55f7f063e410a", "overridden: (tool_name, arguments) -> observation, called once per tool call"),
    "agents.CodeAgent._step_stream": (
        "e027f0eaa32a8d94", "appends the closing code tag to the output, parse errors are AgentParsingError, "
                            "code errors AgentExecutionError"),
    "models.OpenAIModel.generate": (
        "4bc82794a5864f19", "overridden: (messages, stop_sequences, response_format, tools_to_call_from, **kwargs)"),
    "models.Model._prepare_completion_kwargs": ("0aef4545f4666ae3", "builds the request the recording model sends"),
    "local_python_executor.LocalPythonExecutor.__init__": ("131aefd3753c6250", "keeps variables in `state` (in the jail)"),
    "local_python_executor.LocalPythonExecutor.send_tools": ("c9e23cc226ac7875", "replaces the callable tools"),
    "local_python_executor.LocalPythonExecutor.send_variables": ("268e87c797ca1c9b", "adds variables to `state`"),
    "local_python_executor.LocalPythonExecutor.__call__": (
        "bf02d05cee7653a4", "the jailed program's step: output, `_print_outputs` as logs, is_final_answer"),
    "local_python_executor.evaluate_python_code": (
        "21a7111e5f904554", "wraps final_answer (FinalAnswerException), errors become InterpreterError, "
                            "timeout_seconds=None runs without a thread (the harness keeps the time)"),
    "local_python_executor.PythonExecutor": (
        "28181cd3a5fc543e", "the executor interface JailedPythonExecutor implements: send_tools, send_variables, __call__"),
    "agents.CodeAgent.cleanup": ("900fe505c5db8215", "calls the executor's cleanup (closes the episode's jail)"),
    "tools.Tool.__call__": ("fdb19702c3158be9", "in the jail, a single dict argument becomes keyword arguments"),
    "default_tools.FinalAnswerTool": ("488bda181b92e3af", "the jail's own final_answer: returns its argument"),
    "local_python_executor.fix_final_answer_code": ("48029a8d4e2f593c", "used on code of turns without tools"),
    "memory.ActionStep": ("ac1463734f790a57", "fields written by the adapter: observations, observations_images, "
                                              "model_output; to_messages order"),
    "memory.TaskStep": ("1c9d2228693b1979", "a user message (`New task:`) the adapter appends"),
}


def _pinned() -> str:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [d for d in deps if d.startswith("smolagents")]
    m = re.fullmatch(r"smolagents(\[[^\]]+\])?==([\w.]+)", spec)
    assert m, f"pyproject.toml must pin smolagents to one exact version (==), not {spec!r}"
    return m.group(2)


def test_smolagents_is_pinned_and_installed_at_that_version():
    assert importlib.metadata.version("smolagents") == _pinned()


@pytest.mark.parametrize("name", sorted(HOOKS))
def test_the_smolagents_hooks_the_adapter_relies_on_are_unchanged(name):
    module, _, attr = name.partition(".")
    obj = __import__(f"smolagents.{module}", fromlist=["_"])
    for part in attr.split("."):
        obj = getattr(obj, part)
    digest = hashlib.sha256(inspect.getsource(obj).encode()).hexdigest()[:16]
    expected, relied_on = HOOKS[name]
    assert digest == expected, (
        f"smolagents.{name} changed (fingerprint {digest}, tested {expected} with smolagents {_pinned()}). "
        f"agents/smol.py relies on it: {relied_on}. Re-check the adapter against the new code, run "
        f"tests/agents, then update HOOKS here and the pin in pyproject.toml.")
