"""The `epi run` options, generated from RunSettings and AgentConfig: a field's description is its help
text, a Literal its choices, its type the option's type; `harness.fieldmeta.cli(...)` on a field only
renames the flag, adds a short form or keeps it off the command line. Nothing is listed by hand, so the
help cannot drift from the settings (tests/harness/test_cli_generated.py compares them).
"""
from __future__ import annotations

import inspect
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Optional, Union

import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from ..agent import AgentConfig
from ..fieldmeta import cli_meta
from ..settings import RunSettings

NESTED = "agent_config"  # the RunSettings field whose own fields become options too


@dataclass(frozen=True)
class SettingOption:
    """One command-line option and the settings field it fills."""

    param: str  # the parameter name (the field's name)
    path: tuple[str, ...]  # where the value goes: ("max_steps",) or ("agent_config", "model")
    flags: tuple[str, ...]  # e.g. ("--agent", "-a"), or ("--score/--no-score",) for a boolean
    help: str
    annotation: Any  # Optional[...] of the field's type: None means "not given"
    group: str = "Run"  # the --help panel
    default: Any = None  # the field's default, shown in --help (the option itself defaults to None: not given)


# The --help panels, by the field each option fills (a field not named here is in "Run").
GROUPS: dict[str, tuple[str, ...]] = {
    "Model": ("agent", "model", "base_url", "api_key_env", "temperature", "max_tokens", "reasoning_effort", "tool_choice",
              "request_timeout_s", "max_retries", "replay_run", "seed"),
    "Budget and memory": ("max_steps", "budget_unit", "max_episode_tokens", "max_episode_seconds", "step_timeout_s",
                          "memory_mode", "context_tokens", "summary_chars"),
    "Tools and world": ("disable_tools", "enable_tools", "final_turn_tools", "images", "world", "sandbox"),
    "Output": ("run_id", "results", "score"),
}
_GROUP_OF = {name: group for group, names in GROUPS.items() for name in names}


def _strip_none(tp: Any) -> Any:
    """`X | None` -> X."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return tp


def _option_type(tp: Any) -> Any:
    """The Python type typer parses the option as (lists are repeatable options)."""
    tp = _strip_none(tp)
    if typing.get_origin(tp) is Literal or tp in (bool, int, float, str, Path):
        return tp
    if typing.get_origin(tp) is list and typing.get_args(tp) in ((str,), (Path,)):
        return tp
    raise TypeError(f"no command-line form for a settings field of type {tp!r}; mark it cli(hide=True)")


def _option(name: str, field: FieldInfo, path: tuple[str, ...]) -> SettingOption | None:
    meta = cli_meta(field.json_schema_extra)
    if meta.get("hide"):
        return None
    tp = _option_type(field.annotation)
    flag = meta.get("flag") or "--" + name.replace("_", "-")
    if tp is bool:
        flags: tuple[str, ...] = (f"{flag}/{meta.get('off') or '--no-' + flag[2:]}",)
    else:
        flags = (flag,) + ((meta["short"],) if meta.get("short") else ())
    default = field.get_default(call_default_factory=True)
    return SettingOption(name, path, flags, field.description or "", Optional[tp], _GROUP_OF.get(name, "Run"), default)


def _options_of(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> list[SettingOption]:
    out: list[SettingOption] = []
    for name, field in model.model_fields.items():
        if name == NESTED and not prefix:
            out += _options_of(AgentConfig, (NESTED,))
            continue
        opt = _option(name, field, prefix + (name,))
        if opt is not None:
            out.append(opt)
    return out


def setting_options() -> list[SettingOption]:
    """Every option of `epi run` that fills a setting, in the settings' field order."""
    opts = _options_of(RunSettings)
    names = [o.param for o in opts]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise TypeError(f"settings fields with the same name at two levels cannot both be options: {sorted(dupes)}")
    return opts


def parameters(options: list[SettingOption]) -> list[inspect.Parameter]:
    """Keyword parameters for a typer command, one per option (default None: not given)."""
    order = [*list(GROUPS)[:3], "Run", "Output"]  # panels in this order (typer shows them as their options first come)
    return [
        inspect.Parameter(o.param, inspect.Parameter.KEYWORD_ONLY,
                          default=typer.Option(None, *o.flags, help=o.help, rich_help_panel=o.group,
                                               show_default=_shown_default(o)),
                          annotation=o.annotation)
        for o in sorted(options, key=lambda o: order.index(o.group))
    ]


def _shown_default(o: SettingOption) -> str | bool:
    """The default as --help shows it (the settings' default; nothing for an unset or empty one)."""
    d = o.default
    if d is None or d == [] or d == {}:
        return False
    if isinstance(d, bool):
        flag = o.flags[0].split("/")
        return flag[0 if d else 1].lstrip("-")
    return str(d)


def settings_layer(options: list[SettingOption], values: dict[str, Any]) -> dict[str, Any]:
    """The settings the user gave on the command line, nested as RunSettings expects (unset ones left out)."""
    layer: dict[str, Any] = {}
    for o in options:
        v = values.get(o.param)
        if v is None or (isinstance(v, list) and not v):
            continue
        target = layer
        for key in o.path[:-1]:
            target = target.setdefault(key, {})
        target[o.path[-1]] = v
    return layer
