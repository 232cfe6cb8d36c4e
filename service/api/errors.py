"""One error format for the whole API: ``{"error": code, "message": text, "details": {field: [reasons]}}``."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from flask import Flask, jsonify
from flask_smorest import Api
from werkzeug.exceptions import HTTPException

from service.domain.errors import (
    Conflict,
    DomainError,
    Forbidden,
    Invalid,
    NotFound,
    StaleVersion,
    Unauthenticated,
    Unprocessable,
)

log = logging.getLogger(__name__)

STATUS: dict[type[DomainError], int] = {
    Invalid: 400,
    Unauthenticated: 401,
    Forbidden: 403,
    NotFound: 404,
    StaleVersion: 409,
    Conflict: 409,
    Unprocessable: 422,
}

HTTP_CODES = {
    400: "invalid",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid",
    500: "internal",
}


def error_body(code: str, message: str, details: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"error": code, "message": message, "details": dict(details or {})}


def flatten(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """marshmallow's nested messages -> {"field.sub": [reasons]}."""
    out: dict[str, list[str]] = {}
    if isinstance(messages, Mapping):
        for key, value in messages.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if isinstance(value, Mapping):
                out.update(flatten(value, name))
            elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                out[name] = list(value)
            else:
                out.update(flatten(value, name))
    elif isinstance(messages, list):
        out[prefix or "body"] = [str(m) for m in messages]
    else:
        out[prefix or "body"] = [str(messages)]
    return out


class ArbiterApi(Api):
    def handle_http_exception(self, error: HTTPException):  # type: ignore[override]
        data = getattr(error, "data", None) or {}
        status = error.code or 500
        if "messages" in data or "errors" in data:  # webargs / marshmallow validation
            raw = data.get("errors") or data.get("messages") or {}
            # drop the location level ("json", "query") webargs adds
            if isinstance(raw, Mapping) and set(raw) <= {
                "json",
                "query",
                "form",
                "headers",
                "view_args",
                "files",
            }:
                merged: dict[str, Any] = {}
                for value in raw.values():
                    merged.update(value if isinstance(value, Mapping) else {"body": value})
                raw = merged
            details = flatten(raw)
            first = next(iter(details.items()), ("body", ["invalid"]))
            message = f"invalid request: {first[0]}: {first[1][0]}"
            return jsonify(error_body("invalid", message, details)), 400
        if status >= 500:
            log.error("internal error: %s", error)
        message = data.get("message") or error.description or error.name
        return jsonify(error_body(HTTP_CODES.get(status, "error"), str(message))), status


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(DomainError)
    def domain_error(exc: DomainError):  # type: ignore[no-untyped-def]
        status = next((code for kind, code in STATUS.items() if isinstance(exc, kind)), 400)
        return jsonify(error_body(exc.code, exc.message, exc.details)), status
