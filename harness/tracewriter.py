"""Crash-safe trace writing: events go to <episode>.jsonl.part, renamed to .jsonl when the episode ends.

A process killed at any instant leaves every finished trace whole; an unfinished one stays a .part
file that resume discards and runs again.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any


class TraceWriter:
    def __init__(self, final_path: Path, *, run_id: str, episode_id: str):
        self.final_path = final_path
        self.part_path = final_path.with_name(final_path.name + ".part")
        self.run_id = run_id
        self.episode_id = episode_id
        final_path.parent.mkdir(parents=True, exist_ok=True)
        self._f = self.part_path.open("w", encoding="utf-8")

    def write(self, event: Any) -> None:
        event.run_id = self.run_id
        event.episode_id = self.episode_id
        self._f.write(event.model_dump_json() + "\n")
        self._f.flush()

    def commit(self) -> None:
        """Make the trace final: fsync, then atomically rename over any older trace."""
        self._f.flush()
        os.fsync(self._f.fileno())
        self._f.close()
        os.replace(self.part_path, self.final_path)

    def abandon(self) -> None:
        if not self._f.closed:
            self._f.close()
