"""Everything the tools show about a paper as text: table rows, sentences of the body, captions and the
text near each float, and pdf_rag passages. The audit reads papers only this way (through the world,
like an agent), never through a generator's private data, so it works for any corpus.

Two reads skip work whose output the audit never looks at: figures through `figure_extract_text` (the text,
data and provenance of figure_extract, without rendering the image), and pdf_rag through `all_passages` (every
passage any query could return, whole, without embedding the paper to rank them: a superset of what one
query's top k shows).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tools import PaperNotFound, ToolError, ToolResult, World, get_tool

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[A-Z(\"'])|\n+")
# labels whose numbers are no measurements: "Figure 2", "(page 4", "section 4.3", "Part 1 of 2", "[3]"
_NOT_VALUES = re.compile(r"\b(?:Fig(?:ure)?s?|Tab(?:le)?s?|pages?|sec(?:tion)?s?)\.?\s*\d+(?:\.\d+)*[a-z]?"
                         r"|\bPart \d+ of \d+|\[\d+(?:\s*[,\u2013-]?\s*\d+)*\]", re.I)  # "[4]", "[3, 6]", "[2-5]"
_NUMBER = re.compile(r"(?<![\w.])(?<!\w-)(?<!\w\u2212)[-\u2212]?\d+(?:\.\d+)?(?!\w|\.\d)")  # not "CIFAR-100"
_TITLE_METHOD = re.compile(r"^([A-Z][\w\-]*[A-Z0-9][\w\-]*)\s*:")
_INTRODUCE = re.compile(r"\b[Ww]e (?:introduce|propose|present)\s+([A-Z][\w\-]+)")


def norm(s: str) -> str:
    """Lower case, one space, unicode minus as '-', so names match however they are spaced."""
    return " ".join(s.replace("\u2212", "-").lower().split())


def names(line: str, name: str) -> bool:
    """True if `line` contains `name` as a whole phrase (not inside a longer word: "ResNet" is not in "ResNet-50")."""
    want = norm(name).strip(" .,:;")
    if not want:
        return False
    return re.search(rf"(?<![\w-]){re.escape(want)}(?!\w|-\w)", norm(line)) is not None


@dataclass(frozen=True)
class PrintedNumber:
    value: float
    decimals: int

    @property
    def half_unit(self) -> float:
        """Half the last printed digit: the rounding a printed number stands for."""
        return 0.5 * 10 ** (-self.decimals)


def numbers(text: str) -> list[PrintedNumber]:
    """Numbers printed in `text`, skipping labels that are no measurements ("Figure 2", "page 4", "[3]")."""
    text = _NOT_VALUES.sub(" ", text.replace(",", ""))
    out = []
    for m in _NUMBER.finditer(text):
        s = m.group(0).replace("\u2212", "-")
        out.append(PrintedNumber(float(s), len(s.split(".")[1]) if "." in s else 0))
    return out


def matches_value(printed: PrintedNumber, value: float, tolerance: float | None) -> bool:
    """A printed number stands for `value` within the turn's tolerance or the rounding the text prints."""
    gap = abs(printed.value - value)
    return gap <= (tolerance or 0.0) + 1e-9 or gap <= printed.half_unit + 1e-9


@dataclass(frozen=True)
class TextLine:
    """One line of text a tool showed: a table row (with its cells and header) or a sentence."""

    where: str  # "table:1", "text", "figure:2 caption", "pdf_rag"
    text: str
    cells: tuple[str, ...] = ()
    header: tuple[str, ...] = ()

    @property
    def is_row(self) -> bool:
        return bool(self.cells)


@dataclass
class PaperText:
    """All text of one paper that the tools show (no image)."""

    paper: str
    title: str = ""
    figures: list[int] = field(default_factory=list)
    tables: list[int] = field(default_factory=list)
    lines: list[TextLine] = field(default_factory=list)
    tables_rows: dict[int, list[list[str]]] = field(default_factory=dict)
    body: str = ""
    year: int | None = None
    table_captions: dict[int, str] = field(default_factory=dict)
    figure_text: dict[int, str] = field(default_factory=dict)  # caption and nearby text, as figure_extract shows them
    figure_where: dict[int, tuple[int, tuple[float, float, float, float]]] = field(default_factory=dict)  # page, bbox
    figures_read: bool = False
    errors: list[str] = field(default_factory=list)

    def method(self) -> str | None:
        """The method the paper introduces: the name before ':' in its title, else 'we introduce X'."""
        m = _TITLE_METHOD.match(self.title.strip())
        if m:
            return m.group(1)
        m = _INTRODUCE.search(self.body)
        return m.group(1).rstrip(".,") if m else None


def sentences(text: str, where: str) -> list[TextLine]:
    out = []
    for part in _SENTENCE_END.split(text):
        part = part.strip(" \t|#*-")
        if part:
            out.append(TextLine(where=where, text=part))
    return out


def row_lines(rows: list[list[str]], where: str) -> list[TextLine]:
    if not rows:
        return []
    header = tuple(c.strip() for c in rows[0])
    return [TextLine(where=where, text=" | ".join(c for c in r if c), cells=tuple(c.strip() for c in r), header=header)
            for r in rows[1:] if any(c.strip() for c in r)]


class PaperReader:
    """Calls the tools on a world and keeps what each paper shows as text (once per paper per audit)."""

    def __init__(self, world: World):
        self.world = world
        self._papers: dict[str, PaperText] = {}
        self._passages: dict[str, list[TextLine]] = {}
        self.calls = 0

    async def call(self, tool: str, args: dict[str, Any], *, image: bool = True) -> ToolResult:
        """Call `tool` as an agent would; `image=False` on figure_extract gets its result without the image."""
        self.calls += 1
        if tool == "figure_extract" and not image:
            from tools.figure_extract import figure_extract_text

            return await figure_extract_text(self.world, args)
        return await get_tool(tool)(self.world, args)

    async def paper(self, paper: str, *, figures: bool = True) -> PaperText:
        """The paper's text: body and tables, and (unless `figures=False`) figure captions and nearby text."""
        pt = self._papers.get(paper)
        if pt is None:
            pt = self._papers[paper] = PaperText(paper=paper)
            await self._load_body_and_tables(pt)
        if figures and not pt.figures_read:
            pt.figures_read = True
            for n in pt.figures:
                res = await self.call("figure_extract", {"paper": paper, "figure": n}, image=False)
                if res.is_error:
                    pt.errors.append(f"figure_extract {n}: {res.error}")
                    continue
                data = res.data or {}
                caption = str(data.get("caption") or "")
                near = res.text.split("Text that mentions it:", 1)
                pt.figure_text[n] = "\n".join([caption, near[1].strip()] if len(near) == 2 else [caption])
                if data.get("page") and data.get("bbox"):
                    pt.figure_where[n] = (int(data["page"]), tuple(float(v) for v in data["bbox"]))  # type: ignore[assignment]
                pt.lines += sentences(res.text, f"figure:{n} text")  # caption and nearby text; the image is not read
        return pt

    async def _load_body_and_tables(self, pt: PaperText) -> None:
        paper = pt.paper
        first = await self.call("pdf_extract", {"paper": paper})
        if first.is_error:
            pt.errors.append(f"pdf_extract: {first.error}")
            return
        data = first.data or {}
        pt.title = str(data.get("title") or "")
        try:
            pt.year = (await self.world.resolve(paper)).year
        except PaperNotFound:  # a world that cannot describe the paper leaves the year unknown
            pt.year = None
        pt.figures = [int(f["n"]) for f in data.get("figures") or []]
        pt.tables = [int(t["n"]) for t in data.get("tables") or []]
        bodies = [first.text]
        for part in range(2, int(data.get("parts") or 1) + 1):
            more = await self.call("pdf_extract", {"paper": paper, "part": part})
            bodies.append(more.text if not more.is_error else "")
        pt.body = "\n".join(bodies)
        pt.lines += sentences(pt.body, "text")
        for n in pt.tables:
            res = await self.call("table_extract", {"paper": paper, "table": n})
            if res.is_error:
                pt.errors.append(f"table_extract {n}: {res.error}")
                continue
            rows = (res.data or {}).get("rows") or []
            pt.tables_rows[n] = rows
            pt.table_captions[n] = str((res.data or {}).get("caption") or "")
            pt.lines += row_lines(rows, f"table:{n}")
            near = res.text.split("Text that mentions it:", 1)
            pt.lines += sentences(near[1] if len(near) == 2 else str((res.data or {}).get("caption") or ""), f"table:{n} text")

    async def passages(self, paper: str) -> list[TextLine]:
        """Every passage pdf_rag can show for the paper (for any query), split into sentences; once per paper."""
        from tools.pdf_rag import all_passages

        if paper not in self._passages:
            self.calls += 1
            try:
                chunks = await all_passages(self.world, paper)
            except (ToolError, PaperNotFound):
                chunks = []
            self._passages[paper] = [ln for c in chunks for ln in sentences(c.text, "pdf_rag")]
        return self._passages[paper]
