"""One error format for the whole API: ``{"error": code, "message": text, "details": {field: [reasons]}}``."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from apispec import BasePlugin
from eventsourcing.persistence import PersistenceError
from flask import Flask, current_app, jsonify, request
from flask import json as flask_json
from flask_smorest import Api
from marshmallow import Schema, fields
from werkzeug.exceptions import HTTPException, InternalServerError
from werkzeug.routing import BaseConverter

from service.api.document import field_bounds, finish
from service.application.availability import StoreUnavailable
from service.application.store_faults import StoreFaults
from service.domain.errors import (
    Busy,
    Conflict,
    DomainError,
    Forbidden,
    Invalid,
    NotFound,
    StaleVersion,
    TooLarge,
    TooManyAttempts,
    Unauthenticated,
    Unprocessable,
    UnsupportedMediaType,
)

log = logging.getLogger(__name__)

STATUS: dict[type[DomainError], int] = {
    Invalid: 400,
    Unauthenticated: 401,
    Forbidden: 403,
    NotFound: 404,
    StaleVersion: 409,
    Conflict: 409,
    TooLarge: 413,
    UnsupportedMediaType: 415,
    Unprocessable: 422,
    TooManyAttempts: 429,
    Busy: 503,
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
    503: "unavailable",
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


#: the locations webargs files its messages under
LOCATIONS = {"json", "query", "form", "headers", "view_args", "files"}


def argument_errors(raw: Any) -> dict[str, list[str]]:
    """webargs' messages as ``{"field.sub": [reasons]}``, without the location level ("json",
    "query") webargs adds."""
    if isinstance(raw, Mapping) and set(raw) <= LOCATIONS:
        merged: dict[str, Any] = {}
        for value in raw.values():
            merged.update(value if isinstance(value, Mapping) else {"body": value})
        raw = merged
    return flatten(raw)


class ErrorSchema(Schema):
    """Every error the API answers (what :func:`error_body` makes)."""

    error = fields.String(
        required=True, metadata={"description": "a code: invalid, unauthenticated, not_found, ..."}
    )
    message = fields.String(required=True, metadata={"description": "what went wrong, in words"})
    details = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.String()),
        required=True,
        metadata={"description": "{field: [reasons]}; a refusal by the rules cites `rule`"},
    )


#: what a server-sent-event stream answers, in the OpenAPI document
EVENT_STREAM = {
    "description": "server-sent events (each `event:` with JSON `data:`) for `window` seconds",
    "content": {"text/event-stream": {"schema": {"type": "string"}}},
}


class TruthfulDocs(BasePlugin):
    """Corrects flask-smorest's generic documentation where Arbiter answers otherwise: malformed
    arguments answer 400 (not webargs' 422), and ``.../stream`` paths answer
    ``text/event-stream``."""

    def schema_helper(self, name: str, definition: dict[str, Any], **kwargs: Any) -> dict:
        """A schema's ``OPENAPI`` (its conditional forms, ``oneOf``/``anyOf``/
        ``dependentRequired``, checked by its own ``@validates_schema``) added to its
        component."""
        schema = kwargs.get("schema")
        kind = schema if isinstance(schema, type) else type(schema)
        return dict(getattr(kind, "OPENAPI", {}))

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        for operation in (operations or {}).values():
            responses = operation.setdefault("responses", {})
            if responses.get(422) == "UNPROCESSABLE_ENTITY":  # added by @blp.arguments
                del responses[422]
                responses["400"] = "BAD_REQUEST"
            if (path or "").endswith("/stream"):
                responses["200"] = EVENT_STREAM


class GameIdConverter(BaseConverter):
    """``/api/games/<game:game_id>``: a game's id, never ``import`` (``POST /api/games/import``'s
    own segment), so that ``/api/games/import`` answers only POST and its 405 and OPTIONS name
    only that in ``Allow``."""

    regex = r"(?!import$)[^/]+"


class ArbiterApi(Api):
    """flask-smorest's ``Api``, whose document is written when it is first read: a blueprint's
    routes are registered at once, its operations' part of the document (about half of an app's
    making: every schema resolved, every operation deep-copied) when ``/api/openapi.json`` is
    first asked for, in the order the blueprints were registered -- the same document, and an
    app that nobody asks for it (each worker, each test) never pays for it."""

    ERROR_SCHEMA = ErrorSchema

    def __init__(self, app: Flask | None = None, **kwargs: Any) -> None:
        self._undocumented: list[tuple[Any, str, Any]] = []
        self._documenting = threading.Lock()
        if app is not None:
            app.url_map.converters["game"] = GameIdConverter
        super().__init__(app, **kwargs)
        self.register_converter(
            GameIdConverter, lambda _: {"type": "string", "not": {"const": "import"}}
        )

    def register_blueprint(self, blp: Any, *, parameters: Any = None, **options: Any) -> None:
        """As flask-smorest's, the blueprint's part of the document left to :meth:`document`."""
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        self._undocumented.append((blp, name, parameters))

    def document(self) -> dict[str, Any]:
        """The whole document, the blueprints not yet in it written in first."""
        with self._documenting:  # written once; read after as any request reads it
            while self._undocumented:
                blp, name, parameters = self._undocumented.pop(0)
                blp.register_views_in_doc(
                    self, self._app, self.spec, name=name, parameters=parameters
                )
                self.spec.tag({"name": name, "description": blp.description})
        return finish(self.spec.to_dict())

    def _init_spec(self, *, extra_plugins: Any = None, **kwargs: Any) -> None:
        super()._init_spec(extra_plugins=[TruthfulDocs(), *(extra_plugins or ())], **kwargs)
        self.ma_plugin.converter.add_attribute_function(field_bounds)

    def _openapi_json(self):  # type: ignore[no-untyped-def]
        """The document as :func:`service.api.document.finish` completes it."""
        return current_app.response_class(
            flask_json.dumps(self.document(), indent=2), mimetype="application/json"
        )

    def handle_http_exception(self, error: HTTPException):  # type: ignore[override]
        data = getattr(error, "data", None) or {}
        status = error.code or 500
        if "messages" in data or "errors" in data:  # webargs / marshmallow validation
            details = argument_errors(data.get("errors") or data.get("messages") or {})
            first = next(iter(details.items()), ("body", ["invalid"]))
            message = f"invalid request: {first[0]}: {first[1][0]}"
            return jsonify(error_body("invalid", message, details)), 400
        if status >= 500:
            original = getattr(error, "original_exception", None)
            log.error("internal error: %s", error, exc_info=original)
        message = data.get("message") or error.description or error.name
        body = jsonify(error_body(HTTP_CODES.get(status, "error"), str(message)))
        # the headers Werkzeug set on the error, above all a 405's ``Allow`` (RFC 9110 15.5.6)
        headers = [(k, v) for k, v in error.get_headers() if k.lower() != "content-type"]
        return body, status, headers


def register_error_handlers(app: Flask, faults: StoreFaults | None = None) -> None:
    """``faults`` names what keeps the store from saving (default: from the errors alone)."""
    faults = faults or StoreFaults(None)

    @app.after_request
    def note_writes(response: Any) -> Any:
        if request.method not in ("GET", "HEAD", "OPTIONS") and response.status_code < 400:
            faults.written()
        return response

    @app.errorhandler(DomainError)
    def domain_error(exc: DomainError):  # type: ignore[no-untyped-def]
        status = next((code for kind, code in STATUS.items() if isinstance(exc, kind)), 400)
        retry = exc.retry_after if isinstance(exc, TooManyAttempts | Busy) else None
        headers = {"Retry-After": str(retry)} if retry is not None else {}
        return jsonify(error_body(exc.code, exc.message, exc.details)), status, headers

    @app.errorhandler(StoreUnavailable)
    @app.errorhandler(PersistenceError)
    def store_error(exc: Exception):  # type: ignore[no-untyped-def]
        """A store that cannot answer or cannot save: 503 with the reason (unreachable,
        read-only, disk full, disk error) in words; any other store error is a bug (500)."""
        fault = faults.of(exc)
        if fault is None:
            log.error("internal error: %s", exc, exc_info=exc)
            return jsonify(error_body("internal", InternalServerError.description)), 500
        log.warning("store %s: %s", fault.reason, exc)
        faults.noted(fault)  # /healthz says so too, for a while (PostgreSQL's full disk)
        body = error_body(HTTP_CODES[503], fault.message, {"store": [fault.reason]})
        return jsonify(body), 503, {"Retry-After": str(fault.retry_after)}
