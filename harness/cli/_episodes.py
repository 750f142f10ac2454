"""`epi episodes validate|stats` and `epi sandbox episodes` (generate the sandbox benchmark set)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from harness.episodes_io import (
    EpisodeFileError,
    EpisodeSet,
    checklist_coverage_problems,
    episode_stats,
    load_episodes,
)
from harness.terminal_text import inert
from sandbox import paths
from sandbox.corpus.model import Catalog, GroundTruth

from ._apps import UserError, episodes_app, sandbox_app

MAX_EPISODES = 2000  # `epi sandbox episodes --count`: the benchmarks have 110-160; no corpus gives this many


def _read_model(path: Path, model: type[Catalog] | type[GroundTruth], what: str):  # noqa: ANN202
    try:
        return model.model_validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError) as e:
        raise UserError(f"{path}: cannot read the {what}: {str(e).splitlines()[0]}") from None


def load_catalog_if_built(catalog_path: Path | None = None) -> Catalog | None:
    """The sandbox catalog (or the given one); None when the sandbox is not built and none was given."""
    path = catalog_path or paths.catalog_path()
    if catalog_path is None and not path.is_file():
        return None
    if not path.is_file():
        raise UserError(f"{path}: catalog file not found")
    return _read_model(path, Catalog, "catalog")


def _load_or_user_error(file: Path, catalog: Catalog | None) -> EpisodeSet:
    try:
        return load_episodes(file, catalog=catalog)
    except EpisodeFileError as e:
        raise UserError(str(e)) from None


@episodes_app.command("validate")
def validate(
    file: Annotated[Path, typer.Argument(help="episode file (JSONL, one episode per line)")],
    catalog: Annotated[Optional[Path], typer.Option(help="catalog.json to check papers against (default: the built sandbox's)")] = None,
) -> None:
    """Check an episode file; print OK or every problem (file:line: episode: field: what), exit 2 on problems."""
    unbuilt: str | None = None
    if catalog is None:  # the corpus the file's `source` fields name, as `epi run` and `epi episodes audit` take it
        from sandbox.corpus.select import CorpusMismatch, corpus_for_episodes

        try:
            corpus = corpus_for_episodes(file, None)
        except CorpusMismatch as e:  # the file's corpus is not built: check its structure, say how to check the rest
            unbuilt = str(e)
        else:
            catalog = None if corpus is None else corpus / "catalog.json"
    cat = None if unbuilt else load_catalog_if_built(catalog)
    eps = _load_or_user_error(file, cat)
    for ep in eps.episodes:
        for field, msg in checklist_coverage_problems(ep):
            typer.echo(inert(f"warning: {file}:{eps.lines[ep.id]}: episode {ep.id!r}: {field}: {msg}"))
    against = (
        f"papers, figures and tables checked against {catalog or paths.catalog_path()}"
        if cat is not None
        else f"structure only: papers, figures and tables were not checked: {unbuilt}" if unbuilt
        else "structure only: the sandbox is not built, so papers, figures and tables were not checked (run `epi sandbox build`)"
    )
    annotated = sum(bool(t.reads or t.derivation) for ep in eps.episodes for t in ep.turns)
    typer.echo(f"OK: {len(eps.episodes)} episodes ({against}); {annotated} turn(s) carry reads/derivation annotations")


@episodes_app.command("audit")
def audit(
    file: Annotated[Optional[Path], typer.Argument(help="episode file (JSONL); default: the default benchmark of `epi run`")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the whole audit as JSON")] = False,
    sandbox_dir: Annotated[Optional[Path], typer.Option("--sandbox", help="corpus folder the episodes are about "
                                                        "(default: the built sandbox, or EPI_SANDBOX_DIR)")] = None,
    ground_truth: Annotated[Optional[Path], typer.Option(help="plotted data of the corpus (the sandbox's ground_truth.json): "
                                                         "lets the ambiguous-series check judge files without annotations")] = None,
    train_on: Annotated[Optional[Path], typer.Option("--train-on", help="episode file the learned adversaries learn from "
                                                     "(default: a second benchmark of the file's own generator, other seeds)")] = None,
    train_sandbox: Annotated[Optional[Path], typer.Option("--train-sandbox", help="corpus folder of --train-on "
                                                          "(default: the audited corpus)")] = None,
    learned_advisory: Annotated[bool, typer.Option("--learned-advisory", help="report broken thresholds of the learned "
                                                   "adversaries without failing (exit 0 if every other threshold holds)")] = False,
    no_learned: Annotated[bool, typer.Option("--no-learned", help="leave out the learned adversaries")] = False,
) -> None:
    """Benchmark linter: print each validity figure with its threshold; exit 1 if one is broken, 2 on a bad file."""
    import asyncio

    from harness.audit import PlottedData, audit_episodes, render_text
    from harness.settings import DEFAULT_EPISODES
    from sandbox.world import SandboxNotBuilt, SandboxWorld

    from sandbox.corpus.select import CorpusMismatch, corpus_for_episodes

    file = file or DEFAULT_EPISODES
    try:  # the corpus the file was built for, taken as `epi run` takes it
        sandbox_dir = corpus_for_episodes(file, sandbox_dir)
    except CorpusMismatch as e:
        raise UserError(str(e)) from None
    try:
        world = SandboxWorld(sandbox_dir)
    except SandboxNotBuilt as e:
        raise UserError(str(e)) from None
    plotted = None
    if ground_truth is not None:
        if not ground_truth.is_file():
            raise UserError(f"{ground_truth}: ground-truth file not found")
        try:
            plotted = PlottedData.model_validate_json(ground_truth.read_bytes())
        except (ValidationError, ValueError) as e:
            raise UserError(f"{ground_truth}: not a ground-truth file (papers[].figures[].series): {str(e).splitlines()[0]}") from None
    eps = _load_or_user_error(file, world.catalog)
    papers = {p.id: p.area for p in world.catalog.papers}
    training, why = (None, None) if no_learned else _training_for(eps, world, train_on, train_sandbox)
    report = asyncio.run(audit_episodes(eps, world, corpus=str(world.root), papers=papers, plotted=plotted,
                                        training=training, training_why=why, learned=not no_learned,
                                        advisory=learned_advisory))
    if as_json:
        typer.echo(json.dumps({**report.model_dump(), "passed": report.passed}, indent=1, ensure_ascii=False))
    else:
        typer.echo(render_text(report))
    if not report.passed:
        raise typer.Exit(1)


def _training_for(eps: EpisodeSet, world, train_on: Path | None, train_sandbox: Path | None):  # noqa: ANN001, ANN202
    """What the learned adversaries learn from, or (None, why not). A --train-on file that cannot be read is a
    user error (exit 2); one that does not fit its corpus, or teaches nothing, leaves the learned checks "not checked"."""
    import asyncio

    from harness.audit import NotLearnable, check_corpus, file_source, second_benchmark, training_from_file
    from sandbox import paths
    from sandbox.world import SandboxNotBuilt, SandboxWorld

    try:
        if train_on is not None:
            tworld = world
            if train_sandbox is not None:
                try:
                    tworld = SandboxWorld(train_sandbox)
                except SandboxNotBuilt as e:
                    raise UserError(f"--train-sandbox: {e}") from None
            teps = _load_or_user_error(train_on, None)
            check_corpus(teps, tworld.catalog, f"--train-on {train_on}")
            areas = {p.id: p.area for p in tworld.catalog.papers}
            return asyncio.run(training_from_file(teps, tworld, areas)), None
        src = file_source(eps.episodes)
        if src is None:
            return None, (f"{eps.path} names no generator in its `source` fields, so no second benchmark can be made; "
                          "pass --train-on FILE (and --train-sandbox DIR)")
        built = f"{world.catalog.generator_version}/seed={world.catalog.seed}"
        if built != f"{src.corpus}/seed={src.corpus_seed}":
            return None, (f"the file was generated over {src.corpus}/seed={src.corpus_seed} but the corpus folder holds "
                          f"{built}: its second benchmark would not match")
        return second_benchmark(src, paths.cache_dir()), None
    except NotLearnable as e:
        return None, str(e)


@episodes_app.command("stats")
def stats(
    file: Annotated[Path, typer.Argument(help="episode file (JSONL)")],
    as_json: Annotated[bool, typer.Option("--json", help="print a JSON object instead of a table")] = False,
) -> None:
    """Composition of an episode set: counts by split, task type, initiation, area, turns, answer format."""
    eps = _load_or_user_error(file, None)
    st = episode_stats(eps.episodes)
    if as_json:
        typer.echo(json.dumps(st.model_dump(), indent=2))
        return
    table = Table(title=f"{file} ({st.episodes} episodes, {st.turns} turns, {st.memory_only_turns} memory-only)")
    table.add_column("count")
    table.add_column("values")
    for name in ("by_split", "by_task_type", "by_initiation", "by_area", "turns_per_episode", "by_answer_format"):
        values: dict[str, int] = getattr(st, name)
        table.add_row(name, ", ".join(f"{k}: {v}" for k, v in values.items()))
    table.add_row("papers_per_episode_mean", str(st.papers_per_episode_mean))
    Console().print(table)


@sandbox_app.command("episodes")
def generate(
    out: Annotated[Optional[Path], typer.Option(help="where to write the episode set (default episodes/sandbox-<benchmark>.jsonl)")] = None,
    benchmark: Annotated[str, typer.Option(help="v3 (the default benchmark, over corpus v3), or the frozen v2 and v1 (over "
                                                "corpus v2 and v1, `epi sandbox build --corpus v2`); v3-report (the report "
                                                "benchmark, over corpus v3) or the frozen v2-report")] = "v3",
    seed: Annotated[Optional[int], typer.Option(help="generator seed (default: the generator's default)")] = None,
    count: Annotated[Optional[int], typer.Option(help="number of episodes (default: v3 160, v2 132, v1 110)")] = None,
    ground_truth: Annotated[Optional[Path], typer.Option(help="ground_truth.json (default: the built sandbox's)")] = None,
    image_share: Annotated[Optional[float], typer.Option(
        help="share of episodes starting from an image cue (default: v3 and v2 0.15, v1 0.17; 0 = text cues only). Cue PNGs are "
             "cropped from the PDFs in the corpus/ folder next to the ground truth and written to <out stem>-cues/")] = None,
) -> None:
    """Generate a benchmark episode set (and its cue images) from the sandbox ground truth (deterministic from the seed).

    v2 runs every checklist query through the search engine of the sandbox next to the ground truth,
    so each cue is verified solvable (without a built index, nothing is verified and it says so)."""
    if benchmark not in ("v1", "v2", "v3", "v3-report", "v2-report"):
        raise UserError(f"--benchmark: unknown benchmark {benchmark!r}; known: v1, v2, v3, v3-report, v2-report")
    if count is not None and not 1 <= count <= MAX_EPISODES:
        raise UserError(f"--count: {count} episodes; give 1 to {MAX_EPISODES} (a corpus runs out of distinct episodes "
                        "long before that, which the generator reports)")
    if benchmark.endswith("-report"):
        return _generate_report(benchmark, out, seed, count, ground_truth, image_share)

    if benchmark == "v3":  # the living generator
        from sandbox import episodegen as gen  # type: ignore[no-redef]
        from sandbox.episodegen import CueImageError, write_cue_images
    elif benchmark == "v2":  # frozen generators: they write sandbox-v2.jsonl and sandbox-v1.jsonl byte for byte
        from sandbox.legacy import episodegen_v2 as gen
        from sandbox.legacy.episodegen_v1 import CueImageError, write_cue_images  # type: ignore[assignment]
    else:
        from sandbox.legacy import episodegen_v1 as gen  # type: ignore[no-redef]
        from sandbox.legacy.episodegen_v1 import CueImageError, write_cue_images  # type: ignore[assignment]
    out = out or Path(f"episodes/sandbox-{benchmark}.jsonl")
    gt_path, gt = _ground_truth(benchmark, ground_truth)
    extra, verified = _probe(gt_path, gen.ToolProbe, "checklist query") if benchmark in ("v2", "v3") else ({}, "")
    try:
        episodes = gen.generate_episodes(gt, seed=gen.DEFAULT_SEED if seed is None else seed,
                                         count=count or gen.DEFAULT_COUNT,
                                         image_share=gen.IMAGE_SHARE if image_share is None else image_share,
                                         image_dir=f"{out.stem}-cues", **extra)
    except gen.GenerationError as e:
        raise UserError(f"cannot generate episodes from {gt_path}: {e}") from None
    try:
        images = write_cue_images(episodes, gt, gt_path.parent / "corpus", out.parent)
    except CueImageError as e:
        raise UserError(f"cannot render the cue images: {e} (or pass --image-share 0 for text cues only)") from None
    digest = gen.write_episodes(episodes, out)
    eps, checked = _read_back(out, gt_path)
    typer.echo(f"wrote {len(eps.episodes)} episodes to {out} (sha256 {digest[:12]}; {len(images)} cue images "
               f"in {out.parent / (out.stem + '-cues')}; {checked}{verified})")


def _ground_truth(version: str, ground_truth: Path | None):  # noqa: ANN202
    """(path, GroundTruth) of corpus `version`: the --ground-truth file, else the built corpus folder's; one line
    naming the build command when it is missing."""
    from sandbox.corpus.versions import corpus_version

    gt_path = ground_truth or corpus_version(version).default_dir() / "ground_truth.json"
    if not gt_path.is_file():
        raise UserError(f"{gt_path}: ground truth not found; run `epi sandbox build{'' if version == 'v3' else ' --corpus ' + version}` first")
    return gt_path, _read_model(gt_path, GroundTruth, "ground truth")


def _probe(gt_path: Path, probe_cls, what: str) -> tuple[dict, str]:  # noqa: ANN001
    """The generator's search probe over the corpus built beside the ground truth, and what the summary line says."""
    if (gt_path.parent / "index" / "ids.json").is_file() and (gt_path.parent / "catalog.json").is_file():
        return {"probe": probe_cls(gt_path.parent)}, f"; every {what} verified with the search engine"
    return {}, "; NOT verified with the search engine (no built index next to the ground truth)"


def _read_back(out: Path, gt_path: Path):  # noqa: ANN202
    """The written file read back through the public loader, against the catalog when it is the built sandbox's;
    and what the summary line says of that check."""
    catalog_path = gt_path.parent / "catalog.json"
    catalog = _read_model(catalog_path, Catalog, "catalog") if catalog_path.is_file() else None
    checked = "validated against the sandbox catalog" if catalog is not None else "validated (structure)"
    return _load_or_user_error(out, catalog), checked


def _generate_report(benchmark: str, out: Path | None, seed: int | None, count: int | None, ground_truth: Path | None,
                     image_share: float | None) -> None:
    """`epi sandbox episodes --benchmark v3-report|v2-report`: the report benchmark (two personas per question)."""
    version = benchmark.removesuffix("-report")
    if image_share:
        raise UserError("--image-share: the report benchmarks start from text cues only")
    if count is not None and count % 2:
        raise UserError(f"--count: {count} episodes; a report benchmark asks each question for two readers, so give an "
                        "even number")
    if version == "v3":  # the living generator
        from sandbox.episodegen import report as gen
    else:  # frozen: writes sandbox-v2-report.jsonl byte for byte
        from sandbox.legacy.reportgen_v2 import report as gen  # type: ignore[no-redef]
    out = out or Path(f"episodes/sandbox-{benchmark}.jsonl")
    gt_path, gt = _ground_truth(version, ground_truth)
    extra: dict = {}
    verified = ""
    if version == "v3":
        from sandbox.episodegen import ToolProbe

        extra, verified = _probe(gt_path, ToolProbe, "cue's query")
    questions = (count or 2 * gen.DEFAULT_QUESTIONS) // 2
    try:
        episodes = gen.generate_report_episodes(gt, seed=gen.DEFAULT_SEED if seed is None else seed, questions=questions,
                                                **extra)
    except gen.ReportGenerationError as e:
        raise UserError(f"cannot generate report episodes from {gt_path}: {e}") from None
    digest = gen.write_report_episodes(episodes, out)
    eps, checked = _read_back(out, gt_path)
    typer.echo(f"wrote {len(eps.episodes)} report episodes to {out} (sha256 {digest[:12]}; {checked}{verified})")
