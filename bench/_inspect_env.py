"""Inspect AI in its own virtual environment under the cache folder, for the side-by-side benchmarks.

Made on first use with the interpreter epi's own environment was made from, so the two run on the same
Python; kept for later runs. When it cannot be made (no network to the package index, no `venv`
module) the caller gets None and a message saying why, and skips the comparison.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

INSPECT_VERSION = "0.3.285"  # the version issue 15 measured against


def cache_dir() -> Path:
    """EPI_BENCH_CACHE, else $XDG_CACHE_HOME/epiharness/bench, else ~/.cache/epiharness/bench."""
    if os.environ.get("EPI_BENCH_CACHE"):
        return Path(os.environ["EPI_BENCH_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "epiharness" / "bench"


def inspect_command(version: str = INSPECT_VERSION) -> list[str] | None:
    """The `inspect` command of a virtual environment holding inspect-ai==version, or None (said why)."""
    venv = cache_dir() / f"inspect-ai-{version}"
    exe, done = venv / "bin" / "inspect", venv / ".installed"
    if exe.is_file() and done.is_file():
        return [str(exe)]
    print(f"installing Inspect AI {version} into {venv} (first run only, a few minutes) ...", flush=True)
    shutil.rmtree(venv, ignore_errors=True)
    python = getattr(sys, "_base_executable", None) or sys.executable
    steps = [[python, "-m", "venv", str(venv)],
             [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
              f"inspect-ai=={version}", "openai"]]
    for cmd in steps:
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"Inspect AI comparison skipped: `{' '.join(cmd[:4])} ...` failed: {e}")
            return None
        if out.returncode != 0:
            tail = "\n".join((out.stderr or out.stdout).strip().splitlines()[-5:])
            print(f"Inspect AI comparison skipped: could not install inspect-ai=={version} into {venv}:\n{tail}")
            return None
    if not exe.is_file():
        print(f"Inspect AI comparison skipped: {exe} is missing after the install")
        return None
    done.write_text(version + "\n")
    return [str(exe)]
