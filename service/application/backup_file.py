"""What a backup file is: its format and parts, its manifest and the manifest's signature
(:func:`manifest_mac`), and reading a backup whole and checking it (:func:`open_backup`).  How a
backup is taken and restored, and why, is :mod:`service.application.backup`'s."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from service.domain.digests import same_secret

FORMAT = "arbiter-backup"
FORMAT_VERSION = 2
#: the label the manifest's MAC key is derived from the server key under (apart from the seals')
BACKUP_LABEL = b"arbiter-backup-v1"
#: the name the notification process tracks the event store's log by (``ArbiterStore.name``)
LEADER = "arbiter"
MANIFEST = "manifest.json"
EVENTS = "events.ndjson"
NOTICES = "notifications.ndjson"
TRACKING = "tracking.json"
HEADS = "heads.ndjson"
KEY = "keys/secret_key"
VAPID_KEY = "keys/vapid_private_key"
PARTS = (EVENTS, NOTICES, TRACKING, HEADS)


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why and what to do."""


def backup_key(secret: str) -> bytes:
    """The key a backup's manifest is signed with: derived from the server key under its own label
    (never the key itself, nor the seals' key)."""
    return hmac.new(secret.encode("utf-8"), BACKUP_LABEL, hashlib.sha256).digest()


def manifest_mac(manifest: dict[str, Any], secret: str) -> str:
    """The MAC of ``manifest`` (all of it but its ``mac``: every part's SHA-256, size and rows, the
    counts, the format) under :func:`backup_key`."""
    body = {k: v for k, v in manifest.items() if k != "mac"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(backup_key(secret), text, hashlib.sha256).hexdigest()


def authentic(manifest: dict[str, Any], secret: str) -> bool:
    return same_secret(manifest_mac(manifest, secret), str(manifest.get("mac", "")))


@dataclass
class Backup:
    """A backup read whole and checked (its members in ``folder``)."""

    path: Path
    manifest: dict[str, Any]
    folder: Path

    @property
    def secret(self) -> str | None:
        key = self.folder / KEY.replace("/", "_")
        return key.read_text() if key.exists() else None

    @property
    def push_key(self) -> str | None:
        """The web push (VAPID) private key a ``--with-keys`` backup holds, if any."""
        key = self.folder / VAPID_KEY.replace("/", "_")
        return key.read_text().strip() if key.exists() else None

    def lines(self, name: str) -> Iterator[dict[str, Any]]:
        with open(self.folder / name, "rb") as handle:
            for line in handle:
                yield json.loads(line)

    def notes(self, name: str) -> Iterator[tuple[int, StoredEvent]]:
        for row in self.lines(name):
            yield (
                int(row["position"]),
                StoredEvent(
                    originator_id=UUID(row["originator_id"]),
                    originator_version=int(row["originator_version"]),
                    topic=row["topic"],
                    state=base64.b64decode(row["state"]),
                ),
            )

    @property
    def tracking(self) -> int | None:
        found = json.loads((self.folder / TRACKING).read_text()).get(LEADER)
        return int(found) if found else None

    def heads(self) -> list[dict[str, Any]]:
        return list(self.lines(HEADS))


def open_backup(path: Path, folder: Path) -> Backup:
    """Read the backup at ``path`` into ``folder`` and check it whole: every member its manifest
    lists, with its checksum and row count, and nothing else.  A damaged, truncated or foreign
    file is refused with a :class:`BackupError` that says so."""
    if not path.is_file():
        raise BackupError(f"there is no backup file at {path}")
    damaged = f"{path} is not a whole Arbiter backup"
    try:
        manifest, found = _extract(path, folder, damaged)
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise BackupError(f"{damaged} (truncated or damaged: {exc})") from None
    if manifest is None:
        raise BackupError(f"{damaged}: it has no manifest")
    listed = manifest.get("files") or {}
    for name, described in listed.items():
        if name not in found:
            raise BackupError(f"{damaged}: {name} is missing (truncated?)")
        if found[name] != (described.get("sha256"), described.get("bytes")):
            raise BackupError(f"{damaged}: {name} does not match its checksum (damaged)")
    extra = set(found) - set(listed)
    if extra or not set(PARTS) <= set(listed):
        raise BackupError(f"{damaged}: its parts are not the ones its manifest lists")
    backup = Backup(path, manifest, folder)
    _check_rows(backup, listed, damaged)
    return backup


def _extract(
    path: Path, folder: Path, damaged: str
) -> tuple[dict[str, Any] | None, dict[str, tuple[str, int]]]:
    """The manifest (None: there is none) and each other member, written into ``folder``, with
    its SHA-256 and size; a member no backup holds is refused (``damaged`` says what the file
    is not)."""
    found: dict[str, tuple[str, int]] = {}
    manifest: dict[str, Any] | None = None
    with tarfile.open(path, mode="r:gz") as tar:
        for member in tar:
            if member.name == MANIFEST and member.isfile():
                manifest = _manifest(tar, member, path)
                continue
            if member.name not in (*PARTS, KEY, VAPID_KEY) or not member.isfile():
                raise BackupError(f"{damaged}: it holds {member.name!r}, which no backup does")
            source = tar.extractfile(member)
            assert source is not None
            digest = hashlib.sha256()
            with source, open(folder / member.name.replace("/", "_"), "wb") as out:
                while chunk := source.read(1 << 20):
                    digest.update(chunk)
                    out.write(chunk)
            found[member.name] = (digest.hexdigest(), member.size)
    return manifest, found


def _check_rows(backup: Backup, listed: dict[str, Any], damaged: str) -> None:
    """Each line-per-row part readable, with the rows its manifest counts."""
    for name in (EVENTS, NOTICES, HEADS):
        try:
            rows = sum(1 for _ in backup.lines(name))
        except (ValueError, UnicodeDecodeError):
            raise BackupError(f"{damaged}: {name} is not readable") from None
        if rows != listed[name].get("rows"):
            raise BackupError(f"{damaged}: {name} has {rows} rows, its manifest says otherwise")


def _manifest(tar: tarfile.TarFile, member: tarfile.TarInfo, path: Path) -> dict[str, Any]:
    source = tar.extractfile(member)
    assert source is not None
    try:
        manifest = json.loads(source.read())
    except ValueError:
        raise BackupError(
            f"{path} is not a whole Arbiter backup: its manifest is unreadable"
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(f"{path} is not an Arbiter backup (its manifest names no such format)")
    version = manifest.get("format_version")
    if version == 1:
        raise BackupError(
            f"{path} is an Arbiter backup of format 1, which is not signed (anyone who could "
            "write the file could have changed it unseen); this Arbiter restores format "
            f"{FORMAT_VERSION}, signed under the server key: take a new backup with this version, "
            "or restore it with the version that made it"
        )
    if version != FORMAT_VERSION:
        raise BackupError(
            f"{path} is an Arbiter backup of format {version}; this Arbiter reads format "
            f"{FORMAT_VERSION} (restore it with the version that made it)"
        )
    return manifest
