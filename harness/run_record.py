"""run.json: what a run records about itself (settings, episode file, versions, corpus), written when the
run starts and updated when `epi retry` runs episodes again; and the settings read back from it.

A run folder may come from someone else or from another version of epiharness: reading its settings is
checked, and a file this version cannot read is a RunSetupError naming the file and the field.
"""
from __future__ import annotations

import datetime as _dt
import importlib.metadata as _md
import json
import platform
import subprocess
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .executors import epoch_seed
from .rundir import Attempt, RunDir, atomic_write_text
from .settings import RunSettings
from .stored_run import USER_ONLY, get_path


class RunSetupError(Exception):
    """A run cannot start: the message says which setting or file is wrong."""


def _package_versions() -> dict[str, str]:
    out = {}
    for pkg in ("epiharness", "pydantic", "pymupdf", "openai", "smolagents", "tenacity", "sentence-transformers", "faiss-cpu", "bm25s", "torch"):
        try:
            out[pkg] = _md.version(pkg)
        except _md.PackageNotFoundError:
            pass
    return out


def _git_commit() -> str | None:
    try:
        r = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True, text=True, timeout=5
        )
        return r.stdout.strip() or None if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def _agent_origin(name: str) -> dict[str, Any] | None:
    """Where the agent class came from: built in, or the user's code run in this process (its file's sha256)."""
    from agents import AgentLoadError, agent_origin

    try:
        return agent_origin(name).as_json()
    except AgentLoadError:  # the run was checked before: only a caller that built its own agent gets here
        return None


def corpus_of(world: Any) -> dict[str, Any] | None:
    """The identity of the corpus a world serves, as JSON (None for a world without one: the live web)."""
    ident = getattr(world, "corpus", None)  # the sandbox world names its corpus; a duck-typed world may not
    return ident.model_dump(mode="json") if ident is not None else None


def write_run_json(rd: RunDir, settings: RunSettings, episode_set: Any, tools: list[str], extra: dict[str, Any],
                   search_engine: str | None = None, corpus: dict[str, Any] | None = None) -> None:
    cfg = {
        "run_id": rd.run_id,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(),
        "settings": json.loads(settings.model_dump_json()),
        "agent": settings.agent,
        "agent_origin": _agent_origin(settings.agent),
        "model": settings.agent_config.model,
        "tools": tools,
        "max_steps": settings.max_steps,
        "final_turn_tools": settings.final_turn_tools,
        "disable_tools": settings.disable_tools,
        "episodes_path": str(Path(settings.episodes).resolve()),
        "episodes_sha256": episode_set.sha256,
        "episodes_total": len(episode_set.episodes),
        "seed": settings.seed,
        "epochs": settings.epochs,
        "epoch_seeds": {str(k): epoch_seed(settings, k) for k in range(1, settings.epochs + 1)},
        "temperature": settings.agent_config.temperature,
        "git_commit": _git_commit(),
        "versions": _package_versions(),
        "python": platform.python_version(),
        # the same episodes rank differently under another search engine or another corpus: reports name both
        "search_engine": search_engine,
        "corpus": corpus,
        **extra,
    }
    atomic_write_text(rd.run_json, json.dumps(cfg, indent=2))


def load_run_config(rd: RunDir) -> dict[str, Any]:
    """run.json as a dict; RunSetupError when it is missing or not JSON."""
    if not rd.exists():
        raise RunSetupError(f"no run at {rd.path} (run.json missing)")
    try:
        cfg = rd.load_config()
    except (ValueError, OSError) as e:
        raise RunSetupError(f"{rd.run_json} is not a readable run.json: {e}") from None
    if not isinstance(cfg, dict) or not isinstance(cfg.get("settings"), dict):
        raise RunSetupError(f"{rd.run_json} has no `settings` object: not a run folder this version can take up")
    return cfg


def settings_from_run(rd: RunDir) -> RunSettings:
    """The settings a run was made with; RunSetupError naming the field when run.json is from another version."""
    cfg = load_run_config(rd)
    try:
        return RunSettings.model_validate(cfg["settings"])
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise RunSetupError(
            f"{rd.run_json}: settings.{where}: {err['msg']} (the run was made by another version of epiharness; "
            "take it up with that version)") from None


def record_retry(rd: RunDir, settings: RunSettings, retired: list[tuple[Attempt, str, str]]) -> None:
    """Note a retry in run.json: when, which episodes (each failed attempt and why it failed), and the agent,
    model, endpoint and key variable it used; the run's settings then name what the retry used."""
    cfg = load_run_config(rd)
    new = json.loads(settings.model_dump_json())
    replaced = {f.name: get_path(cfg["settings"], f.path) for f in USER_ONLY
                if get_path(cfg["settings"], f.path) != get_path(new, f.path)}
    cfg.setdefault("retries", []).append({
        "at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "episodes": [{"episode": a.episode_id, "epoch": a.epoch, "attempt": a.number, "bucket": bucket, "why": why,
                      "trace": str(a.trace.relative_to(rd.path))} for a, bucket, why in retired],
        "agent": settings.agent, "agent_origin": _agent_origin(settings.agent), "model": settings.agent_config.model,
        "base_url": settings.agent_config.base_url, "api_key_env": settings.agent_config.api_key_env, "replaced": replaced,
    })
    cfg["settings"] = new
    atomic_write_text(rd.run_json, json.dumps(cfg, indent=2))
