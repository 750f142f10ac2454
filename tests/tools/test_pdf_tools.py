"""pdf_extract, figure_extract and table_extract over a tiny world of real PDFs (ids = file stems)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pymupdf
import pytest

from tools import PaperMeta, PaperNotFound, SearchHit, World, get_tool
from tools.pdf import PARSER_VERSION, load_paper

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realpdfs"
pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason=f"{REAL} not present")


class FolderWorld(World):
    """Papers are the PDFs of one folder; a paper's id is its file stem."""

    def __init__(self, folder: Path, cache_dir: Path):
        super().__init__(cache_dir)
        self.folder = folder
        self.fetches = 0

    async def search(self, query: str, k: int) -> list[SearchHit]:
        return []

    async def resolve(self, ref: str) -> PaperMeta:
        path = self.folder / f"{ref}.pdf"
        if "/" in ref or not path.is_file():
            raise PaperNotFound(f"no paper {ref!r}")
        return PaperMeta(id=ref, title=ref)

    async def pdf_bytes(self, paper: PaperMeta) -> bytes:
        self.fetches += 1
        return (self.folder / f"{paper.id}.pdf").read_bytes()


@pytest.fixture()
def world(tmp_path: Path) -> FolderWorld:
    folder = tmp_path / "papers"
    folder.mkdir()
    for name in ("2020.acl-main.207", "N18-3011", "2023.eacl-main.121"):
        shutil.copy(REAL / f"{name}.pdf", folder / f"{name}.pdf")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.5\n" + b"\x00garbage" * 100)
    return FolderWorld(folder, tmp_path / "cache")


async def test_pdf_extract_pages_long_papers_with_floats_listed(world: FolderWorld) -> None:
    res = await get_tool("pdf_extract")(world, {"paper": "2023.eacl-main.121"})
    assert not res.is_error, res.error
    d = res.data
    assert d["paper_id"] == "2023.eacl-main.121" and d["pages"] == 20 and d["part"] == 1 and d["parts"] >= 3
    assert [f["n"] for f in d["figures"]] == list(range(1, 10))
    assert [t["n"] for t in d["tables"]] == list(range(1, 12))
    assert "<!-- page 1 -->" in res.text and "## 1 Introduction" in res.text
    assert [(u.paper, u.unit) for u in res.provenance] == [("2023.eacl-main.121", "text")]
    parts = [res.text]
    for p in range(2, d["parts"] + 1):
        r = await get_tool("pdf_extract")(world, {"paper": d["handle"], "part": p})
        assert r.data["part"] == p
        parts.append(r.text)
    whole = "\n".join(parts)
    assert "[Figure 9 (page 19): The LabelStudio annotation interface" in whole
    assert "[Table 11 (page 20):" in whole
    assert all(len(p) < 13_000 for p in parts[1:])  # part 1 also lists every figure and table
    bad = await get_tool("pdf_extract")(world, {"paper": "2023.eacl-main.121", "part": d["parts"] + 1})
    assert bad.error_kind == "bad_arguments" and f"between 1 and {d['parts']}" in bad.error


async def test_markdown_reads_two_columns_in_order(world: FolderWorld) -> None:
    loaded = await load_paper(world, "N18-3011")
    md = loaded.parsed.markdown
    assert md.startswith("# Construction of the Literature Graph in Semantic Scholar")
    # left column (abstract, introduction) comes before the right column of page 1
    assert md.index("We describe a deployed scalable system") < md.index("## 1 Introduction")
    assert md.index("## 1 Introduction") < md.index("[Figure 1 (page 1): Part of the literature graph.]")
    # table cells are not body text; the body sentence "Table 2 shows" is
    assert "Table 2 shows the results" in md and "98.4 712" not in md


async def test_figure_extract_returns_png_caption_and_mentions(world: FolderWorld) -> None:
    res = await get_tool("figure_extract")(world, {"paper": "2020.acl-main.207", "figure": 2})
    assert not res.is_error, res.error
    assert res.data["n"] == 2 and res.data["page"] == 8 and res.data["caption"].startswith("Figure 2: t-SNE")
    png = res.images[0].png
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pix = pymupdf.Pixmap(png)
    x0, y0, x1, y1 = res.data["bbox"]
    assert pix.width >= (x1 - x0) * 150 / 72 - 2  # >= 150 dpi
    assert "Figure 2 shows t-SNE" in res.text  # the paragraph that mentions it
    u = res.provenance[0]
    assert (u.paper, u.unit, u.page) == ("2020.acl-main.207", "figure:2", 8) and u.bbox is not None


async def test_missing_figure_lists_the_ones_that_exist(world: FolderWorld) -> None:
    res = await get_tool("figure_extract")(world, {"paper": "N18-3011", "figure": 4})
    assert res.error_kind == "not_found"
    assert "no Figure 4" in res.error and "figures are: 1" in res.error and "tables: 1, 2, 3, 4" in res.error
    res = await get_tool("table_extract")(world, {"paper": "N18-3011", "table": 7})
    assert res.error_kind == "not_found" and "tables are: 1, 2, 3, 4" in res.error


async def test_table_extract_full_width_booktabs_table(world: FolderWorld) -> None:
    res = await get_tool("table_extract")(world, {"paper": "2020.acl-main.207", "table": 1})
    assert not res.is_error, res.error
    rows = res.data["rows"]
    specter = next(r for r in rows if r[0].startswith("SPECTER"))
    assert len(specter) == 14 and specter[1:3] == ["82.0", "86.4"] and specter[-1] == "80.0"
    assert any(r[0] == "Random" and r[1] == "4.8" for r in rows)
    assert "| SPECTER (Ours) | 82.0 |" in res.text
    assert res.provenance[0].unit == "table:1" and res.provenance[0].page == 7


async def test_table_extract_column_table_with_spanning_header(world: FolderWorld) -> None:
    res = await get_tool("table_extract")(world, {"paper": "N18-3011", "table": 2})
    rows = res.data["rows"]
    assert rows[-1] == ["Off-the-shelf", "97.4", "873", "77.5", "1206"]
    # the two header lines ("CS" / "Bio" spanning "prec." and "yield") fold into one header row
    assert rows[0] == ["Approach", "CS prec.", "CS yield", "Bio prec.", "Bio yield"]
    assert len(rows) == 4


async def test_unknown_paper_and_unreadable_pdf_are_error_results(world: FolderWorld) -> None:
    res = await get_tool("pdf_extract")(world, {"paper": "nope"})
    assert res.error_kind == "not_found"
    res = await get_tool("table_extract")(world, {"paper": "broken", "table": 1})
    assert res.error_kind == "data_access" and "corrupt PDF" in res.error


async def test_parse_cache_is_keyed_by_content_and_never_changes_a_result(world: FolderWorld) -> None:
    first = await load_paper(world, "N18-3011")
    cached = list((world.cache_dir / "parsed").glob("*.json"))
    assert [p.name for p in cached] == [f"{first.parsed.sha256}.{PARSER_VERSION}.json"]
    second = await load_paper(world, "N18-3011")
    assert second.parsed == first.parsed
    cached[0].write_text("{not json")  # a damaged entry is parsed again
    third = await load_paper(world, "N18-3011")
    assert third.parsed == first.parsed
