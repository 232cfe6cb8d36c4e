"""Running a coroutine from a test."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def run_async(coroutine: Any) -> Any:
    """Run a coroutine to its end on a thread of its own: the browser tests' Playwright (sync API)
    keeps an event loop running on the main thread for the whole session."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
