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


# Issue 24 ("keep all of that as tests"): the red team's traversal paths, sent raw (no client normalises them)
TRAVERSALS = [
    "/../../../../etc/passwd", "/papers/../../../../etc/passwd", "/papers/..%2F..%2F..%2Fetc%2Fpasswd",
    "/papers/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/papers/%252e%252e%252fetc%252fpasswd", "/pdf/../../etc/passwd",
    "/pdf/..%2F..%2F..%2Fetc%2Fpasswd.pdf", "/pdf/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/pdf/P001/../../../etc/passwd",
    "/pdf/P001.pdf/../../../../etc/passwd", "/papers/P001/..%2f..%2f..%2fetc%2fpasswd", "//etc/passwd",
    "///etc//passwd", "/papers//etc/passwd", "/papers/..\\..\\..\\etc\\passwd", "/papers/..%5c..%5cetc%5cpasswd",
    "/pdf/..%c0%af..%c0%afetc%c0%afpasswd", "/papers/%00../../etc/passwd", "/papers/P001%00.pdf",
    "/pdf/P001.pdf%00/../../etc/passwd", "/papers/{canary}", "/pdf/{canary}", "/papers/..%2F{canary}",
    "/pdf/..%2F..%2F{canary}", "/search?q=../../etc/passwd", "/search?q=x&k=../../etc/passwd",
    "/proc/self/environ", "/papers/..%2F..%2F..%2Fproc%2Fself%2Fenviron",
]


def _raw_get(base: str, path: str) -> tuple[int, bytes]:
    import socket
    from urllib.parse import urlsplit

    u = urlsplit(base)
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {u.netloc}\r\nConnection: close\r\n\r\n".encode("latin-1"))
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    return status, data


@pytest.mark.parametrize("path", TRAVERSALS)
def test_a_traversal_path_reaches_nothing_outside_the_corpus(site, path, tmp_path, monkeypatch):
    world, base = site
    canary = tmp_path / "canary.txt"
    canary.write_text("canary outside the corpus")
    monkeypatch.setenv("EPI_SITE_CANARY", "env canary of the server")
    rel = "..%2F" * 12 + str(canary).lstrip("/").replace("/", "%2F")
    status, data = _raw_get(base, path.format(canary=rel))
    if path.startswith("/search?q=.."):  # a query is text to search for: corpus hits, never a file
        assert status == 200 and b'"hits"' in data, (path, data[:300])
    else:
        assert status in (400, 404), (path, data[:300])
    for secret in (b"root:", b"canary outside the corpus", b"env canary of the server"):
        assert secret not in data, (path, data[:300])
