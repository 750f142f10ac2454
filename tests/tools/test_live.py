"""LiveWorld: ddgs adapter at its boundary, URL/id resolution and refusals, downloads and page reading over loopback."""
from __future__ import annotations

import socket
import time

import pytest

from sandbox.site import serve_corpus
from tools import PaperMeta, PaperNotFound, ToolError
from tools.live import FetchError, LiveWorld, chromium_path
from tools.web_search import web_search

from .tiny_world import TinyWorld

CANNED = [
    {"title": "Attention Is All You Need", "href": "https://arxiv.org/abs/1706.03762", "body": "The dominant sequence transduction models..."},
    {"title": "Transformer (deep learning) - Wikipedia", "href": "https://en.wikipedia.org/wiki/Transformer", "body": "A transformer is..."},
    {"title": "attention pdf", "href": "https://arxiv.org/pdf/1706.03762v7", "body": ""},
]


@pytest.fixture
def fake_ddgs(monkeypatch):
    calls = []

    class FakeDDGS:
        def text(self, query, max_results=10, **kw):
            calls.append((query, max_results))
            return CANNED[:max_results]

    monkeypatch.setattr("ddgs.DDGS", FakeDDGS)
    return calls


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    world = TinyWorld(tmp_path_factory.mktemp("tiny"), n=2)
    server, base = serve_corpus(world, papers=list(world.papers.values()), test_routes=True)
    yield world, base
    server.shutdown()
    server.server_close()


def _local(tmp_path, **kw) -> LiveWorld:
    return LiveWorld(tmp_path, allow_local=True, **kw)


# ---- search adapter -----------------------------------------------------------------------------
async def test_ddgs_rows_become_ranked_hits_with_arxiv_ids(tmp_path, fake_ddgs):
    hits = await LiveWorld(tmp_path).search("attention is all you need", 3)
    assert fake_ddgs == [("attention is all you need", 3)]
    assert [h.url for h in hits] == [r["href"] for r in CANNED]
    assert hits[0].title == "Attention Is All You Need" and hits[0].snippet.startswith("The dominant")
    assert [h.paper_id for h in hits] == ["1706.03762", None, "1706.03762v7"]
    assert hits[0].score > hits[1].score > hits[2].score


async def test_web_search_tool_over_the_live_world(tmp_path, fake_ddgs):
    result = await web_search(LiveWorld(tmp_path), {"query": "transformers", "k": 2})
    assert not result.is_error and result.provenance == []
    assert "1. Attention Is All You Need" in result.text and "paper id: 1706.03762" in result.text
    assert len(result.data["hits"]) == 2


async def test_search_backend_failure_is_a_tool_error(tmp_path, monkeypatch):
    class Broken:
        def text(self, *a, **kw):
            raise RuntimeError("202 Ratelimit")

    monkeypatch.setattr("ddgs.DDGS", Broken)
    result = await web_search(LiveWorld(tmp_path), {"query": "x"})
    assert result.error_kind == "data_access" and "Ratelimit" in result.error


async def test_title_resolves_through_search_and_unknown_title_says_what_was_found(tmp_path, fake_ddgs):
    world = LiveWorld(tmp_path)
    meta = await world.resolve("Attention is all you need")
    assert meta.arxiv_id == "1706.03762" and meta.pdf_url == "https://arxiv.org/pdf/1706.03762"
    with pytest.raises(PaperNotFound, match="closest: Attention Is All You Need"):
        await world.resolve("Quantum gravity of penguins")


# ---- resolution and refusals --------------------------------------------------------------------
@pytest.mark.parametrize("ref,arxiv", [("2101.00001", "2101.00001"), ("arXiv:2101.00001v2", "2101.00001v2"),
                                       ("hep-th/9901001", "hep-th/9901001"),
                                       ("https://arxiv.org/abs/2303.08774", "2303.08774")])
async def test_arxiv_ids_and_urls_resolve_to_arxiv_pages(tmp_path, ref, arxiv):
    meta = await LiveWorld(tmp_path).resolve(ref)
    assert meta.arxiv_id == arxiv and meta.url == f"https://arxiv.org/abs/{arxiv}"
    assert meta.pdf_url == f"https://arxiv.org/pdf/{arxiv}"


@pytest.mark.parametrize("ref,needle", [
    ("file:///etc/passwd", "only http and https"),
    ("ftp://example.org/paper.pdf", "only http and https"),
    ("../../etc/passwd", "looks like a file path"),
    ("/etc/passwd", "looks like a file path"),
    ("http://127.0.0.1:8000/pdf/P001.pdf", "local or private address"),
    ("http://localhost/paper.pdf", "local or private address"),
    ("http://10.1.2.3/paper.pdf", "local or private address"),
    ("http://169.254.169.254/latest/meta-data", "local or private address"),
    ("http://[::1]/x.pdf", "local or private address"),
])
async def test_local_paths_schemes_and_private_hosts_are_refused(tmp_path, ref, needle):
    with pytest.raises(ToolError, match=needle) as e:
        await LiveWorld(tmp_path).resolve(ref)
    assert e.value.kind == "refused"


# ---- downloads over loopback --------------------------------------------------------------------
async def test_pdf_downloads_directly_and_through_the_landing_page(tmp_path, site):
    tiny, base = site
    world = _local(tmp_path)
    want = (tiny.pdf_dir / "P001.pdf").read_bytes()
    direct = await world.resolve(f"{base}/pdf/P001.pdf")
    assert direct.pdf_url and await world.pdf_bytes(direct) == want
    landing = await world.resolve(f"{base}/papers/P001")
    assert landing.pdf_url is None and await world.pdf_bytes(landing) == want  # via citation_pdf_url


async def test_the_same_site_is_refused_when_local_addresses_are_not_allowed(tmp_path, site):
    _, base = site
    with pytest.raises(FetchError, match="local or private"):
        await LiveWorld(tmp_path).pdf_bytes(PaperMeta(id="x", title="x", pdf_url=f"{base}/pdf/P001.pdf"))


@pytest.mark.parametrize("route", ["/test/big.pdf?mb=3", "/test/big.pdf?mb=3&nolength=1"])
async def test_oversize_download_is_stopped(tmp_path, site, route):
    _, base = site
    world = _local(tmp_path, max_pdf_bytes=1024 * 1024)
    with pytest.raises(FetchError, match="1,048,576-byte limit") as e:
        await world.pdf_bytes(PaperMeta(id="big", title="big", pdf_url=base + route))
    assert e.value.kind == "limit"


async def test_slow_download_is_stopped_by_the_total_time_cap(tmp_path, site):
    _, base = site
    world = _local(tmp_path, total_timeout=1.0, read_timeout=5.0)
    t = time.monotonic()
    with pytest.raises(FetchError, match="longer than 1 s") as e:
        await world.pdf_bytes(PaperMeta(id="slow", title="slow", pdf_url=base + "/test/slow.pdf?seconds=20"))
    assert e.value.kind == "limit" and time.monotonic() - t < 4


async def test_stalled_server_is_stopped_by_the_read_timeout(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts the connection, never answers
    try:
        world = _local(tmp_path, read_timeout=0.5, total_timeout=10)
        with pytest.raises(FetchError, match="too slow") as e:
            await world.pdf_bytes(PaperMeta(id="s", title="s", pdf_url=f"http://127.0.0.1:{listener.getsockname()[1]}/x.pdf"))
        assert e.value.kind == "limit"
    finally:
        listener.close()


async def test_redirects_are_followed_and_each_hop_is_checked(tmp_path, site):
    tiny, base = site
    world = _local(tmp_path)
    ok = PaperMeta(id="r", title="r", pdf_url=f"{base}/test/redirect?to=/pdf/P002.pdf")
    assert await world.pdf_bytes(ok) == (tiny.pdf_dir / "P002.pdf").read_bytes()
    bad = PaperMeta(id="r2", title="r2", pdf_url=f"{base}/test/redirect?to=file:///etc/passwd")
    with pytest.raises(FetchError, match="only http and https") as e:
        await world.pdf_bytes(bad)
    assert e.value.kind == "refused"


async def test_missing_pdf_and_non_pdf_are_clear_errors(tmp_path, site):
    _, base = site
    world = _local(tmp_path)
    with pytest.raises(FetchError, match="HTTP 404"):
        await world.pdf_bytes(PaperMeta(id="m", title="m", pdf_url=f"{base}/pdf/P777.pdf"))
    with pytest.raises(FetchError, match=r"did not return a PDF: it sent \d+ bytes that do not start like a PDF "
                                         r"\(content type 'application/json'\)"):
        await world.pdf_bytes(PaperMeta(id="i", title="i", url=f"{base}/search?q=graph"))
    with pytest.raises(FetchError, match="web page without a PDF link"):
        await world.pdf_bytes(PaperMeta(id="i", title="i", url=f"{base}/"))


# ---- pages in a real browser --------------------------------------------------------------------
@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.skipif(chromium_path() is None, reason="no Chromium at /usr/bin/chromium (apt install chromium)")
async def test_landing_page_text_is_read_in_headless_chromium(tmp_path, site):
    tiny, base = site
    text = await _local(tmp_path).page_text(f"{base}/papers/P002")
    assert tiny.papers["P002"].title in text and "Mei Tanaka" in text
    assert "Page rendered for paper P002" in text  # written by the page's script: the browser ran it
    with pytest.raises(FetchError, match="local or private"):
        await LiveWorld(tmp_path).page_text(f"{base}/papers/P002")


# ---- the real internet ---------------------------------------------------------------------------
def _internet() -> str | None:
    """None if duckduckgo.com resolves and accepts a connection within ~2 s, else why not."""
    import concurrent.futures

    pool = concurrent.futures.ThreadPoolExecutor(1)
    try:
        addr = pool.submit(socket.getaddrinfo, "duckduckgo.com", 443).result(timeout=2)[0][4]
        socket.create_connection(addr[:2], timeout=2).close()
        return None
    except (OSError, concurrent.futures.TimeoutError) as e:
        return f"no internet connection (duckduckgo.com unreachable: {e or 'DNS timeout'})"
    finally:
        pool.shutdown(wait=False)


@pytest.mark.network
async def test_real_web_search_finds_a_famous_paper(tmp_path):
    reason = _internet()
    if reason:
        pytest.skip(reason)
    hits = await LiveWorld(tmp_path).search("Attention Is All You Need arxiv", 5)
    assert hits and any("attention" in h.title.lower() for h in hits)


# ---- PDF limits on the download path ------------------------------------------------------------
async def test_the_download_cap_follows_the_pdf_file_limit(tmp_path, site, monkeypatch):
    _, base = site
    monkeypatch.setenv("EPI_PDF_MAX_FILE_MB", "1")
    world = _local(tmp_path)
    assert world.pdf_byte_cap() == 1024 * 1024
    with pytest.raises(FetchError, match="1,048,576-byte limit") as e:
        await world.pdf_bytes(PaperMeta(id="big", title="big", pdf_url=base + "/test/big.pdf?mb=3"))
    assert e.value.kind == "limit"
    monkeypatch.delenv("EPI_PDF_MAX_FILE_MB")
    assert _local(tmp_path).pdf_byte_cap() == 50 * 1024 * 1024


async def test_live_downloads_are_parsed_as_untrusted(tmp_path, site, monkeypatch):
    """A downloaded PDF is parsed in a worker process under the limits (its parse records what it measured)."""
    from tools import get_tool
    from tools.pdf._isolate import _ZYGOTE

    from tools.pdf import parse_cached

    _, base = site
    world = _local(tmp_path)
    meta = await world.resolve(f"{base}/pdf/P001.pdf")
    assert not world.pdf_trusted(meta)
    world.preload(["pdf_extract"])  # the run's background preload starts the parse process
    assert _ZYGOTE._proc is not None and _ZYGOTE._proc.poll() is None
    res = await get_tool("pdf_extract")(world, {"paper": meta.url})
    assert not res.is_error, res.error
    monkeypatch.setattr("tools.pdf._load.parse_isolated", None)  # a second read is served by the cache
    parsed = parse_cached(await world.pdf_bytes(meta), world.cache_dir)
    assert parsed.measured is not None and parsed.measured.file_bytes == len(await world.pdf_bytes(meta))
