"""Counts that describe a built corpus (what `epi sandbox stats` prints)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field

from .build import load_catalog, load_ground_truth


class CorpusStats(BaseModel):
    papers: int = Field(description="generated papers")
    figures: int
    tables: int
    pages: int
    areas: int = Field(description="number of distinct subject areas")
    by_area: dict[str, int]
    layouts: dict[str, int]
    vector_figures: int
    raster_figures: int
    citations: int = Field(description="edges of the citation graph")
    added: int = Field(description="papers a user added with `epi sandbox add`")
    generator_version: str
    seed: int


def corpus_stats(sandbox_dir: Path | None = None) -> CorpusStats:
    gt = load_ground_truth(sandbox_dir)
    catalog = load_catalog(sandbox_dir)
    by_area = Counter(p.area for p in gt.papers)
    layouts = Counter(p.layout for p in gt.papers)
    figs = [f for p in gt.papers for f in p.figures]
    return CorpusStats(
        papers=len(gt.papers), figures=len(figs), tables=sum(len(p.tables) for p in gt.papers),
        pages=sum(p.pages or 0 for p in gt.papers), areas=len(by_area), by_area=dict(sorted(by_area.items())),
        layouts={"one_column": layouts.get("one_column", 0), "two_column": layouts.get("two_column", 0)},
        vector_figures=sum(f.visual == "vector" for f in figs), raster_figures=sum(f.visual == "raster" for f in figs),
        citations=sum(len(p.references) for p in gt.papers),
        added=sum(e.origin == "added" for e in catalog.papers) if catalog else 0,
        generator_version=gt.generator_version, seed=gt.seed,
    )
