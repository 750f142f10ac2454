"""The corpus versions the sandbox can build, and where each lives by default.

v3 (the default, `corpus-3.0`, 480 papers) is what `episodes/sandbox-v3.jsonl` is built on; `epi sandbox build`
writes it to sandbox/build. v1 (`corpus-1.1`, 96 papers) and v2 (`corpus-2.0`, 480 papers) stay buildable, byte
for byte, so the frozen benchmarks `episodes/sandbox-v1.jsonl` and `sandbox-v2.jsonl` still run:
`epi sandbox build --corpus v1` (or v2) writes it next to the default sandbox (`sandbox/build-v1`,
`sandbox/build-v2`), and `epi run --episodes episodes/sandbox-v1.jsonl` finds it there from the file's `source`.
Paper ids never collide across versions (v1 P001, v2 P0001, v3 Q0001).

v1's and v2's generators are frozen in `sandbox/legacy/` (never extended); v3's is the living generator
(`sandbox/corpus`), which later versions extend. This module is the one place that names both.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from .. import paths

if TYPE_CHECKING:  # the pydantic models cost ~0.15 s to import; epi's start-up reads only DEFAULT_SEED here
    from .model import GroundTruth, PaperGT

DEFAULT_CORPUS = "v3"
DEFAULT_SEED = 7  # the corpus generator's seed; kept here so the CLI reads it without loading the builder


# The stamp each version's generator writes (its plan module's GENERATOR_VERSION, held equal by
# tests/harness/test_corpus_of_episodes.py): `epi run` reads which version an episode file needs from these
# alone, without importing a generator (v2's chart module loads PyMuPDF and its layout model: seconds).
GENERATOR_VERSIONS = {"v1": "corpus-1.1", "v2": "corpus-2.0", "v3": "corpus-3.0"}


def version_name_of(generator_version: str) -> str:
    """The name of the corpus version whose generator writes `generator_version` (ValueError if none does)."""
    for name, stamp in GENERATOR_VERSIONS.items():
        if stamp == generator_version:
            return name
    raise ValueError(f"no corpus version writes {generator_version!r}")


def default_dir(name: str) -> Path:
    """sandbox_dir() for the default corpus; `<sandbox_dir()>-<name>` for another."""
    root = paths.sandbox_dir()
    return root if name == DEFAULT_CORPUS else root.with_name(f"{root.name}-{name}")


class RecipeError(ValueError):
    """A corpus recipe the generator cannot make (say, too few papers); raised before anything is written."""


@dataclass(frozen=True)
class CorpusVersion:
    name: str
    generator_version: str
    default_papers: int
    plan: Callable[[int, int], GroundTruth]
    reference_string: Callable[[PaperGT], str]
    render: Callable[..., bytes]  # render(paper, refs, full-width figures, chart_backend) -> PDF bytes
    chart_backend: ModuleType | None  # None: matplotlib (v1)
    renderer_files: tuple[str, ...]  # its renderer's sources (under sandbox/): its render-cache key
    min_papers: int  # the smallest corpus its rules can hold in
    min_reason: str  # ... and why, for the error
    check_rendered: Callable[[GroundTruth], None] | None = None  # the build's checks after rendering

    def default_dir(self) -> Path:
        """sandbox_dir() for the default corpus; `<sandbox_dir()>-<name>` for another."""
        return default_dir(self.name)

    def check_recipe(self, n_papers: int) -> None:
        """RecipeError (one line) when this version cannot make a corpus of `n_papers` papers."""
        if n_papers < self.min_papers:
            raise RecipeError(f"corpus {self.name} needs at least {self.min_papers} papers (got {n_papers}), "
                              f"{self.min_reason}")


_V1_RENDERER = ("legacy/corpus_v1/layout.py", "legacy/corpus_v1/floats.py", "legacy/corpus_v1/charts.py")


def corpus_version(name: str) -> CorpusVersion:
    """The version named `name` ('v1', 'v2' or 'v3'); ValueError naming the known ones otherwise."""
    if name == "v1":
        from ..legacy.corpus_v1.layout import render_paper
        from ..legacy.corpus_v1.plan import DEFAULT_PAPERS, GENERATOR_VERSION, plan_corpus
        from ..legacy.corpus_v1.prose import reference_string
        from ..legacy.corpus_v1.vocab import AREAS

        return CorpusVersion("v1", GENERATOR_VERSION, DEFAULT_PAPERS, plan_corpus, reference_string, render_paper,
                             None, _V1_RENDERER, len(AREAS), f"one in each of its {len(AREAS)} areas")
    if name == "v2":
        from ..legacy.corpus_v1.layout import render_paper  # v2 papers are laid out as v1's, with v2's charts
        from ..legacy.corpus_v1.prose import reference_string  # and list references as v1's do
        from ..legacy.corpus_v2 import chart
        from ..legacy.corpus_v2.checks import MIN_DISTRACTORS, check_rendered
        from ..legacy.corpus_v2.plan import DEFAULT_PAPERS as V2_PAPERS
        from ..legacy.corpus_v2.plan import GENERATOR_VERSION as V2_VERSION
        from ..legacy.corpus_v2.plan import plan_corpus as plan_v2

        return CorpusVersion("v2", V2_VERSION, V2_PAPERS, plan_v2, reference_string, render_paper, chart,
                             _V1_RENDERER + ("legacy/corpus_v2/chart.py",), 4 * MIN_DISTRACTORS,
                             f"so that its distractor rule holds (every paper has {MIN_DISTRACTORS} look-alikes sharing "
                             "two of area, dataset, venue and year, first author; checked from that size on)",
                             check_rendered)
    if name == "v3":  # the living generator and the default: `epi sandbox build` writes sandbox/build
        from . import chart as v3_chart
        from .checks import check_rendered as check_v3
        from .layout import render_paper as render_v3
        from .plan import DEFAULT_PAPERS as V3_PAPERS
        from .plan import GENERATOR_VERSION as V3_VERSION
        from .plan import MIN_PAPERS as V3_MIN
        from .plan import MIN_PAPERS_REASON as V3_MIN_REASON
        from .plan import plan_corpus as plan_v3
        from .prose import reference_string

        return CorpusVersion("v3", V3_VERSION, V3_PAPERS, plan_v3, reference_string, render_v3, v3_chart,
                             ("corpus/flow.py", "corpus/floats.py", "corpus/layout.py", "corpus/chart.py",
                              "corpus/vocab.py"), V3_MIN, V3_MIN_REASON, check_v3)
    raise ValueError(f"unknown corpus version {name!r}; known versions: v1, v2, v3")


def version_of(generator_version: str) -> CorpusVersion:
    """The corpus version that writes ground truths stamped `generator_version`."""
    return corpus_version(version_name_of(generator_version))
