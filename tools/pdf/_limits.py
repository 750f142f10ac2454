"""What one PDF may cost: pages, file size, decompressed bytes, image pixels, seconds and memory.

A PDF from a user or the web is untrusted: a page tree can lie, a 1 MB stream can inflate to gigabytes,
an image can claim 60000 x 60000 pixels, and PyMuPDF cannot be interrupted once it is working. So the
first parse of such a file runs in a child process under these limits (tools/pdf/_isolate.py), its
result is cached by content hash, and every render checks the pixels it would draw first.

Each limit has a default a user can raise: an environment variable `EPI_PDF_MAX_<NAME>` (for every
command and run), or `--pdf-limit name=value` on `epi paper ...` and `epi sandbox add`. This module
imports no PyMuPDF, so the CLI can read the limits cheaply.
"""
from __future__ import annotations

import os
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ._errors import PdfError

ENV_PREFIX = "EPI_PDF_MAX_"


class PdfLimitError(PdfError):
    """A PDF over one of the limits: refused, with the value found and how to raise the limit."""

    def __init__(self, message: str):
        super().__init__(message, kind="limit")


class PdfLimitsError(ValueError):
    """A limit set to something that is not a positive number (names the variable or option)."""


class PdfLimits(BaseModel):
    """Caps on one PDF document. Defaults fit papers with room to spare (a 20-page paper decompresses to
    about 2 MB, its largest image to under 2 megapixels, and parses in about a second)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pages: int = Field(default=300, gt=0, description="pages in the document")
    file_mb: float = Field(default=50, gt=0, description="size of the PDF file, also the live world's download cap")
    decompressed_mb: float = Field(
        default=256, gt=0, description="bytes all non-image streams inflate to (content, fonts, object streams)")
    image_megapixels: float = Field(
        default=100, gt=0, description="pixels of any one image, and of all images drawn on a page region rendered")
    seconds: float = Field(default=60, gt=0, description="wall-clock and CPU seconds of the first parse")
    memory_mb: int = Field(default=2048, gt=0, description="address space of the process that parses the file")

    @property
    def file_bytes(self) -> int:
        return int(self.file_mb * 2**20)

    @property
    def decompressed_bytes(self) -> int:
        return int(self.decompressed_mb * 2**20)

    @property
    def image_pixels(self) -> int:
        return int(self.image_megapixels * 1_000_000)

    @staticmethod
    def env_name(field: str) -> str:
        return ENV_PREFIX + field.upper()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> PdfLimits:
        """The defaults, with any `EPI_PDF_MAX_<NAME>` variable applied."""
        env = os.environ if env is None else env
        return cls._build({f: env[cls.env_name(f)] for f in cls.model_fields if cls.env_name(f) in env},
                          lambda f: cls.env_name(f))

    def with_overrides(self, pairs: list[str]) -> PdfLimits:
        """These limits with `name=value` pairs applied (the `--pdf-limit` option)."""
        values: dict[str, str] = {}
        for pair in pairs:
            name, sep, value = pair.partition("=")
            name = name.strip().lower().replace("-", "_")
            if not sep or name not in type(self).model_fields:
                raise PdfLimitsError(f"--pdf-limit {pair!r}: expected name=value with a name among "
                                     f"{', '.join(type(self).model_fields)}")
            values[name] = value.strip()
        return self._build({**self.model_dump(), **values}, lambda f: f"--pdf-limit {f}")

    @classmethod
    def _build(cls, values: Mapping[str, object], where) -> PdfLimits:  # noqa: ANN001
        try:
            return cls.model_validate(dict(values))
        except ValidationError as e:
            err = e.errors()[0]
            field = str(err["loc"][0]) if err["loc"] else "?"
            raise PdfLimitsError(f"{where(field)}={values.get(field)!r}: {err['msg']} "
                                 f"(the limit on {cls.model_fields[field].description})") from None

    def raise_hint(self, field: str) -> str:
        """How a user raises one limit, for refusal messages."""
        return f"raise it with {self.env_name(field)}=<n> or --pdf-limit {field}=<n> if you trust the file"

    def refuse(self, what: str, field: str) -> PdfLimitError:
        """The refusal for `what` (which says the value found) over the limit `field`."""
        unit = {"pages": "pages", "file_mb": "MB", "decompressed_mb": "MB", "image_megapixels": "megapixels",
                "seconds": "s", "memory_mb": "MB"}[field]
        return PdfLimitError(f"PDF refused: {what}, over the limit of {getattr(self, field):g} {unit}; "
                             f"{self.raise_hint(field)}")


def format_mb(n_bytes: int) -> str:
    """A size for a message: '10.2 MB', or three digits below 1 MB ('0.00288 MB')."""
    mb = n_bytes / 2**20
    return f"{mb:,.1f} MB" if mb >= 1 else f"{mb:.3g} MB"


def describe_limits() -> str:
    """One line per limit for help texts and docs: name, default, what it caps."""
    d = PdfLimits()
    return "; ".join(f"{f}={getattr(d, f):g}: {info.description}" for f, info in PdfLimits.model_fields.items())
