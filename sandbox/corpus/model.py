"""Ground-truth schema of the generated corpus (the sidecar agents never see) and the catalog.

`ground_truth.json` holds every value shown in every figure and table; the episode generator reads
it. `catalog.json` holds what the sandbox world may reveal (metadata, PDF path, figure and table
numbers) and also lists papers a user added with `epi sandbox add`.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

Layout = Literal["one_column", "two_column"]
Visual = Literal["vector", "raster"]
# corpus v3 adds stacked and horizontal bars, heatmaps, multi-panel figures and the procedural figures no
# question asks about (architecture diagrams, qualitative image grids drawn by code)
ChartKind = Literal["line", "bar", "scatter", "stacked_bar", "hbar", "heatmap", "panels", "diagram", "image_grid"]
ErrStyle = Literal["bars", "band"]


class _V3Fields(BaseModel):
    """A model whose corpus-v3 fields are left out of its JSON while they hold their defaults, so the
    ground truths of corpora v1 and v2 stay byte for byte what they were."""

    _v3_fields: tuple[str, ...] = ()

    @model_serializer(mode="wrap")
    def _drop_unused_v3(self, handler: SerializerFunctionWrapHandler) -> dict:
        out = handler(self)
        for name in self._v3_fields:
            if name in out and out[name] == type(self).model_fields[name].default:
                del out[name]
        return out


class SeriesGT(_V3Fields):
    _v3_fields = ("err",)
    label: str = Field(description="legend label")
    x: list[float | str] = Field(description="x positions (numbers) or category names (bars)")
    y: list[float]
    method: str | None = Field(default=None, description="corpus v2: the method this series plots (the paper's own for 'Ours')")
    err: list[float] | None = Field(default=None, description="corpus v3: half-width of the error bar or band at each point")


class PanelGT(_V3Fields):
    """Corpus v3: one sub-figure (a), (b), ... of a multi-panel figure."""

    label: str = Field(description="'(a)', '(b)', ...")
    kind: ChartKind
    title: str = Field(description="the panel's sub-caption")
    x_label: str
    y_label: str
    series: list[SeriesGT]
    dataset: str | None = None
    log_x: bool = False
    log_y: bool = False
    err_style: ErrStyle | None = None


class FigureGT(_V3Fields):
    _v3_fields = ("panels", "log_x", "log_y", "err_style", "procedural", "vector_exact", "dpi", "annotated", "full_width")
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
    panels: list[PanelGT] | None = Field(default=None, description="corpus v3: the sub-figures of a multi-panel figure")
    log_x: bool = Field(default=False, description="corpus v3: logarithmic x axis")
    log_y: bool = Field(default=False, description="corpus v3: logarithmic y axis")
    err_style: ErrStyle | None = Field(default=None, description="corpus v3: how series' `err` is drawn")
    procedural: bool = Field(default=False, description="corpus v3: a diagram or image grid; no value is asked about it")
    vector_exact: bool | None = Field(default=None, description=(
        "corpus v3, vector figures: True if the drawing's coordinates give every plotted value exactly; False "
        "if the marks are embedded as an image inside vector axes and text (as matplotlib's rasterized=True)"))
    dpi: int | None = Field(default=None, description="corpus v3: resolution of the figure's (or its plot area's) image")
    annotated: bool = Field(default=False, description="corpus v3: heatmap cells print their values")
    full_width: bool = Field(default=False, description="corpus v3: spans both columns of a two-column paper")


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
