"""The marshmallow 4 schemas of the scenario format (shape and types; cross-references are checked
in :mod:`service.rules.scenario.loader`).  See docs/scenario-format.md."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.rules.kernel.coords import COORDINATE_SYSTEMS
from service.rules.kernel.grid import OFFSETS, ORIENTATIONS
from service.rules.scenario.model import OPTION_TYPES

FORMAT = "arbiter-scenario/1"
_name = fields.String(required=True, validate=validate.Length(min=1))


class BoundsSchema(Schema):
    min_col = fields.Integer(required=True, strict=True)
    max_col = fields.Integer(required=True, strict=True)
    min_row = fields.Integer(required=True, strict=True)
    max_row = fields.Integer(required=True, strict=True)


class HexsideSchema(Schema):
    hexes = fields.List(fields.String(), required=True, validate=validate.Length(equal=2))
    features = fields.List(
        fields.String(validate=validate.Length(min=1)),
        required=True,
        validate=validate.Length(min=1),
    )


class PlaceSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1))
    hex = fields.String(required=True)
    kind = fields.String(load_default="")
    values = fields.Dict(keys=fields.String(), values=fields.Float(), load_default=dict)
    notes = fields.String()


class EntrySchema(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1))
    side = fields.String(load_default="")
    hexes = fields.List(fields.String(), required=True, validate=validate.Length(min=1))


class MapSchema(Schema):
    coordinates = fields.String(required=True, validate=validate.OneOf(COORDINATE_SYSTEMS))
    orientation = fields.String(required=True, validate=validate.OneOf(ORIENTATIONS))
    offset = fields.String(required=True, validate=validate.OneOf(OFFSETS))
    bounds = fields.Nested(BoundsSchema, required=True)
    terrain_types = fields.List(fields.String(validate=validate.Length(min=1)))
    default_terrain = fields.String(load_default="clear")
    terrain = fields.Dict(keys=fields.String(), values=fields.String(), load_default=dict)
    hex_features = fields.Dict(
        keys=fields.String(), values=fields.List(fields.String()), load_default=dict
    )
    hexsides = fields.List(fields.Nested(HexsideSchema), load_default=list)
    places = fields.List(fields.Nested(PlaceSchema), load_default=list)
    supply_sources = fields.Dict(
        keys=fields.String(), values=fields.List(fields.String()), load_default=dict
    )
    entries = fields.List(fields.Nested(EntrySchema), load_default=list)
    notes = fields.String()


class UnitSchema(Schema):
    id = fields.String(required=True, validate=validate.Length(min=1))
    side = fields.String(required=True)
    type = fields.String(required=True, validate=validate.Length(min=1))
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


class OptionSchema(Schema):
    default = fields.Raw(required=True, allow_none=True)
    description = fields.String(load_default="")
    choices = fields.List(fields.Raw())
    min = fields.Float()
    max = fields.Float()
    type = fields.String(validate=validate.OneOf(OPTION_TYPES))


class ScenarioSchema(Schema):
    format = fields.String(required=True, validate=validate.Equal(FORMAT))
    id = fields.String(required=True, validate=validate.Regexp(r"^[a-z0-9][a-z0-9_-]*$"))
    system = fields.String(required=True, validate=validate.Length(min=1))
    title = fields.String(required=True, validate=validate.Length(min=1))
    description = fields.String(load_default="")
    sides = fields.List(
        fields.String(validate=validate.Length(min=1)),
        required=True,
        validate=validate.Length(min=1),
    )
    turns = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    map = fields.Nested(MapSchema, required=True)
    units = fields.List(fields.Nested(UnitSchema), required=True)
    reinforcements = fields.List(fields.Nested(ReinforcementSchema), load_default=list)
    options = fields.Dict(
        keys=fields.String(), values=fields.Nested(OptionSchema), load_default=dict
    )
    data = fields.Dict(load_default=dict)
    notes = fields.String()
