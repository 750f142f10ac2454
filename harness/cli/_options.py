"""The `epi run` options, generated from RunSettings and AgentConfig: a field's description is its help
text, a Literal its choices, its type the option's type; `harness.fieldmeta.cli(...)` on a field only
renames the flag, adds a short form or keeps it off the command line. Nothing is listed by hand, so the
help cannot drift from the settings (tests/harness/test_cli_generated.py compares them).
"""
from __future__ import annotations

import inspect
import re
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


# --- sweeps (`epi ablate`): the same options, each taking levels --------------------------------------------------

LEVEL_SEP = ","  # between the levels of one option
ITEM_SEP = "+"  # between the items of one level of a list-valued option
NO_ITEMS = "none"  # the empty list (a list option), or unset (an option whose setting may be unset)

# Options that take one value in a sweep, and why: every cell runs the same episodes, is scored alike, and the
# whole grid is one bag of jobs on one executor. `--run-id` names the sweep itself.
ONE_LEVEL: dict[str, str] = {
    "run_id": "it names the sweep (its folder under --results); each cell is named by its levels",
    "results": "the sweep is one folder under it",
    "episodes": "every cell runs the same episodes, so that cells can be paired",
    "episode_ids": "every cell runs the same episodes, so that cells can be paired",
    "limit": "every cell runs the same episodes, so that cells can be paired",
    "reducer": "every cell is scored with one reducer of epochs",
    "score": "every cell is scored (the sweep's report needs the scores)",
    "executor": "the whole grid is one bag of jobs on one executor",
    "ray_address": "the whole grid is one bag of jobs on one executor",
    "ray_workers": "the whole grid is one bag of jobs on one executor",
    "ray_copy_back": "the whole grid is one bag of jobs on one executor",
    "job_retries": "the whole grid is one bag of jobs on one executor",
    "concurrency": "the whole grid shares one pool of concurrent episodes",
    "model_rps": "the rate limit holds for the whole grid (per model)",
}


class LevelError(ValueError):
    """A level that does not parse for its option; the message names the option and the level."""


def _escaped_split(text: str, sep: str) -> list[str]:
    """`text` cut at every `sep` not preceded by a backslash; `\\<sep>` stays in the piece as `<sep>`, other
    escapes stay as written (for a second split at another separator, then _unescape)."""
    out, cur, i = [], [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            if text[i + 1] == sep:
                cur.append(sep)
            else:
                cur += [c, text[i + 1]]
            i += 2
            continue
        if c == sep:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    return out


_ESCAPED = re.compile(r"\\([" + re.escape(LEVEL_SEP + ITEM_SEP) + r"\\])")


def _unescape(text: str) -> str:
    """`\\,`, `\\+` and `\\\\` as the characters they escape; any other backslash stays."""
    return _ESCAPED.sub(r"\1", text)


def _is_list(o: SettingOption) -> bool:
    return typing.get_origin(_strip_none(o.annotation)) is list


def _may_be_unset(o: SettingOption) -> bool:
    return o.default is None


_ON = {"on", "true", "yes", "1"}
_OFF = {"off", "false", "no", "0"}


def _level_value(o: SettingOption, text: str) -> Any:
    """One level's value, typed as the setting's (its range is checked when the cell's settings are built)."""
    from pydantic import TypeAdapter, ValidationError

    tp = _strip_none(o.annotation)
    flag = o.flags[0].split("/")[0]
    if _is_list(o):
        if text.strip().lower() == NO_ITEMS:
            return []
        items = [_unescape(t).strip() for t in _escaped_split(text, ITEM_SEP)]
        if any(not t for t in items):
            raise LevelError(f"{flag}: level {text!r} has an empty item (items of one level are joined by "
                             f"{ITEM_SEP!r}, e.g. pdf_rag{ITEM_SEP}web_search; {NO_ITEMS!r} for none)")
        (item_tp,) = typing.get_args(tp)
        return [TypeAdapter(item_tp).validate_python(t) for t in items]
    value = _unescape(text).strip()
    if not value:
        raise LevelError(f"{flag}: empty level in {text!r}")
    if _may_be_unset(o) and value.lower() == NO_ITEMS:
        return None
    if tp is bool:
        if value.lower() in _ON:
            return True
        if value.lower() in _OFF:
            return False
        raise LevelError(f"{flag}: level {value!r} is not on or off")
    try:
        return TypeAdapter(tp).validate_python(value)
    except ValidationError as e:
        why = e.errors()[0]["msg"]
        raise LevelError(f"{flag}: level {value!r} does not parse: {why}") from None


@dataclass(frozen=True)
class Factor:
    """One swept option: its levels as typed (the first is the reference) and as values."""

    option: SettingOption
    texts: tuple[str, ...]
    values: tuple[Any, ...]

    @property
    def flag(self) -> str:
        return self.option.flags[0].split("/")[0]

    @property
    def name(self) -> str:
        return self.flag.lstrip("-")


def parse_levels(o: SettingOption, text: str) -> Factor:
    """The levels of one option as given to `epi ablate` (`5,10`; `none,pdf_rag,pdf_rag+web_search`); LevelError
    (one line, naming the option and the level) for a level that does not parse, an empty one or a repeat."""
    flag = o.flags[0].split("/")[0]
    texts = [t.strip() for t in _escaped_split(text, LEVEL_SEP)]
    if any(not t for t in texts):
        raise LevelError(f"{flag}: empty level in {text!r} (levels are separated by {LEVEL_SEP!r}, e.g. 5{LEVEL_SEP}10)")
    values = [_level_value(o, t) for t in texts]
    seen: list[Any] = []
    for t, v in zip(texts, values):
        key = sorted(v) if isinstance(v, list) else v
        if key in seen:
            raise LevelError(f"{flag}: level {t!r} is given twice in {text!r}")
        seen.append(key)
    if len(texts) > 1 and o.param in ONE_LEVEL:
        raise LevelError(f"{flag}: takes one value in a sweep ({ONE_LEVEL[o.param]}), got {text!r}")
    return Factor(o, tuple(texts), tuple(values))


def _sweep_help(o: SettingOption) -> str:
    if o.param == "run_id":
        return "name of the sweep's folder under --results (default: ablate-<agent>-<time>)"
    if o.param in ONE_LEVEL:
        return o.help + " (one value in a sweep)"
    if _is_list(o):
        how = f"levels by {LEVEL_SEP!r}, a level's items by {ITEM_SEP!r}, {NO_ITEMS!r} for none"
    elif typing.get_origin(_strip_none(o.annotation)) is Literal:
        how = f"levels by {LEVEL_SEP!r}: " + "|".join(typing.get_args(_strip_none(o.annotation)))
    elif _strip_none(o.annotation) is bool:
        how = f"levels by {LEVEL_SEP!r}: on, off"
    else:
        how = f"levels by {LEVEL_SEP!r}" + (f", {NO_ITEMS!r} for unset" if _may_be_unset(o) else "")
    return f"{o.help} (sweep: {how}; the first is the reference)"


def sweep_parameters(options: list[SettingOption]) -> list[inspect.Parameter]:
    """The same options as `parameters`, each taking levels (text): `--max-steps 5,10`, `--final-turn-tools off,on`.
    A boolean takes on/off levels under its positive flag."""
    order = [*list(GROUPS)[:3], "Run", "Output"]
    out = []
    for o in sorted(options, key=lambda o: order.index(o.group)):
        flags = (o.flags[0].split("/")[0],) if "/" in o.flags[0] else o.flags
        shown = _shown_default(o)
        if isinstance(o.default, bool):
            shown = "on" if o.default else "off"
        out.append(inspect.Parameter(
            o.param, inspect.Parameter.KEYWORD_ONLY,
            default=typer.Option(None, *flags, help=_sweep_help(o), rich_help_panel=o.group, show_default=shown,
                                 metavar="LEVELS"),
            annotation=Optional[str]))
    return out
