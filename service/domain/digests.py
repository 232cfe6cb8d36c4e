"""Comparing a secret someone sent with the one expected, in constant time, whatever they sent.

:func:`hmac.compare_digest` raises ``TypeError`` on a ``str`` that is not ASCII, so a token, a CSRF
header or a MAC of ``"é"`` made a 500 of what is just a wrong secret.  Both sides are compared as
their UTF-8 bytes instead: a non-ASCII secret is simply not the expected one."""

from __future__ import annotations

import hmac


def same_secret(expected: str, sent: str) -> bool:
    """Whether ``sent`` is ``expected`` (constant time for secrets of the same length)."""
    return hmac.compare_digest(
        expected.encode("utf-8", "surrogatepass"), sent.encode("utf-8", "surrogatepass")
    )
