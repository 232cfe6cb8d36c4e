"""``gzip_json`` says its answers vary on ``Accept-Encoding``, once, beside what ``Vary`` held."""

from __future__ import annotations

import pytest
from flask import Flask, Response

from service.api.compression import gzip_json


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (None, "Accept-Encoding"),
        ("Cookie", "Cookie, Accept-Encoding"),
        ("accept-encoding", "accept-encoding"),
        ("Origin, Accept-Encoding", "Origin, Accept-Encoding"),
    ],
)
def test_vary_names_accept_encoding_once(before: str | None, after: str) -> None:
    app = Flask(__name__)
    with app.test_request_context("/", headers={"Accept-Encoding": "gzip"}):
        response = Response(b'{"a": 1}', mimetype="application/json")
        if before is not None:
            response.headers["Vary"] = before
        out = gzip_json(response)
    assert out.headers.getlist("Vary") == [after]
    assert "Content-Encoding" not in out.headers  # a small body is sent as it is
