"""Result and provenance types every tool returns: what the model sees, and what it was shown."""
from __future__ import annotations

import base64
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

UNIT_RE = re.compile(r"^(figure:[1-9][0-9]*|table:[1-9][0-9]*|text)$")


def check_unit(v: str) -> str:
    """An evidence unit is `figure:N`, `table:N` or `text`."""
    if not UNIT_RE.match(v):
        raise ValueError(f"unit must be 'figure:N', 'table:N' or 'text', got {v!r}")
    return v


Unit = Annotated[str, AfterValidator(check_unit)]

ErrorKind = Literal["bad_arguments", "not_found", "data_access", "refused", "limit", "runtime"]


class EvidenceUnit(BaseModel):
    """One unit of evidence: a paper and `figure:N`, `table:N` or `text`, with where it sits when known.

    The one evidence type of the project: what a tool exposed (its provenance), what the trace records,
    what an episode requires (`harness.episode.EvidenceRef` is this class), and what scoring, replay and
    the viewer compare. Two units are the same evidence when their `key` (paper, unit) is equal; page and
    box only say where it was seen.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    paper: str = Field(min_length=1)
    unit: Unit
    page: int | None = Field(default=None, description="1-based page the unit sits on, if known")
    bbox: tuple[float, float, float, float] | None = Field(default=None, description="x0,y0,x1,y1 in PDF points")

    @property
    def key(self) -> tuple[str, str]:
        return (self.paper, self.unit)

    def label(self, *, page: bool = False) -> str:
        """How a unit is written for a reader: `P007 figure:2` (with `p.3` when asked and known)."""
        return f"{self.paper} {self.unit}" + (f" p.{self.page}" if page and self.page else "")


class ToolImage(BaseModel):
    """A PNG the tool shows the model (a cropped figure, a rendered page)."""

    name: str = Field(description="file name to use when the image is saved next to a trace")
    png_b64: str = Field(description="the PNG bytes, base64-encoded")
    caption: str | None = None

    @classmethod
    def from_png(cls, name: str, png: bytes, caption: str | None = None) -> "ToolImage":
        return cls(name=name, png_b64=base64.b64encode(png).decode("ascii"), caption=caption)

    @property
    def png(self) -> bytes:
        return base64.b64decode(self.png_b64)


class ToolResult(BaseModel):
    """What a tool call returns: text for the model, images, structured data, provenance, or an error."""

    text: str = ""
    images: list[ToolImage] = Field(default_factory=list)
    data: dict[str, Any] | None = None
    provenance: list[EvidenceUnit] = Field(default_factory=list)
    error: str | None = None
    error_kind: ErrorKind | None = None

    @property
    def is_error(self) -> bool:
        return self.error is not None

    @classmethod
    def fail(cls, message: str, kind: ErrorKind = "runtime", data: dict[str, Any] | None = None) -> "ToolResult":
        return cls(text=f"ERROR: {message}", error=message, error_kind=kind, data=data)

    def summary(self, limit: int = 300) -> str:
        t = self.text.strip().replace("\n", " ")
        return t if len(t) <= limit else t[: limit - 3] + "..."


class ToolError(Exception):
    """An error the agent can recover from: it goes back to the agent as an observation.

    Raise it from tool code with a message that says what was wrong and what to try instead.
    """

    def __init__(self, message: str, kind: ErrorKind = "bad_arguments", data: dict[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        self.kind: ErrorKind = kind
        self.data = data
