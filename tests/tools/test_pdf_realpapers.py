"""Must-show checks of the PDF parser on three real published papers (../shared/realpdfs/).

`epi paper inspect` must find every figure and table of ground_truth.json (number, page, caption)
and nothing else; every table must come out with >= 2 rows and >= 2 columns of text that is on the
page; every figure box must be smaller than the page, hold its caption and the graphics next to it.
"""
from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pymupdf
import pytest
from typer.testing import CliRunner

import harness.cli  # noqa: F401  (registers the command groups)
from harness.cli._apps import app

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realpdfs"
pytestmark = pytest.mark.skipif(not (REAL / "ground_truth.json").is_file(), reason=f"{REAL} not present")


def _gt() -> list[dict]:
    return json.loads((REAL / "ground_truth.json").read_text())


def norm(s: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", s).split()).lower()


def _cli_json(*args: str) -> object:
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


@pytest.fixture(scope="module")
def inspected() -> dict[str, dict]:
    files = [str(REAL / g["file"]) for g in _gt()]
    out = _cli_json("paper", "inspect", *files, "--json")
    assert [o["file"] for o in out] == files
    return {Path(o["file"]).name: o for o in out}


@pytest.mark.parametrize("paper", [g["file"] for g in _gt()] if (REAL / "ground_truth.json").is_file() else [])
def test_inspect_finds_exactly_the_ground_truth_floats(inspected: dict, paper: str) -> None:
    gt = next(g for g in _gt() if g["file"] == paper)
    got = inspected[paper]
    assert got["pages"] == gt["pages"]
    for kind in ("figures", "tables"):
        want = {f["n"]: f for f in gt[kind]}
        have = {f["n"]: f for f in got[kind]}
        assert sorted(have) == sorted(want), f"{paper} {kind}: found {sorted(have)}, expected {sorted(want)}"
        for n, w in want.items():
            h = have[n]
            assert h["page"] == w["page"], f"{paper} {kind} {n}: page {h['page']} != {w['page']}"
            assert norm(h["caption"])[:40] == norm(w["caption"])[:40], (h["caption"], w["caption"])
            assert h["caption_bbox"] == pytest.approx(w["caption_bbox"], abs=2.0)


def test_inspect_reads_sections_and_layout(inspected: dict) -> None:
    specter = inspected["2020.acl-main.207.pdf"]
    assert specter["two_column"] is True
    assert {"1 Introduction", "6 Analysis", "References"} <= set(specter["sections"])
    assert not any("@" in s for s in specter["sections"]), "author e-mails are not sections"


# Tables that are boxes of running prose (annotation guidelines): one honest column, not a grid.
PROSE_BOXES = {("2023.eacl-main.121.pdf", 10), ("2023.eacl-main.121.pdf", 11)}


def _page_text(pdf: Path, page: int) -> str:
    doc = pymupdf.open(pdf)
    text = doc[page - 1].get_text(flags=pymupdf.TEXT_PRESERVE_WHITESPACE)
    doc.close()
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


@pytest.mark.slow
@pytest.mark.parametrize("paper", [g["file"] for g in _gt()] if (REAL / "ground_truth.json").is_file() else [])
def test_every_table_has_rows_and_columns_from_the_page(paper: str) -> None:
    gt = next(g for g in _gt() if g["file"] == paper)
    for t in gt["tables"]:
        res = _cli_json("paper", "table", str(REAL / paper), str(t["n"]), "--json")
        rows = res["rows"]
        assert len(rows) >= 2, f"{paper} table {t['n']}: {rows}"
        filled_cols = [j for j in range(len(rows[0])) if sum(1 for r in rows if r[j].strip()) >= 2]
        if (paper, t["n"]) in PROSE_BOXES:
            assert len(rows) >= 10 and len(filled_cols) >= 1
        else:
            assert len(filled_cols) >= 2, f"{paper} table {t['n']}: fewer than two filled columns: {rows}"
        page_text = _page_text(REAL / paper, t["page"])
        unbroken = page_text.replace("-", "")  # cells that wrapped at a hyphen are joined without it
        for r in rows:
            for cell in r:
                for word in unicodedata.normalize("NFKC", cell).split():
                    assert word in page_text or word.replace("-", "") in unbroken, (paper, t["n"], cell)
        assert res["markdown"].count("\n") == len(rows)


def _graphics_next_to(pdf: Path, page_no: int, cap: list[float]) -> list[pymupdf.Rect]:
    """Images and drawing clusters in the caption's column whose edge is within 40pt of the caption."""
    doc = pymupdf.open(pdf)
    page = doc[page_no - 1]
    items = [pymupdf.Rect(i["bbox"]) for i in page.get_image_info()] + list(page.cluster_drawings())
    doc.close()
    c = pymupdf.Rect(cap)
    near = []
    for r in items:
        if r.width < 5 and r.height < 5 or min(r.x1, c.x1) - max(r.x0, c.x0) < 0.3 * min(r.width, c.width):
            continue
        gap = c.y0 - r.y1 if r.y1 <= c.y0 + 2 else r.y0 - c.y1
        if -2 <= gap <= 40:
            near.append(r)
    return near


@pytest.mark.slow
@pytest.mark.parametrize("paper", [g["file"] for g in _gt()] if (REAL / "ground_truth.json").is_file() else [])
def test_every_figure_box_holds_its_graphics(paper: str, tmp_path: Path) -> None:
    gt = next(g for g in _gt() if g["file"] == paper)
    doc = pymupdf.open(REAL / paper)
    page_area = doc[0].rect.width * doc[0].rect.height
    doc.close()
    for f in gt["figures"]:
        out = tmp_path / f"fig{f['n']}.png"
        res = _cli_json("paper", "figure", str(REAL / paper), str(f["n"]), "--out", str(out), "--json")
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert res["dpi"] >= 150 and res["page"] == f["page"]
        box = pymupdf.Rect(res["bbox"])
        assert box.width * box.height < 0.6 * page_area, f"{paper} figure {f['n']}: box is most of the page"
        assert box.contains(pymupdf.Rect(f["caption_bbox"])), "the crop holds the caption"
        cap = pymupdf.Rect(f["caption_bbox"])
        above = box.y0 < cap.y0 - 5  # the side of the caption the box extends to
        near = [r for r in _graphics_next_to(REAL / paper, f["page"], f["caption_bbox"])
                if (r.y1 <= cap.y0 + 2) == above]
        assert near, f"{paper} figure {f['n']}: no graphics next to the caption on the box's side"
        for r in near:
            assert (box + (-3, -3, 3, 3)).contains(r), f"{paper} figure {f['n']}: {r} outside {box}"
        assert res["width"] >= box.width * 150 / 72 - 2
