"""marshmallow schemas of the API's requests and responses (they make the OpenAPI document)."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any
from uuid import UUID

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, validate

from service.domain.users import USERNAME

#: the largest version, seq, offset or count a query or body may name: what the stores' integer
#: columns hold (PostgreSQL's ``integer``), so a larger value is a 400, never a database error
DB_MAX = 2**31 - 1


def db_range(min: int = 0) -> validate.Range:
    """``min``..``DB_MAX``."""
    return validate.Range(min=min, max=DB_MAX)


class JsonInteger(fields.Integer):
    """An integer of a JSON body, as JSON Schema's ``integer`` is: a number with no fraction
    (``40`` or ``40.0``), never a string or a boolean (marshmallow's ``strict`` refuses ``40.0``,
    which the OpenAPI document's ``type: integer`` allows)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.pop("strict", None)
        super().__init__(strict=True, **kwargs)

    def _validated(self, value: Any) -> int:
        if type(value) is float and value.is_integer():
            value = int(value)
        return super()._validated(value)


#: text with something besides blanks in it (the services strip the blanks around it and refuse
#: what is left empty): a pattern that reads the same anchored (marshmallow) or searched (JSON
#: Schema)
NON_BLANK = r"^[\s\S]*\S"


def text_field(most: int, *, blank: bool = False, **kwargs: Any) -> fields.String:
    """Text of at most ``most`` characters, not blank unless ``blank``: what
    ``service.domain.conversations.clean_text`` enforces, stated in the document."""
    rules: list[Any] = [validate.Length(max=most, error="at most {max} characters")]
    if not blank:
        rules.append(validate.Regexp(NON_BLANK, error="must not be empty"))
    return fields.String(validate=rules, **kwargs)


class Unique(validate.Validator):
    """A list whose items differ (the document's ``uniqueItems``)."""

    def __call__(self, value: Any) -> Any:
        if len({json.dumps(item, sort_keys=True) for item in value}) != len(value):
            raise ValidationError("the items must differ")
        return value


def exactly_one(*names: str) -> dict[str, Any]:
    """A schema's ``OPENAPI``: exactly one of ``names`` is given."""
    return {"oneOf": [{"required": [name]} for name in names]}


def check_exactly_one(data: dict[str, Any], *names: str) -> None:
    """What :func:`exactly_one` states, for a schema's ``@validates_schema``."""
    given = [name for name in names if data.get(name) is not None]
    if len(given) != 1:
        raise ValidationError(f"give exactly one of {' or '.join(names)}", names[0])


class Strict(Schema):
    class Meta:
        unknown = RAISE


class Lenient(Schema):
    class Meta:
        unknown = EXCLUDE


class UserCreate(Strict):
    username = fields.String(
        required=True,
        validate=[validate.Length(min=2, max=32), validate.Regexp(USERNAME)],
        metadata={
            "description": "letters, digits, '.', '_' or '-', starting with a letter or digit"
        },
    )
    password = fields.String(
        required=True, load_only=True, validate=validate.Length(min=8, max=200)
    )
    email = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(max=254),
        metadata={"description": "where notifications are e-mailed (optional)"},
    )


class Credentials(Strict):
    username = fields.String(required=True, validate=validate.Length(min=1, max=32))
    password = fields.String(
        required=True, load_only=True, validate=validate.Length(min=1, max=200)
    )
    label = fields.String(load_default="api", validate=validate.Length(max=40))


class UserOut(Schema):
    id = fields.String()
    username = fields.String()


class TokenOut(Schema):
    token = fields.String(metadata={"description": "send as 'Authorization: Bearer <token>'"})
    user = fields.Nested(UserOut)


class SessionOut(Schema):
    user = fields.Nested(UserOut)
    csrf = fields.String(
        metadata={"description": "send as the X-CSRF-Token header with a session cookie"}
    )


class GameCreate(Strict):
    system = fields.String(required=True, validate=validate.Length(min=1, max=40))
    scenario = fields.String(
        required=True,
        validate=validate.Length(min=1, max=80),
        metadata={"description": "a system's scenario, or a club scenario's id"},
    )
    scenario_version = JsonInteger(
        validate=db_range(1),
        metadata={"description": "the club scenario's published version (default: the latest)"},
    )
    options = fields.Dict(keys=fields.String(), load_default=dict)
    sides = fields.Dict(
        keys=fields.String(validate=validate.Length(min=1, max=40)),
        values=fields.String(validate=validate.Length(min=1, max=32)),
        required=True,
        validate=validate.Length(min=1, max=8),
        metadata={"description": "side -> username"},
    )
    invite = fields.Boolean(
        load_default=True,
        metadata={
            "description": "always true: every named player but you must accept before play "
            "starts (false naming another player is a 403)"
        },
    )
    club = fields.String(
        load_default=None,
        validate=validate.Length(min=1, max=80),
        metadata={"description": "a club (id or name): its arbiters resolve the disputes"},
    )
    ladder = fields.String(
        load_default=None, metadata={"description": "a ladder id: the result is rated there"}
    )
    clock = fields.Dict(
        load_default=None,
        metadata={"description": '{"kind": "per-turn"|"per-move", "days", "vacation_days"}'},
    )
    public = fields.Boolean(load_default=False, metadata={"description": "listed for spectators"})
    takeback = fields.String(load_default=None, metadata={"description": "never, casual, always"})


class SideIn(Strict):
    side = fields.String(load_default=None, validate=validate.Length(min=1, max=40))


class DrawIn(SideIn):
    action = fields.String(required=True, validate=validate.OneOf(["offer", "accept", "decline"]))


class ClaimDecisionIn(Strict):
    decision = fields.String(required=True, validate=validate.OneOf(["forfeit", "continue"]))
    note = fields.String(load_default="", validate=validate.Length(max=2000))


class VacationIn(SideIn):
    days = JsonInteger(required=True, validate=validate.Range(min=1, max=365))


class SeekCreate(Strict):
    system = fields.String(required=True, validate=validate.Length(min=1, max=40))
    scenario = fields.String(
        required=True,
        validate=validate.Length(min=1, max=80),
        metadata={"description": "a system's scenario or a club scenario's id (or ``id@N``)"},
    )
    scenario_version = fields.Integer(
        load_default=None,
        validate=validate.Range(min=1),
        metadata={"description": "a club scenario's version (default: its latest): pinned"},
    )
    side = fields.String(
        load_default=None, metadata={"description": "your side (default: the first)"}
    )
    options = fields.Dict(keys=fields.String(), load_default=dict)
    club = fields.String(load_default=None, metadata={"description": "only its members may join"})
    clock = fields.Dict(load_default=None)
    public = fields.Boolean(load_default=False)


#: a page cursor as :class:`PageCursor` writes it: base64url without padding (the OpenAPI
#: document's pattern: a text that does not match is a 400)
CURSOR_PATTERN = "^[A-Za-z0-9_-]+$"
CURSOR_MAX = 1000
#: a cursor of the pattern that this API did not give (or gave for another list): a 422, as an
#: unknown id is (``service.api.blueprint.SchemaOnceParser``)
FOREIGN_CURSOR = "not a cursor this API gave (the X-Next-Cursor of a page)"


class PageCursor(fields.Field):
    """A page's opaque cursor (``after`` of ``GET /api/seeks``, ``GET /api/games`` ...): the key of
    the last row given, checked against the list's own key ``shape`` (by default a position or
    creation time and an id, ``(int, UUID)``; a list by name carries the name's text: ``(str,
    UUID)``).  A key of that default shape is written as it always was (``"<int> <uuid>"``, so a
    cursor given before stays valid); any other as a JSON array (text with spaces and any
    character travels safely), both base64url without padding.  A cursor of another list's
    shape, or one this API did not give, is refused naming ``after``: 400 if it is not of the
    document's pattern (:data:`CURSOR_PATTERN`), else 422 (:data:`FOREIGN_CURSOR`)."""

    #: the longest text a key may carry (names and titles are shorter; an ISO time is 32)
    TEXT_MAX = 200
    #: the integers a key may carry: what the views' BIGINT columns hold
    INT_MAX = 2**63 - 1

    def __init__(self, shape: tuple[type, ...] = (int, UUID), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.shape = shape

    @staticmethod
    def encode(key: tuple[Any, ...]) -> str:
        key = tuple(str(part) if isinstance(part, UUID) else part for part in key)
        if len(key) == 2 and type(key[0]) is int and _is_uuid(key[1]):
            raw = f"{key[0]} {key[1]}"
        else:
            raw = json.dumps(list(key), separators=(",", ":"))
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> tuple[Any, ...]:
        text = value if isinstance(value, str) else ""
        if not re.fullmatch(CURSOR_PATTERN, text) or len(text) > CURSOR_MAX:
            raise ValidationError(
                f"base64url (A-Z, a-z, 0-9, _ and -), at most {CURSOR_MAX} characters: "
                "the X-Next-Cursor of a page"
            )
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
            if raw.startswith("["):
                parts = json.loads(raw)
            else:
                created, row_id = raw.split(" ")
                parts = [int(created), row_id]
            if not isinstance(parts, list) or len(parts) != len(self.shape):
                raise ValueError("not this list's key")
            return tuple(
                self._part(kind, part) for kind, part in zip(self.shape, parts, strict=True)
            )
        except (ValueError, UnicodeDecodeError, binascii.Error, RecursionError):
            raise ValidationError(FOREIGN_CURSOR) from None

    def _part(self, kind: type, part: Any) -> Any:
        """One part of a key, as the list's ``shape`` says (a ValueError if it is not)."""
        if kind is int and type(part) is int and -self.INT_MAX <= part <= self.INT_MAX:
            return part
        if kind is str and isinstance(part, str) and len(part) <= self.TEXT_MAX:
            return part
        if kind is UUID and isinstance(part, str):
            return str(UUID(part))
        raise ValueError("not this list's key")


def _is_uuid(value: Any) -> bool:
    try:
        return isinstance(value, str) and str(UUID(value)) == value
    except ValueError:
        return False


def page_cursor(*shape: type) -> PageCursor:
    """``after`` of a list whose rows' key is ``shape`` (see :class:`PageCursor`)."""
    return PageCursor(
        shape=shape,
        load_default=None,
        metadata={"description": "the previous page's X-Next-Cursor"},
    )


class PageFields(Schema):
    """A keyset page's query: ``limit`` (default 50, at most 100) and ``after`` (the previous
    page's ``X-Next-Cursor``); mixed into each list's arguments."""

    limit = fields.Integer(
        load_default=50,
        validate=validate.Range(min=1, max=100),
        metadata={"description": "rows per page (at most 100)"},
    )
    after = page_cursor(int, UUID)


class SeeksArgs(PageFields, Strict):
    pass


class SeekOut(Schema):
    id = fields.String()
    by = fields.String()
    system = fields.String()
    scenario = fields.String()
    title = fields.String(metadata={"description": "the scenario's title"})
    side = fields.String()
    club = fields.String(allow_none=True)
    club_name = fields.String(allow_none=True)
    clock = fields.Dict(allow_none=True)
    options = fields.Dict(metadata={"description": "the game options the game starts with"})
    status = fields.String()
    game = fields.String(allow_none=True)
    opened_at = fields.String()


class RecordIn(Strict):
    record = fields.String(
        required=True,
        validate=validate.Length(min=1),
        metadata={"description": "a finished game's record, as text (docs/game-record.md)"},
    )


class CommandIn(Strict):
    expected_version = JsonInteger(
        required=True,
        validate=db_range(1),
        metadata={"description": "the game version the command was decided on"},
    )
    side = fields.String(load_default=None, validate=validate.Length(min=1, max=40))
    command = fields.Dict(keys=fields.String(), required=True)


class EntropyIn(Strict):
    entropy = fields.String(required=True, validate=validate.Length(min=1, max=256))
    side = fields.String(load_default=None)


class GameArgs(Lenient):
    version = fields.Integer(load_default=None, validate=db_range(1))
    side = fields.String(load_default=None)


class SideArgs(Lenient):
    side = fields.String(load_default=None)


class ActionsArgs(SideArgs):
    #: ``tree``: path choices written as trees where they form one (a phone parses a fifth)
    paths = fields.String(load_default="list", validate=validate.OneOf(["list", "tree"]))


class GameListArgs(PageFields, Lenient):
    mine = fields.Boolean(load_default=False)
    status = fields.String(
        load_default=None, validate=validate.OneOf(["invited", "active", "ended", "declined"])
    )
    system = fields.String(load_default=None, metadata={"description": "one rules system's"})
    club = fields.String(load_default=None, metadata={"description": "one club's (its id)"})
    invited = fields.Boolean(
        load_default=False, metadata={"description": "the games waiting for the caller's answer"}
    )
    public = fields.Boolean(load_default=None, metadata={"description": "public games only"})
    claimed = fields.Boolean(
        load_default=False,
        metadata={"description": "games whose claim on time waits for the caller as an arbiter"},
    )


class EventsArgs(Lenient):
    after = fields.Integer(load_default=0, validate=db_range(0))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))
    side = fields.String(load_default=None)


class DiceOut(Schema):
    commitment = fields.String()
    next_index = fields.Integer()
    entropy_count = fields.Integer()
    seed = fields.String(allow_none=True)


class GameOut(Schema):
    id = fields.String()
    system = fields.String()
    scenario = fields.String()
    title = fields.String()
    version = fields.Integer()
    status = fields.String()
    sides = fields.Dict(keys=fields.String(), values=fields.String())
    viewer_side = fields.String(allow_none=True)
    active_sides = fields.List(fields.String())
    phase = fields.Dict()
    result = fields.Dict(allow_none=True)
    options = fields.Dict(
        metadata={"description": "the options in force: as created, then each adopted reading"}
    )
    options_at_start = fields.Dict(metadata={"description": "the options the game started with"})
    readings = fields.List(
        fields.Dict(),
        metadata={
            "description": "each reading a verdict adopted: {dispute, from_seq, reading, text}"
        },
    )
    state = fields.Dict()
    counters = fields.List(fields.Dict())
    dice = fields.Nested(DiceOut)
    takeback = fields.Dict(
        allow_none=True, metadata={"description": "the pending takeback request"}
    )
    takeback_offer = fields.Dict(
        allow_none=True,
        metadata={
            "description": "the side whose latest commands a takeback may ask for now and their "
            "seqs, {side, seqs}, or null (none may be)"
        },
    )
    disputes = fields.Dict(metadata={"description": "dispute id -> {seq, side, status}"})
    paused_by = fields.String(allow_none=True)
    invitation = fields.Dict(
        allow_none=True,
        metadata={"description": "who must still accept (names), who accepted, who declined"},
    )
    draw_offer = fields.Dict(allow_none=True, metadata={"description": "the pending draw offer"})
    claim = fields.Dict(
        allow_none=True, metadata={"description": "a claim on time waiting for an arbiter"}
    )
    clock = fields.Dict(
        allow_none=True,
        metadata={"description": "config, per side remaining_seconds/running/vacation; running"},
    )
    labels = fields.Dict()
    created_at = fields.String()
    updated_at = fields.String()


class PreviewIn(Strict):
    command = fields.Dict(keys=fields.String(), required=True)
    side = fields.String(load_default=None)


class GameSummary(Schema):
    id = fields.String()
    version = fields.Integer()
    active_sides = fields.List(fields.String())
    phase = fields.Dict()
    disputes = fields.Dict()
    paused_by = fields.String(allow_none=True)
    system = fields.String()
    scenario = fields.String()
    title = fields.String()
    sides = fields.Dict(keys=fields.String(), values=fields.String())
    status = fields.String()
    result = fields.Dict(allow_none=True)
    created_at = fields.String()
    ended_at = fields.String(allow_none=True)
    club = fields.String(allow_none=True)
    ladder = fields.String(allow_none=True)
    public = fields.Boolean()
    timed = fields.Boolean()


class EventOut(Schema):
    game = fields.String()
    seq = fields.Integer()
    kind = fields.String()
    type = fields.String()
    at = fields.String()
    side = fields.String()
    user = fields.String()
    payload = fields.Dict()
    prev_hash = fields.String()
    hash = fields.String()
    seal = fields.String()
    text = fields.String(metadata={"description": "the event in words (rules events)"})
    redacted = fields.Boolean()
    retracted = fields.Boolean()
    sealed = fields.Dict(
        metadata={"description": "commitments the hash covers (hidden information)"}
    )
    shown = fields.String(metadata={"description": "the form in payload: full, a side, or *"})
    salt = fields.String(metadata={"description": "the salt of the form shown"})


class Shaped(fields.List):
    """A list whose items the service has already shaped as the nested schema says (every key
    one of its fields, every value JSON: ``service.application.events.present_event``).  The API
    documents it as ``List(Nested(...))`` and sends the items as they are: marshmallow's
    field-by-field dump of a command's events was a twentieth of its server time.
    ``tests/e2e/test_events_shape.py`` checks that the items equal the schema's own dump."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return None if value is None else list(value)


class EventPage(Schema):
    events = Shaped(fields.Nested(EventOut))
    next_after = fields.Integer(allow_none=True)


class ExecutedOut(Schema):
    version = fields.Integer()
    status = fields.String()
    events = Shaped(fields.Nested(EventOut))
    result = fields.Dict(allow_none=True)


class ChoiceOut(Schema):
    one_of = fields.List(fields.Raw(), metadata={"description": "pick one value"})
    paths = fields.Dict(
        metadata={
            "description": "with ?paths=tree, a path one_of whose paths form a tree: "
            '{"tree": "A1(B1(C1 C2) B2)", "named": {hex: label}} -- every path from the first '
            "hex to each other hex is an option, depth first, labelled by named[its last hex] "
            "else by that hex (docs/rules/contract.md)"
        }
    )
    some_of = fields.List(fields.Raw(), metadata={"description": "pick min..max values"})
    labels = fields.List(fields.String(), metadata={"description": "each option in words"})
    min = fields.Integer()
    max = fields.Integer()


class TemplateOut(Schema):
    type = fields.String(required=True)
    label = fields.String(required=True)
    fixed = fields.Dict(keys=fields.String(), values=fields.Raw())
    choose = fields.Dict(keys=fields.String(), values=fields.Nested(ChoiceOut))
    kinds = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        metadata={"description": "what each field designates: unit, units, hex, path, point ..."},
    )


class BlockedOut(Schema):
    type = fields.String(required=True)
    label = fields.String(required=True)
    reason = fields.String(required=True)
    rule = fields.String(required=True)


class ActionsOut(Schema):
    """One action vocabulary for every game: a command is a template's ``type`` and ``fixed``
    fields plus one pick per ``choose`` field (see docs/rules/contract.md)."""

    side = fields.String()
    version = fields.Integer()
    actions = fields.List(fields.Nested(TemplateOut))
    blocked = fields.List(fields.Nested(BlockedOut))


class ScenarioOptionOut(Schema):
    name = fields.String(required=True)
    default = fields.Raw(required=True)
    description = fields.String()
    kind = fields.String(
        allow_none=True, metadata={"description": "boolean, integer, number or string"}
    )
    choices = fields.List(
        fields.Raw(), allow_none=True, metadata={"description": "the values allowed"}
    )
    min = fields.Raw(allow_none=True, metadata={"description": "the least value (a number)"})
    max = fields.Raw(allow_none=True, metadata={"description": "the greatest value (a number)"})


class PlaceholderTopicOut(Schema):
    topic = fields.String(metadata={"description": "what the values are, in words: `Terrain`"})
    count = fields.Integer(metadata={"description": "how many values of it are placeholders"})
    notes = fields.List(fields.String(), metadata={"description": "the first distinct notes"})


class ScenarioOut(Schema):
    id = fields.String()
    system = fields.String()
    title = fields.String()
    sides = fields.List(fields.String())
    description = fields.String()
    placeholder = fields.Boolean()
    options = fields.List(
        fields.Nested(ScenarioOptionOut),
        metadata={"description": "what a game of it may be created with (`options` of a new game)"},
    )
    placeholder_topics = fields.List(
        fields.Nested(PlaceholderTopicOut),
        metadata={"description": "its placeholder data by topic, for players (empty: none)"},
    )


class SystemOut(Schema):
    name = fields.String()
    title = fields.String()
    document = fields.String()
    rules_version = fields.String(
        metadata={"description": "what its replay makes of recorded events: a game record names it"}
    )
    tables = fields.List(fields.String())
    scenarios = fields.List(fields.Nested(ScenarioOut))
    capabilities = fields.List(
        fields.String(),
        metadata={
            "description": "hidden_information, previews, drawing, scenario_checks, rulebook"
        },
    )
    previews = fields.List(
        fields.String(),
        metadata={
            "description": "the command types POST /api/games/<id>/preview answers (with the "
            "previews capability); any other is refused with 400"
        },
    )
    commands = fields.List(
        fields.Dict(), metadata={"description": "each declared command: type, phases, fields"}
    )
    side_colours = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        metadata={"description": "each side's counter colour as its rulebook prints it"},
    )
