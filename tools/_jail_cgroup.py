"""A per-run control group that caps the jail's total memory and process count.

rlimits are per process: a snippet that forks sixteen children may use sixteen times the memory
limit. A control group counts the whole tree. The harness makes one child group per run under
its own group (cgroup v1 `memory` + `pids` hierarchies, or a cgroup v2 group whose parent has
delegated both controllers), moves the jail into it before any jailed code runs, reads the
out-of-memory count and the peak afterwards, and removes it. Where no group can be made, the
caller falls back to rlimits alone and says so (see `describe`).
"""
from __future__ import annotations

import os
import signal
import time
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_PREFIX = "epi-jail-"


@dataclass(frozen=True)
class CgroupRoots:
    """Where new per-run groups go: v1 memory and pids folders, or one v2 folder."""

    version: int
    memory: Path
    pids: Path


def _mounts() -> list[tuple[str, str, str]]:
    """(mount point, filesystem type, super options) of every cgroup mount."""
    out = []
    try:
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            if len(rfields) >= 3 and rfields[0] in ("cgroup", "cgroup2"):
                out.append((fields[4].replace("\\040", " "), rfields[0], rfields[2]))
    except OSError:
        pass
    return out


def _own_paths() -> dict[str, str]:
    """controller name ('' for the v2 line) -> our group path, from /proc/self/cgroup."""
    paths: dict[str, str] = {}
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, ctrls, path = line.split(":", 2)
            for c in ctrls.split(",") if ctrls else [""]:
                paths[c] = path
    except (OSError, ValueError):
        pass
    return paths


def _writable_dir(p: Path) -> bool:
    return p.is_dir() and os.access(p, os.W_OK | os.X_OK)


def _v1_root(controller: str, mounts: list[tuple[str, str, str]], own: dict[str, str]) -> Path | None:
    for point, fstype, opts in mounts:
        if fstype == "cgroup" and controller in opts.split(",") and controller in own:
            p = Path(point) / own[controller].lstrip("/")
            if _writable_dir(p) and (p / "cgroup.procs").exists():
                return p
    return None


def _v2_root(mounts: list[tuple[str, str, str]], own: dict[str, str]) -> Path | None:
    for point, fstype, _ in mounts:
        if fstype != "cgroup2" or "" not in own:
            continue
        p = Path(point) / own[""].lstrip("/")
        try:
            enabled = (p / "cgroup.subtree_control").read_text().split()
        except OSError:
            continue
        if {"memory", "pids"} <= set(enabled) and _writable_dir(p):
            return p
    return None


@lru_cache(maxsize=1)
def find_roots() -> CgroupRoots | None:
    """The folders where this process may create per-run groups, or None if it cannot."""
    mounts, own = _mounts(), _own_paths()
    mem, pids = _v1_root("memory", mounts, own), _v1_root("pids", mounts, own)
    if mem and pids:
        return CgroupRoots(1, mem, pids)
    v2 = _v2_root(mounts, own)
    return CgroupRoots(2, v2, v2) if v2 else None


@dataclass
class RunGroup:
    """One run's group(s): created with limits, joined by the jail's first process, then removed."""

    roots: CgroupRoots
    name: str

    @property
    def dirs(self) -> list[Path]:
        return sorted({self.roots.memory / self.name, self.roots.pids / self.name})

    @property
    def procs_files(self) -> list[Path]:
        """The files the jail's first process writes its pid to (one per hierarchy)."""
        return [d / "cgroup.procs" for d in self.dirs]

    def _memory_file(self, v1: str, v2: str) -> Path:
        return self.roots.memory / self.name / (v1 if self.roots.version == 1 else v2)

    def oom_kills(self) -> int:
        """How many processes of the group the kernel killed for want of memory."""
        f = self._memory_file("memory.oom_control", "memory.events")
        try:
            for line in f.read_text().splitlines():
                key, _, val = line.partition(" ")
                if key == "oom_kill":
                    return int(val)
        except (OSError, ValueError):
            pass
        return 0

    def peak_bytes(self) -> int | None:
        try:
            return int(self._memory_file("memory.max_usage_in_bytes", "memory.peak").read_text())
        except (OSError, ValueError):
            return None

    def kill_all(self) -> None:
        for f in self.procs_files:
            try:
                for pid in f.read_text().split():
                    os.kill(int(pid), signal.SIGKILL)
            except (OSError, ValueError):
                pass

    def remove(self, wait_s: float = 3.0) -> None:
        """Kill what is left, then remove the group once the kernel has let its processes go."""
        deadline = time.monotonic() + wait_s
        for d in self.dirs:
            while True:
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    self.kill_all()
                    time.sleep(0.01)


def create(memory_bytes: int, max_pids: int) -> RunGroup | None:
    """A new group with these caps, or None where groups cannot be made (the caller says so)."""
    roots = find_roots()
    if roots is None:
        return None
    group = RunGroup(roots, f"{_PREFIX}{uuid.uuid4().hex[:12]}")
    try:
        for d in group.dirs:
            d.mkdir()
        mem = roots.memory / group.name
        if roots.version == 1:
            (mem / "memory.limit_in_bytes").write_text(str(memory_bytes))
            swap = mem / "memory.memsw.limit_in_bytes"
            if swap.exists():
                swap.write_text(str(memory_bytes))
            (roots.pids / group.name / "pids.max").write_text(str(max_pids))
        else:
            (mem / "memory.max").write_text(str(memory_bytes))
            if (mem / "memory.swap.max").exists():
                (mem / "memory.swap.max").write_text("0")
            (mem / "pids.max").write_text(str(max_pids))
    except OSError:
        group.remove(wait_s=0.5)
        return None
    return group


def describe() -> str:
    """One line for the preflight: which caps hold the jail's whole process tree."""
    roots = find_roots()
    if roots is None:
        return "no control group available: total memory is capped only per process (memory limit x process limit)"
    return f"cgroup v{roots.version} caps total memory and processes ({roots.memory})"
