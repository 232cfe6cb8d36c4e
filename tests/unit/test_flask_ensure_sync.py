"""``ArbiterFlask.ensure_sync`` answers as Flask's own for every shape of callable: a plain
function or method as it is, anything else (a coroutine function, a partial, a callable object)
as Flask decides."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from flask import Flask

from service.app import ArbiterFlask


def plain(x: int) -> int:
    return x


async def later(x: int) -> int:
    return x


class Thing:
    def method(self, x: int) -> int:
        return x

    async def async_method(self, x: int) -> int:
        return x

    def __call__(self, x: int) -> int:
        return x


def made_here() -> Any:
    def closure(x: int) -> int:
        return x

    return closure


CALLABLES = {
    "function": plain,
    "closure": made_here(),
    "lambda": lambda x: x,
    "method": Thing().method,
    "callable object": Thing(),
    "partial": functools.partial(plain),
    "builtin": abs,
    "coroutine function": later,
    "coroutine method": Thing().async_method,
}


@pytest.mark.parametrize("name", list(CALLABLES))
def test_ensure_sync_answers_as_flasks(name: str) -> None:
    func = CALLABLES[name]
    ours, theirs = ArbiterFlask(__name__), Flask(__name__)

    def outcome(app: Flask) -> Any:
        try:
            made = app.ensure_sync(func)
        except RuntimeError as refused:  # Flask without its "async" extra refuses async views
            return ("refused", str(refused))
        return ("same", None) if made is func else ("wrapped", made(1) if name != "builtin" else 1)

    assert outcome(ours) == outcome(theirs)
    if "coroutine" not in name:
        assert ours.ensure_sync(func) is func
