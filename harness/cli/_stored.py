"""The settings of a run taken up again (`epi run --resume`, `epi retry`): the run's own, with what the user
may change, and nothing the user gave silently dropped.

- Where jobs run (executor, Ray, concurrency, the episode file's path, the results folder, scoring, the
  corpus folder) may change: it changes no result.
- Agent, endpoint and key variable come from the user only (`harness.stored_run.user_choices`).
- `epi retry` may point the run at another endpoint or key variable (the outage is over); the run records
  it (run.json `retries`). `--resume` keeps them: another value is refused and `epi retry` is named.
- Anything else that differs from the stored run contradicts it: one line, exit 2, nothing written.
"""
from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from ..rundir import RunDir
from ..settings import RunSettings, build_settings
from ..stored_run import NamedOnlyByRun, get_path, user_choices
from ._apps import UserError
from ._options import SettingOption

# where jobs run, never what they do: may differ between the first part of a run and its resume
PLACEMENT = ("executor", "ray_address", "ray_workers", "ray_copy_back", "job_retries")
# what a resume may change besides the placement
RESUMABLE = ("episodes", "concurrency", "results", "score", "sandbox")
ENDPOINT = (("agent_config", "base_url"), ("agent_config", "api_key_env"))


def merge_layers(*layers: dict[str, Any]) -> dict[str, Any]:
    """The user's settings layers (preset < config file < flags) as one nested dict, unset values left out."""
    out: dict[str, Any] = {}
    for layer in layers:
        for k, v in layer.items():
            if v is None:
                continue
            if isinstance(v, dict):
                out.setdefault(k, {}).update({a: b for a, b in v.items() if b is not None})
            else:
                out[k] = v
    return out


def _leaves(tree: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for k, v in tree.items():
        if isinstance(v, dict) and k == "agent_config":
            out += _leaves(v, prefix + (k,))
        else:
            out.append(prefix + (k,))
    return out


def _flag(options: list[SettingOption], path: tuple[str, ...], value: Any) -> str:
    for o in options:
        if o.path == path:
            flag = o.flags[0]
            if "/" in flag:
                on, off = flag.split("/")
                return on if value else off
            return f"{flag} {value}"
    return f"{'.'.join(path)} = {value!r} (from --config or --preset)"


def render_flags(options: list[SettingOption], layer: dict[str, Any]) -> list[str]:
    """A settings layer back as command-line words, in the options' order."""
    out: list[str] = []
    for o in options:
        v = get_path(layer, o.path)
        if v is None or (isinstance(v, list) and not v):
            continue
        flag = o.flags[0]
        if "/" in flag:
            out.append(flag.split("/")[0] if v else flag.split("/")[1])
        elif isinstance(v, list):
            for item in v:
                out += [flag, str(item)]
        else:
            out += [flag, str(v)]
    return out


def stored_settings(rd: RunDir, layers: list[dict[str, Any]], *, options: list[SettingOption], command: list[str],
                    retry: bool, break_lock: bool = False) -> RunSettings:
    """The run's stored settings with the user's allowed changes; UserError (one line) for a user-only field
    the run names and the user did not give, or a contradiction of the stored run."""
    from ..runlock import RunLocked, check_free
    from ..runner import RunSetupError, settings_from_run

    try:  # a live owner first: whatever else is wrong, that is what the user must hear about
        check_free(rd.path, break_lock=break_lock)
        stored = settings_from_run(rd).model_dump(mode="json")
    except RunLocked as e:
        raise UserError(str(e)) from None
    except RunSetupError as e:
        raise UserError(str(e)) from None
    given = merge_layers(*layers)
    given.pop("run_id", None)
    given.pop("results", None)
    what = "epi retry" if retry else "--resume"
    try:
        user_choices(stored, given, command=command, where=f"run {rd.run_id!r} (its run.json)")
    except NamedOnlyByRun as e:
        raise UserError(str(e)) from None
    if given.get("executor") == "local":  # the cluster of the first part no longer matters
        stored["ray_address"] = None
    fixed = {"run_id": rd.run_id, "results": str(rd.path.parent)}
    try:
        settings = build_settings(stored, given, fixed, source=what)
    except ValueError as e:  # SettingsError: a value that is not valid at all
        raise UserError(str(e)) from None
    candidate = settings.model_dump(mode="json")
    for path in _leaves(given):
        if path[0] in PLACEMENT + RESUMABLE or (retry and path in ENDPOINT):
            continue
        mine, theirs = get_path(candidate, path), get_path(stored, path)
        if mine == theirs:
            continue
        name = path[-1]
        if path in ENDPOINT:
            again = shlex.join(["epi", "retry", *command[3:]]) if command[:3] == ["epi", "run", "--resume"] \
                else f"epi retry {rd.run_id} {_flag(options, path, mine)}"
            hint = f"--resume keeps the run's {name}; `{again}` runs its errored episodes again there"
        elif path == ("agent",):
            hint = "a run has one agent; start a new run (another --run-id) for another"
        else:
            hint = (f"{what} runs the episodes as the run was made; start a new run (another --run-id) to change "
                    f"{name}")
        raise UserError(f"{_flag(options, path, mine)}: run {rd.run_id!r} was made with {name} "
                        f"{theirs if theirs is not None else 'unset'}; {hint}")
    return settings


def run_path(run: str, results: Path) -> Path:
    """A run given as a folder path, or as a run id under the results folder."""
    from ._view import resolve_run

    return resolve_run(run, results)
