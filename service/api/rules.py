"""The rules knowledge base over HTTP: search and one entry whole."""

from __future__ import annotations

import re
import time
from typing import Any

from flask import Response, jsonify
from flask.views import MethodView
from marshmallow import fields, validate

from faq.errors import EntryNotFound, QueryError
from faq.model import KINDS
from faq.search import MAX_LIMIT, MAX_QUERY
from service.api.auth import services
from service.api.blueprint import Blueprint
from service.api.schemas import NON_BLANK, Lenient
from service.domain.errors import NotFound, Unprocessable

blp = Blueprint("rules", __name__, url_prefix="/api/rules", description="Rules knowledge base")


class SearchArgs(Lenient):
    q = fields.String(
        load_default=None,
        validate=[
            validate.Length(min=1, max=MAX_QUERY),
            validate.Regexp(NON_BLANK, error="must not be empty"),
        ],
        metadata={
            "description": "the question, or a rule ref (12C1, rule 39A); required unless "
            "kind=conflict, which without it lists every conflict"
        },
    )
    kind = fields.String(
        load_default=None,
        validate=validate.OneOf(KINDS),
        metadata={
            "description": "keep one kind of entry: ruling, rule, club-ruling, conflict "
            "(conflict without q: the list of the readings the games settle in the open, each "
            "with its readings and its game option)"
        },
    )
    limit = fields.Integer(
        load_default=10,
        validate=validate.Range(min=1, max=MAX_LIMIT),
        metadata={"description": f"1..{MAX_LIMIT}"},
    )
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
    binding = fields.Boolean(
        metadata={
            "description": "False: another game's entry (the FWtBT FAQ's rulings, another game's "
            "club rulings or rulebook), at most persuasive in the game searched"
        }
    )
    belongs_to = fields.String(
        allow_none=True, metadata={"description": "the title of the game the entry is of"}
    )
    readings = fields.List(fields.Dict(), metadata={"description": "a conflict's passages"})
    engine_reading = fields.String(metadata={"description": "what the rules module applies"})
    option = fields.String(
        allow_none=True, metadata={"description": "the game option giving the other reading"}
    )
    option_detail = fields.Dict(
        allow_none=True,
        metadata={"description": "that option as the game declares it: default, choices"},
    )
    why = fields.Dict(
        metadata={
            "description": "why the entry matched: 'words' (the question's words it holds), "
            "'asked' (the way players ask it that holds the most of the question's words, when "
            "one of them is not in its own text; else null) and 'passage' (its sentence closest "
            "in meaning to the question by the static vectors; null when they are off or the question is "
            "a word or two)"
        }
    )


class SearchResponse(Lenient):
    results = fields.List(fields.Nested(ResultSchema))
    took_ms = fields.Float()


@blp.route("/search")
class Search(MethodView):
    @blp.arguments(SearchArgs, location="query")
    @blp.response(200, SearchResponse)
    def get(self, args: dict[str, Any]) -> Response:
        """Rulings, rulebook sections, conflicts and club rulings, best first, with snippets.

        Ranked by BM25F over each entry's heading, text and the ways players ask it, blended with
        its closeness in meaning to the question (static word-piece vectors, and the sentence
        model all-MiniLM-L6-v2 where ONNX Runtime is installed) for a question of three words or
        more; an entry none of the question's words is in joins only when very close in meaning.
        """
        svc = services()
        kb = svc.knowledge.kb
        game = args["game"]
        if game is not None and game not in kb.games and game in svc.registry:
            game = None  # a system with no rulebook in the knowledge base: nothing of its own first
        try:
            if args["q"] is None and args["kind"] == "conflict":
                started = time.perf_counter()
                listed = [_with_option(svc, c) for c in kb.conflicts(game)]
                took = round((time.perf_counter() - started) * 1000, 2)
                return jsonify({"results": listed, "took_ms": took})
            if args["q"] is None:  # a 422: OpenAPI cannot tie a query parameter to another's
                reason = "the question to search for (required unless kind=conflict)"
                raise Unprocessable(f"q: {reason}", {"q": [reason]})
            found = kb.timed_search(args["q"], args["limit"], args["document"], game, args["kind"])
            # the results are plain JSON already: skip re-serialising them field by field
            # (SearchResponse documents them); about 2 ms of a request
            return jsonify(found)
        except QueryError as exc:  # what the knowledge base makes of a well-formed query
            raise Unprocessable(f"{exc.field}: {exc.reason}", {exc.field: [exc.reason]}) from None


def _with_option(svc: Any, conflict: dict[str, Any]) -> dict[str, Any]:
    """A conflict with the game option it names as its game declares it (``option_detail``:
    name, default, choices, description), when the option is one of the game's."""
    detail = None
    for system in svc.registry:
        if (system.document or system.name) != conflict["document"]:
            continue
        text = str(conflict.get("option") or "")
        offered = {o["name"]: o for s in system.scenarios()[:1] for o in s.options}
        found = next(
            (
                o
                for name, o in offered.items()
                if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text)
            ),
            None,
        )
        if found is not None:
            detail = {k: found.get(k) for k in ("name", "default", "choices", "description")}
    return {**conflict, "option_detail": detail}


@blp.route("/<path:entry_id>")
class Entry(MethodView):
    @blp.response(200)
    def get(self, entry_id: str) -> dict[str, Any]:
        """One entry whole (a ruling with all its answers, a section with its full text)."""
        try:
            return services().knowledge.kb.get(entry_id)
        except EntryNotFound:
            raise NotFound(f"no entry {entry_id!r}", {"id": ["unknown entry"]}) from None
