"""`epi sandbox model-server`: run the scripted OpenAI-compatible model server in the foreground."""
from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.console import Console

from sandbox.server_profiles import DEFAULT_CONTEXT_TOKENS, PROFILES

from ._apps import MODEL_SERVER_PORT, UserError, sandbox_app

PROFILE_NAMES = list(PROFILES)


@sandbox_app.command("model-server")
def model_server(
    script: Path = typer.Option(..., "--script", help="script of responses: JSON list, {responses, default} object, or JSONL"),
    port: int = typer.Option(MODEL_SERVER_PORT, "--port", help="port on 127.0.0.1 (0 picks a free one)"),
    host: str = typer.Option("127.0.0.1", "--host", help="address to bind; loopback by default"),
    log: Path | None = typer.Option(None, "--log", help="append every request received to this JSONL file"),
    strict: str | None = typer.Option(
        None, "--strict", help=f"check requests as this server does and answer its errors: {', '.join(PROFILE_NAMES)}"),
    context_tokens: int = typer.Option(DEFAULT_CONTEXT_TOKENS, "--context-tokens", min=1,
                                       help="with --strict: the server's context size in tokens"),
) -> None:
    """Serve scripted chat completions at http://HOST:PORT/v1 until interrupted (Ctrl-C)."""
    from sandbox.model_server import ScriptedModelServer, ScriptError, load_script

    if strict is not None and strict not in PROFILE_NAMES:
        raise UserError(f"--strict: unknown server profile {strict!r}; profiles: {', '.join(PROFILE_NAMES)}")
    try:
        parsed = load_script(script)
    except ScriptError as e:
        raise UserError(str(e)) from None
    server = ScriptedModelServer(parsed, host=host, port=port, log_path=log, strict=strict, context_tokens=context_tokens)
    try:
        server.start()
    except OSError as e:
        raise UserError(f"cannot listen on {host}:{port}: {e.strerror or e} (--port 0 picks a free one)") from None
    console = Console()
    mode = f", strict {strict} ({server.profile.summary}), context {context_tokens} tokens" if server.profile else ""
    console.print(f"scripted model server: {server.base_url}  ({len(parsed.responses)} scripted responses{mode})",
                  highlight=False, soft_wrap=True)
    try:
        while True:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        console.print(f"served {len(server.chat_requests)} chat requests", highlight=False)
