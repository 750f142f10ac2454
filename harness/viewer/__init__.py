"""Replay and viewer data: an episode as a person reads it, and the static HTML viewer of runs.

Public API: `build_viewer`, `serve_viewer`, `RunFiles`, `RunFilesError`, `build_timeline`, `EpisodeTimeline`.
"""
from .build import build_viewer, default_out_dir
from .run_files import RunFiles, RunFilesError
from .serve import serve_viewer
from .timeline import EpisodeTimeline, StepView, TurnTimeline, build_timeline

__all__ = [
    "build_viewer", "default_out_dir", "serve_viewer", "RunFiles", "RunFilesError",
    "build_timeline", "EpisodeTimeline", "StepView", "TurnTimeline",
]
