"""The benchmark-v1 episode generator (episodes/sandbox-v1.jsonl over corpus v1), frozen in sandbox/legacy: it
regenerates that file and its cue images byte for byte and is never extended (see sandbox/legacy/README.md).

Deterministic from a seed. See episodes/README.md for how each set is made and what is checked.
"""
from ._checks import check_episode
from ._cues import PaperCue, matching_papers
from ._facts import CorpusFacts, Group, ValueFact
from ._generate import (
    DEFAULT_COUNT,
    DEFAULT_IMAGE_DIR,
    IMAGE_SHARE,
    DEFAULT_SEED,
    GENERATOR_VERSION,
    GenerationError,
    generate_episodes,
    plan_slots,
    write_episodes,
)
from ._images import CUE_DPI, CueImageError, legend_identifies, render_cue_image, write_cue_images
from ._model import CueFigure, DraftEpisode

__all__ = [
    "check_episode", "PaperCue", "matching_papers", "CorpusFacts", "Group", "ValueFact",
    "DEFAULT_COUNT", "DEFAULT_SEED", "GENERATOR_VERSION", "GenerationError", "generate_episodes", "plan_slots",
    "write_episodes", "DraftEpisode", "CueFigure", "DEFAULT_IMAGE_DIR", "IMAGE_SHARE", "CUE_DPI", "CueImageError",
    "legend_identifies", "render_cue_image", "write_cue_images",
]
