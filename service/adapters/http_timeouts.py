"""Read timeouts for half-sent requests (README: ``ARBITER_HEADER_TIMEOUT``, ``_BODY_TIMEOUT``).

uvicorn times out an idle keep-alive connection, but not one that has sent part of a request: a
client that sends a request line and then nothing (or a few bytes of its body and then nothing)
held a connection open for as long as it liked -- 45 s in the issue, any number of them at once.
Here a connection has ``header`` seconds from its start, or from the first byte of each next
request, to finish the request's headers, and at most ``body`` seconds between two parts of its
body.  A client that stalls is answered 408 (the API's JSON error) and disconnected; one that
never sent a byte is just disconnected.

The protocol is uvicorn's httptools one with timers at the parser's callbacks; the worker
(``service/worker.py``) gives uvicorn the class that :func:`timed_protocol` makes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

_BODY = json.dumps(
    {
        "error": "timeout",
        "message": "the request was not sent in time",
        "details": {"request": ["send the whole request without pausing"]},
    }
).encode()
TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\n"
    b"content-type: application/json\r\n"
    b"content-length: " + str(len(_BODY)).encode() + b"\r\n"
    b"connection: close\r\n\r\n" + _BODY
)


class TimedHttpToolsProtocol(HttpToolsProtocol):  # type: ignore[misc]
    """uvicorn's httptools protocol with a header and a body read timeout."""

    header_timeout: float = 10
    body_timeout: float = 30

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_timer: asyncio.TimerHandle | None = None
        self._deadline: float | None = None  # loop time by which the awaited part must come
        self._silent = True  # nothing of a request received yet: closed without an answer

    # -- the timer ----------------------------------------------------------------------------------
    # A request moves the deadline four times (its first bytes, its start, its headers' end, its
    # body's end); a timer was made and cancelled at each (issue 52: the command's CPU).
    # Instead one timer per connection wakes at most every ``min(header, body)`` seconds while a
    # deadline is set and compares: moving a deadline is storing a number.
    def _arm(self, seconds: float) -> None:
        now = self.loop.time()
        self._deadline = now + seconds
        if self._read_timer is None:
            self._read_timer = self.loop.call_at(now + self._tick(seconds), self._wake)

    def _disarm(self) -> None:
        self._deadline = None  # a timer still set finds nothing to do when it wakes, and lapses

    def _tick(self, seconds: float) -> float:
        """How far ahead the timer is set: never past a deadline any later arm could set."""
        return min(seconds, self.header_timeout, self.body_timeout)

    def _wake(self) -> None:
        self._read_timer = None
        deadline = self._deadline
        if deadline is None:
            return
        now = self.loop.time()
        if now < deadline:
            self._read_timer = self.loop.call_at(now + self._tick(deadline - now), self._wake)
            return
        self._deadline = None
        self._timed_out()

    def _timed_out(self) -> None:
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete and self.flow.read_paused:
            # the app is not reading the body yet (it is busy): not the client's fault
            self._arm(self.body_timeout)
            return
        if self._silent:
            pass  # as a browser's unused preconnection: just closed, as nginx does
        elif cycle is None or cycle.response_complete or not cycle.response_started:
            self.transport.write(TIMEOUT_RESPONSE)
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True  # the app's receive() answers http.disconnect
            cycle.message_event.set()
        self.transport.close()

    # -- uvicorn's callbacks ----------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout)  # a connection that never sends a request

    def data_received(self, data: bytes) -> None:
        # uvicorn stops its keep-alive timer on any bytes, and the parser skips blank lines
        # between requests without a callback: a client sending "\r\n" after each answer would
        # otherwise hold the connection with no timer at all
        if self._deadline is None and (self.cycle is None or self.cycle.response_complete):
            self._arm(self.header_timeout)
        super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._silent = False
        self._arm(self.header_timeout)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._arm(self.body_timeout)  # until the body is complete (at once when there is none)

    def on_body(self, body: bytes) -> None:
        super().on_body(body)
        self._arm(self.body_timeout)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # the keep-alive timeout takes over until the next request


def timed_protocol(header: float, body: float) -> type[TimedHttpToolsProtocol]:
    """The protocol class for one server's timeouts (a subclass: nothing global is changed)."""
    return type(
        "TimedHttpToolsProtocol",
        (TimedHttpToolsProtocol,),
        {"header_timeout": header, "body_timeout": body},
    )
