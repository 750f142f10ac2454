"""A small HTTP/1.1 server on asyncio streams (h11 parses the wire): the bridge's endpoints.

Why not a framework: the bridge serves four routes to one client per episode, and every millisecond
it adds sits between an agent and its model (the bridge's budget is 2 ms per model request). h11 is the
well-kept sans-IO parser httpx itself uses; this file only moves bytes between it and a socket.

Bounded: a request body past `max_body` is answered 413 and the connection closed; headers past h11's
own limit are a 400; a connection idle for `idle_s` is closed. Keep-alive is supported (the openai SDK
reuses its connections). The same handler serves a unix socket (what the sandbox forwards to) and a
loopback TCP port (an unconfined agent).
"""
from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

import h11

MAX_BODY = 64 * 1024 * 1024  # a request with a few images in base64
IDLE_S = 900.0


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Response:
    status: int
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    # run right after the response is handed to the socket, before anything else runs on the loop (no await in
    # between): the bridge traces a forwarded request there, so the agent does not wait for the trace write
    after: Callable[[], None] | None = None

    @classmethod
    def json(cls, status: int, data: Any) -> "Response":
        return cls(status, json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))

    @classmethod
    def error(cls, status: int, message: str, code: str, kind: str = "invalid_request_error") -> "Response":
        """An error in the shape the OpenAI API gives one (the SDKs raise it with `message`)."""
        return cls.json(status, {"error": {"message": message, "type": kind, "code": code, "param": None}})


Handler = Callable[[Request], Awaitable[Response]]


class HttpServer:
    """Serves `handler` on a unix socket and/or a loopback port until `close()`."""

    def __init__(self, handler: Handler, *, max_body: int = MAX_BODY, idle_s: float = IDLE_S):
        self.handler = handler
        self.max_body = max_body
        self.idle_s = idle_s
        self._servers: list[asyncio.AbstractServer] = []
        self._conns: set[asyncio.Task[Any]] = set()
        self.port: int | None = None

    async def listen_unix(self, path: str) -> None:
        self._servers.append(await asyncio.start_unix_server(self._serve, path=path))

    async def listen_tcp(self, host: str = "127.0.0.1") -> int:
        srv = await asyncio.start_server(self._serve, host=host, port=0)
        self._servers.append(srv)
        self.port = int(srv.sockets[0].getsockname()[1])
        return self.port

    async def close(self) -> None:
        for s in self._servers:
            s.close()
        for t in list(self._conns):
            t.cancel()
        for s in self._servers:
            try:
                await asyncio.wait_for(s.wait_closed(), 1.0)
            except (asyncio.TimeoutError, Exception):
                pass
        self._servers.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._conns.add(task)
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=64 * 1024)
        try:
            while True:
                req = await self._read_request(conn, reader, writer)
                if req is None:
                    return
                try:
                    resp = await self.handler(req)
                except Exception as e:  # a bug of ours: the agent reads a 500, the harness goes on
                    resp = Response.error(500, f"bridge error: {type(e).__name__}: {e}", "bridge_error", "server_error")
                if not await self._send(conn, writer, resp):
                    return
                if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                    return
                try:
                    conn.start_next_cycle()
                except h11.LocalProtocolError:
                    return
        except (ConnectionError, asyncio.CancelledError, asyncio.IncompleteReadError):
            return
        finally:
            if task is not None:
                self._conns.discard(task)
            try:
                writer.close()
            except Exception:
                pass

    async def _read_request(self, conn: h11.Connection, reader: asyncio.StreamReader,
                            writer: asyncio.StreamWriter) -> Request | None:
        head: h11.Request | None = None
        body = bytearray()
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as e:
                await self._send(conn, writer, Response.error(400, f"bad HTTP request: {e}", "bad_request"), force=True)
                return None
            if event is h11.NEED_DATA:
                try:
                    data = await asyncio.wait_for(reader.read(256 * 1024), self.idle_s)
                except asyncio.TimeoutError:
                    return None
                conn.receive_data(data)
                if not data and head is None:
                    return None
                continue
            if isinstance(event, h11.Request):
                head = event
                length = dict(event.headers).get(b"content-length")
                if length is not None and length.isdigit() and int(length) > self.max_body:
                    await self._send(conn, writer, Response.error(
                        413, f"request body of {int(length)} bytes is over the bridge's limit of {self.max_body}",
                        "body_too_large"), force=True)
                    return None
            elif isinstance(event, h11.Data):
                body += event.data
                if len(body) > self.max_body:
                    await self._send(conn, writer, Response.error(
                        413, f"request body is over the bridge's limit of {self.max_body} bytes", "body_too_large"),
                        force=True)
                    return None
            elif isinstance(event, h11.EndOfMessage):
                assert head is not None
                headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in head.headers}
                return Request(head.method.decode("ascii", "replace"), head.target.decode("latin-1"), headers,
                               bytes(body))
            elif isinstance(event, (h11.ConnectionClosed, h11.PAUSED)):
                return None

    async def _send(self, conn: h11.Connection, writer: asyncio.StreamWriter, resp: Response,
                    force: bool = False) -> bool:
        headers = [("content-type", resp.content_type), ("content-length", str(len(resp.body)))]
        headers += list(resp.headers.items())
        if force:
            headers.append(("connection", "close"))
        try:
            data = conn.send(h11.Response(status_code=resp.status, headers=headers))
            data += conn.send(h11.Data(data=resp.body)) if resp.body else b""
            data += conn.send(h11.EndOfMessage())
        except h11.LocalProtocolError:
            if resp.after is not None:
                resp.after()
            return False
        writer.write(data)
        if resp.after is not None:
            resp.after()
        try:
            await writer.drain()
        except ConnectionError:
            return False
        return True
