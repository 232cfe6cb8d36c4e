"""The DNS look-up the webhook and push address checks use (``service.domain.notifications``
classifies the addresses; this finds them): given to the services by ``service.bootstrap``."""

from __future__ import annotations

import socket


def resolve(host: str) -> list[str] | None:
    """The addresses ``host`` resolves to (the system's resolver, as a connection would use it),
    in its order and without repeats; None when it does not resolve."""
    try:
        infos = socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return None
    found: list[str] = []
    for info in infos:
        address = str(info[4][0])
        if address not in found:
            found.append(address)
    return found or None
