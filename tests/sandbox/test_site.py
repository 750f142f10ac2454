"""The corpus web site: index, landing pages, PDFs and search served over loopback HTTP."""
from __future__ import annotations

import httpx
import pytest

from sandbox.site import serve_corpus
from tests.tools.tiny_world import TinyWorld


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    world = TinyWorld(tmp_path_factory.mktemp("tiny"), n=3)
    server, base = serve_corpus(world, papers=list(world.papers.values()))
    yield world, base
    server.shutdown()
    server.server_close()


def test_index_lists_every_paper_with_a_link(site):
    world, base = site
    r = httpx.get(base + "/")
    assert r.status_code == 200 and "3 papers" in r.text
    for pid, meta in world.papers.items():
        assert f"/papers/{pid}" in r.text and meta.title.split(":")[0] in r.text


def test_landing_page_shows_metadata_and_points_to_the_pdf(site):
    world, base = site
    r = httpx.get(base + "/papers/P002")
    meta = world.papers["P002"]
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    for piece in (meta.title, "Mei Tanaka", "ACL 2022", "Long inputs overwhelm dense attention"):
        assert piece in r.text
    assert f"citation_pdf_url' content='{base}/pdf/P002.pdf'" in r.text


def test_pdf_route_serves_the_worlds_bytes(site):
    world, base = site
    r = httpx.get(base + "/pdf/P001.pdf")
    assert r.status_code == 200 and r.headers["content-type"] == "application/pdf"
    assert r.content == (world.pdf_dir / "P001.pdf").read_bytes()


def test_search_returns_json_hits_with_site_urls(site):
    _, base = site
    r = httpx.get(base + "/search", params={"q": "protein sequence contrastive", "k": 2})
    hits = r.json()["hits"]
    assert r.status_code == 200 and len(hits) == 2
    assert hits[0]["paper_id"] == "P003" and hits[0]["url"] == f"{base}/papers/P003"


@pytest.mark.parametrize("path,status,needle", [
    ("/papers/P999", 404, "no paper with id &#x27;P999&#x27;"),
    ("/papers/..%2F..%2Fetc%2Fpasswd", 404, "no paper"),
    ("/pdf/../../etc/passwd.pdf", 404, ""),
    ("/search?q=", 400, "parameter q"),
    ("/search?q=graphs&k=999", 400, "parameter k must be an integer from 1 to 50"),
    ("/test/big.pdf", 404, "no page"),  # test routes are off unless asked for
])
def test_bad_requests_get_clear_errors_and_nothing_outside_the_corpus(site, path, status, needle):
    _, base = site
    r = httpx.get(base + path)
    assert r.status_code == status
    assert needle in r.text
    assert "root:" not in r.text
