"""The one error the PDF layer raises for input it cannot read."""
from __future__ import annotations

from .._types import ToolError


class PdfError(ToolError):
    """A PDF that cannot be read: corrupt, encrypted, empty, not a PDF, or over the page cap."""

    def __init__(self, message: str):
        super().__init__(message, kind="data_access")
