"""The benchmark-v2 episode generator (episodes/sandbox-v2.jsonl) over a corpus-v2 ground truth, frozen in
sandbox/legacy (byte for byte, never extended); see episodes/README.md for how the set is made and checked."""
from .checks import check_episode
from .facts import V2Facts
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
from .probe import NoProbe, Probe, ToolProbe

__all__ = ["check_episode", "V2Facts", "DEFAULT_COUNT", "DEFAULT_IMAGE_DIR", "DEFAULT_SEED", "GENERATOR_VERSION",
           "IMAGE_SHARE", "GenerationError", "generate_episodes", "write_episodes", "NoProbe", "Probe", "ToolProbe"]
