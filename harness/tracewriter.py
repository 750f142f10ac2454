"""Crash-safe trace writing: events go to <episode>.jsonl.part, renamed to .jsonl when the episode ends.

A process killed at any instant leaves every finished trace whole; an unfinished one stays a .part
file that resume discards and runs again. Model requests are stored by content hash
(`harness.trace_store`): each message once, images as files in the episode's folder beside the trace.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

from .chat_body import ChatBody
from .trace import ToolCallEvent
from .trace_store import RequestRecorder


class TraceWriter:
    def __init__(self, final_path: Path, *, run_id: str, episode_id: str, images_dir: Path | None = None):
        self.final_path = final_path
        self.part_path = final_path.with_name(final_path.name + ".part")
        self.run_id = run_id
        self.episode_id = episode_id
        # the episode's folder beside the trace (RunDir.assets_dir): traces/<episode>.jsonl -> traces/<episode>/
        self.images_dir = images_dir if images_dir is not None else final_path.with_suffix("")
        self.requests = RequestRecorder(self.images_dir)
        final_path.parent.mkdir(parents=True, exist_ok=True)
        self._f = self.part_path.open("w", encoding="utf-8")

    def request_fields(self, request: Mapping[str, Any] | None, body: ChatBody | None) -> dict[str, Any]:
        """The model_call fields storing a request: by content hash when it is a chat body (given as the
        bytes sent, or as a dict with `messages`), whole otherwise."""
        if body is None and request is not None and isinstance(request.get("messages"), list):
            body = ChatBody.from_request(request)
        if body is None:
            return {"request": dict(request) if request is not None else None}
        return self.requests.record(body)

    def write(self, event: Any) -> None:
        event.run_id = self.run_id
        event.episode_id = self.episode_id
        self._f.write(event.model_dump_json() + "\n")
        self._f.flush()
        if isinstance(event, ToolCallEvent):  # a later request that carries this text refers to it
            self.requests.note_tool_result(event.result_text)

    def commit(self) -> None:
        """Make the trace final: fsync, then atomically rename over any older trace."""
        self._f.flush()
        os.fsync(self._f.fileno())
        self._f.close()
        os.replace(self.part_path, self.final_path)

    def abandon(self, discard: bool = False) -> None:
        """Stop writing; with `discard`, remove the unfinished trace (its episode counts as not run)."""
        if not self._f.closed:
            self._f.close()
        if discard:
            self.part_path.unlink(missing_ok=True)
