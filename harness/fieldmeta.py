"""How a settings field shows on the command line; the `epi run` options are generated from the fields.

A field's description is its help text and a Literal its choices; `cli(...)` only renames a flag,
gives it a short form, names a boolean's negative form or keeps a field off the command line.
"""
from __future__ import annotations

from typing import Any


def cli(flag: str | None = None, short: str | None = None, *, off: str | None = None, hide: bool = False) -> dict[str, Any]:
    """`json_schema_extra` for a field: `flag` renames it (a list field's flag is repeatable), `short` adds a
    one-letter form, `off` names a boolean's negative form, `hide` keeps it off the command line."""
    return {"cli": {"flag": flag, "short": short, "off": off, "hide": hide}}


def cli_meta(extra: Any) -> dict[str, Any]:
    """The `cli(...)` settings stored on a field (defaults when it has none)."""
    meta = extra.get("cli") if isinstance(extra, dict) else None
    return meta if isinstance(meta, dict) else {"flag": None, "short": None, "off": None, "hide": False}
