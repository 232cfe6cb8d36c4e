"""Sign-in throttling: too many wrong passwords for one account, or from one address, and further
tries are refused for a while (429 with ``Retry-After``), the right password included, so that a
password cannot be guessed at speed.  A success clears the account's count.

Counts are kept per worker process, in memory, for the window only (bounded: at most ``MAX_KEYS``
accounts and addresses are tracked; the oldest are forgotten first).  With several workers each
counts its own share, so the limits hold per worker: documented in the README."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

#: wrong passwords for one account within the window before it is held
PER_ACCOUNT = 5
#: wrong passwords from one client address within the window before it is held
PER_ADDRESS = 20
#: the window, and how long a held account or address waits (seconds)
WINDOW = 15 * 60
#: accounts and addresses tracked at once (a flood of names cannot grow memory without bound)
MAX_KEYS = 100_000


class SignInThrottle:
    def __init__(
        self,
        per_account: int = PER_ACCOUNT,
        per_address: int = PER_ADDRESS,
        window: float = WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = {"account": per_account, "address": per_address}
        self.window = window
        self.clock = clock
        self._failures: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
        self._lock = threading.Lock()

    def wait(self, account: str, address: str) -> float:
        """Seconds before ``account`` from ``address`` may try again (0: now)."""
        return max(self.held("account", account), self.held("address", address))

    def held(self, kind: str, key: str) -> float:
        """Seconds before one ``"account"`` or ``"address"`` may try again (0: now)."""
        now = self.clock()
        with self._lock:
            times = self._recent((kind, key.lower() if kind == "account" else key), now)
            if len(times) >= self.limits[kind]:
                return times[0] + self.window - now
        return 0.0

    def failed(self, account: str, address: str) -> None:
        self.note("account", account)
        self.note("address", address)

    def note(self, kind: str, key: str) -> None:
        """Count one try of one ``"account"`` or ``"address"``."""
        now = self.clock()
        entry = (kind, key.lower() if kind == "account" else key)
        with self._lock:
            self._recent(entry, now).append(now)
            self._failures.move_to_end(entry)
            while len(self._failures) > MAX_KEYS:
                self._failures.popitem(last=False)

    def succeeded(self, account: str) -> None:
        with self._lock:
            self._failures.pop(("account", account.lower()), None)

    def _recent(self, key: tuple[str, str], now: float) -> list[float]:
        times = [t for t in self._failures.get(key, []) if t > now - self.window]
        self._failures[key] = times
        return times
