"""The API's blueprint class: flask-smorest's, with a parser that builds each argument schema once
and takes the JSON body the input gate has already parsed; arguments the document allows but
that name nothing this API gave (a page cursor of the pattern, not issued) are a 422, not the
400 of arguments the document forbids.

flask-smorest hands webargs the schema *class* given to ``@blp.arguments``, and webargs makes a new
instance of it on every request (a deep copy of every declared field): about a tenth of a command's
server time (``make bench`` throughput).  Schemas here hold no per-request state, so one instance
per class serves every request.  And webargs would parse the body's JSON again after the gate
(``service.api.gate``) has parsed and checked it."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask_smorest import Blueprint as SmorestBlueprint
from webargs.flaskparser import FlaskParser

from service.api.errors import argument_errors
from service.api.gate import PARSED
from service.api.schemas import FOREIGN_CURSOR
from service.domain.errors import Unprocessable


class SchemaOnceParser(FlaskParser):
    """webargs' Flask parser, keeping one instance of each schema class it is given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._instances: dict[type[ma.Schema], ma.Schema] = {}

    def _get_schema(self, argmap: Any, req: Any) -> ma.Schema:
        if isinstance(argmap, type) and issubclass(argmap, ma.Schema):
            schema = self._instances.get(argmap)
            if schema is None:
                schema = self._instances[argmap] = argmap()
            return schema
        return super()._get_schema(argmap, req)

    def _raw_load_json(self, req: Any) -> Any:
        """The body as the gate parsed it (the gate has refused any it could not parse)."""
        if PARSED in req.environ:
            return req.environ[PARSED]
        return super()._raw_load_json(req)

    def handle_error(  # type: ignore[override]
        self, error: ma.ValidationError, req: Any, schema: ma.Schema, **kwargs: Any
    ) -> Any:
        """A 422 where the only refusal is a cursor of the document's pattern that this API did
        not give; the 400 of the document's own rules otherwise."""
        details = argument_errors(error.messages)
        if details and all(reasons == [FOREIGN_CURSOR] for reasons in details.values()):
            raise Unprocessable("not a cursor this API gave", details)
        return super().handle_error(error, req, schema, **kwargs)


class Blueprint(SmorestBlueprint):
    ARGUMENTS_PARSER = SchemaOnceParser()
