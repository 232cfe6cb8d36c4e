"""E-mail through an SMTP server (``ARBITER_SMTP_URL``: ``smtp://[user:password@]host[:port]``,
or ``smtps://`` for TLS from the start; ``?starttls=1`` upgrades a plain connection)."""

from __future__ import annotations

import smtplib
from email.message import EmailMessage
from email.utils import formatdate
from urllib.parse import parse_qs, unquote, urlsplit

from service.config import ConfigError


class Mailer:
    def __init__(
        self, url: str, sender: str = "Arbiter <arbiter@localhost>", timeout: float = 10
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ConfigError(
                "ARBITER_SMTP_URL must look like smtp://host:port or smtps://host:port"
            )
        self.tls = parts.scheme == "smtps"
        self.host = parts.hostname
        self.port = parts.port or (465 if self.tls else 25)
        self.user = unquote(parts.username) if parts.username else None
        self.password = unquote(parts.password) if parts.password else None
        self.starttls = parse_qs(parts.query).get("starttls", ["0"])[0] in ("1", "true", "yes")
        self.sender = sender
        self.timeout = timeout

    def send(
        self,
        to: str,
        subject: str,
        text: str,
        *,
        key: str,
        headers: dict[str, str] | None = None,
    ) -> str:
        """Send one message whose Message-ID and ``X-Arbiter-Delivery`` carry ``key`` (the
        receiver drops a second copy of the same key).  Raises OSError / SMTPException."""
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = to
        message["Subject"] = subject
        message["Date"] = formatdate(localtime=False)
        message["Message-ID"] = f"<{key}@arbiter>"
        message["X-Arbiter-Delivery"] = key
        for name, value in (headers or {}).items():
            message[name] = value
        message.set_content(text)
        factory = smtplib.SMTP_SSL if self.tls else smtplib.SMTP
        with factory(self.host, self.port, timeout=self.timeout) as client:
            if self.starttls and not self.tls:
                client.starttls()
            if self.user:
                client.login(self.user, self.password or "")
            refused = client.send_message(message)
        if refused:
            raise smtplib.SMTPRecipientsRefused(refused)
        return "250 accepted"
