"""The web_search and pdf_rag tools over a world of real (generated) PDFs: output, data, provenance, bad input."""
from __future__ import annotations

import pytest

from tools import get_tool
from tools.pdf_rag import pdf_rag
from tools.web_search import web_search

from .tiny_world import TinyWorld


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return TinyWorld(tmp_path_factory.mktemp("tiny"), n=5)


async def test_web_search_lists_ranked_hits_with_ids_urls_and_snippets(world):
    assert get_tool("web_search") is web_search
    r = await web_search(world, {"query": "Okafor CVPR 2021 mixing node features", "k": 3})
    assert not r.is_error and r.provenance == []
    hits = r.data["hits"]
    assert len(hits) == 3 and hits[0]["paper_id"] == "P001"
    assert r.text.splitlines()[1].startswith("1. GraphMix") and "paper id: P001" in r.text
    assert "url: https://sandbox.local/papers/P001" in r.text and "interpolates hidden node features" in r.text


@pytest.mark.parametrize("args,needle", [
    ({"query": "   "}, "query is empty"),
    ({"query": "graphs", "k": 0}, "k: Input should be greater than or equal to 1"),
    ({"query": "graphs", "k": 21}, "k: Input should be less than or equal to 20"),
    ({"query": "x" * 600}, "keep it under 500"),
    ({"k": 3}, "query: Field required"),
    ({"query": "graphs", "limit": 3}, "limit: Extra inputs are not permitted"),
])
async def test_web_search_bad_arguments_are_error_results(world, args, needle):
    r = await web_search(world, args)
    assert r.is_error and r.error_kind == "bad_arguments" and needle in r.error


async def test_pdf_rag_over_a_real_pdf_returns_spans_with_page_provenance(world):
    r = await pdf_rag(world, {"paper": "P003", "query": "body text on page 2", "k": 2})
    assert not r.is_error, r.error
    assert r.data["paper_id"] == "P003" and len(r.data["spans"]) == 2
    top = r.data["spans"][0]
    assert top["page"] == 2 and "page 2 of P003" in top["text"]
    assert all(u.paper == "P003" and u.unit == "text" and u.page for u in r.provenance)
    assert (world.cache_dir / "rag").is_dir()


async def test_pdf_rag_unknown_paper_and_bad_k_are_error_results(world):
    missing = await pdf_rag(world, {"paper": "P999", "query": "x"})
    assert missing.is_error and missing.error_kind == "not_found" and "P999" in missing.error
    bad = await pdf_rag(world, {"paper": "P001", "query": "x", "k": 50})
    assert bad.is_error and "k: Input should be less than or equal to 20" in bad.error
