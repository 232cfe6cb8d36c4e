"""Domain errors.  The API maps each to an HTTP status; the CLI to a message and exit code."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class DomainError(Exception):
    code = "error"

    def __init__(self, message: str, details: Mapping[str, Sequence[str]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = {k: list(v) for k, v in (details or {}).items()}


class StoreUnavailable(Exception):  # noqa: N818 - named for what the caller is told
    """The store could not be reached in time: a 503, never retried inside a request (raised by
    ``service.application.availability``; the views' runner tries again next time)."""


class NotFound(DomainError):
    code = "not_found"


class Unauthenticated(DomainError):
    code = "unauthenticated"


class Forbidden(DomainError):
    code = "forbidden"


class StaleVersion(DomainError):
    """The command was decided on a version of the game that is no longer the latest."""

    code = "stale_version"


class Conflict(DomainError):
    code = "conflict"


class LogBehindHead(Conflict):
    """A game's stored log ends below its anchored head: the store was restored or rolled back.
    Nothing is written to the game until an operator reconciles it (``arbiter audit reconcile``)."""

    code = "log_behind_head"


class LimitReached(Conflict):
    """A documented per-user or per-club limit (README "Configuration") would be exceeded (409);
    ``details`` names the field and the limit."""

    code = "limit_reached"


class Invalid(DomainError):
    """Malformed input (400)."""

    code = "invalid"


class Unprocessable(DomainError):
    """Well-formed input that the rules or the state refuse (422)."""

    code = "unprocessable"


class TooLarge(DomainError):
    """A body past its documented size (413): a map image's bytes or pixels."""

    code = "too_large"


class UnsupportedMediaType(DomainError):
    """A body of a type the route does not take (415): a map image that is not PNG or JPEG."""

    code = "unsupported_media_type"


class TooManyAttempts(DomainError):
    """Too many wrong passwords (or reset requests) for an account or from an address (429,
    ``Retry-After``)."""

    code = "too_many_attempts"

    def __init__(
        self,
        message: str,
        retry_after: float,
        field: str = "password",
        reason: str = "too many wrong passwords: wait and try again",
    ) -> None:
        super().__init__(message, {field: [reason]})
        self.retry_after = max(1, int(retry_after + 0.999))


class Busy(DomainError):
    """The server has no room for the work now, but will soon (503, ``Retry-After``): every place
    to decode a map image is taken (``ARBITER_IMAGE_DECODES``)."""

    code = "unavailable"

    def __init__(
        self, message: str, details: Mapping[str, Sequence[str]], retry_after: float = 5
    ) -> None:
        super().__init__(message, details)
        self.retry_after = max(1, int(retry_after + 0.999))
