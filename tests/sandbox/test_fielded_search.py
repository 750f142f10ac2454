"""web_search over the sandbox: citation cues and hints find the paper itself, not the papers citing it."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from sandbox.fielded import field_bonus
from sandbox.world import SandboxWorld
from tools import get_tool

from .test_corpus import built_sandbox  # noqa: F401  (session fixture, built once)


@pytest.fixture(scope="module")
def world(built_sandbox: Path) -> SandboxWorld:  # noqa: F811
    return SandboxWorld(built_sandbox)


def _surname(name: str) -> str:
    return name.split()[-1]


async def test_citation_cues_rank_the_cited_paper_first(world: SandboxWorld) -> None:
    papers = world.catalog.papers
    key = Counter((_surname(e.authors[0]), e.venue, e.year) for e in papers if e.authors)
    unique = [e for e in papers if e.authors and key[(_surname(e.authors[0]), e.venue, e.year)] == 1]
    assert unique
    search = get_tool("web_search")
    for e in unique:
        cue = f"{_surname(e.authors[0])} et al. ({e.venue} {e.year}), the paper that introduced a new method for {e.area}."
        result = await search(world, {"query": cue, "k": 5})
        assert result.error is None, result.text
        assert result.data["hits"][0]["paper_id"] == e.id, (cue, [h["paper_id"] for h in result.data["hits"]])


async def test_exact_title_ranks_first(world: SandboxWorld) -> None:
    search = get_tool("web_search")
    for e in world.catalog.papers:
        result = await search(world, {"query": f'The paper titled "{e.title}".', "k": 3})
        assert result.data["hits"][0]["paper_id"] == e.id


def test_a_year_inside_a_dataset_name_is_not_the_publication_year(world: SandboxWorld) -> None:
    e = world.catalog.papers[0].model_copy(update={"year": 2018, "authors": [], "venue": None, "title": "Xyz", "abstract": None})
    assert field_bonus("evaluated on iNaturalist-2018", e) == 0.0
    assert field_bonus("a 2018 method", e) > 0.0
