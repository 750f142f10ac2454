"""`epi view --serve`: the viewer folder over HTTP on localhost (the stdlib server; nothing else needed)."""
from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        pass


def make_server(folder: Path, port: int = 0, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """A server for `folder` bound to host:port (port 0 picks a free one); the caller runs it."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    return ThreadingHTTPServer((host, port), handler)


def serve_viewer(folder: Path, port: int = 8767, on_ready: Callable[[str], None] | None = None) -> None:
    """Serve until interrupted; `on_ready` gets the URL once the socket is listening."""
    server = make_server(folder, port)
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    if on_ready:
        on_ready(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
