"""The OpenAPI document says what the server enforces, from the same marshmallow fields.

Two hooks, both in this module so that the document and the server cannot drift apart:

* :func:`field_bounds`, an apispec attribute function run on every field: what the input gate
  (``service.api.gate``) enforces on every JSON value (integers within +/-(2^53 -
  1)) as ``minimum``/``maximum`` where a field sets none; a ``Dict``'s
  ``Length`` as ``minProperties``/``maxProperties`` (apispec writes string lengths) and its
  keys' validators as ``propertyNames``; a free ``Dict``'s values as :data:`JSON_VALUE`; a
  page cursor as the opaque base64url string it is.
* :func:`finish`, run on the finished document: a request body none of whose fields is
  required may be left out (the gate reads an empty body as ``{}``).
"""

from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

from service.api.schemas import CURSOR_MAX, CURSOR_PATTERN, PageCursor

#: JSON's safe integers: what the input gate lets through
SAFE = 2**53 - 1

#: any JSON value the input gate lets through (numbers within +/-(2^53 - 1))
JSON_VALUE = {
    "description": "any JSON value; numbers within +/-(2^53 - 1)",
    "anyOf": [
        {"type": "null"},
        {"type": "boolean"},
        {"type": "string"},
        {"type": "number", "minimum": -SAFE, "maximum": SAFE},
        {"type": "array", "items": {"$ref": "#/components/schemas/JsonValue"}},
        {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/JsonValue"}},
    ],
}
JSON_VALUE_REF = {"$ref": "#/components/schemas/JsonValue"}


def _length(validators: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in validators or ():
        if isinstance(v, validate.Length):
            if v.equal is not None:
                out["minLength"] = out["maxLength"] = v.equal
            if v.min is not None:
                out["minLength"] = max(out.get("minLength", 0), v.min)
            if v.max is not None:
                out["maxLength"] = min(out.get("maxLength", v.max), v.max)
    return out


def _names(key: fields.Field) -> dict[str, Any]:
    """``propertyNames`` of a ``Dict`` whose ``keys`` field validates its names."""
    names: dict[str, Any] = {"type": "string", **_length(key.validators)}
    for v in key.validators:
        if isinstance(v, validate.Regexp):
            names["pattern"] = v.regex.pattern
        elif isinstance(v, validate.OneOf):
            names["enum"] = list(v.choices)
    return names


def field_bounds(self: Any, field: fields.Field, ret: dict[str, Any], **kwargs: Any) -> dict:
    """More of what ``field`` enforces, for apispec's :class:`OpenAPIConverter` (``ret``: what
    it has made of the field so far; changed in place where a key must go)."""
    out: dict[str, Any] = {}
    if isinstance(field, PageCursor):
        out.update(
            type=["string", "null"] if field.allow_none else "string",
            pattern=CURSOR_PATTERN,
            maxLength=CURSOR_MAX,
        )
    elif isinstance(field, fields.Integer):
        out.setdefault("minimum", ret.get("minimum", -SAFE))
        out.setdefault("maximum", ret.get("maximum", SAFE))
    elif isinstance(field, fields.Dict):
        if "minLength" in ret:
            out["minProperties"] = ret.pop("minLength")
        if "maxLength" in ret:
            out["maxProperties"] = ret.pop("maxLength")
        if field.key_field is not None and field.key_field.validators:
            out["propertyNames"] = _names(field.key_field)
        if field.value_field is None:
            out["additionalProperties"] = JSON_VALUE_REF
        elif type(field.value_field) is fields.Raw:  # null only where the field allows it
            out["additionalProperties"] = (
                JSON_VALUE_REF
                if field.value_field.allow_none
                else {"allOf": [JSON_VALUE_REF, {"not": {"type": "null"}}]}
            )
    return out


def finish(doc: dict[str, Any]) -> dict[str, Any]:
    """The finished document: a body with no required field is optional."""
    schemas = doc.get("components", {}).get("schemas", {})
    schemas.setdefault("JsonValue", JSON_VALUE)
    for item in doc.get("paths", {}).values():
        for operation in item.values():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if not body or "application/json" not in body.get("content", {}):
                continue
            schema = body["content"]["application/json"].get("schema", {})
            ref = schema.get("$ref", "")
            if ref.startswith("#/components/schemas/"):
                schema = schemas.get(ref.rsplit("/", 1)[1], {})
            if schema.get("type") == "object" and not schema.get("required"):
                body["required"] = False
    return doc
