"""Gzip for large JSON answers (a Merida movement phase's action list is ~450 KB of JSON, ~40 KB
gzipped).  Registered per blueprint with ``blp.after_request(gzip_json)``; streams, small bodies and
clients that do not accept gzip are left alone.  ``gzip_text`` does the same for the web app's own
scripts and stylesheet (read from disk as files)."""

from __future__ import annotations

import gzip

from flask import Response, request

MIN_BYTES = 8 * 1024
LEVEL = 6  # zlib's default: near the best ratio on JSON at a fraction of level 9's CPU


def gzip_json(response: Response) -> Response:
    """Compress ``response`` when it is a JSON body of at least ``MIN_BYTES`` and the client accepts
    gzip; says so in ``Content-Encoding`` and ``Vary``."""
    if "Vary" in response.headers:
        response.vary.add("Accept-Encoding")  # parsed and written back: kept once
    else:  # the common case: set as it is (werkzeug's parse and write back cost 4 µs an answer)
        response.headers["Vary"] = "Accept-Encoding"
    if response.direct_passthrough or response.is_streamed:
        return response
    length = response.content_length  # a JSON body is in memory: its length is known
    if length is not None and length < MIN_BYTES:  # the common case, before reading any header
        return response
    if (
        response.mimetype != "application/json"
        or "Content-Encoding" in response.headers
        or request.accept_encodings["gzip"] <= 0  # werkzeug reads q-values and "*"
    ):
        return response
    body = response.get_data()
    if len(body) < MIN_BYTES:
        return response
    response.set_data(gzip.compress(body, compresslevel=LEVEL, mtime=0))
    response.headers["Content-Encoding"] = "gzip"
    return response


TEXT = frozenset({"text/javascript", "application/javascript", "text/css", "text/html"})


def gzip_text(response: Response) -> Response:
    """Compress a whole 200 answer of script, style or HTML (a static file is read into memory:
    the web app's own files are small) when the client accepts gzip."""
    if (
        response.status_code != 200
        or response.mimetype not in TEXT
        or "Content-Encoding" in response.headers
        or request.accept_encodings["gzip"] <= 0
    ):
        return response
    response.vary.add("Accept-Encoding")
    response.direct_passthrough = False
    body = response.get_data()
    if len(body) < 1024:
        return response
    response.set_data(gzip.compress(body, compresslevel=LEVEL, mtime=0))
    response.headers["Content-Encoding"] = "gzip"
    etag, weak = response.get_etag()
    if etag:  # a different body than the file's own tag names
        response.set_etag(f"{etag}-gzip", weak=bool(weak))
    return response
