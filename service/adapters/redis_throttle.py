"""The sign-in, password-reset and sign-up throttles counted in Redis, so that with ``REDIS_URL``
set their limits hold for the whole site, whatever the number of hosts and workers (issue 53:
kept in each worker's memory, N workers on M hosts gave N x M times the tries).

Each account or address of each throttle (``scope``) is a sorted set of the times of its tries
within the window (Redis's own clock, so that hosts whose clocks differ agree), read and written
in one Lua script each, kept to the limit's size and expiring with the window: memory grows only
with the tries of the last window, and those from one address are capped by its own limit.  The
keys name a SHA-256 of the account or address, not the account itself.

If Redis cannot be reached, the process counts in its own memory as the embedded default does
(:class:`SignInThrottle`), logs a warning, and goes back to Redis at its next call: sign-in stays
possible during an outage, with the per-worker limits."""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Callable

import redis

from service.application.throttle import PER_ACCOUNT, PER_ADDRESS, WINDOW, SignInThrottle

log = logging.getLogger(__name__)

#: note one try: forget the tries past the window, add this one, keep the last ``cap``
_NOTE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[2]) + 1))
redis.call('PEXPIRE', KEYS[1], window)
return 1
"""

#: milliseconds until fewer than ``limit`` tries are within the window (0: not held)
_HELD = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then return 0 end
local oldest = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now)
"""


class RedisThrottle(SignInThrottle):
    """:class:`SignInThrottle`'s limits and window, counted in Redis under ``scope``."""

    def __init__(
        self,
        url: str,
        scope: str,
        per_account: int = PER_ACCOUNT,
        per_address: int = PER_ADDRESS,
        window: float = WINDOW,
        *,
        timeout: float = 1.0,
        prefix: str = "arbiter:throttle",
        clock: Callable[[], float] | None = None,
    ) -> None:
        if clock is None:
            super().__init__(per_account, per_address, window)
        else:  # the fallback's clock (tests)
            super().__init__(per_account, per_address, window, clock)
        self.client = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout
        )
        self.prefix = f"{prefix}:{scope}"
        self._note = self.client.register_script(_NOTE)
        self._held = self.client.register_script(_HELD)

    def _key(self, kind: str, key: str) -> str:
        _, normal = self._entry(kind, key)
        return f"{self.prefix}:{kind}:{hashlib.sha256(normal.encode()).hexdigest()}"

    def held(self, kind: str, key: str) -> float:
        try:
            millis = self._held(
                keys=[self._key(kind, key)], args=[int(self.window * 1000), self.limits[kind]]
            )
        except redis.RedisError as exc:
            self._unreachable(exc)
            return super().held(kind, key)
        return int(millis) / 1000

    def note(self, kind: str, key: str) -> None:
        try:
            self._note(
                keys=[self._key(kind, key)],
                args=[int(self.window * 1000), self.limits[kind], uuid.uuid4().hex],
            )
        except redis.RedisError as exc:
            self._unreachable(exc)
            super().note(kind, key)

    def succeeded(self, account: str) -> None:
        super().succeeded(account)  # the fallback's count too, if it counted during an outage
        try:
            self.client.delete(self._key("account", account))
        except redis.RedisError as exc:
            self._unreachable(exc)

    def _unreachable(self, exc: Exception) -> None:
        log.warning(
            "the %s throttle cannot reach Redis (%s): counting in this process meanwhile",
            self.prefix.rsplit(":", 1)[-1],
            exc,
        )
