"""The run directory layout: results/<run_id>/{run.json, traces/<episode>.jsonl, scores.json, report.md}.

Repeated runs (`--epochs N`): epoch 1 keeps exactly the single-run layout (`traces/<episode>.jsonl`,
images in `traces/<episode>/`); epoch k >= 2 lives in `traces/epoch=<k>/` with the same layout inside.
The `=` cannot occur in a file-safe episode name, so an epoch folder never collides with an episode's
image folder, and today's readers of `traces/*.jsonl` see epoch 1 as a complete single run.

Failed attempts (`epi retry`): an errored episode's trace and its image folder move to
`attempt=<n>/` inside their epoch's folder (`traces/attempt=1/<episode>.jsonl`, `traces/attempt=1/<episode>/`;
n counts that episode's retired attempts from 1) before the episode runs again. The `=` keeps attempt
folders apart from episode and epoch folders, and every reader of `traces/*.jsonl` (resume, scoring, the
viewer's episode list) sees only the current attempt; `attempts()` lists the earlier ones.

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

from .safe_paths import safe_name
from .trace import EpisodeEnd, TraceVersionError, parse_event

__all__ = ["RunDir", "TraceRead", "Attempt", "safe_name", "atomic_write_text"]

_EPOCH_DIR = re.compile(r"^epoch=([1-9][0-9]*)$")
_ATTEMPT_DIR = re.compile(r"^attempt=([1-9][0-9]*)$")


@dataclass
class TraceRead:
    """The events of one episode's trace, and what was wrong with the file, if anything."""

    episode_id: str
    epoch: int = 1
    events: list[Any] = field(default_factory=list)
    bad_lines: list[int] = field(default_factory=list)
    missing: bool = False

    @property
    def complete(self) -> bool:
        return bool(self.events) and isinstance(self.events[-1], EpisodeEnd)

    @property
    def truncated(self) -> bool:
        return not self.missing and not self.complete


@dataclass(frozen=True)
class Attempt:
    """An earlier, failed attempt at one episode (epoch) that `epi retry` set aside."""

    episode_id: str
    epoch: int
    number: int  # 1 for the first attempt set aside
    trace: Path


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

    def epoch_dir(self, epoch: int = 1) -> Path:
        """The folder holding one epoch's traces: `traces/` for epoch 1, `traces/epoch=<k>/` after."""
        if epoch < 1:
            raise ValueError(f"epochs are numbered from 1, got {epoch}")
        return self.traces_dir if epoch == 1 else self.traces_dir / f"epoch={epoch}"

    def trace_path(self, episode_id: str, epoch: int = 1) -> Path:
        return self.epoch_dir(epoch) / f"{safe_name(episode_id)}.jsonl"

    def assets_dir(self, episode_id: str, epoch: int = 1) -> Path:
        """The episode's folder beside its trace: images (tool results and the images requests sent), each
        once, named `<sha256 of the bytes>.<ext>`; `epi trace export` reads them back into requests."""
        return self.epoch_dir(epoch) / safe_name(episode_id)

    def epochs(self) -> list[int]:
        """The epochs that have a trace folder on disk, in order (epoch 1 whenever traces/ exists)."""
        if not self.traces_dir.is_dir():
            return []
        found = [1]
        for p in self.traces_dir.iterdir():
            m = _EPOCH_DIR.match(p.name)
            if m and p.is_dir():
                found.append(int(m.group(1)))
        return sorted(found)

    def attempt_dir(self, number: int, epoch: int = 1) -> Path:
        """The folder of the failed attempts numbered `number` of one epoch: `<epoch folder>/attempt=<n>/`."""
        if number < 1:
            raise ValueError(f"attempts are numbered from 1, got {number}")
        return self.epoch_dir(epoch) / f"attempt={number}"

    def attempts(self, episode_id: str, epoch: int = 1) -> list[Attempt]:
        """The episode's failed attempts set aside by `epi retry`, oldest first (not counted as finished)."""
        folder = self.epoch_dir(epoch)
        if not folder.is_dir():
            return []
        name = f"{safe_name(episode_id)}.jsonl"
        found = []
        for p in folder.iterdir():
            m = _ATTEMPT_DIR.match(p.name)
            if m and (p / name).is_file():
                found.append(Attempt(episode_id, epoch, int(m.group(1)), p / name))
        return sorted(found, key=lambda a: a.number)

    def read_attempt(self, attempt: Attempt) -> TraceRead:
        """The events of a failed attempt's trace."""
        return _read_events(attempt.trace, TraceRead(episode_id=attempt.episode_id, epoch=attempt.epoch))

    def retire_trace(self, episode_id: str, epoch: int = 1) -> Attempt:
        """Set the episode's current trace (and its image folder) aside as its next failed attempt, so the
        episode counts as not run. The images move first and the trace last: a crash in between leaves the
        trace in place (the episode still counts as errored, and the next retry moves it)."""
        trace = self.trace_path(episode_id, epoch)
        if not trace.is_file():
            raise FileNotFoundError(f"no trace of episode {episode_id!r} (epoch {epoch}) at {trace}")
        number = max((a.number for a in self.attempts(episode_id, epoch)), default=0) + 1
        dest = self.attempt_dir(number, epoch)
        dest.mkdir(parents=True, exist_ok=True)
        assets = self.assets_dir(episode_id, epoch)
        if assets.is_dir():
            target = dest / assets.name
            if target.exists():  # an earlier retry stopped between the two moves: keep both
                for f in assets.iterdir():
                    if (target / f.name).exists():
                        f.unlink()  # images are named by their content: the same bytes are there already
                    else:
                        os.replace(f, target / f.name)
                assets.rmdir()
            else:
                os.replace(assets, target)
        os.replace(trace, dest / trace.name)
        return Attempt(episode_id, epoch, number, dest / trace.name)

    def load_config(self) -> dict[str, Any]:
        return json.loads(self.run_json.read_text())

    def read_trace(self, episode_id: str, *, epoch: int = 1, include_partial: bool = False) -> TraceRead:
        """The episode's events. With include_partial, an unfinished `<episode>.jsonl.part` (a crashed
        run) is read when there is no finished trace: it reads as truncated, never silently dropped."""
        p = self.trace_path(episode_id, epoch)
        out = TraceRead(episode_id=episode_id, epoch=epoch)
        if not p.is_file() and include_partial:
            p = p.with_name(p.name + ".part")
        return _read_events(p, out)

    def completed_episodes(self, epoch: int = 1) -> set[str]:
        """Episode ids whose trace for `epoch` ends with episode_end (safe to keep on resume)."""
        done: set[str] = set()
        folder = self.epoch_dir(epoch)
        if not folder.is_dir():
            return done
        for p in folder.glob("*.jsonl"):
            last = _last_line(p)
            if last:
                try:
                    ev = parse_event(last)
                except (ValidationError, ValueError):
                    continue
                if isinstance(ev, EpisodeEnd):
                    done.add(ev.episode_id)
        return done

    def completed_jobs(self) -> set[tuple[str, int]]:
        """(episode id, epoch) of every finished trace, whatever executor wrote it."""
        return {(ep, k) for k in self.epochs() for ep in self.completed_episodes(k)}

    def newer_traces(self) -> list[Path]:
        """Traces written by a newer epiharness (a trace schema this one cannot read): a run holding any must not
        be taken up here, or its finished episodes would count as unfinished and be run again over them."""
        out = []
        for k in self.epochs():
            for p in sorted(self.epoch_dir(k).glob("*.jsonl")):
                first = _first_line(p)
                try:
                    if first:
                        parse_event(first)
                except TraceVersionError:
                    out.append(p)
                except (ValidationError, ValueError):
                    continue
        return out

    def discard_partial_traces(self) -> int:
        """Delete the unfinished `.part` traces of every epoch (a crash leftover); returns how many."""
        n = 0
        for k in self.epochs():
            for part in self.epoch_dir(k).glob("*.jsonl.part"):
                part.unlink(missing_ok=True)
                n += 1
        return n

    def iter_trace_ids(self, epoch: int = 1) -> Iterator[str]:
        folder = self.epoch_dir(epoch)
        if not folder.is_dir():
            return
        for p in sorted(folder.glob("*.jsonl")):
            first = _first_line(p)
            if first:
                try:
                    yield parse_event(first).episode_id
                except (ValidationError, ValueError):
                    continue


def _read_events(p: Path, out: TraceRead) -> TraceRead:
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
