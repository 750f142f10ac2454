"""PDF parsing shared by the PDF tools: captions, sections, figure and table regions, markdown.

The names below load on first access (PEP 562): the parser imports PyMuPDF, which with its layout
add-on costs about a second and 100 MB, and a run that never opens a PDF (or `epi --help`) should
not pay for it. `from tools.pdf import parse_pdf` works as usual; `tools.pdf.model` stays light.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "TableCells": "_cells", "extract_table": "_cells", "rows_to_markdown": "_cells",
    "FigureCrop": "_crop", "body_box": "_crop", "crop_figure": "_crop",
    "PdfError": "_errors",
    "PdfLimits": "_limits", "PdfLimitError": "_limits", "PdfLimitsError": "_limits", "describe_limits": "_limits",
    "format_mb": "_limits",
    "parse_isolated": "_isolate",
    "LoadedPaper": "_load", "load_paper": "_load", "parse_cached": "_load", "world_limits": "_load",
    "PARSER_VERSION": "_parse", "parse_pdf": "_parse",
    "BBox": "model", "FloatRef": "model", "ParsedPaper": "model", "PdfMeasures": "model", "Section": "model",
    "TextBlock": "model",
}

__all__ = [
    "BBox", "FloatRef", "ParsedPaper", "PdfMeasures", "Section", "TextBlock",
    "PdfError", "PdfLimits", "PdfLimitError", "PdfLimitsError", "describe_limits", "format_mb",
    "parse_pdf", "parse_cached", "parse_isolated", "PARSER_VERSION", "load_paper", "LoadedPaper", "world_limits",
    "crop_figure", "FigureCrop", "body_box", "extract_table", "TableCells", "rows_to_markdown",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover
    from ._cells import TableCells, extract_table, rows_to_markdown
    from ._crop import FigureCrop, body_box, crop_figure
    from ._errors import PdfError
    from ._isolate import parse_isolated
    from ._limits import PdfLimitError, PdfLimits, PdfLimitsError, describe_limits, format_mb
    from ._load import LoadedPaper, load_paper, parse_cached, world_limits
    from ._parse import PARSER_VERSION, parse_pdf
    from .model import BBox, FloatRef, ParsedPaper, PdfMeasures, Section, TextBlock
