"""Everything the text tools show about a paper, for bench/episode_validity.py: the pdf_extract
markdown (every part), each table_extract's cells and nearby text, each figure_extract's caption and
nearby text. A figure value counts as printed when a number within tolerance sits on a table row or in a
sentence that names the same series."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools import get_tool
from tools._world import World

_NUM = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?![\w])")
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])|\n+")


@dataclass
class PaperText:
    paper: str
    table_rows: list[str] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)

    def _near(self, texts: list[str], label: str, value: float, tol: float) -> str | None:
        for t in texts:
            if label and label not in t:
                continue
            for m in _NUM.finditer(t):
                if abs(float(m.group(0)) - value) <= tol + 1e-9:
                    return t.strip()[:160]
        return None

    def value_near_label(self, label: str, value: float, tol: float) -> str | None:
        """A table row or sentence naming `label` that prints a number within `tol` of `value`."""
        return self._near(self.table_rows, label, value, tol) or self._near(self.sentences, label, value, tol)

    def value_in_prose(self, label: str, value: float, tol: float) -> str | None:
        return self._near(self.sentences, label, value, tol)


def _rows(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith("|")]


def _sentences(text: str) -> list[str]:
    prose = "\n".join(line for line in text.splitlines() if not line.startswith("|"))
    return [s for s in _SENT.split(prose) if s.strip()]


async def paper_text(world: World, pid: str) -> PaperText:
    out = PaperText(pid)
    extract, table, figure = get_tool("pdf_extract"), get_tool("table_extract"), get_tool("figure_extract")
    first = await extract(world, {"paper": pid})
    texts = [first.text]
    for part in range(2, (first.data or {}).get("parts", 1) + 1):
        texts.append((await extract(world, {"paper": pid, "part": part})).text)
    for t in (first.data or {}).get("tables", []):
        r = await table(world, {"paper": pid, "table": t["n"]})
        out.table_rows += _rows(r.text)
        texts.append(r.text)
    for f in (first.data or {}).get("figures", []):
        texts.append((await figure(world, {"paper": pid, "figure": f["n"]})).text)
    for t in texts:
        out.table_rows += _rows(t)
        out.sentences += _sentences(t)
    return out


async def collect_text(world: World, papers: list[str]) -> dict[str, PaperText]:
    return {pid: await paper_text(world, pid) for pid in papers}
