"""A small corpus v2 (48 papers, three areas, with its search index) built once per test session, and a
benchmark-v2 episode file generated over it with every checklist query run through the engine."""
from __future__ import annotations

from pathlib import Path

import pytest

V2_PAPERS = 48
V2_SEED = 5
V2_EPISODES = 12
_BUILT: dict[str, Path] = {}


@pytest.fixture(scope="session")
def v2_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sandbox.corpus.build import build_corpus

    if "root" not in _BUILT:
        root = tmp_path_factory.mktemp("sandbox_v2")
        build_corpus(root, seed=V2_SEED, n_papers=V2_PAPERS, corpus="v2")
        _BUILT["root"] = root
    return _BUILT["root"]


@pytest.fixture(scope="session")
def v2_episode_file(v2_sandbox: Path) -> Path:
    from sandbox.corpus.build import load_ground_truth
    from sandbox.legacy.episodegen_v1 import write_cue_images
    from sandbox.legacy.episodegen_v2 import IMAGE_SHARE, ToolProbe, generate_episodes, write_episodes

    if "episodes" not in _BUILT:
        out = v2_sandbox / "episodes" / "small-v2.jsonl"
        gt = load_ground_truth(v2_sandbox)
        eps = generate_episodes(gt, count=V2_EPISODES, image_share=IMAGE_SHARE, image_dir="small-v2-cues",
                                probe=ToolProbe(v2_sandbox))
        write_cue_images(eps, gt, v2_sandbox / "corpus", out.parent)
        write_episodes(eps, out)
        _BUILT["episodes"] = out
    return _BUILT["episodes"]
