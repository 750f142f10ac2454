"""The sandbox corpus as a small web site, so the live world's download and page code runs for real.

Routes: `/` lists papers, `/papers/<id>` is a landing page (title, authors, venue, year, abstract, a
`citation_pdf_url` meta tag and a PDF link, plus a line written by script so a browser test can tell a
rendered page from raw HTML), `/pdf/<id>.pdf` the bytes, `/search?q=&k=` JSON hits. With
`test_routes=True` it also serves `/test/big.pdf?mb=N`, `/test/slow.pdf?seconds=S` and
`/test/redirect?to=URL` to exercise size caps, timeouts and redirect checks.
"""
from __future__ import annotations

import asyncio
import html
import json
import re
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Coroutine, Iterable
from urllib.parse import parse_qs, quote, urlsplit

from tools import PaperMeta, World

PAPER_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
CALL_TIMEOUT_S = 60.0


def catalog_papers(world: World) -> list[PaperMeta]:
    """PaperMeta for every paper of a world that has a `catalog` (the sandbox world)."""
    catalog = getattr(world, "catalog", None)
    if catalog is None:
        raise TypeError(f"{type(world).__name__} has no catalog; pass the papers to serve explicitly")
    return [PaperMeta(id=e.id, title=e.title, authors=list(e.authors), venue=e.venue, year=e.year,
                      abstract=e.abstract, arxiv_id=e.arxiv_id, area=e.area) for e in catalog.papers]


class CorpusSite(ThreadingHTTPServer):
    """A threading HTTP server holding the world, its papers and a private event loop for world calls."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], world: World, papers: Iterable[PaperMeta], *, test_routes: bool = False):
        super().__init__(address, _Handler)
        self.world = world
        self.papers = {p.id: p for p in papers}
        self.test_routes = test_routes
        self.loop = asyncio.new_event_loop()
        self._loop_thread = threading.Thread(target=self.loop.run_forever, name="corpus-site-loop", daemon=True)
        self._loop_thread.start()

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def call(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run a world coroutine on the site's loop from a request thread."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(CALL_TIMEOUT_S)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up early (a capped or timed-out download) is normal here, not an error."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def server_close(self) -> None:
        super().server_close()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._loop_thread.join(5)


def serve_corpus(
    world: World,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    papers: Iterable[PaperMeta] | None = None,
    test_routes: bool = False,
) -> tuple[CorpusSite, str]:
    """Start the site in a background thread -> (server, base URL). Stop it with `server.shutdown(); server.server_close()`."""
    site = CorpusSite((host, port), world, papers if papers is not None else catalog_papers(world), test_routes=test_routes)
    threading.Thread(target=site.serve_forever, name="corpus-site", daemon=True).start()
    return site, site.base_url


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>{{head}}</head>"
            f"<body>{body}</body></html>")


class _Handler(BaseHTTPRequestHandler):
    server: CorpusSite
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests and the CLI print their own lines
        return None

    # ---- plumbing ----------------------------------------------------------------------------
    def _send(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _html(self, title: str, body: str, head: str = "", status: int = 200) -> None:
        self._send(status, _page(title, body).replace("{head}", head).encode(), "text/html; charset=utf-8")

    def _json(self, obj: Any, status: int = 200) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")

    def _not_found(self, what: str) -> None:
        self._html("Not found", f"<h1>Not found</h1><p>{html.escape(what)}</p>", status=404)

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        path = parts.path
        try:
            if path in ("/", "/index.html"):
                return self._index()
            if path == "/search":
                return self._search(query)
            m = re.fullmatch(r"/papers/([^/]+)/?", path)
            if m:
                return self._landing(m.group(1))
            m = re.fullmatch(r"/pdf/([^/]+)\.pdf", path)
            if m:
                return self._pdf(m.group(1))
            if self.server.test_routes and path.startswith("/test/"):
                return self._test_route(path, query)
            return self._not_found(f"no page at {path}")
        except ConnectionError:
            return None
        except Exception as e:  # a failing world call: answer 500 with the reason instead of a dropped connection
            self._json({"error": f"{type(e).__name__}: {e}"}, 500)

    # ---- pages -------------------------------------------------------------------------------
    def _paper(self, paper_id: str) -> PaperMeta | None:
        return self.server.papers.get(paper_id) if PAPER_ID_RE.match(paper_id) else None

    def _index(self) -> None:
        items = "".join(
            f"<li><a href='/papers/{quote(p.id)}'>{html.escape(p.title)}</a> ({html.escape(p.venue or '')} {p.year or ''})</li>"
            for p in self.server.papers.values()
        )
        self._html("Sandbox corpus", f"<h1>Sandbox corpus</h1><p>{len(self.server.papers)} papers</p><ul>{items}</ul>"
                   "<form action='/search'><input name='q'><button>Search</button></form>")

    def _landing(self, paper_id: str) -> None:
        p = self._paper(paper_id)
        if p is None:
            return self._not_found(f"no paper with id {paper_id!r}")
        pdf = f"/pdf/{quote(p.id)}.pdf"
        head = (f"<meta name='citation_title' content='{html.escape(p.title, quote=True)}'>"
                f"<meta name='citation_pdf_url' content='{self.server.base_url}{pdf}'>")
        body = (f"<h1>{html.escape(p.title)}</h1><p class='authors'>{html.escape(', '.join(p.authors))}</p>"
                f"<p class='venue'>{html.escape(p.venue or '')} {p.year or ''}</p>"
                f"<h2>Abstract</h2><p class='abstract'>{html.escape(p.abstract or '')}</p>"
                f"<p><a href='{pdf}'>PDF</a> &middot; paper id {html.escape(p.id)}</p>"
                f"<p id='rendered'></p><script>document.getElementById('rendered').textContent="
                f"'Page rendered for paper ' + {json.dumps(p.id)};</script>")
        self._html(p.title, body, head)

    def _pdf(self, paper_id: str) -> None:
        p = self._paper(paper_id)
        if p is None:
            return self._not_found(f"no PDF for id {paper_id!r}")
        data = self.server.call(self.server.world.pdf_bytes(p))
        self._send(200, data, "application/pdf", {"Content-Disposition": f"inline; filename={p.id}.pdf"})

    def _search(self, query: dict[str, list[str]]) -> None:
        q = (query.get("q") or [""])[0].strip()
        k_raw = (query.get("k") or ["10"])[0]
        if not q:
            return self._json({"error": "parameter q (the query) is missing or empty"}, 400)
        if not k_raw.isdigit() or not 1 <= int(k_raw) <= 50:
            return self._json({"error": f"parameter k must be an integer from 1 to 50, got {k_raw!r}"}, 400)
        hits = self.server.call(self.server.world.search(q, int(k_raw)))
        out = []
        for h in hits:
            d = h.model_dump()
            if h.paper_id and h.paper_id in self.server.papers:
                d["url"] = f"{self.server.base_url}/papers/{quote(h.paper_id)}"
            out.append(d)
        self._json({"query": q, "hits": out})

    # ---- test routes -------------------------------------------------------------------------
    def _test_route(self, path: str, query: dict[str, list[str]]) -> None:
        num = lambda name, default: float((query.get(name) or [default])[0])  # noqa: E731
        if path == "/test/big.pdf":  # a PDF header then N MB, streamed without a length when ?nolength=1
            size = int(num("mb", "60") * 1024 * 1024)
            declare = "nolength" not in query
            self.send_response(200)
            self.send_header("Content-Type", "application/pdf")
            if declare:
                self.send_header("Content-Length", str(size))
            else:
                self.send_header("Connection", "close")
            self.end_headers()
            chunk = b"%PDF-1.7\n" + b"0" * (256 * 1024 - 9)
            sent = 0
            while sent < size:
                self.wfile.write(chunk[: size - sent])
                sent += len(chunk)
            return None
        if path == "/test/slow.pdf":  # dribbles a byte every 0.2 s for ?seconds=S
            self.send_response(200)
            self.send_header("Content-Type", "application/pdf")
            self.send_header("Connection", "close")
            self.end_headers()
            deadline = time.monotonic() + num("seconds", "30")
            self.wfile.write(b"%PDF")
            while time.monotonic() < deadline:
                time.sleep(0.2)
                self.wfile.write(b"0")
                self.wfile.flush()
            return None
        if path == "/test/redirect":
            self.send_response(HTTPStatus.FOUND)
            self.send_header("Location", (query.get("to") or ["/"])[0])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        return self._not_found(f"no test route {path}")
