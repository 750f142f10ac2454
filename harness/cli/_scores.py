"""`epi scores export`: a run's episode and turn scores as a table file (CSV, JSONL, Parquet)."""
from __future__ import annotations

import csv
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console

from ..run_data import EpisodeRow, RunReadError, TurnRow, columns, read_run, row_dicts
from ._apps import UserError, app

scores_app = typer.Typer(help="A run's scores as data: export them for pandas, DuckDB, a spreadsheet.",
                         no_args_is_help=True)
app.add_typer(scores_app, name="scores")

FORMATS = ("csv", "jsonl", "parquet")
PARQUET_MISSING = ("--format parquet needs pyarrow, which is not installed: pip install 'epiharness[parquet]' "
                   "(or use --format csv or jsonl)")


@scores_app.command("export")
def export_cmd(
    run: str = typer.Argument(..., help="run folder, or a run id under --results"),
    fmt: str = typer.Option("csv", "--format", help="csv, jsonl or parquet (parquet needs the optional extra: "
                                                     "pip install 'epiharness\\[parquet]')"),
    out: Optional[Path] = typer.Option(None, "--out", show_default="./<run id>-scores",
                                       help="folder to make (must not exist) for episodes.<format> and turns.<format>"),
    results: Path = typer.Option(Path("results"), "--results", help="folder holding run folders"),
) -> None:
    """Write the run's episode scores (one row per episode and epoch) and turn scores (one row per turn) as two
    files; the columns are those of `harness.read_run(path).episodes()` / `.turns()` (harness/README.md)."""
    from ._view import resolve_run

    if fmt not in FORMATS:
        raise UserError(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ModuleNotFoundError:
            raise UserError(PARQUET_MISSING) from None
    try:
        data = read_run(resolve_run(run, results))
    except RunReadError as e:
        raise UserError(str(e)) from None
    if not data.episode_scores:
        raise UserError(f"run {data.run_id!r} has no episode scores ({data.path / 'episode_scores.jsonl'}): "
                        f"`epi score {data.path}` scores it first")
    dest = out if out is not None else Path(f"{data.run_id}-scores")
    if dest.exists() or dest.is_symlink():
        raise UserError(f"--out {dest} exists; name a folder that does not (nothing was written)")
    if not dest.parent.is_dir():
        raise UserError(f"--out {dest}: its parent folder {dest.parent} does not exist (nothing was written)")
    tables = {"episodes": (EpisodeRow, data.episodes()), "turns": (TurnRow, data.turns())}
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        for name, (row_type, rows) in tables.items():
            WRITERS[fmt](tmp / f"{name}.{fmt}", row_type, row_dicts(rows))
        tmp.rename(dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    for note in data.notes:
        Console(stderr=True).print(f"note: {note}", highlight=False, markup=False)
    Console().print(f"{len(tables['episodes'][1])} episode rows, {len(tables['turns'][1])} turn rows: "
                    f"{dest / f'episodes.{fmt}'}, {dest / f'turns.{fmt}'}", highlight=False, markup=False)


def _csv(path: Path, row_type: type, rows: list[dict[str, Any]]) -> None:
    names = [n for n, _ in columns(row_type)]
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=names)
        w.writeheader()
        for r in rows:  # None is an empty cell
            w.writerow({k: "" if v is None else v for k, v in r.items()})


def _jsonl(path: Path, row_type: type, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def _parquet(path: Path, row_type: type, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    kinds = {int: pa.int64(), float: pa.float64(), bool: pa.bool_(), str: pa.string()}

    def arrow(t: Any) -> Any:
        base = next((k for k in kinds if t is k or k in getattr(t, "__args__", ())), str)
        return kinds[base]

    schema = pa.schema([pa.field(n, arrow(t), nullable=type(None) in getattr(t, "__args__", ())) for n, t in
                        columns(row_type)])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)


WRITERS = {"csv": _csv, "jsonl": _jsonl, "parquet": _parquet}
