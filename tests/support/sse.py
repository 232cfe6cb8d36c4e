"""Read server-sent events from a Flask test response in a background thread."""

from __future__ import annotations

import json
import threading
from typing import Any


class SseReader:
    def __init__(self, response: Any) -> None:
        self.messages: list[dict[str, Any]] = []
        self._response = response
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._changed = threading.Condition()
        self._thread.start()

    def _read(self) -> None:
        buffer = ""
        for chunk in self._response.response:
            buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                fields: dict[str, Any] = {}
                for line in block.splitlines():
                    if line.startswith(":") or ":" not in line:
                        continue
                    key, _, value = line.partition(":")
                    fields[key] = value.strip()
                if "event" in fields:
                    fields["data"] = json.loads(fields.get("data", "null"))
                    with self._changed:
                        self.messages.append(fields)
                        self._changed.notify_all()

    def wait_for(self, event: str, timeout: float = 10.0) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            return next((m for m in self.messages if m["event"] == event), None)

        with self._changed:
            self._changed.wait_for(lambda: found() is not None, timeout=timeout)
        message = found()
        assert message is not None, f"no {event!r} event within {timeout}s; got {self.messages}"
        return message

    def close(self) -> None:
        self._thread.join(timeout=15)
