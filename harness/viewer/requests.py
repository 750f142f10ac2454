"""The viewer's "messages" tab: every model request of an episode, as the parts its trace stores.

The browser rebuilds each request body from these parts exactly as `epi trace export --call N` does in
Python (`harness.trace_store.RequestIndex.body`), so the data written stays linear in the episode's
length: each message's JSON text once (a v4 trace stores it once), each call as its parent, how many
of the parent's messages it keeps and the hashes of its new ones. Tool results a message refers to and
image payloads are written once per episode. Earlier failed attempts (`epi retry`) are included, each
with its own parts. Reads files only; a part the trace names but the run lacks becomes a note, and the
browser says which call it cannot rebuild.
"""
from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..rundir import RunDir
from ..safe_paths import PathOutside, resolve_inside
from ..trace import ImageRef, ModelCall, ToolResultRef
from ..trace_fold import EpisodeFold, fold_trace

IMAGE_LIMIT = 20_000_000  # bytes of one image payload copied into the viewer; a larger file is named, not copied


class CallView(BaseModel):
    """One model request as the trace stores it (v4: by parts; older traces: the stored JSON)."""

    n: int
    turn: int = 0
    step: int = 0
    purpose: str = "step"
    model: str = ""
    error: str | None = Field(default=None, description="the provider answered with this error: a failed attempt")
    parent: int | None = None
    keep: int = 0
    messages: list[str] = Field(default_factory=list, description="hashes of the messages after the kept ones")
    head: str | None = None
    sha256: str | None = Field(default=None, description="sha256 of the exact body bytes, as recorded")
    whole: dict[str, Any] | None = Field(default=None, description="a request stored whole (trace before v4)")
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0


class RequestSource(BaseModel):
    """The requests of one trace of the episode: the run's own, or an earlier failed attempt's."""

    label: str
    attempt: int | None = Field(default=None, description="the attempt's number (epi retry); None for the run's trace")
    status: str = "incomplete"
    calls: list[CallView] = Field(default_factory=list)
    blobs: dict[str, Any] = Field(default_factory=dict, description="hash -> the part's JSON text, or its pieces")
    results: dict[str, str] = Field(default_factory=dict, description="sha256 -> a tool result text a part refers to")
    images: dict[str, str] = Field(default_factory=dict, description="image file name -> its bytes in base64")
    notes: list[str] = Field(default_factory=list)


class EpisodeRequests(BaseModel):
    episode_id: str
    sources: list[RequestSource] = Field(default_factory=list)


def _call_view(n: int, ev: ModelCall) -> CallView:
    return CallView(
        n=n, turn=ev.turn, step=ev.step, purpose=ev.purpose, model=ev.model, error=ev.error, parent=ev.parent,
        keep=ev.keep, messages=list(ev.messages), head=ev.head, sha256=ev.request_sha256,
        whole=dict(ev.request or {}) if ev.head is None else None, input_tokens=ev.usage.input_tokens,
        output_tokens=ev.usage.output_tokens, latency_s=ev.latency_s)


def _image(images_dir: Path, name: str, notes: list[str]) -> str | None:
    """An image a part names, read only inside the episode's folder (a trace is data: it may name any path)."""
    try:
        path = resolve_inside(images_dir, name)
    except PathOutside:
        notes.append(f"a request names image {name!r} outside the episode's folder: not read")
        return None
    try:
        size = path.stat().st_size
        if size > IMAGE_LIMIT:
            notes.append(f"image {name} is {size:,} bytes, over the viewer's {IMAGE_LIMIT:,}: not copied")
            return None
        return base64.b64encode(path.read_bytes()).decode("ascii")
    except OSError:
        notes.append(f"image file {name} is missing from {images_dir}")
        return None


def _source(fold: EpisodeFold, images_dir: Path, label: str, attempt: int | None) -> RequestSource:
    index = fold.requests
    src = RequestSource(label=label, attempt=attempt, status=fold.end.status if fold.end else "incomplete")
    src.calls = [_call_view(n, index.calls[n]) for n in index.numbers()]
    src.blobs = {h: (b if isinstance(b, str) else [p if isinstance(p, str) else p.model_dump(exclude_none=True) for p in b])
                 for h, b in index.blobs.items()}
    for blob in index.blobs.values():
        if isinstance(blob, str):
            continue
        for piece in blob:
            if isinstance(piece, ToolResultRef) and piece.tool_result not in src.results:
                text = index.tool_results.get(piece.tool_result)
                if text is not None:
                    src.results[piece.tool_result] = text
            elif isinstance(piece, ImageRef) and piece.image not in src.images:
                data = _image(images_dir, piece.image, src.notes)
                if data is not None:
                    src.images[piece.image] = data
    return src


def episode_requests(run: RunDir, episode_id: str) -> EpisodeRequests:
    """The requests of the episode's trace (epoch 1, as the viewer shows), then of its earlier failed attempts."""
    out = EpisodeRequests(episode_id=episode_id)
    trace = run.read_trace(episode_id, include_partial=True)
    if not trace.missing:
        out.sources.append(_source(fold_trace(trace), run.assets_dir(episode_id), "this run's trace", None))
    for a in run.attempts(episode_id):
        out.sources.append(_source(fold_trace(run.read_attempt(a)), a.trace.with_suffix(""),
                                   f"attempt {a.number} (failed, set aside by epi retry; not scored)", a.number))
    return out
