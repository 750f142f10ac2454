"""What a command may take from a stored run (run.json) and what only the user may name.

A run folder is data (it may come from someone else): nothing named only in it is started, sent a key or
given a file. The agent, the endpoint (`base_url`), the environment variable holding the key (`api_key_env`),
the files the human agent reads and writes (`agent_config.extra.input`/`output`) and an agent program's command,
variables, folders and sandbox (`--agent-cmd`, `--agent-env`, `--agent-dir`, `--agent-sandbox`) come from the user:
the command line, then `--config` or a preset. Where the stored run names another value
than the default and the user named none, the command refuses with one line that says what the run
names and the exact command line that would use it. `epi retry`, `epi run --resume` and
`epi replay --from-turn` all go through `user_choices` (one rule, one place).
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .settings import RunSettings


@dataclass(frozen=True)
class UserOnlyField:
    """A setting that only the user may name: what it is called, where it sits in RunSettings, its flag."""

    name: str
    path: tuple[str, ...]
    flag: str | None  # None: named in a --config file only (agent_config.extra)


USER_ONLY: tuple[UserOnlyField, ...] = (
    UserOnlyField("agent", ("agent",), "--agent"),
    UserOnlyField("base_url", ("agent_config", "base_url"), "--base-url"),
    UserOnlyField("api_key_env", ("agent_config", "api_key_env"), "--api-key-env"),
    # files the human agent reads commands from and writes its transcript to: never a path a run folder chose
    UserOnlyField("agent_config.extra.input", ("agent_config", "extra", "input"), None),
    UserOnlyField("agent_config.extra.output", ("agent_config", "extra", "output"), None),
    # an agent program (the bridge): the command started, what it is handed (variables, which may hold keys, and
    # folders) and its sandbox; a run folder naming them would start code, leak a key or unconfine the program
    UserOnlyField("agent_cmd", ("agent_config", "agent_cmd"), "--agent-cmd"),
    UserOnlyField("agent_env", ("agent_config", "agent_env"), "--agent-env"),
    UserOnlyField("agent_dir", ("agent_config", "agent_dir"), "--agent-dir"),
    UserOnlyField("agent_sandbox", ("agent_config", "agent_sandbox"), "--agent-sandbox"),
)
PROGRAM_FIELDS = tuple(f for f in USER_ONLY if f.name in ("agent_cmd", "agent_env", "agent_dir", "agent_sandbox"))
DEFAULT_RESULTS = Path("results")


class NamedOnlyByRun(ValueError):
    """The stored run names an agent, endpoint or key variable the user did not give."""


def _flag_words(flag: str, value: Any) -> list[str]:
    """A value back as command-line words: a list repeats its flag once per item."""
    if isinstance(value, list):
        return [w for item in value for w in (flag, str(item))]
    return [flag, str(value)]


def get_path(tree: dict[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = tree
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _defaults() -> dict[str, Any]:
    return RunSettings().model_dump(mode="json")


def user_choices(stored: dict[str, Any], given: dict[str, Any], *, command: list[str], where: str,
                 fields: tuple[UserOnlyField, ...] = USER_ONLY) -> dict[tuple[str, ...], Any]:
    """The user-only fields to use, each as the user gave it (path -> value; fields the user left out and
    the stored run leaves at the default are absent). Raise NamedOnlyByRun when `stored` (the run's
    settings as JSON) names another value than the default for a field the user did not give (`given`:
    the user's settings layers merged, nested like RunSettings). `command` is the user's command line as
    typed, without the missing options: the message appends them."""
    defaults = _defaults()
    chosen: dict[tuple[str, ...], Any] = {}
    missing: list[tuple[UserOnlyField, Any]] = []
    for f in fields:
        mine = get_path(given, f.path)
        if mine is not None:
            chosen[f.path] = mine
            continue
        theirs = get_path(stored, f.path)
        if theirs is not None and theirs != get_path(defaults, f.path):
            missing.append((f, theirs))
    if missing:
        named = ", ".join(f"{f.name} {v}" for f, v in missing)
        line = shlex.join([*command, *(x for f, v in missing if f.flag for x in _flag_words(f.flag, v))])
        in_config = [f"{f.path[-1]} = {json.dumps(v)}" for f, v in missing if f.flag is None]
        if in_config:
            line += f" --config FILE (FILE holding [agent_config.extra] {'; '.join(in_config)})"
        raise NamedOnlyByRun(
            f"{where} names {named}, which you did not give: nothing named only in a run folder is started, "
            f"sent a key or given a file. To use {'it' if len(missing) == 1 else 'them'}: {line}")
    return chosen


def resume_command(settings: RunSettings, *, verb: tuple[str, ...] = ("run", "--resume")) -> str:
    """The exact command that takes up this run again: the run id, its results folder when it is not the
    default, and the user-only options that differ from the defaults (they are never taken from run.json)."""
    args = ["epi", *verb, settings.run_id or "?"]
    if Path(settings.results) != DEFAULT_RESULTS:
        args += ["--results", str(settings.results)]
    stored, defaults = settings.model_dump(mode="json"), _defaults()
    for f in USER_ONLY:
        value = get_path(stored, f.path)
        if f.flag is not None and value is not None and value != get_path(defaults, f.path):
            args += _flag_words(f.flag, value)
    return shlex.join(args)
