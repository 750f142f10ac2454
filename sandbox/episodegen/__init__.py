"""The living episode generator: benchmark v3 (episodes/sandbox-v3.jsonl over a corpus-v3 ground truth), which
later benchmark versions extend in place. The frozen v1 and v2 generators are in `sandbox.legacy`, which this
package never imports. See episodes/README.md for how the set is made and what is checked."""
from .checks import check_episode, file_problems
from .facts import V3Facts
from .generate import (
    DEFAULT_COUNT,
    DEFAULT_IMAGE_DIR,
    DEFAULT_SEED,
    GENERATOR_VERSION,
    IMAGE_SHARE,
    GenerationError,
    generate_episodes,
    write_episodes,
)
from .images import CueImageError, write_cue_images
from .probe import NoProbe, Probe, ToolProbe

__all__ = ["check_episode", "file_problems", "V3Facts", "DEFAULT_COUNT", "DEFAULT_IMAGE_DIR", "DEFAULT_SEED",
           "GENERATOR_VERSION", "IMAGE_SHARE", "GenerationError", "generate_episodes", "write_episodes", "NoProbe",
           "Probe", "ToolProbe", "CueImageError", "write_cue_images"]
