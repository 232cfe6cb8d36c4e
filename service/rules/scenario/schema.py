"""The marshmallow 4 schemas of the scenario format: the shape and types, and what one part says
of itself (a reinforcement gives an entry or a hex; an option's default is one of its values).
Cross-references between parts are checked on what they load, in
:mod:`service.rules.scenario.checks`.  See docs/scenario-format.md."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import Schema, ValidationError, fields, utils, validate, validates_schema

from service.rules.kernel.coords import COORDINATE_SYSTEMS
from service.rules.kernel.grid import OFFSETS, ORIENTATIONS
from service.rules.scenario.model import OPTION_TYPES, OptionSpec

FORMAT = "arbiter-scenario/1"


class Items(fields.List):
    """A list whose loaded items keep their places when some fail -- ``None`` for a value that did
    not load, the loaded part of an object -- so what loads is still checked at the right index."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> list[Any]:
        if not utils.is_collection(value):
            raise self.make_error("invalid")
        loaded: list[Any] = []
        errors: dict[int, Any] = {}
        for index, item in enumerate(value):
            try:
                loaded.append(self.inner.deserialize(item, **kwargs))
            except ValidationError as error:
                loaded.append(error.valid_data)
                errors[index] = error.messages
        if errors:
            raise ValidationError(errors, valid_data=loaded)
        return loaded


def _name() -> fields.String:
    return fields.String(required=True, validate=validate.Length(min=1))


class BoundsSchema(Schema):
    min_col = fields.Integer(required=True, strict=True)
    max_col = fields.Integer(required=True, strict=True)
    min_row = fields.Integer(required=True, strict=True)
    max_row = fields.Integer(required=True, strict=True)


class HexsideSchema(Schema):
    hexes = Items(fields.String(), required=True, validate=validate.Length(equal=2))
    features = Items(
        fields.String(validate=validate.Length(min=1)),
        required=True,
        validate=validate.Length(min=1),
    )


class PlaceSchema(Schema):
    name = _name()
    hex = fields.String(required=True)
    kind = fields.String(load_default="")
    values = fields.Dict(keys=fields.String(), values=fields.Float(), load_default=dict)
    #: what a player reads where it is not the name (the name stays the place's unique key)
    label = fields.String(validate=validate.Length(min=1, max=60))
    notes = fields.String()


class EntrySchema(Schema):
    name = _name()
    side = fields.String(load_default="")
    hexes = Items(fields.String(), required=True, validate=validate.Length(min=1))


class CalibrationPointSchema(Schema):
    hex = fields.String(required=True)
    x = fields.Float(required=True)
    y = fields.Float(required=True)


class CalibrationSchema(Schema):
    """How the map image lies under the grid: the points clicked and the fitted transform from
    grid units (a hex's outer radius is 1) to the image's pixels (docs/scenario-library.md)."""

    points = Items(
        fields.Nested(CalibrationPointSchema), required=True, validate=validate.Length(min=3)
    )
    affine = Items(
        Items(fields.Float(), validate=validate.Length(equal=3)),
        required=True,
        validate=validate.Length(equal=2),
    )
    residual_px = fields.Float(required=True)
    per_point = Items(fields.Dict(), load_default=list)


class MapImageSchema(Schema):
    """The scan of the printed map, pinned by the SHA-256 of its stored bytes."""

    sha256 = fields.String(required=True, validate=validate.Regexp(r"^[0-9a-f]{64}$"))
    media_type = fields.String(required=True, validate=validate.OneOf(("image/png", "image/jpeg")))
    width = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    height = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    calibration = fields.Nested(CalibrationSchema)


class MapSchema(Schema):
    coordinates = fields.String(required=True, validate=validate.OneOf(COORDINATE_SYSTEMS))
    orientation = fields.String(required=True, validate=validate.OneOf(ORIENTATIONS))
    offset = fields.String(required=True, validate=validate.OneOf(OFFSETS))
    bounds = fields.Nested(BoundsSchema, required=True)
    terrain_types = Items(fields.String(validate=validate.Length(min=1)))
    default_terrain = fields.String(load_default="clear")
    terrain = fields.Dict(keys=fields.String(), values=fields.String(), load_default=dict)
    hex_features = fields.Dict(
        keys=fields.String(), values=Items(fields.String()), load_default=dict
    )
    hexsides = Items(fields.Nested(HexsideSchema), load_default=list)
    places = Items(fields.Nested(PlaceSchema), load_default=list)
    supply_sources = fields.Dict(
        keys=fields.String(), values=Items(fields.String()), load_default=dict
    )
    entries = Items(fields.Nested(EntrySchema), load_default=list)
    notes = fields.String()
    image = fields.Nested(MapImageSchema)


class UnitSchema(Schema):
    id = _name()
    side = fields.String(required=True)
    type = _name()
    name = fields.String(load_default="")
    steps = fields.Integer(strict=True, load_default=1, validate=validate.Range(min=1))
    values = fields.Dict(keys=fields.String(), values=fields.Float(), load_default=dict)
    hex = fields.String(allow_none=True, load_default=None)
    notes = fields.String()


class ReinforcementSchema(Schema):
    turn = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    unit = fields.String(required=True)
    entry = fields.String()
    hex = fields.String()

    @validates_schema(pass_original=True, skip_on_field_errors=False)
    def one_place(self, data: dict[str, Any], original_data: Any, **kwargs: Any) -> None:
        given = original_data  # the keys as written (a mistyped entry is still an entry)
        if isinstance(given, Mapping) and ("entry" in given) == ("hex" in given):
            raise ValidationError("give exactly one of entry and hex")


class OptionSchema(Schema):
    default = fields.Raw(required=True, allow_none=True)
    description = fields.String(load_default="")
    choices = Items(fields.Raw())
    min = fields.Float()
    max = fields.Float()
    type = fields.String(validate=validate.OneOf(OPTION_TYPES))

    @validates_schema
    def default_is_a_value(self, data: dict[str, Any], **kwargs: Any) -> None:
        reasons = OptionSpec.from_data("", data).problems(data["default"])
        if reasons:
            raise ValidationError(reasons, field_name="default")


class ScenarioSchema(Schema):
    format = fields.String(required=True, validate=validate.Equal(FORMAT))
    id = fields.String(required=True, validate=validate.Regexp(r"^[a-z0-9][a-z0-9_-]*$"))
    system = _name()
    title = _name()
    description = fields.String(load_default="")
    sides = Items(
        fields.String(validate=validate.Length(min=1)),
        required=True,
        validate=validate.Length(min=1),
    )
    turns = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    map = fields.Nested(MapSchema, required=True)
    units = Items(fields.Nested(UnitSchema), required=True)
    reinforcements = Items(fields.Nested(ReinforcementSchema), load_default=list)
    options = fields.Dict(
        keys=fields.String(), values=fields.Nested(OptionSchema), load_default=dict
    )
    data = fields.Dict(load_default=dict)
    notes = fields.String()
