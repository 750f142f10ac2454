"""Four rendered corpus-v3 pages beside four pages of real papers, as one PNG (issue 26, item 3).

Top row: pages of a small v3 corpus (built into a temporary folder, or read from `--dir`): a two-column
first page, a page with a multi-panel or heatmap figure, a page with several figures, an appendix page
with floats. Bottom row: pages of the real papers in ../shared/realpdfs (ACL Anthology, CC BY 4.0): a
first page, and pages holding figures and tables. Writes episodes/v3-pages.png by default.

    .venv/bin/python bench/v3_pages.py [--dir sandbox/build] [--real ../shared/realpdfs] [--out episodes/v3-pages.png]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sandbox.corpus.build import build_corpus, load_ground_truth  # noqa: E402
from sandbox.corpus.model import GroundTruth  # noqa: E402

PAPERS, SEED = 48, 7
DPI = 50
REAL_DEFAULT = Path(os.environ.get("EPI_REAL_PDFS") or ROOT.parent / "shared" / "realpdfs")  # the variable: a worktree elsewhere


def pick_v3_pages(gt: GroundTruth) -> list[tuple[str, int, str]]:
    """(pdf, 1-based page, label) of four telling pages."""
    papers = gt.papers
    out: list[tuple[str, int, str]] = []
    two = next(p for p in papers if p.layout == "two_column")
    out.append((two.pdf, 1, f"v3 {two.id}, p. 1 (two columns)"))
    rich = next(p for p in papers if p.id != two.id and p.layout == "one_column"
                and any(f.kind in ("panels", "heatmap") for f in p.figures))
    f = next(f for f in rich.figures if f.kind in ("panels", "heatmap"))
    out.append((rich.pdf, f.page or 1, f"v3 {rich.id}, p. {f.page} ({'multi-panel' if f.kind == 'panels' else 'heatmap'})"))
    used = {two.id, rich.id}
    busy = max((p for p in papers if p.id not in used and p.layout == "two_column"),
               key=lambda p: max(sum(f.page == k for f in p.figures) for k in range(1, (p.pages or 1) + 1)))
    page = max(range(1, (busy.pages or 1) + 1), key=lambda k: sum(f.page == k for f in busy.figures))
    out.append((busy.pdf, page, f"v3 {busy.id}, p. {page} (figures)"))
    used.add(busy.id)
    app = next(p for p in papers if p.id not in used and p.pages and any(f.page == p.pages for f in p.figures))
    out.append((app.pdf, app.pages or 1, f"v3 {app.id}, p. {app.pages} (appendix)"))
    return out


def pick_real_pages(real: Path) -> list[tuple[Path, int, str]]:
    gt = json.loads((real / "ground_truth.json").read_text(encoding="utf-8"))
    by_file = {e["file"]: e for e in gt}
    out: list[tuple[Path, int, str]] = []
    first = gt[0]
    out.append((real / first["file"], 1, f"real {first['file'].removesuffix('.pdf')}, p. 1"))
    for e in gt:
        figs = [f["page"] for f in e["figures"]]
        if figs:
            k = max(set(figs), key=figs.count)
            out.append((real / e["file"], k, f"real {e['file'].removesuffix('.pdf')}, p. {k}"))
    tables = [t["page"] for t in by_file[first["file"]]["tables"]]
    if tables:
        out.append((real / first["file"], tables[0], f"real {first['file'].removesuffix('.pdf')}, p. {tables[0]}"))
    return out[:4]


def page_metrics(path: Path, page: int) -> dict:
    """What a reader sees of a page: its size, body font size (points, the size most characters have), words,
    the share of text lines narrower than half the page (two columns) and the text block's side margins as
    shares of the page width. Lines under 20 characters and vertical text (an arXiv stamp) are left out."""
    from collections import Counter

    with pymupdf.open(path) as doc:
        pg = doc[page - 1]
        width = pg.rect.width
        sizes: Counter = Counter()
        lines = []
        for block in pg.get_text("dict")["blocks"]:
            for line in block.get("lines", []):
                text = "".join(s["text"] for s in line["spans"]).strip()
                x0, y0, x1, y1 = line["bbox"]
                if len(text) < 20 or line["dir"][0] < 0.9:
                    continue
                lines.append((x0, x1))
                for s in line["spans"]:
                    sizes[round(s["size"])] += len(s["text"])
        return {"width": round(width), "height": round(pg.rect.height), "words": len(pg.get_text("words")),
                "body_pt": sizes.most_common(1)[0][0] if sizes else 0,
                "two_column_lines": round(sum(x1 - x0 < 0.55 * width for x0, x1 in lines) / max(1, len(lines)), 2),
                "left_margin": round(min((x0 for x0, _ in lines), default=0) / width, 3),
                "right_margin": round(1 - max((x1 for _, x1 in lines), default=width) / width, 3),
                "images": len(pg.get_image_info()), "drawings": len(pg.get_drawings())}


def compose(rows: list[list[tuple[Path, int, str]]], out: Path) -> None:
    pix_rows = []
    for row in rows:
        pixes = []
        for path, page, label in row:
            with pymupdf.open(path) as doc:
                pg = doc[page - 1]
                zoom = DPI / 72 * (612 / pg.rect.width)  # same width for letter and A4 pages
                pixes.append((pg.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom)), label))
        pix_rows.append(pixes)
    cell_w = max(p.width for r in pix_rows for p, _ in r)
    cell_h = max(p.height for r in pix_rows for p, _ in r)
    pad, label_h = 10, 16
    width = len(pix_rows[0]) * (cell_w + pad) + pad
    height = len(pix_rows) * (cell_h + label_h + pad) + pad
    doc = pymupdf.open()
    page = doc.new_page(width=width, height=height)
    for i, r in enumerate(pix_rows):
        for j, (pix, label) in enumerate(r):
            x, y = pad + j * (cell_w + pad), pad + i * (cell_h + label_h + pad)
            page.insert_text((x, y + 10), label, fontname="helv", fontsize=9)
            rect = pymupdf.Rect(x, y + label_h, x + pix.width, y + label_h + pix.height)
            page.draw_rect(rect, color=(0.6, 0.6, 0.6), width=0.5)
            page.insert_image(rect, pixmap=pix)
    out.parent.mkdir(parents=True, exist_ok=True)
    page.get_pixmap(dpi=72).save(out)
    doc.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, default=None, help="a built v3 corpus (default: build a small one)")
    ap.add_argument("--real", type=Path, default=REAL_DEFAULT)
    ap.add_argument("--out", type=Path, default=ROOT / "episodes" / "v3-pages.png")
    args = ap.parse_args()
    if not (args.real / "ground_truth.json").is_file():
        sys.exit(f"{args.real}: the real papers are not there (ground_truth.json missing)")
    with tempfile.TemporaryDirectory(prefix="epi-v3-pages-") as tmp:
        root = args.dir or Path(tmp)
        if args.dir is None:
            build_corpus(root, seed=SEED, n_papers=PAPERS, corpus="v3", workers=2, with_index=False)
        gt = load_ground_truth(root)
        v3 = [(root / "corpus" / pdf, k, label) for pdf, k, label in pick_v3_pages(gt)]
        real = pick_real_pages(args.real)
        compose([v3, real], args.out)
        for path, k, label in v3 + real:
            print(f"{label:42s} {page_metrics(path, k)}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
