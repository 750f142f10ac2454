"""`epi sandbox build | stats | add`: make the offline corpus, describe it, add your own PDFs."""
from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from sandbox import paths
from sandbox.corpus.versions import DEFAULT_SEED

from ._apps import UserError, sandbox_app
from ._paper import PDF_LIMIT_HELP, pdf_limits

_out = Console()


@sandbox_app.command("build")
def build(
    seed: int = typer.Option(DEFAULT_SEED, help="Seed of the corpus generator; the same seed gives the same corpus."),
    papers: int = typer.Option(None, min=1, max=2000, help="Number of papers to generate (default: v3 480, v2 480, v1 96)."),
    corpus: str = typer.Option("v3", help="Corpus version: v3 (the default benchmark's, built into EPI_SANDBOX_DIR, i.e. "
                               "sandbox/build), v2 or v1 (for the frozen episodes/sandbox-v2.jsonl and sandbox-v1.jsonl; "
                               "built into <EPI_SANDBOX_DIR>-v2 and -v1)."),
    force: bool = typer.Option(False, "--force", help="Rebuild even if the corpus is up to date."),
) -> None:
    """Generate the corpus (PDFs, ground truth, catalog) and its search index under EPI_SANDBOX_DIR."""
    from sandbox.corpus.build import build_corpus
    from sandbox.corpus.versions import RecipeError, corpus_version

    try:
        version = corpus_version(corpus)
    except ValueError as e:
        raise UserError(f"--corpus: {e}") from None
    root = version.default_dir()
    papers = papers or version.default_papers
    if not force and (root / "build.json").is_file():
        _out.print(f"checking {root} ...")
    else:
        _out.print(f"building corpus {corpus}: {papers} papers (seed {seed}) into {root} ...")
    try:
        result = build_corpus(root, seed=seed, n_papers=papers, force=force, corpus=corpus)
    except OSError as e:
        raise UserError(f"cannot write the sandbox in {root}: {e.strerror or e}") from None
    except RecipeError as e:
        raise UserError(f"--papers: {e}") from None
    if result.up_to_date:
        _out.print(f"up to date: {result.papers} papers, {result.pages} pages in {root} (use --force to rebuild)")
    else:
        _out.print(f"built {result.papers} papers ({result.rendered} rendered, the rest from the render cache), "
                   f"{result.pages} pages, {result.bytes / 1e6:.1f} MB in {result.seconds:.1f} s into {root}")


@sandbox_app.command("stats")
def stats(as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of a table.")) -> None:
    """Describe the built corpus: papers, figures, tables, pages, areas, layouts."""
    from sandbox.corpus.stats import corpus_stats

    if not paths.ground_truth_path().is_file():
        raise UserError(f"the sandbox in {paths.sandbox_dir()} is not built (no ground_truth.json); "
                        "run `epi sandbox build`")
    s = corpus_stats()
    if as_json:
        typer.echo(json.dumps(s.model_dump(), indent=1))
        return
    table = Table(title=f"sandbox corpus ({s.generator_version}, seed {s.seed})")
    table.add_column("what")
    table.add_column("count", justify="right")
    for key in ("papers", "figures", "vector_figures", "raster_figures", "tables", "pages", "areas", "citations", "added"):
        table.add_row(key.replace("_", " "), str(getattr(s, key)))
    for layout, n in s.layouts.items():
        table.add_row(f"layout: {layout.replace('_', ' ')}", str(n))
    for area, n in s.by_area.items():
        table.add_row(f"area: {area}", str(n))
    _out.print(table)


@sandbox_app.command("add")
def add(
    pdf: Path = typer.Argument(..., help="A PDF file to add."),
    sandbox: Path = typer.Option(None, "--sandbox", help="The corpus folder to add it to; a folder that does not exist "
                                 "yet is made from the current corpus (or --from) first. Required: the default "
                                 "corpus is never changed silently."),
    base: Path = typer.Option(None, "--from", help="The corpus a new --sandbox folder is made from "
                              "(default: $EPI_SANDBOX_DIR, else sandbox/build)."),
    pdf_limit: list[str] = typer.Option([], "--pdf-limit", help=PDF_LIMIT_HELP),
) -> None:
    """Add your own PDF to a named corpus folder: it gets an id (U001, ...), is parsed, cataloged and indexed
    incrementally (only the new paper is read and embedded; the index equals a full rebuild's)."""
    from sandbox.corpus.add import AddPdfError, add_pdf

    if sandbox is None:
        raise UserError(f"name the corpus folder to add {pdf} to: --sandbox DIR (a new folder is made from the current "
                        f"corpus, {paths.sandbox_dir()}, which is never changed silently); then run on it with "
                        "`epi run --sandbox DIR`")
    if base is not None and (sandbox / "catalog.json").is_file():
        raise UserError(f"--from {base}: {sandbox} is a corpus already; --from only says what a new folder is made from")
    try:
        result = add_pdf(pdf, sandbox, base=base, limits=pdf_limits(pdf_limit))
    except AddPdfError as e:
        raise UserError(str(e)) from None
    e = result.entry
    if result.already_present:
        _out.print(f"{pdf} is already in the corpus {result.corpus} as {e.id} ({e.title})", highlight=False)
        return
    if result.derived_from is not None:
        _out.print(f"made the corpus {result.corpus} from {result.derived_from} (PDFs linked, catalog and index copied)",
                   highlight=False)
    if result.note:
        _out.print(f"note: {result.note}", highlight=False)
    _out.print(f"added {pdf} as {e.id} to {result.corpus}: {e.title!r}, {e.pages} pages, figures {e.figures or 'none'}, "
               f"tables {e.tables or 'none'}; indexed in {result.index_seconds:.1f} s", highlight=False)
    _out.print(f"run on it: epi run --sandbox {result.corpus}", highlight=False)
