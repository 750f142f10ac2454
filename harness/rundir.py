"""The run directory layout: results/<run_id>/{run.json, traces/<episode>.jsonl, scores.json, report.md}.

Readers (scoring, replay, viewer) go through RunDir so a truncated or missing trace is seen, flagged
and scored as far as it goes rather than silently dropped.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from pydantic import ValidationError

from .trace import EpisodeEnd, parse_event

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(s: str) -> str:
    """A file-name-safe form of an episode id."""
    return _SAFE.sub("_", s)[:150] or "_"


@dataclass
class TraceRead:
    """The events of one episode's trace, and what was wrong with the file, if anything."""

    episode_id: str
    events: list[Any] = field(default_factory=list)
    bad_lines: list[int] = field(default_factory=list)
    missing: bool = False

    @property
    def complete(self) -> bool:
        return bool(self.events) and isinstance(self.events[-1], EpisodeEnd)

    @property
    def truncated(self) -> bool:
        return not self.missing and not self.complete


class RunDir:
    def __init__(self, path: Path | str):
        self.path = Path(path)

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def traces_dir(self) -> Path:
        return self.path / "traces"

    @property
    def run_json(self) -> Path:
        return self.path / "run.json"

    @property
    def scores_json(self) -> Path:
        return self.path / "scores.json"

    @property
    def report_md(self) -> Path:
        return self.path / "report.md"

    def exists(self) -> bool:
        return self.run_json.is_file()

    def trace_path(self, episode_id: str) -> Path:
        return self.traces_dir / f"{safe_name(episode_id)}.jsonl"

    def assets_dir(self, episode_id: str) -> Path:
        """Images and other files saved next to an episode's trace."""
        return self.traces_dir / safe_name(episode_id)

    def load_config(self) -> dict[str, Any]:
        return json.loads(self.run_json.read_text())

    def read_trace(self, episode_id: str, *, include_partial: bool = False) -> TraceRead:
        """The episode's events. With include_partial, an unfinished `<episode>.jsonl.part` (a crashed
        run) is read when there is no finished trace: it reads as truncated, never silently dropped."""
        p = self.trace_path(episode_id)
        out = TraceRead(episode_id=episode_id)
        if not p.is_file() and include_partial:
            p = p.with_name(p.name + ".part")
        if not p.is_file():
            out.missing = True
            return out
        with p.open("r", encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    out.events.append(parse_event(line))
                except (ValidationError, ValueError):
                    out.bad_lines.append(i)
        if not out.events and not out.bad_lines:
            out.missing = True
        return out

    def completed_episodes(self) -> set[str]:
        """Episode ids whose trace ends with episode_end (safe to keep on resume)."""
        done: set[str] = set()
        if not self.traces_dir.is_dir():
            return done
        for p in self.traces_dir.glob("*.jsonl"):
            last = _last_line(p)
            if last:
                try:
                    ev = parse_event(last)
                except (ValidationError, ValueError):
                    continue
                if isinstance(ev, EpisodeEnd):
                    done.add(ev.episode_id)
        return done

    def iter_trace_ids(self) -> Iterator[str]:
        for p in sorted(self.traces_dir.glob("*.jsonl")):
            first = _first_line(p)
            if first:
                try:
                    yield parse_event(first).episode_id
                except (ValidationError, ValueError):
                    continue


def _first_line(p: Path) -> str | None:
    with p.open("r", encoding="utf-8", errors="replace") as f:
        line = f.readline()
    return line if line.strip() else None


def _last_line(p: Path) -> str | None:
    data = p.read_bytes()
    if not data.endswith(b"\n"):
        return None  # a partial last line: the write was cut off
    lines = data.rstrip(b"\n").rsplit(b"\n", 1)
    return lines[-1].decode("utf-8", errors="replace") if lines and lines[-1] else None


def atomic_write_text(path: Path, text: str) -> None:
    """Write a whole file so a crash leaves the old or the new content, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with tmp.open("w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
