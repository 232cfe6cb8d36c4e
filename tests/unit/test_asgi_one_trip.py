"""The ASGI app's one-trip path for ordinary requests (``service.asgi.OneTrip``): the same answers
as the WSGI adapter -- bodies read whole, streamed responses sent chunk by chunk, a body past the
gate's limit or of undeclared length left to Flask (413 / read as before)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask, Response, request

from service.api import gate
from service.api.async_stream import StreamLimits
from service.asgi import ArbiterAsgi, OneTrip
from tests.support.aio import run_async


def flask_app() -> Flask:
    app = Flask(__name__)
    gate.install(app)

    @app.post("/echo")
    def echo() -> Any:
        return {"got": request.get_json(), "method": request.method}

    @app.get("/lines")
    def lines() -> Response:
        def each() -> Iterator[str]:
            for i in range(3):
                yield f"{i}\n"

        return Response(each(), mimetype="application/x-ndjson")

    return app


def call(
    app: ArbiterAsgi, method: str, path: str, body: bytes, headers: list[tuple[bytes, bytes]]
) -> tuple[int, dict[bytes, bytes], list[dict[str, Any]]]:
    chunks = [body[i : i + 1000] for i in range(0, len(body), 1000)] or [b""]
    incoming = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
        for i, c in enumerate(chunks)
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": method,
        "path": path,
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    run_async(app(scope, receive, send))
    start = sent[0]
    return start["status"], dict(start["headers"]), sent[1:]


@pytest.fixture
def asgi() -> ArbiterAsgi:
    return ArbiterAsgi(flask_app(), StreamLimits(4, 8))


def json_headers(length: int) -> list[tuple[bytes, bytes]]:
    return [(b"content-type", b"application/json"), (b"content-length", str(length).encode())]


def test_a_small_body_is_answered_in_one_trip(asgi: ArbiterAsgi) -> None:
    body = json.dumps({"text": "x" * 5000}).encode()
    headers = json_headers(len(body))
    assert OneTrip.fits({"headers": headers})
    status, _, messages = call(asgi, "POST", "/echo", body, headers)
    assert status == 200
    assert [m.get("more_body", False) for m in messages] == [False]
    assert json.loads(messages[0]["body"]) == {"got": {"text": "x" * 5000}, "method": "POST"}


def test_the_gate_still_refuses_bad_json(asgi: ArbiterAsgi) -> None:
    body = b'{"a": NaN}'
    status, _, messages = call(asgi, "POST", "/echo", body, json_headers(len(body)))
    assert status == 400
    assert json.loads(b"".join(m["body"] for m in messages))["error"] == "invalid"


def test_a_streamed_response_is_sent_as_it_is_made(asgi: ArbiterAsgi) -> None:
    status, headers, messages = call(asgi, "GET", "/lines", b"", [])
    assert status == 200 and b"content-length" not in headers
    assert [m["body"] for m in messages if m["body"]] == [b"0\n", b"1\n", b"2\n"]
    assert messages[-1].get("more_body", False) is False


def test_a_body_past_the_limit_goes_to_flask_and_is_refused(asgi: ArbiterAsgi) -> None:
    body = b'{"a": "' + b"x" * gate.MAX_BODY + b'"}'
    headers = json_headers(len(body))
    assert not OneTrip.fits({"headers": headers})
    status, _, messages = call(asgi, "POST", "/echo", body, headers)
    assert status == 413
    assert json.loads(b"".join(m["body"] for m in messages))["error"] == "too_large"


@pytest.mark.parametrize(
    "headers",
    [
        [(b"content-length", b"10"), (b"content-length", b"12")],
        [(b"content-length", b"-1")],
        [(b"content-length", b"10"), (b"transfer-encoding", b"chunked")],
        [(b"transfer-encoding", b"chunked"), (b"content-length", b"10")],
    ],
)
def test_odd_lengths_are_left_to_the_wsgi_adapter(
    headers: list[tuple[bytes, bytes]],
) -> None:
    assert not OneTrip.fits({"headers": headers})


def test_a_chunked_body_is_read_on_the_loop_as_one_of_its_length() -> None:
    """Before, a chunked body went to the WSGI adapter, where Flask read it as empty."""
    assert OneTrip.fits({"headers": [(b"transfer-encoding", b"chunked")]})


def test_the_answers_are_those_of_the_wsgi_adapter(asgi: ArbiterAsgi) -> None:
    body = json.dumps({"text": "z" * 3000}).encode()
    adapter = ArbiterAsgi(flask_app(), StreamLimits(4, 8))
    adapter.one_trip.fits = lambda scope: False  # type: ignore[method-assign]
    for method, path, payload in [
        ("POST", "/echo", body),
        ("POST", "/echo", b"{"),
        ("GET", "/lines", b""),
    ]:
        headers = json_headers(len(payload)) if payload else []
        one = call(asgi, method, path, payload, headers)
        two = call(adapter, method, path, payload, headers)
        assert one[0] == two[0] and one[1] == two[1]
        assert b"".join(m["body"] for m in one[2]) == b"".join(m["body"] for m in two[2])
