"""The threads that run the Flask app for the ASGI server's ordinary requests (``service/asgi.py``).

``loop.run_in_executor`` on a ``ThreadPoolExecutor`` costs about 90 µs of CPU a trip on this
kind of machine: a ``concurrent.futures.Future`` with its own condition, the executor's idle
semaphore, an asyncio future chained to it both ways, and the copy of its state back on the loop.
Here a trip is a tuple on a queue and one ``call_soon_threadsafe`` that resolves the loop's own
future: about 47 µs, with the same guarantees (at most ``size`` threads, each job run once, its
exception raised to the awaiting coroutine, a cancelled await never resolved).

One event loop at a time hands them jobs (a server's worker has one).  Threads are started as
they are needed, up to ``size``; the count of jobs in flight is kept on the loop's thread alone
(taken at submit, given back when the result reaches the loop), so no lock is taken per trip.  :meth:`close` lets every thread end once the jobs before it have run."""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_STOP = None


class RequestThreads:
    """At most ``size`` threads running the jobs an event loop hands them, in the order given."""

    def __init__(self, size: int, name: str = "request") -> None:
        if size < 1:
            raise ValueError("size must be at least 1")
        self.size = size
        self.name = name
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._in_flight = 0  # read and written on the loop's thread only
        self._closed = False

    def run(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """``fn(*args)`` on one of the threads; the future (of the running loop) has its result."""
        if self._closed:
            raise RuntimeError("the request threads are closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._in_flight += 1
        if self._in_flight > len(self._threads) and len(self._threads) < self.size:
            thread = threading.Thread(
                target=self._serve, name=f"{self.name}-{len(self._threads)}", daemon=True
            )
            self._threads.append(thread)
            thread.start()
        self._jobs.put((loop, future, fn, args))
        return future

    @property
    def threads(self) -> int:
        """How many threads have been started."""
        return len(self._threads)

    def close(self) -> None:
        """Let each thread end once the jobs queued before this have run."""
        self._closed = True
        for _ in self._threads:
            self._jobs.put(_STOP)

    def _serve(self) -> None:
        jobs = self._jobs
        while (job := jobs.get()) is not _STOP:
            loop, future, fn, args = job
            job = None  # nothing of a finished request is kept while the thread waits
            result, exc = _outcome(fn, args)
            # a loop closed meanwhile (RuntimeError) has nobody awaiting the answer
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._resolve, future, result, exc)
            loop = future = fn = args = result = exc = None

    def _resolve(self, future: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
        self._in_flight -= 1
        if future.cancelled():
            return
        if exc is None:
            future.set_result(result)
        else:
            future.set_exception(exc)


def _outcome(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, BaseException | None]:
    try:
        return fn(*args), None
    except BaseException as exc:  # handed to the awaiting coroutine, as an executor does
        return None, exc
