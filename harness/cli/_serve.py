"""`epi sandbox serve`: the sandbox corpus as a local web site (paper pages, PDFs, a search endpoint)."""
from __future__ import annotations

import ipaddress
import time

import typer
from rich.console import Console

from ._apps import SITE_PORT, UserError, sandbox_app

_out = Console()


@sandbox_app.command("serve")
def serve(
    port: int = typer.Option(SITE_PORT, min=0, max=65535, help="TCP port to listen on (0 picks a free one)."),
    host: str = typer.Option("127.0.0.1", help="Address to bind; keep it on loopback unless you mean to share it."),
) -> None:
    """Serve the built sandbox corpus over HTTP: `/`, `/papers/<id>`, `/pdf/<id>.pdf`, `/search?q=&k=`."""
    from sandbox.site import serve_corpus
    from sandbox.world import SandboxNotBuilt, SandboxWorld

    try:
        ipaddress.ip_address(host)
    except ValueError:
        if host != "localhost":
            raise UserError(f"--host {host!r} is not an IP address (try 127.0.0.1)") from None
    try:
        world = SandboxWorld()
    except SandboxNotBuilt as e:
        raise UserError(str(e)) from None
    try:
        server, base = serve_corpus(world, host=host, port=port)
    except OSError as e:
        raise UserError(f"cannot listen on {host}:{port}: {e.strerror or e} (--port 0 picks a free one)") from None
    _out.print(f"serving {len(server.papers)} papers at {base}/  (search: {base}/search?q=...; Ctrl-C to stop)")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        _out.print("stopping")
    finally:
        server.shutdown()
        server.server_close()
