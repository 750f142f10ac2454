"""`epi paper inspect|figure|table`: look at what the PDF tools see in any PDF file.

The file is untrusted: its first parse runs in a child process under the PDF limits (tools/pdf/_limits.py),
cached by content hash in the sandbox cache, and a refusal is a one-line error with exit code 2.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..terminal_text import inert
from ._apps import UserError, paper_app

from tools.pdf import PdfLimits, PdfLimitsError, describe_limits, format_mb  # light: no PyMuPDF

if TYPE_CHECKING:  # tools.pdf loads pymupdf (~0.8 s): imported by the commands that parse, not by `epi --help`
    from tools.pdf import FloatRef, ParsedPaper

PDF_LIMIT_HELP = ("raise (or lower) a PDF limit for this command, as name=value; repeatable. Defaults, which "
                  f"EPI_PDF_MAX_<NAME> variables also change: {describe_limits()}")


def pdf_limits(pairs: list[str]) -> PdfLimits:
    """The limits in force: the defaults, then EPI_PDF_MAX_* variables, then `--pdf-limit` pairs."""
    try:
        return PdfLimits.from_env().with_overrides(pairs)
    except PdfLimitsError as e:
        raise UserError(str(e)) from None


def _read(path: Path, limits: PdfLimits) -> bytes:
    if not path.exists():
        raise UserError(f"{path}: no such file")
    if not path.is_file():
        raise UserError(f"{path}: not a file")
    try:
        size = path.stat().st_size
        if size > limits.file_bytes:  # refused before reading: the file may not even fit in memory
            raise UserError(f"{path}: {limits.refuse(f'the file is {format_mb(size)}', 'file_mb').message}")
        return path.read_bytes()
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e.strerror})") from None


def _parse(path: Path, limits: PdfLimits) -> tuple[bytes, ParsedPaper]:
    from sandbox.paths import cache_dir
    from tools.pdf import PdfError, parse_cached

    data = _read(path, limits)
    try:
        return data, parse_cached(data, cache_dir(), limits=limits, trusted=False)
    except PdfError as e:
        raise UserError(f"{path}: {e.message}") from None


def _float_json(ref: FloatRef) -> dict:
    return {"n": ref.n, "page": ref.page, "caption": ref.caption,
            "bbox": list(ref.bbox or ref.caption_bbox), "caption_bbox": list(ref.caption_bbox),
            "located": ref.bbox is not None}


def _missing(path: Path, what: str, n: int, refs: list[FloatRef]) -> UserError:
    have = ", ".join(str(r.n) for r in refs) or "none"
    return UserError(f"{path}: no {what} {n}; the {what.lower()}s found are: {have}")


@paper_app.command("inspect")
def inspect(pdfs: list[Path] = typer.Argument(..., help="PDF files to inspect"),
            as_json: bool = typer.Option(False, "--json", help="print a JSON list, one object per file"),
            pdf_limit: list[str] = typer.Option([], "--pdf-limit", help=PDF_LIMIT_HELP)) -> None:
    """List the pages, sections, figures and tables the tools find in each PDF."""
    limits = pdf_limits(pdf_limit)
    out = []
    for path in pdfs:
        _, parsed = _parse(path, limits)
        out.append({"file": str(path), "pages": parsed.pages, "title": parsed.title, "two_column": parsed.two_column,
                    "sections": [s.title for s in parsed.sections],
                    "figures": [_float_json(f) for f in parsed.figures],
                    "tables": [_float_json(t) for t in parsed.tables]})
    if as_json:
        typer.echo(json.dumps(out, indent=1, ensure_ascii=False))
        return
    console = Console()
    for item in out:
        console.print(f"[bold]{escape(inert(item['file']))}[/]: {item['pages']} pages, {len(item['sections'])} sections, "
                      f"{'two' if item['two_column'] else 'one'} column", highlight=False)
        table = Table("float", "page", "caption", "bbox")
        for kind in ("figures", "tables"):
            for f in item[kind]:
                table.add_row(f"{kind[:-1]} {f['n']}", str(f["page"]), Text(inert(f["caption"][:70])),  # paper text: inert
                              ", ".join(f"{v:.0f}" for v in f["bbox"]))
        console.print(table)


@paper_app.command("figure")
def figure(pdf: Path = typer.Argument(..., help="PDF file"), n: int = typer.Argument(..., help="figure number"),
           out: Path = typer.Option(..., "--out", help="where to write the PNG"),
           dpi: int = typer.Option(150, "--dpi", help="render resolution, at least 150"),
           as_json: bool = typer.Option(False, "--json", help="print the result as JSON"),
           pdf_limit: list[str] = typer.Option([], "--pdf-limit", help=PDF_LIMIT_HELP)) -> None:
    """Crop figure N of a PDF to a PNG."""
    limits = pdf_limits(pdf_limit)
    data, parsed = _parse(pdf, limits)
    ref = parsed.figure(n)
    if ref is None:
        raise _missing(pdf, "Figure", n, parsed.figures)
    from tools.pdf import PdfError, crop_figure

    try:
        crop = crop_figure(data, ref, dpi=dpi, limits=limits)
    except PdfError as e:
        raise UserError(f"{pdf}: {e.message}") from None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(crop.png)
    except OSError as e:
        raise UserError(f"{out}: cannot write the PNG ({e.strerror})") from None
    result = {"file": str(pdf), "n": ref.n, "page": ref.page, "bbox": list(crop.bbox), "caption": ref.caption,
              "out": str(out), "width": crop.width, "height": crop.height, "dpi": crop.dpi}
    typer.echo(json.dumps(result, ensure_ascii=False) if as_json
               else f"Figure {ref.n} (page {ref.page}) -> {out} ({crop.width}x{crop.height} px)")


@paper_app.command("table")
def table(pdf: Path = typer.Argument(..., help="PDF file"), n: int = typer.Argument(..., help="table number"),
          as_json: bool = typer.Option(False, "--json", help="print the result as JSON"),
          pdf_limit: list[str] = typer.Option([], "--pdf-limit", help=PDF_LIMIT_HELP)) -> None:
    """Extract table N of a PDF as rows and markdown."""
    data, parsed = _parse(pdf, pdf_limits(pdf_limit))
    ref = parsed.table(n)
    if ref is None:
        raise _missing(pdf, "Table", n, parsed.tables)
    from tools.pdf import PdfError, extract_table

    try:
        cells = extract_table(data, ref)
    except PdfError as e:
        raise UserError(f"{pdf}: {e.message}") from None
    result = {"file": str(pdf), "n": ref.n, "page": ref.page, "bbox": list(ref.bbox or ref.caption_bbox),
              "caption": ref.caption, "rows": cells.rows, "markdown": cells.markdown}
    typer.echo(json.dumps(result, ensure_ascii=False) if as_json
               else inert(f"Table {ref.n} (page {ref.page}): {ref.caption}\n\n{cells.markdown}"))
