"""The rules knowledge base over HTTP: search and one entry whole."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify
from flask.views import MethodView
from marshmallow import fields

from faq.errors import EntryNotFound, QueryError
from faq.search import MAX_LIMIT
from service.api.auth import services
from service.api.blueprint import Blueprint
from service.api.schemas import Lenient
from service.domain.errors import Invalid, NotFound

blp = Blueprint("rules", __name__, url_prefix="/api/rules", description="Rules knowledge base")


class SearchArgs(Lenient):
    q = fields.String(
        required=True, metadata={"description": "the question, or a rule ref (12C1, rule 39A)"}
    )
    limit = fields.Integer(load_default=10, metadata={"description": f"1..{MAX_LIMIT}"})
    document = fields.String(
        load_default=None,
        metadata={
            "description": "fwtbt-faq, merida, backbone, bizkaya, barcelona, club, club:<id>"
        },
    )
    game = fields.String(
        load_default=None,
        metadata={
            "description": "scope to a game (merida, backbone, bizkaya, barcelona): its rulebook "
            "first, then club rulings, then the FWtBT FAQ and other games; a game named in the "
            'question ("in Merida ...") scopes the same way'
        },
    )


class AnswerSchema(Lenient):
    text = fields.String()
    authority = fields.String(allow_none=True)
    date = fields.String(allow_none=True)
    source = fields.String(allow_none=True)
    signed = fields.String(allow_none=True)


class ResultSchema(Lenient):
    id = fields.String()
    kind = fields.String(metadata={"enum": ["ruling", "rule", "club-ruling", "conflict"]})
    document = fields.String()
    heading = fields.String()
    rule_refs = fields.List(fields.String())
    topics = fields.List(fields.String())
    snippet = fields.String(metadata={"description": "HTML, matches wrapped in <mark>"})
    score = fields.Float(allow_none=True)
    question = fields.String()
    answers = fields.List(fields.Nested(AnswerSchema))
    number = fields.String(allow_none=True)
    title = fields.String(allow_none=True)
    section_type = fields.String(allow_none=True)
    text = fields.String()
    scope = fields.String(metadata={"enum": ["game", "club", "fwtbt", "other-game"]})
    source = fields.String(
        metadata={"description": "a label: 'Closing the Merida Pocket rulebook'"}
    )
    overruled = fields.Boolean(metadata={"description": "a ruling noted 'overruled later'"})
    overruled_by = fields.String(metadata={"description": "the ruling that replaced it"})


class SearchResponse(Lenient):
    results = fields.List(fields.Nested(ResultSchema))
    took_ms = fields.Float()


@blp.route("/search")
class Search(MethodView):
    @blp.arguments(SearchArgs, location="query")
    @blp.response(200, SearchResponse)
    def get(self, args: dict[str, Any]) -> Response:
        """Rulings, rulebook sections, conflicts and club rulings, best first, with snippets."""
        svc = services()
        kb = svc.knowledge.kb
        game = args["game"]
        if game is not None and game not in kb.games and game in svc.registry:
            game = None  # a system with no rulebook in the knowledge base: nothing of its own first
        try:
            found = kb.timed_search(args["q"], args["limit"], args["document"], game)
            # the results are plain JSON already: skip re-serialising them field by field
            # (SearchResponse documents them); about 2 ms of a request
            return jsonify(found)
        except QueryError as exc:
            raise Invalid(f"{exc.field}: {exc.reason}", {exc.field: [exc.reason]}) from None


@blp.route("/<path:entry_id>")
class Entry(MethodView):
    @blp.response(200)
    def get(self, entry_id: str) -> dict[str, Any]:
        """One entry whole (a ruling with all its answers, a section with its full text)."""
        try:
            return services().knowledge.kb.get(entry_id)
        except EntryNotFound:
            raise NotFound(f"no entry {entry_id!r}", {"id": ["unknown entry"]}) from None
