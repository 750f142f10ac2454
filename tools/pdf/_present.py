"""What the PDF tools show the agent besides the float itself: paged markdown and nearby text."""
from __future__ import annotations

import re

from .._types import ToolError
from .model import FloatRef, ParsedPaper, TextBlock

PART_CHARS = 12_000


def split_markdown(markdown: str, part_chars: int = PART_CHARS) -> list[str]:
    """Cut markdown into parts of about `part_chars`, at paragraph boundaries (never mid-paragraph
    unless one paragraph alone is longer than a part)."""
    parts: list[str] = []
    current = ""
    for para in markdown.split("\n\n"):
        piece = para + "\n\n"
        if current and len(current) + len(piece) > part_chars:
            parts.append(current.rstrip() + "\n")
            current = ""
        while len(piece) > part_chars:
            parts.append(piece[:part_chars])
            piece = piece[part_chars:]
        current += piece
    if current.strip() or not parts:
        parts.append(current.rstrip() + "\n")
    return parts


def _mention_re(ref: FloatRef) -> re.Pattern[str]:
    label = r"(?:Figure|Fig\.?|FIGURE)" if ref.kind == "figure" else r"(?:Table|Tab\.?|TABLE)"
    return re.compile(rf"\b{label}\s*{ref.n}(?![\d.]\d)")


def mentions(parsed: ParsedPaper, ref: FloatRef, limit: int = 3) -> list[TextBlock]:
    """Body paragraphs that refer to the float, nearest pages first."""
    pat = _mention_re(ref)
    hits = [b for b in parsed.blocks if pat.search(b.text) and not b.text.startswith(ref.caption[:30])]
    hits.sort(key=lambda b: (abs(b.page - ref.page), b.page))
    return hits[:limit]


def float_listing(refs: list[FloatRef]) -> str:
    return ", ".join(str(r.n) for r in refs) or "none"


def nearby_text(parsed: ParsedPaper, ref: FloatRef, limit: int = 3, max_chars: int = 1200) -> str:
    """The paragraphs that mention the float, each trimmed, with their page."""
    out = []
    for b in mentions(parsed, ref, limit):
        text = b.text if len(b.text) <= max_chars else b.text[: max_chars - 3] + "..."
        where = f"page {b.page}" + (f", section {b.section}" if b.section else "")
        out.append(f"({where}) {text}")
    return "\n\n".join(out)


def require_float(parsed: ParsedPaper, paper_id: str, kind: str, n: int) -> FloatRef:
    """The figure or table numbered n, or a not-found ToolError listing what the paper has."""
    ref = parsed.figure(n) if kind == "figure" else parsed.table(n)
    if ref is not None:
        return ref
    same, other = (parsed.figures, parsed.tables) if kind == "figure" else (parsed.tables, parsed.figures)
    other_kind = "tables" if kind == "figure" else "figures"
    raise ToolError(
        f"paper {paper_id} has no {kind.capitalize()} {n}; its {kind}s are: {float_listing(same)}"
        f" ({other_kind}: {float_listing(other)})",
        kind="not_found", data={f"{kind}s": [f.n for f in same], other_kind: [f.n for f in other]})
