"""Which corpus a run searched: one typed name for a corpus folder, recorded in every run.json.

Two runs over the same episodes rank and read differently when their corpora differ (a paper added, a
rebuild with another seed or generator), so a run records its corpus and `epi compare` warns when runs
differ. The identity is computed from `catalog.json` alone: the generator version and seed it was
built with, the hash of the catalog as built (generated papers only) and as it is now, and the papers
added since the build (`epi sandbox add`).
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import BaseModel, Field

from .model import Catalog


class AddedPaper(BaseModel):
    """A paper added to the corpus after its build."""

    id: str
    sha256: str = Field(description="sha256 of the PDF's bytes")
    title: str = ""


class CorpusIdentity(BaseModel):
    """The corpus a run searched and read."""

    name: str = Field(description="the corpus folder's name (e.g. build, or the folder `epi sandbox add` wrote)")
    version: str = Field(description="the corpus generator's version (catalog.generator_version)")
    seed: int = Field(description="the generator's seed")
    papers: int = Field(description="papers in the catalog, added ones included")
    build_sha256: str = Field(description="sha256 of the catalog as built: its generated papers only")
    catalog_sha256: str = Field(description="sha256 of catalog.json as it is (added papers included)")
    added: list[AddedPaper] = Field(default_factory=list, description="papers added since the build, in order")

    def same_corpus(self, other: "CorpusIdentity") -> bool:
        """The same papers: the folder's name does not matter, the catalog does."""
        return self.catalog_sha256 == other.catalog_sha256

    def describe(self) -> str:
        added = f", {len(self.added)} added ({', '.join(a.id for a in self.added[:5])}" \
                f"{', ...' if len(self.added) > 5 else ''})" if self.added else ", none added"
        return (f"corpus {self.name} ({self.version}, seed {self.seed}, {self.papers} papers{added}; "
                f"catalog {self.catalog_sha256[:12]})")


def corpus_identity(root: Path) -> CorpusIdentity:
    """The identity of the corpus folder `root` (it must hold a catalog.json)."""
    raw = (Path(root) / "catalog.json").read_bytes()
    catalog = Catalog.model_validate_json(raw)
    built = catalog.model_copy(update={"papers": [p for p in catalog.papers if p.origin == "generated"]})
    return CorpusIdentity(
        name=Path(root).resolve().name, version=catalog.generator_version, seed=catalog.seed,
        papers=len(catalog.papers), build_sha256=hashlib.sha256(built.model_dump_json().encode()).hexdigest(),
        catalog_sha256=hashlib.sha256(raw).hexdigest(),
        added=[AddedPaper(id=p.id, sha256=p.sha256, title=p.title) for p in catalog.papers if p.origin == "added"],
    )
