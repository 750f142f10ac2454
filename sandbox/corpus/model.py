"""Ground-truth schema of the generated corpus (the sidecar agents never see) and the catalog.

`ground_truth.json` holds every value shown in every figure and table; the episode generator reads
it. `catalog.json` holds what the sandbox world may reveal (metadata, PDF path, figure and table
numbers) and also lists papers a user added with `epi sandbox add`.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Layout = Literal["one_column", "two_column"]
Visual = Literal["vector", "raster"]
ChartKind = Literal["line", "bar", "scatter"]


class SeriesGT(BaseModel):
    label: str = Field(description="legend label")
    x: list[float | str] = Field(description="x positions (numbers) or category names (bars)")
    y: list[float]
    method: str | None = Field(default=None, description="corpus v2: the method this series plots (the paper's own for 'Ours')")


class FigureGT(BaseModel):
    n: int
    kind: ChartKind
    visual: Visual
    caption: str = Field(description="full caption text, starting 'Figure N:'")
    x_label: str
    y_label: str
    series: list[SeriesGT]
    page: int | None = Field(default=None, description="1-based page, filled in by the renderer")
    bbox: tuple[float, float, float, float] | None = None
    values_in_text: bool = Field(default=False, description="True if any plotted value is also printed in the text")
    dataset: str | None = Field(default=None, description="corpus v2: the dataset a line chart is measured on (shown as its title)")
    setting: str | None = Field(default=None, description="corpus v2: the condition a bar chart reports, as its caption says")


class TableGT(BaseModel):
    n: int
    caption: str = Field(description="full caption text, starting 'Table N:'")
    columns: list[str] = Field(description="header row, first column is the row header")
    rows: list[list[str]] = Field(description="body rows as printed")
    metric: str | None = None
    higher_is_better: bool = True
    role: str | None = Field(default=None, description="corpus v2: 'main', 'ablation' or 'efficiency'")
    page: int | None = None
    bbox: tuple[float, float, float, float] | None = None


class SectionGT(BaseModel):
    number: str
    title: str
    paragraphs: list[str]


class PaperGT(BaseModel):
    id: str = Field(description="corpus id such as 'P007'")
    title: str
    authors: list[str]
    venue: str
    year: int
    area: str
    abstract: str
    method: str = Field(description="name of the method the paper introduces")
    task: str
    datasets: list[str]
    references: list[str] = Field(description="ids of corpus papers this one cites")
    layout: Layout
    sections: list[SectionGT]
    figures: list[FigureGT]
    tables: list[TableGT]
    pages: int | None = None
    pdf: str = Field(description="PDF path relative to the corpus folder")
    arxiv_id: str | None = None


class GroundTruth(BaseModel):
    generator_version: str
    seed: int
    papers: list[PaperGT]


class CatalogEntry(BaseModel):
    """One paper the sandbox world knows, generated or added by the user."""

    id: str
    title: str
    authors: list[str] = Field(default_factory=list)
    venue: str | None = None
    year: int | None = None
    area: str | None = None
    abstract: str | None = None
    references_text: list[str] = Field(default_factory=list, description="reference strings as printed")
    arxiv_id: str | None = None
    pdf: str = Field(description="PDF path relative to the sandbox folder")
    sha256: str
    figures: list[int] = Field(default_factory=list)
    tables: list[int] = Field(default_factory=list)
    pages: int = 0
    origin: Literal["generated", "added"] = "generated"


class Catalog(BaseModel):
    generator_version: str
    seed: int
    papers: list[CatalogEntry]

    def get(self, paper_id: str) -> CatalogEntry | None:
        for p in self.papers:
            if p.id == paper_id:
                return p
        return None
