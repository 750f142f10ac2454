"""The second benchmark the learned adversaries learn from: made by the same generator as the audited file
from other seeds, as a plan only (the plotted and tabled facts, captions, nearby text and the episodes; no PDF
rendered, no index built), cached by hash; or, for a corpus without a generator, a file of the user's own
(`--train-on FILE --train-sandbox DIR`), read through the tools like the audited one.

A generator makes its second benchmark known with `register_second_benchmark(version, build)`: `build(corpus_seed,
episode_seed)` returns the planned ground truth and the episode file's lines. The audited file's `source` names
the generator and the corpus it was made from.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.episode import Episode
from harness.episodes_io import EpisodeFileError, EpisodeSet, load_episodes

from ._views import PaperView, view_from_plan

if TYPE_CHECKING:
    from sandbox.corpus.model import GroundTruth

SEED_SHIFT = 1000  # the second benchmark's seeds: the audited file's corpus and episode seeds plus this
CACHE_FOLDER = "audit-second-benchmark"
EPISODE_SETS = 2  # episode sets generated over the second plan (each with the generator's default count)
_SOURCE = re.compile(r"(?P<gen>[\w.\-]+) seed=(?P<seed>\d+) ground_truth=(?P<corpus>[\w.\-]+)/seed=(?P<cseed>\d+)")

SecondBenchmarkBuild = Callable[[int, int], "tuple[GroundTruth, list[str]]"]


@dataclass(frozen=True)
class _Recipe:
    build: SecondBenchmarkBuild
    code: tuple[str, ...]  # packages whose source is part of the cache key


_RECIPES: dict[str, _Recipe] = {}


def register_second_benchmark(generator_version: str, build: SecondBenchmarkBuild,
                              code: tuple[str, ...] = ("sandbox.corpus", "sandbox.episodegen")) -> None:
    """Let the audit learn from a second benchmark of `generator_version` (as episode `source` fields name it):
    `build(corpus_seed, episode_seed)` plans a corpus (no rendering) and returns it with the episode lines.
    The cache key includes the source code of the packages named in `code`, so a changed generator rebuilds."""
    _RECIPES[generator_version] = _Recipe(build, code)


def _planned_benchmark(corpus: str, generator: str, corpus_seed: int, episode_seed: int) -> tuple[GroundTruth, list[str]]:
    """Corpus version `corpus` planned (not rendered) at `corpus_seed`, and EPISODE_SETS benchmarks of the
    episode generator module `generator` over it (more episodes over the same plan: more turns per group to
    learn from), ids suffixed by set."""
    import importlib

    from sandbox.corpus.versions import corpus_version

    gen = importlib.import_module(generator)
    version = corpus_version(corpus)
    gt = version.plan(corpus_seed, version.default_papers)
    lines = []
    for k in range(EPISODE_SETS):
        for e in gen.generate_episodes(gt, seed=episode_seed + k, count=gen.DEFAULT_COUNT, image_share=0.0):
            e.id = f"{e.id}-s{k}"
            lines.append(e.to_json_line())
    return gt, lines


_LEGACY_CODE = ("sandbox.corpus", "sandbox.legacy")  # the frozen generators (v1, v2) and the corpus model
register_second_benchmark("episodegen-3.0", functools.partial(_planned_benchmark, "v3", "sandbox.episodegen"))
# The report benchmark over corpus v3 asks its figure values under the v3 generator's rules (V3Facts.askable), so
# its learned adversaries learn from the v3 turn benchmark over a corpus planned from the shifted seeds: the same
# kind of plotted and tabled facts, and many more figure values to learn from than the report file's own turns.
register_second_benchmark("reportgen-2.0", functools.partial(_planned_benchmark, "v3", "sandbox.episodegen"))
register_second_benchmark("episodegen-2.1", functools.partial(_planned_benchmark, "v2", "sandbox.legacy.episodegen_v2"),
                          _LEGACY_CODE)
register_second_benchmark("episodegen-1", functools.partial(_planned_benchmark, "v1", "sandbox.legacy.episodegen_v1"),
                          _LEGACY_CODE)


@dataclass
class FileSource:
    """What an episode file's `source` fields say made it (the most common one)."""

    generator: str
    seed: int
    corpus: str
    corpus_seed: int


def file_source(episodes: list[Episode]) -> FileSource | None:
    found = Counter(m.groups() for e in episodes if e.source and (m := _SOURCE.search(e.source)))
    if not found:
        return None
    gen, seed, corpus, cseed = found.most_common(1)[0][0]
    return FileSource(gen, int(seed), corpus, int(cseed))


@dataclass
class TrainingSet:
    """Episodes with their answers, and every paper they read as the text tools show it."""

    origin: str
    episodes: list[Episode]
    views: dict[str, PaperView]
    plotted: dict[tuple[str, int], object] = field(default_factory=dict)  # (paper, figure) -> FigureGT, plans only
    areas: dict[str, str | None] = field(default_factory=dict)


class NotLearnable(Exception):
    """No second benchmark can be had; the message says why (the learned checks print it as "not checked")."""


def _code_digest(packages: tuple[str, ...]) -> str:
    import importlib

    h = hashlib.sha256()
    for name in packages:
        root = Path(importlib.import_module(name).__file__ or "").parent
        for f in sorted(root.rglob("*.py")):
            h.update(f.relative_to(root).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _cached(folder: Path) -> tuple[GroundTruth | None, list[str] | None, str]:
    """A second benchmark built before (None, None when absent or damaged: it is built again)."""
    from pydantic import ValidationError

    from sandbox.corpus.model import GroundTruth

    try:
        gt = GroundTruth.model_validate_json((folder / "ground_truth.json").read_bytes())
        lines = (folder / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError, ValidationError):
        return None, None, ""
    return gt, lines, "cached"


def second_benchmark(src: FileSource, cache_dir: Path | None) -> TrainingSet:
    """The second benchmark of the file's generator (seeds shifted by SEED_SHIFT), from the cache when built."""
    recipe = _RECIPES.get(src.generator)
    if recipe is None:
        known = ", ".join(sorted(_RECIPES))
        raise NotLearnable(f"no second benchmark is registered for generator {src.generator!r} (known: {known}); "
                           "pass --train-on FILE --train-sandbox DIR")
    cseed, eseed = src.corpus_seed + SEED_SHIFT, src.seed + SEED_SHIFT
    key = hashlib.sha256(json.dumps([src.generator, src.corpus, cseed, eseed, EPISODE_SETS,
                                     _code_digest(recipe.code)]).encode()).hexdigest()[:24]
    folder = cache_dir / CACHE_FOLDER / key if cache_dir is not None else None
    gt, lines, cached = _cached(folder) if folder is not None else (None, None, "")
    if gt is None or lines is None:
        try:
            gt, lines = recipe.build(cseed, eseed)
        except (RuntimeError, ValueError) as e:  # GenerationError and the like: the other seeds cannot be served
            raise NotLearnable(f"{src.generator} could not make a second benchmark from seeds {cseed}/{eseed}: {e}") from None
        cached = "built now"
        if folder is not None:
            try:
                _write(folder / "episodes.jsonl", "".join(ln + "\n" for ln in lines))
                _write(folder / "ground_truth.json", gt.model_dump_json())
            except OSError:
                pass  # a read-only cache only costs time
    if gt.generator_version != src.corpus:
        raise NotLearnable(f"generator {src.generator} planned corpus {gt.generator_version}, but the file was made "
                           f"from {src.corpus}")
    eps: list[Episode] = []
    if lines:
        with tempfile.TemporaryDirectory(prefix="epi-audit-") as tmp:
            ep_file = Path(tmp) / "episodes.jsonl"
            ep_file.write_text("".join(ln + "\n" for ln in lines), encoding="utf-8")
            try:
                eps = load_episodes(ep_file).episodes
            except EpisodeFileError as e:
                raise NotLearnable(f"{src.generator} made a second benchmark that does not load: {e.problems[0]}") from None
    views = {p.id: view_from_plan(p) for p in gt.papers}
    plotted = {(p.id, f.n): f for p in gt.papers for f in p.figures}
    return TrainingSet(origin=(f"second benchmark: {src.generator} seed {eseed} over a plan of {gt.generator_version} "
                               f"seed {cseed} ({len(eps)} episodes, {len(gt.papers)} papers, no PDF rendered; {cached})"),
                       episodes=eps, views=views, plotted=plotted, areas={p.id: p.area for p in gt.papers})


def check_corpus(eps: EpisodeSet, catalog: object, what: str) -> None:
    """NotLearnable when `eps` names papers, figures or tables the corpus does not have."""
    try:
        load_episodes(eps.path, catalog=catalog)  # type: ignore[arg-type]
    except EpisodeFileError as e:
        first = e.problems[0] if e.problems else None
        raise NotLearnable(f"{what} does not match its corpus ({first})") from None


async def training_from_file(eps: EpisodeSet, world: object, areas: dict[str, str | None]) -> TrainingSet:
    """A user's annotated file over its own corpus, read through the tools like the audited one."""
    from ._texts import PaperReader
    from ._views import view_from_text

    if not any(r.value is not None for ep in eps.episodes for t in ep.turns for r in t.reads):
        raise NotLearnable(f"{eps.path} has no `reads` annotations with values to learn from")
    reader = PaperReader(world)  # type: ignore[arg-type]
    papers = sorted({e.paper for ep in eps.episodes for t in ep.turns for e in t.evidence} |
                    {r.paper for ep in eps.episodes for t in ep.turns for r in t.reads})
    views = {}
    for p in papers:
        pt = await reader.paper(p)
        if pt.errors and not pt.title:
            raise NotLearnable(f"{eps.path}: paper {p} cannot be read in its corpus ({pt.errors[0]})")
        views[p] = view_from_text(pt, pt.year)
    return TrainingSet(origin=f"{eps.path} ({len(eps.episodes)} episodes, {len(views)} papers read through the tools)",
                       episodes=eps.episodes, views=views, areas=areas)
