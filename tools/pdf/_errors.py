"""The one error the PDF layer raises for input it cannot read."""
from __future__ import annotations

from .._types import ErrorKind, ToolError


class PdfError(ToolError):
    """A PDF that cannot be read: corrupt, encrypted, empty, not a PDF, or over a limit (kind "limit")."""

    def __init__(self, message: str, kind: ErrorKind = "data_access"):
        super().__init__(message, kind=kind)
