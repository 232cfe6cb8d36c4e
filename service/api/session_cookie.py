"""The web session cookie, sealed: encrypted and authenticated with AES-256-GCM under a key derived
from the server key (``ARBITER_SECRET_KEY``), so that it cannot be read (it holds the session's
bearer token) nor changed.  Flask's own cookie is only signed: base64 of JSON, readable by anyone
who sees it (a shared computer's browser profile, a log that records cookies).

A cookie is ``v1.<base64url(nonce | ciphertext | tag)>``; the plaintext is the time it was sealed
(8 bytes, seconds) and the session as Flask's tagged JSON.  A cookie sealed under one of
``SECRET_KEY_FALLBACKS`` still opens (a key rotation signs nobody out at once); one that is older
than the session lifetime, altered, or sealed under another key opens an empty session."""

from __future__ import annotations

import base64
import binascii
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from flask import Flask
from flask.json.tag import TaggedJSONSerializer
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import BadSignature, SignatureExpired

VERSION = "v1"
#: bound to every sealed cookie: a ciphertext made for something else never opens as a session
CONTEXT = b"arbiter session cookie v1"
NONCE_BYTES = 12


def cookie_key(secret: str | bytes) -> bytes:
    """The 256-bit cookie key derived from a server key (HKDF-SHA256): never the key itself."""
    material = secret.encode("utf-8") if isinstance(secret, str) else secret
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=CONTEXT).derive(material)


class SealedSerializer:
    """``dumps``/``loads`` as Flask's session interface calls them (``loads`` raises
    :class:`itsdangerous.BadSignature` for a cookie that does not open)."""

    def __init__(
        self, secrets: Sequence[str | bytes], clock: Callable[[], float] = time.time
    ) -> None:
        if not secrets:
            raise ValueError("a sealed cookie needs a server key")
        self._ciphers = [AESGCM(cookie_key(s)) for s in secrets]  # the current key first
        self._json = TaggedJSONSerializer()
        self.clock = clock

    def dumps(self, session: dict[str, Any]) -> str:
        nonce = os.urandom(NONCE_BYTES)
        plain = int(self.clock()).to_bytes(8, "big") + self._json.dumps(session).encode("utf-8")
        sealed = nonce + self._ciphers[0].encrypt(nonce, plain, CONTEXT)
        return f"{VERSION}.{base64.urlsafe_b64encode(sealed).rstrip(b'=').decode('ascii')}"

    def loads(self, cookie: str | bytes, max_age: int | None = None) -> dict[str, Any]:
        text = cookie.decode("ascii", "replace") if isinstance(cookie, bytes) else cookie
        version, _, body = text.partition(".")
        if version != VERSION or not body:
            raise BadSignature("not a sealed session cookie")
        try:
            sealed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        except (binascii.Error, ValueError):
            raise BadSignature("not a sealed session cookie") from None
        nonce, ciphertext = sealed[:NONCE_BYTES], sealed[NONCE_BYTES:]
        if len(nonce) < NONCE_BYTES:
            raise BadSignature("not a sealed session cookie")
        for cipher in self._ciphers:
            try:
                plain = cipher.decrypt(nonce, ciphertext, CONTEXT)
                break
            except InvalidTag:
                continue
        else:
            raise BadSignature("the session cookie does not open under the server's keys")
        sealed_at = int.from_bytes(plain[:8], "big")
        if max_age is not None and self.clock() - sealed_at > max_age:
            raise SignatureExpired("the session cookie is too old")
        session = self._json.loads(plain[8:].decode("utf-8"))
        if not isinstance(session, dict):
            raise BadSignature("not a session")
        return session


class CookieSessions(SecureCookieSessionInterface):
    """Flask's cookie sessions, sealed (:class:`SealedSerializer`) instead of only signed; the
    serializer is built once per key, not on every request (Flask builds its signer to open each
    request's session, cookie or not: a bearer-token command paid for it too)."""

    def __init__(self) -> None:
        self._built: tuple[Any, SealedSerializer] | None = None  # (its keys, the serializer)

    def get_signing_serializer(self, app: Flask) -> Any:
        if not app.secret_key:
            return None
        keys = (app.secret_key, *(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        built = self._built
        if built is None or built[0] != keys:
            built = self._built = (keys, SealedSerializer(keys))
        return built[1]
