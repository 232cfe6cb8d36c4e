"""The read timeouts' one timer per connection (``service/adapters/http_timeouts.py``): moving a
deadline sets no new timer, a deadline shorter than the last one is still kept on time, a
deadline cleared lets the timer lapse, and a closed connection leaves no timer behind.  The
protocol's timer methods run on a real event loop; the end-to-end behaviour (408, closing) is
``tests/e2e/test_request_timeouts.py``'s."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from service.adapters.http_timeouts import timed_protocol
from tests.support.aio import run_async

HEADER = 0.05
BODY = 0.4


class Probe:
    """The protocol's timer alone: its loop, its timeouts, the timers it set and when it timed
    out."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        cls = timed_protocol(HEADER, BODY)
        self.protocol: Any = cls.__new__(cls)
        self.protocol.loop = loop
        self.protocol._read_timer = None
        self.protocol._deadline = None
        self.timeouts: list[float] = []
        self.timers = 0
        real_call_at = loop.call_at

        def counted_call_at(when: float, callback: Any, *args: Any, **kw: Any) -> Any:
            self.timers += 1
            return real_call_at(when, callback, *args, **kw)

        loop.call_at = counted_call_at  # type: ignore[method-assign]
        self.protocol._timed_out = lambda: self.timeouts.append(loop.time())


def run(body: Any) -> None:
    """``body(loop)`` on a new loop, on a thread of its own (a browser test's Playwright may keep
    a loop running on this worker's main thread)."""

    async def main() -> None:
        await body(asyncio.get_running_loop())

    run_async(main())


def test_moving_the_deadline_sets_no_new_timer() -> None:
    async def body(loop: asyncio.AbstractEventLoop) -> None:
        probe = Probe(loop)
        for _ in range(50):  # fifty requests on a keep-alive connection, four moves each
            for seconds in (HEADER, HEADER, BODY, BODY):
                probe.protocol._arm(seconds)
            probe.protocol._disarm()
        assert probe.timers == 1
        await asyncio.sleep(HEADER * 3)
        assert probe.timeouts == []  # every deadline was cleared: the timer lapsed
        assert probe.protocol._read_timer is None

    run(body)


def test_a_shorter_deadline_after_a_longer_one_is_kept_on_time() -> None:
    async def body(loop: asyncio.AbstractEventLoop) -> None:
        probe = Probe(loop)
        probe.protocol._arm(BODY)  # a body awaited (the longer timeout) ...
        probe.protocol._disarm()  # ... it came; the next request's headers are awaited:
        started = loop.time()
        probe.protocol._arm(HEADER)
        await asyncio.sleep(BODY)
        assert len(probe.timeouts) == 1
        assert probe.timeouts[0] - started < HEADER * 3  # not at the body's timeout

    run(body)


def test_a_deadline_moved_later_is_waited_for() -> None:
    async def body(loop: asyncio.AbstractEventLoop) -> None:
        probe = Probe(loop)
        probe.protocol._arm(HEADER)
        await asyncio.sleep(HEADER / 2)
        started = loop.time()
        probe.protocol._arm(BODY)  # the headers came: the body has its own, longer, time
        await asyncio.sleep(HEADER * 2)
        assert probe.timeouts == []
        await asyncio.sleep(BODY)
        assert len(probe.timeouts) == 1
        assert probe.timeouts[0] - started >= BODY

    run(body)


def test_a_closed_connection_leaves_no_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    # uvicorn's own connection_lost needs a real connection: only this class's part runs
    monkeypatch.setattr(HttpToolsProtocol, "connection_lost", lambda self, exc: None)

    async def body(loop: asyncio.AbstractEventLoop) -> None:
        probe = Probe(loop)
        probe.protocol._arm(BODY)
        timer = probe.protocol._read_timer
        assert timer is not None
        probe.protocol.connection_lost(None)
        assert timer.cancelled()
        assert probe.protocol._read_timer is None

    run(body)
