"""The ASGI server's request threads (``service/request_threads.py``): a job's result or exception
reaches the coroutine that awaits it, no more threads than the bound however many jobs wait, a
job whose await was cancelled still runs and resolves nothing, and closing ends the threads.
Each test's loop runs on a thread of its own (``run_async``): a browser test's Playwright may keep
a loop running on this worker's main thread."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from service.request_threads import RequestThreads
from tests.support.aio import run_async

WHO = contextvars.ContextVar("who", default="nobody")


def test_a_result_and_an_exception_reach_the_awaiting_coroutine() -> None:
    threads = RequestThreads(2)

    async def body() -> None:
        assert await threads.run(lambda a, b: a + b, 2, 3) == 5
        assert await threads.run(threading.current_thread) is not threading.current_thread()
        with pytest.raises(ZeroDivisionError):
            await threads.run(lambda: 1 / 0)
        WHO.set("the request")  # a copied context travels with the job, as OneTrip passes it
        assert await threads.run(contextvars.copy_context().run, WHO.get) == "the request"

    run_async(body())
    threads.close()


def test_no_more_threads_than_the_bound_however_many_jobs_wait() -> None:
    threads = RequestThreads(3)
    release = threading.Event()
    running: list[int] = []
    lock = threading.Lock()

    def job(i: int) -> int:
        with lock:
            running.append(i)
        release.wait(5)
        return i

    async def body() -> None:
        futures = [threads.run(job, i) for i in range(10)]
        await asyncio.sleep(0.2)
        assert threads.threads == 3
        assert len(running) == 3  # the other seven wait for a thread
        release.set()
        assert await asyncio.gather(*futures) == list(range(10))
        assert threads.threads == 3

    run_async(body())
    threads.close()


def test_one_thread_serves_jobs_awaited_one_after_another() -> None:
    threads = RequestThreads(8)

    async def body() -> None:
        for i in range(20):
            assert await threads.run(lambda i=i: i) == i
        assert threads.threads == 1

    run_async(body())
    threads.close()


def test_a_cancelled_await_resolves_nothing_and_the_threads_go_on() -> None:
    threads = RequestThreads(1)
    started, release, ran = threading.Event(), threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait(5)
        ran.set()
        return "late"

    async def body() -> None:
        future = threads.run(slow)
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 5)
        future.cancel()
        release.set()
        assert await threads.run(lambda: "next") == "next"  # after the cancelled one, in order
        assert ran.is_set()
        assert future.cancelled()

    run_async(body())
    threads.close()


def test_closing_ends_the_threads_and_refuses_more_jobs() -> None:
    threads = RequestThreads(2, name="closing-test")

    async def body() -> None:
        await asyncio.gather(threads.run(lambda: 1), threads.run(lambda: 2))

    run_async(body())
    started = [t for t in threading.enumerate() if t.name.startswith("closing-test-")]
    assert started
    threads.close()
    for thread in started:
        thread.join(5)
        assert not thread.is_alive()

    async def more() -> None:
        with pytest.raises(RuntimeError, match="closed"):
            threads.run(lambda: 3)

    run_async(more())


def test_a_bound_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        RequestThreads(0)
