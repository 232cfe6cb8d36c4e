"""The live leaderboard of each ladder in Redis: a sorted set of players by rating, a hash of their
rows (JSON) and the log position the board reflects.  Every write is guarded by that position (in
one Lua script), so a worker that is behind never overwrites a later board; an incremental write to a
board that Redis lost is refused, and the feed then writes it whole from the ladders' view."""

from __future__ import annotations

import json
from typing import Any

import redis

from service.domain.ratings.table import rank_score

_WRITE = """
local current = redis.call('GET', KEYS[1])
local position = tonumber(ARGV[1])
if ARGV[2] == '0' then
  if not current then return -1 end
  if tonumber(current) >= position then return 0 end
else
  if current and tonumber(current) > position then return 0 end
  redis.call('DEL', KEYS[2], KEYS[3])
end
for i = 3, #ARGV, 3 do
  redis.call('ZADD', KEYS[2], ARGV[i + 1], ARGV[i])
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 2])
end
redis.call('SET', KEYS[1], ARGV[1])
return 1
"""

_TOP = """
local position = redis.call('GET', KEYS[1])
if not position then return false end
local ids = redis.call('ZREVRANGE', KEYS[2], ARGV[1], ARGV[2])
if #ids == 0 then return {position} end
local rows = redis.call('HMGET', KEYS[3], unpack(ids))
table.insert(rows, 1, position)
return rows
"""


class RedisLeaderboard:
    def __init__(self, url: str, *, timeout: float = 1.0, prefix: str = "arbiter:ladder") -> None:
        self.client = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout
        )
        self.prefix = prefix
        self._write = self.client.register_script(_WRITE)
        self._top = self.client.register_script(_TOP)

    def _keys(self, ladder_id: str) -> list[str]:
        base = f"{self.prefix}:{ladder_id}"
        return [f"{base}:position", f"{base}:board", f"{base}:rows"]

    def write(
        self, ladder_id: str, rows: list[dict[str, Any]], position: int, *, replace: bool
    ) -> bool | None:
        args: list[Any] = [position, "1" if replace else "0"]
        for row in rows:
            args += [
                row["user"],
                rank_score(row["rating"], row["rd"]),
                json.dumps(row, separators=(",", ":")),
            ]
        try:
            done = self._write(keys=self._keys(ladder_id), args=args)
        except (redis.RedisError, OSError) as exc:
            raise ConnectionError(f"leaderboard unavailable: {exc}") from exc
        return None if done == -1 else bool(done)

    def top(self, ladder_id: str, offset: int, limit: int) -> list[dict[str, Any]] | None:
        found = self.page(ladder_id, offset, limit)
        return None if found is None else found[1]

    def page(
        self, ladder_id: str, offset: int, limit: int
    ) -> tuple[int, list[dict[str, Any]]] | None:
        """The board's position and rows ``offset``.. in rank order (one call), or None when
        the board is missing."""
        try:
            got = self._top(keys=self._keys(ladder_id), args=[offset, offset + limit - 1])
        except (redis.RedisError, OSError) as exc:
            raise ConnectionError(f"leaderboard unavailable: {exc}") from exc
        if got is None:
            return None
        rows = [json.loads(raw) for raw in got[1:] if raw is not None]
        for rank, row in enumerate(rows, start=offset + 1):
            row["rank"] = rank
        return int(got[0]), rows

    def position(self, ladder_id: str) -> int | None:
        raw = self.client.get(self._keys(ladder_id)[0])
        return int(raw) if raw is not None else None

    def forget(self, ladder_id: str) -> None:
        self.client.delete(*self._keys(ladder_id))
