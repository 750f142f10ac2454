"""A small, hand-shaped ground truth for episode-generator tests (no PDFs needed): 24 papers, 3 areas."""
from __future__ import annotations

import random

from sandbox.corpus.model import Catalog, CatalogEntry, FigureGT, GroundTruth, PaperGT, SectionGT, SeriesGT, TableGT

AREAS = [
    ("image classification", "image classification", ["ImageNet-1K", "CIFAR-100", "Places365"], "top-1 accuracy (%)"),
    ("object detection", "object detection", ["COCO", "LVIS v1", "CrowdHuman"], "box AP"),
    ("graph learning", "node classification", ["Cora", "CiteSeer", "PubMed"], "accuracy (%)"),
]
SURNAMES = ["Okafor", "Lindqvist", "Tanaka", "Moreau", "Haddad", "Novak", "Silva", "Kowalski"]
STEMS = ["Zar", "Tel", "Qui", "Vor", "Lum", "Kes", "Mir", "Ost", "Pel", "Dra", "Fen", "Gal"]
TECHNIQUES = ["Sparse Window Attention", "Adaptive Channel Recalibration", "Dense Set Prediction",
              "Spectral Message Passing", "Progressive Patch Merging", "Soft Label Matching"]


def make_ground_truth(n_papers: int = 24, seed: int = 0) -> GroundTruth:
    rng = random.Random(seed)
    papers: list[PaperGT] = []
    for i in range(n_papers):
        pid = f"P{i + 1:03d}"
        area, task, datasets, metric = AREAS[i % len(AREAS)]
        method = f"{STEMS[i % len(STEMS)]}{['Net', 'Former', 'GNN', 'Det'][i // len(STEMS) % 4]}"
        tech = TECHNIQUES[i % len(TECHNIQUES)]
        refs = [f"P{j + 1:03d}" for j in range(max(0, i - 4), i) if (i + j) % 2 == 0 or j == i - 1]
        baselines = [p.method for p in papers if p.id in refs][:2] + ["MLP baseline"]
        rows = [[m] + [f"{rng.uniform(60, 90):.1f}" for _ in datasets[:2]] for m in baselines + [method]]
        tables = [TableGT(n=1, caption=f"Table 1: {metric} of {method} and baselines.", columns=["Method"] + datasets[:2],
                          rows=rows, metric=metric)]
        xs = [10.0, 20.0, 30.0, 40.0]
        series = [SeriesGT(label=m, x=list(xs), y=[round(rng.uniform(50, 90) * 2) / 2 for _ in xs])
                  for m in (method, "MLP baseline", "Plain baseline")]
        figures = [FigureGT(n=1, kind="line", visual="vector", caption=f"Figure 1: {metric} over training.",
                            x_label="Training epochs", y_label=metric, series=series, values_in_text=(i % 5 == 4))]
        if i % 2 == 0:
            bars = [SeriesGT(label=method, x=datasets, y=[float(rng.randint(40, 90)) for _ in datasets])]
            figures.append(FigureGT(n=2, kind="bar", visual="raster", caption="Figure 2: per-dataset results.",
                                    x_label="Dataset", y_label=metric, series=bars))
        papers.append(PaperGT(
            id=pid, title=f"{method}: {tech} for {task.title()}", authors=[f"Ada {SURNAMES[i % 8]}", "Bo Chen"],
            venue=["CVPR", "NeurIPS", "ICLR"][i % 3], year=2016 + i % 8, area=area, abstract=f"We introduce {method}.",
            method=method, task=task, datasets=datasets, references=refs, layout="two_column",
            sections=[SectionGT(number="1", title="Introduction", paragraphs=["As Table 1 shows ..."])],
            figures=figures, tables=tables, pdf=f"{pid}.pdf",
        ))
    return GroundTruth(generator_version="fixture-1", seed=seed, papers=papers)


def catalog_of(gt: GroundTruth) -> Catalog:
    """The catalog the corpus build would write for this ground truth (figure and table numbers)."""
    return Catalog(generator_version=gt.generator_version, seed=gt.seed, papers=[
        CatalogEntry(id=p.id, title=p.title, authors=p.authors, venue=p.venue, year=p.year, area=p.area,
                     pdf=f"corpus/{p.pdf}", sha256="0" * 64, figures=[f.n for f in p.figures],
                     tables=[t.n for t in p.tables], pages=8)
        for p in gt.papers
    ])
