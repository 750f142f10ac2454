"""The benchmark-v3 episode generator (episodes/sandbox-v3.jsonl) over a corpus-v3 ground truth; see
episodes/README.md for how the set is made and what is checked."""
from ..probe import NoProbe, Probe, ToolProbe
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

__all__ = ["check_episode", "file_problems", "V3Facts", "DEFAULT_COUNT", "DEFAULT_IMAGE_DIR", "DEFAULT_SEED",
           "GENERATOR_VERSION", "IMAGE_SHARE", "GenerationError", "generate_episodes", "write_episodes", "NoProbe",
           "Probe", "ToolProbe"]
