"""The live world: papers from the open web (ddgs search, arXiv, any http(s) URL, pages read in Chromium).

Everything that reaches out is bounded: search and downloads have timeouts and a total-time cap,
downloads a byte cap enforced while streaming, and only public http(s) hosts are contacted (every
redirect hop is checked again) unless the world was made with `allow_local=True` (tests over loopback).
"""
from __future__ import annotations

import asyncio
import difflib
import hashlib
import html
import ipaddress
import os
import re
import socket
from collections.abc import Collection
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx

from ._types import ErrorKind, ToolError
from ._world import PaperMeta, PaperNotFound, SearchHit, World

ARXIV_ID_RE = re.compile(r"^(?:arxiv:)?((?:\d{4}\.\d{4,5})|(?:[a-z][a-z.\-]*/\d{7}))(v\d+)?$", re.I)
ARXIV_URL_RE = re.compile(r"^/(?:abs|pdf)/((?:\d{4}\.\d{4,5})|(?:[a-z][a-z.\-]*/\d{7}))(v\d+)?(?:\.pdf)?/?$", re.I)
PDF_META_RE = re.compile(r"""<meta[^>]+name=["']citation_pdf_url["'][^>]+content=["']([^"']+)["']""", re.I)
PDF_LINK_RE = re.compile(r"""<a[^>]+href=["']([^"']+\.pdf)["']""", re.I)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
USER_AGENT = "epiharness/0.1 (research-agent benchmark; +https://github.com/)"


class FetchError(ToolError, OSError):
    """A download or page read that failed or was refused; an agent-recoverable tool error."""

    def __init__(self, message: str, kind: ErrorKind = "data_access"):
        super().__init__(message, kind=kind)


def chromium_path() -> str | None:
    """The system Chromium if installed (EPI_CHROMIUM overrides), else None (Playwright's own browser)."""
    for cand in (os.environ.get("EPI_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if cand and Path(cand).is_file():
            return cand
    return None


def _blocked_ip(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved or ip.is_multicast or ip.is_unspecified


class LiveWorld(World):
    """Search with ddgs, resolve arXiv ids / URLs / titles, download PDFs and read pages with limits."""

    name = "live"

    def __init__(
        self,
        cache_dir: Path,
        *,
        allow_local: bool = False,
        max_pdf_bytes: int | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 20.0,
        total_timeout: float = 90.0,
        search_timeout: float = 20.0,
        max_redirects: int = 5,
    ):
        super().__init__(cache_dir)
        self.allow_local = allow_local
        self.max_pdf_bytes = max_pdf_bytes
        self.timeout = httpx.Timeout(connect=connect_timeout, read=read_timeout, write=read_timeout, pool=connect_timeout)
        self.total_timeout = total_timeout
        self.search_timeout = search_timeout
        self.max_redirects = max_redirects
        self._known: dict[str, PaperMeta] = {}

    # ---- search ------------------------------------------------------------------------------
    async def search(self, query: str, k: int) -> list[SearchHit]:
        """Web results from DuckDuckGo & co. through ddgs (run in a thread, bounded by search_timeout)."""
        from ddgs import DDGS

        def run() -> list[dict]:
            return DDGS().text(query, max_results=k) or []

        try:
            rows = await asyncio.wait_for(asyncio.to_thread(run), self.search_timeout)
        except asyncio.TimeoutError:
            raise FetchError(f"web search timed out after {self.search_timeout:.0f} s; try again or a shorter query", "limit") from None
        except Exception as e:  # ddgs raises its own family (rate limit, no results, HTTP errors)
            raise FetchError(f"web search failed ({type(e).__name__}: {e}); try again or rephrase") from None
        return [self._hit(rank, row) for rank, row in enumerate(rows[:k], 1)]

    def _hit(self, rank: int, row: dict) -> SearchHit:
        url = str(row.get("href") or row.get("url") or "")
        arxiv = self._arxiv_id_of_url(url)
        hit = SearchHit(title=str(row.get("title") or url), url=url, snippet=str(row.get("body") or ""),
                        score=round(1.0 / rank, 4), paper_id=arxiv)
        if arxiv:
            self._known.setdefault(arxiv, self._arxiv_meta(arxiv, title=hit.title))
        return hit

    # ---- resolve -----------------------------------------------------------------------------
    @staticmethod
    def _arxiv_meta(arxiv_id: str, title: str | None = None) -> PaperMeta:
        return PaperMeta(id=arxiv_id, title=title or f"arXiv:{arxiv_id}", arxiv_id=arxiv_id,
                         url=f"https://arxiv.org/abs/{arxiv_id}", pdf_url=f"https://arxiv.org/pdf/{arxiv_id}")

    @staticmethod
    def _arxiv_id_of_url(url: str) -> str | None:
        parts = urlsplit(url)
        if parts.hostname in ("arxiv.org", "www.arxiv.org", "export.arxiv.org"):
            m = ARXIV_URL_RE.match(parts.path)
            if m:
                return m.group(1) + (m.group(2) or "")
        return None

    async def resolve(self, ref: str) -> PaperMeta:
        """arXiv id -> arXiv pages; http(s) URL -> that URL; anything else is a title looked up by search."""
        ref = ref.strip()
        if not ref:
            raise PaperNotFound("empty paper reference; give an arXiv id, a URL or a title")
        if ref in self._known:
            return self._known[ref]
        m = ARXIV_ID_RE.match(ref)
        if m:
            return self._arxiv_meta(m.group(1) + (m.group(2) or ""))
        if re.match(r"^[a-z][a-z0-9+.\-]*:", ref, re.I) and not ref.lower().startswith("arxiv:"):
            arxiv = self._arxiv_id_of_url(ref) if ref.lower().startswith("https://") else None
            if arxiv:
                return self._arxiv_meta(arxiv)
            await self.check_url(ref)
            meta = PaperMeta(id="W" + hashlib.sha256(ref.encode()).hexdigest()[:12], title=ref, url=ref,
                             pdf_url=ref if urlsplit(ref).path.lower().endswith(".pdf") else None)
            self._known[meta.id] = meta
            return meta
        if ref.startswith(("/", "~", ".")) or "../" in ref or "\\" in ref:
            raise ToolError(f"{ref!r} looks like a file path; the live world only reads http(s) URLs, arXiv ids or titles",
                            kind="refused")
        return await self._resolve_title(ref)

    async def _resolve_title(self, title: str) -> PaperMeta:
        hits = await self.search(title, 8)
        want = " ".join(re.findall(r"\w+", title.lower()))
        best, best_ratio = None, 0.0
        for hit in hits:
            got = " ".join(re.findall(r"\w+", hit.title.lower()))
            ratio = difflib.SequenceMatcher(None, want, got[: len(want) + 20]).ratio()
            if ratio > best_ratio:
                best, best_ratio = hit, ratio
        if best is None or best_ratio < 0.6:
            shown = "; ".join(h.title for h in hits[:3]) or "no results"
            raise PaperNotFound(f"no paper titled {title!r} found on the web (closest: {shown}); try its arXiv id or URL")
        if best.paper_id:
            return self._known[best.paper_id]
        return await self.resolve(best.url)

    # ---- URL safety --------------------------------------------------------------------------
    async def check_url(self, url: str) -> None:
        """Refuse non-http(s) schemes and (unless allow_local) hosts that resolve to private addresses."""
        parts = urlsplit(url)
        if parts.scheme.lower() not in ("http", "https"):
            raise FetchError(f"refused {url!r}: only http and https URLs can be fetched, not {parts.scheme or 'a bare path'!r}",
                             "refused")
        host = parts.hostname
        if not host:
            raise FetchError(f"refused {url!r}: the URL has no host", "refused")
        if self.allow_local:
            return
        try:
            infos = await asyncio.wait_for(
                asyncio.get_running_loop().getaddrinfo(host, parts.port or 443, type=socket.SOCK_STREAM), 10)
        except (OSError, asyncio.TimeoutError) as e:
            raise FetchError(f"cannot resolve host {host!r} of {url!r} ({e or 'timeout'})") from None
        for info in infos:
            ip = ipaddress.ip_address(info[4][0].split("%")[0])
            if _blocked_ip(ip):
                raise FetchError(f"refused {url!r}: host {host!r} is a local or private address ({ip})", "refused")

    # ---- downloads ---------------------------------------------------------------------------
    def preload(self, tools: Collection[str]) -> None:
        """The PDF tools parse downloads (untrusted) in workers forked from a zygote process: start it now."""
        if {"pdf_extract", "pdf_rag", "figure_extract", "table_extract"} & set(tools):
            from .pdf._isolate import warm_up

            warm_up()

    def pdf_byte_cap(self) -> int:
        """The download cap: max_pdf_bytes if given, else the PDF file limit (EPI_PDF_MAX_FILE_MB, 50 MB), so
        a download the parser would refuse for its size is never fetched whole."""
        if self.max_pdf_bytes:
            return self.max_pdf_bytes
        from .pdf._limits import PdfLimits

        return (self.pdf_limits or PdfLimits.from_env()).file_bytes

    async def fetch(self, url: str, *, max_bytes: int | None = None) -> tuple[str, str, bytes]:
        """GET with every hop checked, a byte cap while streaming and a total-time cap -> (final url, content type, body)."""
        cap = max_bytes or self.pdf_byte_cap()
        try:
            return await asyncio.wait_for(self._fetch(url, cap), self.total_timeout)
        except asyncio.TimeoutError:
            raise FetchError(f"download of {url!r} stopped: it took longer than {self.total_timeout:g} s", "limit") from None

    async def _fetch(self, url: str, cap: int) -> tuple[str, str, bytes]:
        async with httpx.AsyncClient(timeout=self.timeout, follow_redirects=False,
                                     headers={"User-Agent": USER_AGENT}, trust_env=False) as client:
            for _ in range(self.max_redirects + 1):
                await self.check_url(url)
                try:
                    async with client.stream("GET", url) as resp:
                        if resp.is_redirect and "location" in resp.headers:
                            url = urljoin(url, resp.headers["location"])
                            continue
                        if resp.status_code >= 400:
                            raise FetchError(f"{url!r} answered HTTP {resp.status_code}")
                        declared = resp.headers.get("content-length")
                        if declared and declared.isdigit() and int(declared) > cap:
                            raise FetchError(f"download of {url!r} refused: {int(declared):,} bytes is over the "
                                             f"{cap:,}-byte limit", "limit")
                        body = bytearray()
                        async for piece in resp.aiter_bytes():
                            body += piece
                            if len(body) > cap:
                                raise FetchError(f"download of {url!r} stopped: more than the {cap:,}-byte limit", "limit")
                        return str(resp.url), resp.headers.get("content-type", ""), bytes(body)
                except httpx.TimeoutException as e:
                    raise FetchError(f"download of {url!r} stopped: {type(e).__name__} (server too slow)", "limit") from None
                except httpx.HTTPError as e:
                    raise FetchError(f"download of {url!r} failed: {type(e).__name__}: {e}") from None
            raise FetchError(f"download of {url!r} stopped after {self.max_redirects} redirects", "limit")

    async def pdf_bytes(self, paper: PaperMeta) -> bytes:
        """The PDF of a paper; a landing page is followed to its citation_pdf_url or first .pdf link once."""
        url = paper.pdf_url or paper.url
        if not url:
            raise FetchError(f"paper {paper.id} has no URL to download")
        final, ctype, body = await self.fetch(url)
        if body.startswith(b"%PDF"):
            return body
        if "html" in ctype.lower() or body.lstrip()[:1] == b"<":
            page = body[:2_000_000].decode("utf-8", "replace")
            m = PDF_META_RE.search(page) or PDF_LINK_RE.search(page)
            if m:
                _, _, pdf = await self.fetch(urljoin(final, html.unescape(m.group(1))))
                if pdf.startswith(b"%PDF"):
                    return pdf
            raise FetchError(f"{url!r} is a web page without a PDF link; read it with a page tool or give the PDF URL")
        what = "an empty body" if not body else f"{len(body)} bytes that do not start like a PDF"
        raise FetchError(f"{url!r} did not return a PDF: it sent {what} (content type {ctype or 'unknown'!r})")

    # ---- pages -------------------------------------------------------------------------------
    async def page_text(self, url: str, *, timeout_s: float = 30.0) -> str:
        """The visible text of a web page rendered in headless Chromium (scripts run, like a reader sees it)."""
        await self.check_url(url)
        try:
            return await asyncio.wait_for(self._page_text(url, timeout_s), timeout_s + 15)
        except asyncio.TimeoutError:
            raise FetchError(f"reading {url!r} stopped: the browser took longer than {timeout_s:g} s", "limit") from None

    async def _page_text(self, url: str, timeout_s: float) -> str:
        from playwright.async_api import Error as PlaywrightError
        from playwright.async_api import async_playwright

        try:
            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS,
                                                   headless=True, timeout=timeout_s * 1000)
                try:
                    page = await browser.new_page(user_agent=USER_AGENT)
                    await page.route("**/*", self._route_guard)
                    resp = await page.goto(url, timeout=timeout_s * 1000, wait_until="domcontentloaded")
                    if resp is not None and resp.status >= 400:
                        raise FetchError(f"{url!r} answered HTTP {resp.status}")
                    return (await page.inner_text("body", timeout=timeout_s * 1000)).strip()
                finally:
                    await browser.close()
        except PlaywrightError as e:
            raise FetchError(f"reading {url!r} in the browser failed: {str(e).splitlines()[0]}") from None

    async def _route_guard(self, route) -> None:
        """Let the page load only what check_url allows (no file:, no private hosts in live mode)."""
        try:
            await self.check_url(route.request.url)
        except FetchError:
            if not route.request.url.startswith(("data:", "blob:", "about:")):
                await route.abort("blockedbyclient")
                return
        await route.continue_()
