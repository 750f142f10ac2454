"""Image seed cues (EpiBench sec. 3.1: "an image snippet"): a figure of the paper to find, without its caption.

The crop keeps the chart and its legend, so a reader can read the paper's own method name from the
legend and search for it; the caption is cut off so its text cannot be pasted into a search. A figure
is used only if its legend names the paper's own method, that name belongs to exactly one corpus paper
(title/abstract), and no other paper named in the legend could have drawn the figure (a paper compares
against the methods of papers it cites). PNGs are rendered at a fixed dpi, so the bytes are reproducible.
"""
from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pymupdf

from sandbox.corpus.model import FigureGT, GroundTruth

from ._cues import PaperCue
from ._facts import CorpusFacts
from ._model import DraftEpisode

CUE_DPI = 150
CAPTION_GAP = 2.0  # points left between the chart and the (removed) caption


class CueImageError(RuntimeError):
    """A cue image cannot be rendered (missing PDF, figure without page/bbox, caption not found)."""


def legend_identifies(cf: CorpusFacts, pid: str, fig: FigureGT) -> bool:
    """Does this figure's legend single out paper `pid`? (see the module docstring for the rule)."""
    method = cf.papers[pid].method
    labels = [s.label for s in fig.series]
    if method not in labels:
        return False
    named = [q for q in cf.ids if method in cf.papers[q].title or method in cf.papers[q].abstract
             or cf.papers[q].method == method]
    if named != [pid]:
        return False
    by_method = {cf.papers[q].method: q for q in cf.ids}
    in_legend = [by_method[lb] for lb in labels if lb in by_method]
    could_draw = [q for q in in_legend if all(o == q or o in cf.cites[q] for o in in_legend)]
    return could_draw == [pid]


def cue_figures(cf: CorpusFacts, pid: str) -> list[FigureGT]:
    return [f for f in cf.papers[pid].figures if legend_identifies(cf, pid, f)]


def image_cue(cf: CorpusFacts, pid: str, image_path: str, rng: random.Random) -> tuple[PaperCue, int] | None:
    """An image cue for `pid` (one of its identifying figures) and the figure number, or None."""
    figs = cue_figures(cf, pid)
    if not figs:
        return None
    fig = rng.choice(figs)
    p = cf.papers[pid]
    hint = f"A figure from a {p.task} paper."
    cue = PaperCue(hint, pid, (("method", p.method),), tuple(cf.ids), query=p.method, image=image_path)
    return cue, fig.n


def caption_free_clip(page: pymupdf.Page, fig: FigureGT) -> pymupdf.Rect:
    """The figure's bbox without its caption block ('Figure N...' below or above the chart)."""
    assert fig.bbox is not None
    box = pymupdf.Rect(fig.bbox)
    for x0, y0, x1, y1, text, *_ in page.get_text("blocks", clip=box):
        if text.strip().startswith(f"Figure {fig.n}"):
            if y0 > box.y0 + box.height / 2:
                return pymupdf.Rect(box.x0, box.y0, box.x1, y0 - CAPTION_GAP)
            return pymupdf.Rect(box.x0, y1 + CAPTION_GAP, box.x1, box.y1)
    raise CueImageError(f"Figure {fig.n}: caption 'Figure {fig.n}...' not found inside its bbox on page {fig.page}")


def render_cue_image(pdf: Path, fig: FigureGT) -> bytes:
    """PNG bytes of the chart of `fig` (caption removed) at CUE_DPI."""
    if not pdf.is_file():
        raise CueImageError(f"{pdf}: corpus PDF not found (cue images are cropped from it)")
    if fig.page is None or fig.bbox is None:
        raise CueImageError(f"{pdf.name}: Figure {fig.n} has no page/bbox in the ground truth")
    with pymupdf.open(pdf) as doc:
        page = doc[fig.page - 1]
        return page.get_pixmap(dpi=CUE_DPI, clip=caption_free_clip(page, fig)).tobytes("png")


def write_cue_images(episodes: list[DraftEpisode], gt: GroundTruth, corpus_dir: Path, episodes_dir: Path) -> dict[str, str]:
    """Render every image cue to `episodes_dir / cue.image`; drop stale PNGs of that folder.

    Returns relative path -> sha256 of the PNG. Raises CueImageError when a PDF or figure is missing."""
    papers = {p.id: p for p in gt.papers}
    digests: dict[str, str] = {}
    folders: set[Path] = set()
    for ep in episodes:
        if ep.cue_figure is None:
            continue
        image = ep.turns[0].cue.image if ep.turns[0].cue else None
        assert image is not None, f"{ep.id}: cue figure without a cue image path"
        paper = papers[ep.cue_figure.paper]
        fig = next(f for f in paper.figures if f.n == ep.cue_figure.figure)
        png = render_cue_image(corpus_dir / paper.pdf, fig)
        target = episodes_dir / image
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(png)
        folders.add(target.parent)
        digests[image] = hashlib.sha256(png).hexdigest()
    for folder in folders:
        for old in folder.glob("*.png"):
            if old.relative_to(episodes_dir).as_posix() not in digests:
                old.unlink()
    return digests
