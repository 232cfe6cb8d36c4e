"""The ASGI application ``arbiter serve`` runs (uvicorn in a gunicorn worker).

Ordinary requests go to the Flask app on its request threads in one trip (:class:`OneTrip` on
:class:`~service.request_threads.RequestThreads`): the body (at most the input gate's size, its
length declared) is read on the event loop, the Flask app runs once in a thread, and its response
is sent from the loop -- rather than a2wsgi's hop back to the loop for the body, the status and
each chunk.  A streamed response (no ``Content-Length``) is sent chunk by chunk as it is made; a
chunked body is read on the loop up to the limit.  A body declared larger than the limit, or
chunked with a length too (a smuggling shape), goes through a2wsgi's WSGI adapter on a few threads
of its own (Flask then refuses it past the limit).  The live streams
(``GET /api/games/<id>/stream``, ``GET /api/ladders/<id>/stream``) are first checked by the same
Flask views (auth, 404s, bad ``window``, the input gate) on a small stream pool; a view that
accepts leaves its :class:`~service.api.stream.Plan`, which is then served natively async
(``service/api/async_stream.py``) and holds no thread while it waits."""

from __future__ import annotations

import asyncio
import contextvars
import io
import json
import logging
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from a2wsgi import WSGIMiddleware
from a2wsgi.wsgi import Body, build_environ
from flask import Flask
from werkzeug.wsgi import ClosingIterator

from service.api.async_stream import (
    RETRY_AFTER,
    Follower,
    Receive,
    Send,
    StreamLimits,
    TooManyStreams,
    serve_events,
)
from service.api.errors import error_body
from service.api.gate import MAX_BODY
from service.api.headers import client_address
from service.api.stream import PLAN_KEY, Plan
from service.config import Config
from service.request_threads import RequestThreads

log = logging.getLogger(__name__)

STREAM_PATH = re.compile(r"^/api/((games/[^/]+(/chat)?)|ladders/[^/]+|me/notifications)/stream$")
REQUEST_THREADS = 32  # ordinary requests (as the gthread worker had)
ADAPTER_THREADS = 4  # requests a2wsgi's adapter serves (bodies too large, odd framings)
STREAM_THREADS = 8  # stream set-up and the store polls of degraded or ladder streams

Dispatched = tuple[int, list[tuple[bytes, bytes]], bytes, Plan | None]
Headers = list[tuple[bytes, bytes]]
Ran = tuple[int, Headers, bytes, Any]  # status, headers, body, the rest of a streamed body


def asgi_headers(headers: list[tuple[str, str]]) -> Headers:
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]


class OneTrip:
    """Ordinary requests with a small body of declared length: read on the loop, one trip to a
    thread for the Flask app, the response sent from the loop."""

    def __init__(self, flask_app: Flask, threads: RequestThreads) -> None:
        self.flask_app = flask_app
        self.threads = threads

    @staticmethod
    def fits(scope: dict[str, Any]) -> bool:
        """A body of declared length within the gate's limit, a chunked one (read here up to
        the limit), or none.  A body declared larger goes to a2wsgi, where Flask refuses it (413)
        before reading it: no request thread ever waits on a client's body."""
        lengths = [v for n, v in scope["headers"] if n == b"content-length"]
        if any(n == b"transfer-encoding" for n, _ in scope["headers"]):
            return not lengths  # both (a smuggling shape): left to the adapter, as before
        if not lengths:
            return True
        return len(lengths) == 1 and lengths[0].isdigit() and int(lengths[0]) <= MAX_BODY

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        body = await read_body(receive, MAX_BODY)
        if body is None:
            await send_json(
                send,
                413,
                error_body(
                    "too_large",
                    "the request's body is too large",
                    {"body": [f"at most {MAX_BODY:,} bytes"]},
                ),
                retry=False,
            )
            return
        environ: dict[str, Any] = build_environ(scope, io.BytesIO(body))  # type: ignore[arg-type, assignment]
        if environ.pop("HTTP_TRANSFER_ENCODING", None) is not None:  # read whole: now of a length
            environ["CONTENT_LENGTH"] = str(len(body))
        threads = self.threads
        status, headers, first, rest = await threads.run(
            contextvars.copy_context().run, self._run, environ
        )
        await send({"type": "http.response.start", "status": status, "headers": headers})
        if rest is None:
            await send({"type": "http.response.body", "body": first})
            return
        try:
            while (chunk := await threads.run(next, rest, None)) is not None:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            await threads.run(getattr(rest, "close", lambda: None))

    def _run(self, environ: dict[str, Any]) -> Ran:
        """The Flask app on ``environ``: its whole body, or (streamed) the rest to iterate."""
        status, headers, iterable = call_wsgi(self.flask_app, environ)
        if not any(k.lower() == "content-length" for k, _ in headers):
            return (
                status,
                asgi_headers(headers),
                b"",
                ClosingIterator(iter(iterable), [getattr(iterable, "close", lambda: None)]),
            )
        try:
            return status, asgi_headers(headers), b"".join(iterable), None
        finally:
            getattr(iterable, "close", lambda: None)()


def call_wsgi(app: Flask, environ: dict[str, Any]) -> tuple[int, list[tuple[str, str]], Any]:
    """Call a WSGI app: its status code, its headers and its body iterable."""
    started: list[Any] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        started[:] = [int(status.split(" ", 1)[0]), headers]
        return lambda chunk: None

    iterable = app(environ, start_response)
    return started[0], started[1], iterable


async def read_body(receive: Receive, most: int) -> bytes | None:
    """The request's body, read on the event loop (a client's pauses hold no thread; the
    protocol's read timeouts end a stalled one); None past ``most`` bytes."""
    chunks = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > most:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


class LiveStreams:
    """The stream endpoints: a limit slot, the Flask view's verdict, then the async stream."""

    def __init__(self, flask_app: Flask, limits: StreamLimits, proxy_hops: int = 0) -> None:
        self.flask_app = flask_app
        self.limits = limits
        #: ``ARBITER_PROXY_HOPS``: the client is counted as the Flask app sees it
        self.proxy_hops = proxy_hops
        self.pool = ThreadPoolExecutor(STREAM_THREADS, thread_name_prefix="stream")

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        environ: dict[str, Any] = build_environ(scope, Body(loop, receive))  # type: ignore[arg-type, assignment]
        client = client_address(environ, self.proxy_hops) or "unknown"
        try:
            self.limits.acquire(client)
        except TooManyStreams as exc:
            await send_json(
                send, exc.status, error_body("too_many_streams", exc.message, exc.details)
            )
            return
        try:
            await self._serve(environ, receive, send)
        finally:
            self.limits.release(client)

    async def _serve(self, environ: dict[str, Any], receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        status, headers, body, plan = await loop.run_in_executor(self.pool, self._dispatch, environ)
        if plan is None or status != 200:
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await serve_events(send, receive, headers, Follower(plan, self.pool).events())

    def _dispatch(self, environ: dict[str, Any]) -> Dispatched:
        """Run the Flask app on this request; keep its plan instead of its (WSGI) stream."""
        status, headers, iterable = call_wsgi(self.flask_app, environ)
        try:
            plan = environ.get(PLAN_KEY)
            body = b"" if plan is not None else b"".join(iterable)
        finally:
            getattr(iterable, "close", lambda: None)()
        return status, asgi_headers(headers), body, plan

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


class ArbiterAsgi:
    """Routes the stream endpoints to :class:`LiveStreams`, everything else to Flask."""

    def __init__(self, flask_app: Flask, limits: StreamLimits, proxy_hops: int = 0) -> None:
        self.flask_app = flask_app
        # the rare shapes (a body declared too large, or chunked with a length) on a few threads
        self.wsgi = WSGIMiddleware(flask_app, workers=ADAPTER_THREADS)  # type: ignore[arg-type]
        self.one_trip = OneTrip(flask_app, RequestThreads(REQUEST_THREADS))
        self.streams = LiveStreams(flask_app, limits, proxy_hops)

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif (
            scope["type"] == "http"
            and scope["method"] == "GET"
            and STREAM_PATH.match(scope["path"])
        ):
            await self.streams(scope, receive, send)
        elif scope["type"] == "http" and self.one_trip.fits(scope):
            await self.one_trip(scope, receive, send)
        else:
            await self.wsgi(scope, receive, send)  # type: ignore[arg-type]

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            event = (await receive())["type"]
            if event == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif event == "lifespan.shutdown":
                self.streams.close()
                self.one_trip.threads.close()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def send_json(send: Send, status: int, body: dict[str, Any], *, retry: bool = True) -> None:
    headers = [(b"content-type", b"application/json")]
    if retry:
        headers.append((b"retry-after", str(RETRY_AFTER).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


def create_asgi(config: Config | None = None) -> ArbiterAsgi:
    """The ASGI app: ``gunicorn -k service.worker.ArbiterWorker 'service.asgi:create_asgi()'``."""
    from service.app import create_app

    config = config or Config.from_env()
    limits = StreamLimits(config.streams_per_client, config.streams_max)
    return ArbiterAsgi(create_app(config), limits, config.proxy_hops)
