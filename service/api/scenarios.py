"""The club scenario library over HTTP (docs/scenario-library.md): a club's scenarios, edits,
versions, diffs, sharing, forks and exports."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from flask import Response, request
from flask.views import MethodView
from marshmallow import ValidationError, fields, validate, validates_schema
from werkzeug.exceptions import RequestEntityTooLarge

from service.api.auth import optional_user, require_user, services
from service.api.blueprint import Blueprint
from service.api.errors import ErrorSchema
from service.api.paging import next_page
from service.api.schemas import (
    JsonInteger,
    PageFields,
    Strict,
    check_exactly_one,
    db_range,
    exactly_one,
    page_cursor,
)
from service.application.counter_list import units_csv
from service.application.map_images import MAX_BYTES, MAX_SIDE
from service.domain.errors import Invalid, TooLarge
from service.domain.scenarios import CHANGE_KINDS, SHARING

blp = Blueprint(
    "scenarios_library",
    __name__,
    url_prefix="/api",
    description="Club scenarios: edit, version, share, fork, export",
)

NAME = validate.Length(min=1, max=200)


class BlankMap(Strict):
    coordinates = fields.String(load_default="letter-number")
    orientation = fields.String(load_default="flat")
    offset = fields.String(load_default="odd")
    bounds = fields.Dict(keys=fields.String(), values=JsonInteger(), required=True)
    sides = fields.List(fields.String(validate=NAME), required=True)
    terrain_types = fields.List(fields.String(validate=NAME))
    default_terrain = fields.String(load_default="clear")
    turns = JsonInteger(load_default=1)
    id = fields.String(validate=NAME)


class ScenarioCreate(Strict):
    system = fields.String(required=True, validate=validate.Length(min=1, max=40))
    title = fields.String(required=True, validate=validate.Length(min=1, max=100))
    base = fields.String(
        validate=validate.Length(min=1, max=80),
        metadata={"description": "a scenario of the system to start from (or blank)"},
    )
    blank = fields.Nested(BlankMap, metadata={"description": "a blank map (or base)"})

    OPENAPI = exactly_one("base", "blank")

    @validates_schema
    def _one_start(self, data: dict[str, Any], **kwargs: Any) -> None:
        check_exactly_one(data, "base", "blank")


class ScenarioImport(Strict):
    document = fields.Dict(required=True)
    title = fields.String(validate=validate.Length(min=1, max=100))
    publish = fields.Boolean(load_default=False)


#: per change kind, the fields it needs
NEEDS = {
    "terrain": ("hex", "terrain"),
    "hex_features": ("hex", "features"),
    "hexside": ("hexes", "features"),
    "place": ("name", "hex"),
    "place_removed": ("name",),
    "unit_added": ("unit",),
    "unit_edited": ("unit", "field"),
    "unit_removed": ("unit",),
    "setup": ("unit",),
    "reinforcement": ("unit",),
    "piece": ("id",),
    "piece_removed": ("id",),
    "zone": ("side", "rect"),
    "entry_point": ("side", "point"),
    "objective": ("name", "point"),
    "objective_removed": ("name",),
    "field": ("path",),
    "confirm": ("path",),
}


class ChangeIn(Strict):
    """One edit, naming its place: see ``service.domain.scenarios.CHANGE_KINDS``."""

    kind = fields.String(required=True, validate=validate.OneOf(list(CHANGE_KINDS)))
    hex = fields.String(validate=NAME, allow_none=True)
    terrain = fields.String(validate=NAME)
    features = fields.List(fields.String(validate=NAME), validate=validate.Length(max=20))
    hexes = fields.List(fields.String(validate=NAME), validate=validate.Length(equal=2))
    name = fields.String(validate=NAME)
    place_kind = fields.String(validate=validate.Length(max=40))
    values = fields.Dict(keys=fields.String(validate=NAME), values=fields.Raw())
    unit = fields.Raw(metadata={"description": "a unit id; for unit_added the unit object"})
    field = fields.String(validate=NAME)
    value = fields.Raw(allow_none=True)
    turn = JsonInteger(allow_none=True, validate=db_range(1))
    entry = fields.String(validate=NAME)
    path = fields.String(validate=NAME)
    id = fields.String(validate=NAME)
    side = fields.String(validate=NAME)
    effects = fields.List(fields.String(validate=NAME), validate=validate.Length(max=20))
    rect = fields.List(
        fields.Float(),
        validate=validate.Length(equal=4),
        metadata={"description": "x, y, width, height in inches"},
    )
    polygon = fields.List(
        fields.List(fields.Float(), validate=validate.Length(equal=2)),
        validate=validate.Length(min=3, max=200),
    )
    point = fields.List(fields.Float(), validate=validate.Length(equal=2))

    @validates_schema
    def fits_its_kind(self, data: dict[str, Any], **kwargs: Any) -> None:
        kind = data.get("kind")
        missing = [f for f in NEEDS.get(kind or "", ()) if f not in data]
        if missing:
            raise ValidationError(
                {f: [f"a {kind} change needs {f}"] for f in missing}  # type: ignore[dict-item]
            )
        unit = data.get("unit")
        if kind == "unit_added":
            if not isinstance(unit, dict) or not isinstance(unit.get("id"), str):
                raise ValidationError({"unit": ["a unit object with an id"]})
        elif unit is not None and not isinstance(unit, str):
            raise ValidationError({"unit": ["a unit id"]})


class EditIn(Strict):
    changes = fields.List(
        fields.Nested(ChangeIn), required=True, validate=validate.Length(min=1, max=2000)
    )


class PublishIn(Strict):
    note = fields.String(load_default="", validate=validate.Length(max=200))


class SharingIn(Strict):
    sharing = fields.String(required=True, validate=validate.OneOf(SHARING))


class ForkIn(Strict):
    club = fields.String(required=True, validate=validate.Length(min=1, max=80))
    version = JsonInteger(validate=db_range(1))
    title = fields.String(load_default="", validate=validate.Length(max=100))


class VersionArg(Strict):
    version = fields.Integer(validate=db_range(1))
    format = fields.String(load_default="json", validate=validate.OneOf(("json", "csv")))


class DiffArgs(Strict):
    from_ = fields.Integer(
        data_key="from", required=True, validate=db_range(1), metadata={"description": "version"}
    )
    to = fields.String(
        load_default="draft",
        validate=validate.Regexp("^(draft|[0-9]{1,9})$", error="a version number or draft"),
        metadata={"description": "a version number or draft (default)"},
    )


class CsvIn(Strict):
    csv = fields.String(required=True, validate=validate.Length(min=1, max=2_000_000))


class LibraryArgs(PageFields, Strict):
    system = fields.String(validate=validate.Length(min=1, max=40))
    after = page_cursor(str, str, int)


class ClubScenariosArgs(PageFields, Strict):
    after = page_cursor(str, int)


def _library() -> Any:
    return services().scenarios


#: a published version's document: JSON, or its counter list as CSV (``format=csv``)
VERSION_DOCUMENT = {
    "description": "the version's scenario document, or (format=csv) its counter list",
    "content": {
        "application/json": {"schema": {"type": "object"}},
        "text/csv": {"schema": {"type": "string"}},
    },
}
#: a map image as served: the scan, as PNG or JPEG
MAP_IMAGE = {
    "description": "the map image",
    "content": {
        "image/png": {"schema": {"type": "string", "format": "binary"}},
        "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
    },
}


@blp.route("/clubs/<club>/scenarios")
class ClubScenarios(MethodView):
    @blp.arguments(ClubScenariosArgs, location="query")
    @blp.response(200)
    def get(self, args: dict[str, Any], club: str) -> tuple[list[dict[str, Any]], int, dict]:
        """A club's scenarios the caller may read, by title, with their versions and content
        hashes, a page of ``limit`` (default 50, at most 100); ``X-Next-Cursor`` (and ``Link``)
        names the next page, passed back as ``after``."""
        rows, key = _library().for_club(
            club, optional_user(), limit=args["limit"], after=args["after"]
        )
        path = f"/api/clubs/{quote(club, safe='')}/scenarios"
        return rows, 200, next_page(path, args, key) if key is not None else {}

    @blp.arguments(ScenarioCreate)
    @blp.response(201)
    def post(self, body: dict[str, Any], club: str) -> dict[str, Any]:
        """Start a club scenario from a system's scenario (``base``) or a blank map (admins)."""
        user = require_user()
        lib = _library()
        scenario = lib.create(
            club,
            user,
            system=body["system"],
            title=body["title"],
            base=body.get("base"),
            blank=body.get("blank"),
        )
        return lib.view(scenario, user)  # type: ignore[no-any-return]


@blp.route("/clubs/<club>/scenarios/import")
class ClubScenarioImport(MethodView):
    @blp.arguments(ScenarioImport)
    @blp.response(201)
    def post(self, body: dict[str, Any], club: str) -> dict[str, Any]:
        """A club scenario from a scenario file's JSON, published at once with ``publish``."""
        user = require_user()
        lib = _library()
        scenario = lib.import_document(
            club, user, body["document"], title=body.get("title"), publish=body["publish"]
        )
        return lib.view(scenario, user)  # type: ignore[no-any-return]


@blp.route("/club-scenarios")
class Library(MethodView):
    @blp.arguments(LibraryArgs, location="query")
    @blp.response(200)
    def get(self, args: dict[str, Any]) -> tuple[list[dict[str, Any]], int, dict]:
        """The published club scenarios the caller may start a game from (``system``: of that
        system), by system then title, a page of ``limit`` (default 50, at most 100);
        ``X-Next-Cursor`` (and ``Link``) names the next page, passed back as ``after``."""
        rows, key = _library().library(
            optional_user(), args.get("system"), limit=args["limit"], after=args["after"]
        )
        return rows, 200, next_page("/api/club-scenarios", args, key) if key is not None else {}


@blp.route("/club-scenarios/<scenario>")
class ScenarioResource(MethodView):
    @blp.response(200)
    def get(self, scenario: str) -> dict[str, Any]:
        """The scenario: versions; for members the draft with its errors and placeholders (each
        at its place) and how complete it is."""
        user = optional_user()
        lib = _library()
        return lib.view(lib.get(scenario, user), user)  # type: ignore[no-any-return]


@blp.route("/club-scenarios/<scenario>/edits")
class Edits(MethodView):
    @blp.arguments(EditIn)
    @blp.response(200)
    def post(self, body: dict[str, Any], scenario: str) -> dict[str, Any]:
        """Apply edits to the draft (admins); answers the draft with its checks."""
        user = require_user()
        lib = _library()
        return lib.view(lib.edit(scenario, user, body["changes"]), user)  # type: ignore[no-any-return]


@blp.route("/club-scenarios/<scenario>/units.csv")
class UnitsCsv(MethodView):
    @blp.arguments(VersionArg, location="query")
    @blp.response(200, content_type="text/csv")
    def get(self, args: dict[str, Any], scenario: str) -> Response:
        """The counter list as CSV (a version, or the draft for members)."""
        document = _library().document(scenario, optional_user(), args.get("version"))
        return Response(units_csv(document), mimetype="text/csv")

    @blp.arguments(CsvIn)
    @blp.response(200)
    def post(self, body: dict[str, Any], scenario: str) -> dict[str, Any]:
        """Make the draft's counter list the CSV's (admins): only what differs is edited."""
        user = require_user()
        lib = _library()
        found, count = lib.import_units_csv(scenario, user, body["csv"])
        return {"changes": count, **lib.view(found, user)}


@blp.route("/club-scenarios/<scenario>/versions")
class Versions(MethodView):
    @blp.arguments(PublishIn)
    @blp.response(201)
    def post(self, body: dict[str, Any], scenario: str) -> dict[str, Any]:
        """Publish the draft as the next version (admins); 422 with every error at its place, and
        nothing published, when the checks find any."""
        user = require_user()
        lib = _library()
        found = lib.publish(scenario, user, body["note"])
        return lib.view(found, user)  # type: ignore[no-any-return]


@blp.route("/club-scenarios/<scenario>/versions/<int:version>")
class Version(MethodView):
    @blp.arguments(VersionArg(only=("format",)), location="query")
    @blp.doc(responses={"200": VERSION_DOCUMENT})
    def get(self, args: dict[str, Any], scenario: str, version: int) -> Response:
        """A published version's document (``format=csv``: its counter list)."""
        document = _library().document(scenario, optional_user(), version)
        if args["format"] == "csv":
            return Response(units_csv(document), mimetype="text/csv")
        from flask import jsonify

        return jsonify(document)


@blp.route("/club-scenarios/<scenario>/diff")
class Diff(MethodView):
    @blp.arguments(DiffArgs, location="query")
    @blp.response(200)
    def get(self, args: dict[str, Any], scenario: str) -> dict[str, Any]:
        """What changed from a version to another (or to the draft), one sentence per fact."""
        to = args["to"]
        if to != "draft" and not to.isdigit():
            raise Invalid("to is a version or draft", {"to": ["a version number or draft"]})
        new = None if to == "draft" else int(to)
        lines = _library().diff(scenario, optional_user(), args["from_"], new)
        return {"from": args["from_"], "to": to, "changes": lines}


@blp.route("/club-scenarios/<scenario>/sharing")
class Sharing(MethodView):
    @blp.arguments(SharingIn)
    @blp.response(200)
    def put(self, body: dict[str, Any], scenario: str) -> dict[str, Any]:
        """private (the club), shared (every club) or public (everyone) (admins)."""
        user = require_user()
        lib = _library()
        return lib.view(lib.share(scenario, user, body["sharing"]), user)  # type: ignore[no-any-return]


@blp.route("/club-scenarios/<scenario>/forks")
class Forks(MethodView):
    @blp.arguments(ForkIn)
    @blp.response(201)
    def post(self, body: dict[str, Any], scenario: str) -> dict[str, Any]:
        """Fork a version into a club of the caller's (its admins), from their own club or a
        shared or public scenario."""
        user = require_user()
        lib = _library()
        forked = lib.fork(scenario, user, body["club"], body.get("version"), body["title"])
        return lib.view(forked, user)  # type: ignore[no-any-return]


@blp.route("/club-scenarios/<scenario>/board")
class Board(MethodView):
    @blp.arguments(VersionArg(only=("version",)), location="query")
    @blp.response(200)
    def get(self, args: dict[str, Any], scenario: str) -> Any:
        """A version's map (or the draft's, for members) as data for drawing."""
        return _library().board(scenario, optional_user(), args.get("version"))


# -- the map image (docs/scenario-library.md "Map image") --------------------------------------
class MapImageArgs(Strict):
    version = fields.Integer(
        validate=db_range(1), metadata={"description": "a version (default: the draft for members)"}
    )
    width = fields.Integer(
        validate=validate.Range(min=16, max=MAX_SIDE),
        metadata={"description": "the widest the client draws it, in px (served the next size up)"},
    )


class MapPointIn(Strict):
    hex = fields.String(required=True, validate=NAME)
    x = fields.Float(required=True, metadata={"description": "pixels from the image's left"})
    y = fields.Float(required=True, metadata={"description": "pixels from the image's top"})


class MapCalibrationIn(Strict):
    points = fields.List(
        fields.Nested(MapPointIn), required=True, validate=validate.Length(min=1, max=100)
    )


class MapProposalIn(Strict):
    hexes = fields.Dict(
        keys=fields.String(validate=NAME),
        values=fields.List(fields.String(validate=NAME)),
        load_default=dict,
        metadata={"description": "terrain -> example hexes"},
    )
    hexsides = fields.Dict(
        keys=fields.String(validate=NAME),
        values=fields.List(
            fields.List(fields.String(validate=NAME), validate=validate.Length(equal=2))
        ),
        load_default=dict,
        metadata={"description": "feature -> example hexsides [hex, hex]"},
    )


class AcceptedSide(Strict):
    between = fields.List(
        fields.String(validate=NAME), required=True, validate=validate.Length(equal=2)
    )
    feature = fields.String(required=True, validate=NAME)
    confidence = fields.Float()


class MapAcceptIn(Strict):
    hexes = fields.Dict(
        keys=fields.String(validate=NAME),
        values=fields.Raw(),
        load_default=dict,
        metadata={"description": "hex -> {terrain} (or the terrain): the proposal's entries kept"},
    )
    hexsides = fields.List(fields.Nested(AcceptedSide), load_default=list)
    outside = fields.List(
        fields.String(validate=NAME),
        load_default=list,
        metadata={"description": "ignored: the proposal may be sent back as it came"},
    )
    unread = fields.List(
        fields.Dict(),
        load_default=list,
        metadata={"description": "ignored: the proposal may be sent back as it came"},
    )


def image_response(served: Any) -> Response:
    """An image's bytes, with an ``ETag`` (its hash and width) answered 304 when unchanged."""
    response = Response(served.data, mimetype=served.media_type)
    response.set_etag(f"{served.sha256}-{served.width}")
    response.headers["Cache-Control"] = "private, no-cache"
    response.make_conditional(request)
    return response


def _images() -> Any:
    return services().scenario_images


def _too_large(length: int) -> TooLarge:
    return TooLarge(
        "the map image is too large",
        {"image": [f"at most {MAX_BYTES // (1024 * 1024)} MB, this is {length:,} bytes"]},
    )


@blp.route("/club-scenarios/<scenario>/map-image")
class MapImageResource(MethodView):
    @blp.arguments(MapImageArgs, location="query")
    @blp.doc(responses={"200": MAP_IMAGE})
    def get(self, args: dict[str, Any], scenario: str) -> Response:
        """The map image of a version (the draft, for the club's members), no wider than
        ``width`` asks (served at the next of a few fixed widths up), to whoever reads the
        scenario."""
        served = _images().image(scenario, optional_user(), args.get("version"), args.get("width"))
        return image_response(served)

    @blp.doc(
        requestBody={
            "required": True,
            "content": {
                "image/png": {"schema": {"type": "string", "format": "binary"}},
                "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
            },
        }
    )
    @blp.response(201)
    @blp.alt_response(400, schema=ErrorSchema, description="not an image of the type sent")
    @blp.alt_response(
        413, schema=ErrorSchema, description="past 20 MB, 12,000 px a side or 50 million px"
    )
    @blp.alt_response(415, schema=ErrorSchema, description="not image/png or image/jpeg")
    def post(self, scenario: str) -> dict[str, Any]:
        """Upload the scan of the printed map (admins): the body is the PNG or JPEG itself, at most
        20 MB, 12,000 px a side and 50 million px (read from its header, before it is decoded);
        it is checked, stripped of metadata and kept by its
        SHA-256, and the draft's ``map.image`` names it."""
        user = require_user()
        length = request.content_length
        if length is not None and length > MAX_BYTES:
            raise _too_large(length)
        request.max_content_length = MAX_BYTES
        try:
            data = request.get_data(cache=False)
        except RequestEntityTooLarge:
            raise _too_large(MAX_BYTES + 1) from None
        return _images().upload(scenario, user, data, request.content_type or "")  # type: ignore[no-any-return]


@blp.route("/club-scenarios/<scenario>/map-image/calibration")
class MapImageCalibration(MethodView):
    @blp.arguments(MapCalibrationIn)
    @blp.response(200)
    def put(self, body: dict[str, Any], scenario: str) -> dict[str, Any]:
        """Fit the grid to the image from 3 or more hex centres clicked on it (admins): an affine
        transform by least squares, kept in the draft as a ``field`` edit of
        ``map.image.calibration``; 422 naming the points that disagree, are unknown or lie in
        one line."""
        return _images().calibrate(scenario, require_user(), body["points"])  # type: ignore[no-any-return]


@blp.route("/club-scenarios/<scenario>/map-image/proposal")
class MapImageProposal(MethodView):
    @blp.arguments(MapProposalIn)
    @blp.response(200)
    def post(self, body: dict[str, Any], scenario: str) -> dict[str, Any]:
        """Terrain for every hex and features for the hexsides that show one, each with a
        confidence, read from the calibrated image against the examples (admins; writes
        nothing)."""
        return _images().propose(scenario, require_user(), body["hexes"], body["hexsides"])  # type: ignore[no-any-return]


@blp.route("/club-scenarios/<scenario>/map-image/proposal/accept")
class MapImageAccept(MethodView):
    @blp.arguments(MapAcceptIn)
    @blp.response(200)
    def post(self, body: dict[str, Any], scenario: str) -> dict[str, Any]:
        """Record the proposal's entries sent (all of it, or those the admin kept) as ordinary
        ``terrain`` and ``hexside`` edits, one batch; answers the draft and the number of
        changes."""
        user = require_user()
        found, count = _images().accept(scenario, user, body["hexes"], body["hexsides"])
        return {"changes": count, **_library().view(found, user)}


def game_source(body: dict[str, Any]) -> Any:
    """The pinned club scenario version a ``POST /api/games`` body names, or ``None`` for a
    system's own scenario (``scenario`` a club scenario's id, ``scenario_version`` its version)."""
    lib = _library()
    if "scenario_version" not in body and not lib.is_club_scenario(body["scenario"]):
        return None
    pinned = lib.pinned(body["scenario"], require_user(), body.get("scenario_version"))
    if pinned.scenario.system != body["system"]:
        raise Invalid(
            "the scenario is of another system",
            {"system": [f"this scenario is for {pinned.scenario.system}"]},
        )
    return pinned


__all__ = ["blp", "game_source", "request"]
