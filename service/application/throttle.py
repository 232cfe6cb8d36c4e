"""Sign-in throttling: too many wrong passwords for one account, or from one address, and further
tries are refused for a while (429 with ``Retry-After``), the right password included, so that a
password cannot be guessed at speed.  A success clears the account's count.

An IPv6 client is counted by its /64 block (one subscriber's share: its own addresses are too many
to count one by one); an IPv4 client by its address.

Counts are kept per worker process, in memory, for the window only, and bounded: at most
``MAX_KEYS`` accounts and addresses are tracked.  Room is made only by forgetting entries whose
window has passed, never one that still counts, so a flood of new names or addresses cannot flush
a held account or address.  While the table is full of live entries, a key that is not tracked
cannot be counted, so it is treated as held (fails safe) until the oldest entry lapses: a flood
then refuses newcomers for at most one window instead of letting guesses through uncounted.
With several workers each counts its own share, so the limits hold per worker: documented in the
README."""

from __future__ import annotations

import ipaddress
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
#: an IPv6 client is counted by this block of its address
IPV6_PREFIX = 64


def address_key(address: str) -> str:
    """What an address is counted as: an IPv6 address by its /64 (an IPv4-mapped one as the IPv4
    address), anything else as given."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip)


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
        #: (kind, key) -> times of the tries in the window, the most recently noted last
        self._failures: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
        self._lock = threading.Lock()

    def wait(self, account: str, address: str) -> float:
        """Seconds before ``account`` from ``address`` may try again (0: now)."""
        return max(self.held("account", account), self.held("address", address))

    def held(self, kind: str, key: str) -> float:
        """Seconds before one ``"account"`` or ``"address"`` may try again (0: now)."""
        now = self.clock()
        entry = self._entry(kind, key)
        with self._lock:
            self._make_room(now)
            times = self._recent(entry, now)
            if times is None:
                return self._full_wait(now)
            if len(times) >= self.limits[kind]:
                return times[0] + self.window - now
        return 0.0

    def failed(self, account: str, address: str) -> None:
        self.note("account", account)
        self.note("address", address)

    def note(self, kind: str, key: str) -> None:
        """Count one try of one ``"account"`` or ``"address"`` (not while the table is full of
        live entries: then an untracked key is held, see :meth:`held`)."""
        now = self.clock()
        entry = self._entry(kind, key)
        with self._lock:
            self._make_room(now)
            times = self._recent(entry, now)
            if times is None:
                if len(self._failures) >= MAX_KEYS:
                    return
                times = self._failures[entry] = []
            times.append(now)
            self._failures.move_to_end(entry)

    def succeeded(self, account: str) -> None:
        with self._lock:
            self._failures.pop(self._entry("account", account), None)

    @staticmethod
    def _entry(kind: str, key: str) -> tuple[str, str]:
        return (kind, key.lower() if kind == "account" else address_key(key))

    def _recent(self, entry: tuple[str, str], now: float) -> list[float] | None:
        """The entry's tries within the window, or None if it is not tracked (an entry whose
        tries have all lapsed is forgotten)."""
        times = self._failures.get(entry)
        if times is None:
            return None
        times[:] = [t for t in times if t > now - self.window]
        if not times:
            del self._failures[entry]
            return None
        return times

    def _make_room(self, now: float) -> None:
        """Forget the entries whose window has passed: the least recently noted come first, so
        this stops at the first that still counts."""
        while self._failures:
            entry, times = next(iter(self._failures.items()))
            if times and times[-1] > now - self.window:
                return
            del self._failures[entry]

    def _full_wait(self, now: float) -> float:
        """For a key that is not tracked: 0, or while the table is full of live entries, the
        seconds until the oldest of them lapses."""
        if len(self._failures) < MAX_KEYS:
            return 0.0
        times = next(iter(self._failures.values()))
        return max(1.0, times[-1] + self.window - now)
