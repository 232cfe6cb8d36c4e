"""A whole server in one file: ``arbiter backup PATH`` writes it while the server runs, ``arbiter
restore PATH`` loads it into the store the environment configures (a SQLite backup into
PostgreSQL is how a club moves).

What a backup holds -- a gzipped tar, one member per part, each listed with its SHA-256 and its
row count in ``manifest.json`` (the first member; ``format``, ``format_version``, the source store's
kind, when it was taken, whether it holds the key, and ``mac``: an HMAC-SHA256 of all the rest
under :func:`backup_key`, a key derived from the server key under its own label):

- ``events.ndjson``: the event store's log in its order (eventsourcing's notifications: position,
  originator id and version, topic, state);
- ``notifications.ndjson`` and ``tracking.json``: the notification process's own log (notices and
  deliveries) and its position in the event store's log;
- ``heads.ndjson``: every game's signed anchored head (``service.adapters.heads``);
- ``keys/secret_key``: the server key, only with ``--with-keys``; and with it
  ``keys/vapid_private_key``, the key web pushes are signed with, when the server has one (a
  browser's push subscription is bound to it: restored elsewhere under another, every
  subscription would have to be made again).

The log holds the club's own secrets whatever the flag: password hashes, e-mail addresses, webhook
secrets, the dice seeds of running games; a backup is kept like the database (docs/operations.md).
The server key and what derives from it are in none but a ``--with-keys`` backup.

Snapshots are left out (a game is rebuilt from its events and snapshotted again), and so are the
knowledge-base index and Redis (both are rebuilt from the log).

**Consistent while the server runs.**  Each part is read as one consistent state of its store
(SQLite: the online backup API copies each file in one step under one read transaction, and the
copies are read; PostgreSQL: one REPEATABLE READ transaction reads the event log, the notification
log and the tracking position together).  The parts are read in this order:

1. the event store's last position (``heads_mark``), then the heads;
2. the notification process's log with its tracking position (one state: they are written
   together, so the position and the notices agree);
3. the event store's log.

Every part is behind the part read after it, never ahead: a head ahead of its log would read as a
rollback (``arbiter audit verify`` fails and every command on the game is refused) and notices
ahead of the log would tell of moves the restored store does not hold; a log ahead of its head is
an unanchored tail (the next commit anchors it) and a log ahead of the tracking position is simply
processed again by the notification worker (ids derive from the source event, so it derives the
same notices).  The restore writes in the same order reversed: events, then notices and tracking,
then heads.

**Restoring.**  The backup is read and checked whole before anything is written (every member's
checksum and count: a truncated or damaged file is refused), then its manifest's MAC under the key
(below; checksums anyone can recompute, the MAC only the key's holder), then the target (a store
or heads file that holds anything is refused, and one a restore did not finish:
``service.application.restoring`` marks the store before the first write and unmarks it once the
heads are written).  The events are appended through the
target's own recorder in their order, so positions are the target's own (a fresh database numbers
them as the backup did; the tracking position is carried over by the events' order, not by
number); notices likewise, the tracking position with the last of them.  Then each game's log is
verified against its restored head and the head moved forward to the log's end (as a commit
would): a head is only ever written where the log verifies through it.  A game with no head in the
backup is anchored only when it was created after the heads were read (its ``Game.Created`` is
after ``heads_mark``); any other problem is left as it was, for ``arbiter audit verify`` to show.

**The key.**  Seals inside the events and the heads' signatures are HMACs under a key derived from
``ARBITER_SECRET_KEY``: under another key no game would verify, so re-signing cannot be right (it
would launder whatever the backup holds).  A backup whose MAC does not verify under the server's
key is refused (made under another key, or altered); a server with no key yet takes a
``--with-keys`` backup's key only when told (``--take-key``) and when the MAC verifies under it."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import os
import shutil
import sqlite3
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from eventsourcing.persistence import Notification, StoredEvent, Tracking
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore, SQLiteProcessRecorder
from eventsourcing.utils import get_topic

from service.application import payloads
from service.application.backup_file import (
    EVENTS,
    FORMAT,
    FORMAT_VERSION,
    HEADS,
    KEY,
    LEADER,
    MANIFEST,
    NOTICES,
    TRACKING,
    VAPID_KEY,
    Backup,
    BackupError,
    authentic,
    backup_key,
    manifest_mac,
    open_backup,
)
from service.config import Config
from service.domain.chain import head_mac, seal_key_from_secret
from service.domain.conversations import Conversation
from service.domain.game import Game

#: the rows written (or read) at a time
BATCH = 500
_HEAD_FIELDS = ("game", "version", "hash", "at", "mac")
_CREATED = get_topic(Game.Created)
_OPENED = get_topic(Conversation.Opened)


# -- reading a running store ---------------------------------------------------------------------
@dataclass
class Snapshot:
    """A store's parts as read for a backup (see the module for the order)."""

    store: str
    #: the heads file the heads were read from, or the heads database's name (named when it
    #: holds none)
    heads_path: Path | str
    heads_mark: int
    heads: list[dict[str, Any]]
    tracking: int | None
    notices: Callable[[], Iterator[Notification]]
    events: Callable[[], Iterator[Notification]]


def _paged(select: Callable[..., Any]) -> Iterator[Notification]:
    after = 0
    while True:
        page = select(start=after, limit=BATCH, inclusive_of_start=False)
        yield from page
        if len(page) < BATCH:
            return
        after = page[-1].id


def read_only(path: Path, timeout: float = 30) -> sqlite3.Connection:
    """A read-only connection to the live SQLite file ``path``: the backup never writes the store
    (no checkpoint of its -wal, no recovery, never a file made); -wal and -shm files SQLite makes
    to read a WAL database are given the database's owner (SQLite does so when run as root)."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=timeout)


def _online_copy(source: Path, target: Path) -> bool:
    """Copy SQLite file ``source`` to ``target`` with the online backup API, in one step (one read
    transaction: a consistent state while the server writes).  False when there is no file."""
    if not source.exists():
        return False
    src = read_only(source)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()
    return True


def _sqlite_heads(path: Path, *, live: bool = False) -> list[dict[str, Any]]:
    """The heads in the heads file ``path`` (``live``: the server's own, read read-only)."""
    if live and not path.exists():
        return []
    conn = read_only(path) if live else sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT game, version, hash, at, mac FROM heads ORDER BY game"
        ).fetchall()
    except sqlite3.OperationalError:
        return []  # a heads file with no table yet: no head
    finally:
        conn.close()
    return [dict(zip(_HEAD_FIELDS, row, strict=True)) for row in rows]


def _postgres_heads(url: str) -> list[dict[str, Any]]:
    """The heads in the heads database ``url`` (``ARBITER_HEADS=postgresql://…``), read only."""
    import psycopg

    with psycopg.connect(url, connect_timeout=10) as conn:
        conn.read_only = True
        try:
            rows = conn.execute(
                "SELECT game, version, hash, at, mac FROM arbiter_heads ORDER BY game"
            ).fetchall()
        except psycopg.errors.UndefinedTable:
            return []  # a heads database no server has opened yet: no head
    return [dict(zip(_HEAD_FIELDS, row, strict=True)) for row in rows]


def _live_heads(config: Config) -> list[dict[str, Any]]:
    """The server's heads as they are now, wherever ``ARBITER_HEADS`` keeps them."""
    if config.heads_url:
        return _postgres_heads(config.heads_url)
    heads = config.heads_file
    if not heads.exists() or not heads.stat().st_size:
        return []
    return _sqlite_heads(heads, live=True)


@contextlib.contextmanager
def sqlite_snapshot(config: Config, staging: Path) -> Iterator[Snapshot]:
    """A running SQLite server's parts: each file copied by SQLite's online backup into
    ``staging`` (heads, then notifications, then events), and the copies read."""
    if not config.sqlite_file.exists():
        raise BackupError(f"there is no store at {config.sqlite_file}: nothing to back up")
    source = read_only(config.sqlite_file)
    try:
        mark = _max_rowid(source)
    finally:
        source.close()
    heads = staging / "heads.sqlite"
    notices = staging / "notifications.sqlite"
    events = staging / "arbiter.sqlite"
    if config.heads_url:
        rows = _postgres_heads(config.heads_url)
    else:
        rows = _sqlite_heads(heads) if _online_copy(config.heads_file, heads) else []
    has_notices = _online_copy(config.sqlite_file.with_name("notifications.sqlite"), notices)
    _online_copy(config.sqlite_file, events)
    stores = [SQLiteDatastore(str(events))]
    try:
        leader = SQLiteApplicationRecorder(stores[0])
        process = None
        if has_notices:
            stores.append(SQLiteDatastore(str(notices)))
            process = SQLiteProcessRecorder(stores[1])
        yield Snapshot(
            store="sqlite",
            heads_path=config.heads_place,
            heads_mark=mark,
            heads=rows,
            tracking=_tracking(process),
            notices=lambda: _paged(process.select_notifications) if process else iter(()),
            events=lambda: _paged(leader.select_notifications),
        )
    finally:
        for store in stores:
            store.close()


def _max_rowid(conn: sqlite3.Connection) -> int:
    try:
        return int(conn.execute("SELECT MAX(rowid) FROM stored_events").fetchone()[0] or 0)
    except sqlite3.OperationalError:
        return 0


def _tracking(process: Any) -> int | None:
    if process is None:
        return None
    try:
        found = process.max_tracking_id(LEADER)
    except Exception:  # noqa: BLE001 - a notifications file with no tracking table yet
        return None
    return int(found) if found else None


@contextlib.contextmanager
def postgres_snapshot(config: Config, leader: Any, notices: Any) -> Iterator[Snapshot]:
    """A running PostgreSQL server's parts: the heads (after the log's last position; the heads
    file read read-only), then the notification log, its tracking position and the event log in one
    REPEATABLE READ transaction (one state of the database), read from the tables of the event
    store's recorder ``leader`` and the notification process's ``notices``."""
    import psycopg
    from psycopg.rows import dict_row
    from psycopg.sql import SQL, Identifier

    mark = int(leader.max_notification_id() or 0)
    heads = _live_heads(config)
    schema = leader.datastore.schema

    def table(name: str) -> Any:
        return Identifier(schema, name)

    with psycopg.connect(
        dbname=config.postgres_dbname,
        host=config.postgres_host,
        port=config.postgres_port,
        user=config.postgres_user,
        password=config.postgres_password,
        row_factory=dict_row,
    ) as conn:
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        conn.read_only = True
        with conn.transaction():
            found = conn.execute(
                SQL("SELECT notification_id FROM {} WHERE application_name = %s").format(
                    table(notices.tracking_table_name)
                ),
                (LEADER,),
            ).fetchone()

            def rows(name: str) -> Iterator[Notification]:
                statement = SQL(
                    "SELECT notification_id, originator_id, originator_version, topic, state "
                    "FROM {} ORDER BY notification_id"
                ).format(table(name))
                with conn.cursor(name=f"backup_{name}") as curs:
                    curs.itersize = BATCH
                    for row in curs.execute(statement):
                        yield Notification(
                            id=row["notification_id"],
                            originator_id=row["originator_id"],
                            originator_version=row["originator_version"],
                            topic=row["topic"],
                            state=bytes(row["state"]),
                        )

            yield Snapshot(
                store="postgres",
                heads_path=config.heads_place,
                heads_mark=mark,
                heads=heads,
                tracking=int(found["notification_id"]) if found else None,
                notices=lambda: rows(notices.events_table_name),
                events=lambda: rows(leader.events_table_name),
            )


# -- the file ------------------------------------------------------------------------------------
def _line(note: Notification) -> bytes:
    return (
        json.dumps(
            {
                "position": note.id,
                "originator_id": str(note.originator_id),
                "originator_version": note.originator_version,
                "topic": note.topic,
                "state": base64.b64encode(note.state).decode("ascii"),
            },
            separators=(",", ":"),
        ).encode()
        + b"\n"
    )


@dataclass
class _Part:
    name: str
    path: Path
    rows: int = 0
    digest: Any = field(default_factory=hashlib.sha256)

    def write(self, handle: IO[bytes], data: bytes, rows: int = 1) -> None:
        handle.write(data)
        self.digest.update(data)
        self.rows += rows

    def describe(self) -> dict[str, Any]:
        return {
            "sha256": self.digest.hexdigest(),
            "bytes": self.path.stat().st_size,
            "rows": self.rows,
        }


def write_backup(
    path: Path,
    snapshot: Snapshot,
    *,
    secret: str,
    with_keys: bool,
    staging: Path,
    push_key: str | None = None,
) -> dict[str, Any]:
    """Write ``snapshot`` to the new file ``path``, owner-only; returns the manifest.

    Refused (nothing written) when the store held games when the heads were read but the heads
    file is missing or holds none: a backup without them restores games no head anchors (a
    mis-set ARBITER_KEYS or ARBITER_HEADS, most likely).  The file is written in the private
    ``staging`` folder and linked into place when whole: a link never replaces a file (one made
    meanwhile is kept, and the backup refused), and nothing in a shared folder can redirect it."""
    parts: dict[str, _Part] = {}

    def part(name: str) -> _Part:
        parts[name] = _Part(name, staging / name.replace("/", "_"))
        return parts[name]

    with open((p := part(NOTICES)).path, "wb") as handle:
        for note in snapshot.notices():
            p.write(handle, _line(note))
    with open((p := part(TRACKING)).path, "wb") as handle:
        p.write(handle, json.dumps({LEADER: snapshot.tracking}).encode() + b"\n")
    with open((p := part(HEADS)).path, "wb") as handle:
        for head in snapshot.heads:
            row = {k: head[k] for k in _HEAD_FIELDS}
            p.write(handle, json.dumps(row, separators=(",", ":")).encode() + b"\n")
    with open((p := part(EVENTS)).path, "wb") as handle:
        for note in snapshot.events():
            p.write(handle, _line(note))
    games, anchored = _count_games(parts[EVENTS].path, snapshot.heads_mark)
    if anchored and not parts[HEADS].rows:
        where = snapshot.heads_path
        state = "empty" if not isinstance(where, Path) or where.exists() else "missing"
        raise BackupError(
            f"the store holds {anchored} games but the heads store {where} is {state}: is "
            "ARBITER_KEYS (or ARBITER_HEADS) the server's? A backup without the heads could not "
            "be verified; nothing was written"
        )
    if with_keys:
        with open((p := part(KEY)).path, "wb") as handle:
            p.write(handle, secret.encode())
        if push_key:  # the web push key (``Config.push_key``), when the server has made one
            with open((p := part(VAPID_KEY)).path, "wb") as handle:
                p.write(handle, push_key.encode())
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "source": {"store": snapshot.store},
        "keys_included": with_keys,
        "heads_mark": snapshot.heads_mark,
        "counts": {
            "games": games,
            "events": parts[EVENTS].rows,
            "notifications": parts[NOTICES].rows,
            "heads": parts[HEADS].rows,
        },
        "files": {name: p.describe() for name, p in parts.items()},
    }
    manifest["mac"] = manifest_mac(manifest, secret)
    whole = staging / "backup.partial"
    descriptor = os.open(whole, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
        _add(tar, MANIFEST, json.dumps(manifest, indent=2, sort_keys=True).encode() + b"\n")
        for name, p in parts.items():
            with open(p.path, "rb") as member:
                info = tarfile.TarInfo(name)
                info.size, info.mode = p.path.stat().st_size, 0o600
                tar.addfile(info, member)
        raw.flush()
        os.fsync(raw.fileno())
    try:
        os.link(whole, path)  # never over a file, nor through a symlink: it fails if path exists
    except FileExistsError:
        raise BackupError(f"{path} appeared meanwhile: not overwritten") from None
    _sync_folder(path.parent)
    return manifest


def _sync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    except OSError:  # pragma: no cover - a file system that cannot sync a folder
        pass
    finally:
        os.close(descriptor)


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), 0o600
    tar.addfile(info, io.BytesIO(data))


def _count_games(events: Path, mark: int) -> tuple[int, int]:
    """The games the log holds, and how many of them it held when the heads were read."""
    games = anchored = 0
    with open(events, "rb") as handle:
        for line in handle:
            row = json.loads(line)
            if row["topic"] == _CREATED:
                games += 1
                anchored += int(row["position"]) <= mark
    return games, anchored


# -- restoring -----------------------------------------------------------------------------------
def key_for_restore(backup: Backup, secret: str | None, *, take_key: bool = False) -> str:
    """The server key a restore runs under, once the backup's manifest is authenticated under it.

    ``secret`` is the server's own key (its ``ARBITER_SECRET_KEY`` or its keys folder's
    ``secret_key``; None: it has none yet): the manifest's MAC must verify under it, else the
    backup was made under another key or altered since.  A server with no key takes the one a
    ``--with-keys`` backup holds only when asked (``take_key``), and only when the manifest's MAC
    verifies under that very key: whoever wrote the file chose that key, so it is for a backup
    the operator made and kept."""
    altered = (
        f"{backup.path} was not made under this server's key, or was altered after it was made "
        "(its signature does not verify)"
    )
    if secret is not None:
        if take_key:
            raise BackupError(
                "this server has a key already (ARBITER_SECRET_KEY or its keys folder's "
                "secret_key): --take-key is only for a server with no key yet"
            )
        if not authentic(backup.manifest, secret):
            raise BackupError(
                f"{altered}: restore it under the key of the server that made it (its "
                "ARBITER_SECRET_KEY, or its keys folder's secret_key file)"
            )
        return secret
    carried = backup.secret
    if carried is None:
        raise BackupError(
            "this server has no key yet and the backup holds none: give it the old server's key "
            "(ARBITER_SECRET_KEY, or its keys folder's secret_key file), or restore a backup taken "
            "with --with-keys"
        )
    if not take_key:
        raise BackupError(
            "this server has no key yet; the backup holds one. Pass --take-key to make it this "
            "server's key (only for a backup you made and kept safe yourself: whoever wrote the "
            "file chose that key), or give the server the old key (ARBITER_SECRET_KEY, or its "
            "keys folder's secret_key file)"
        )
    if not authentic(backup.manifest, carried):
        raise BackupError(altered.replace("this server's key", "the key it holds"))
    return carried


def check_heads(backup: Backup, secret: str) -> None:
    """Every head of the backup signed under ``secret`` (a forged or damaged head is refused
    before anything is written)."""
    key = seal_key_from_secret(secret)
    for head in backup.heads():
        if head.get("mac") != head_mac(key, head["game"], int(head["version"]), head["hash"]):
            raise BackupError(
                f"{backup.path}: the anchored head of game {head['game']} is not signed by the "
                "server key (damaged or forged); nothing was restored"
            )


def check_events(backup: Backup, mapper: Any) -> None:
    """Every event of the backup what its type declares (``service.application.payloads``), read
    with ``mapper`` (the target store's) before anything is written: an event a view could not
    take is refused here, naming its position and fields, as a commit or an import refuses it."""
    for position, stored in backup.notes(EVENTS):
        try:
            event = mapper.to_domain_event(stored)
        except Exception as exc:  # noqa: BLE001 - a topic or state this server cannot read
            raise BackupError(
                f"{backup.path}: the event at position {position} cannot be read here "
                f"({type(exc).__name__}: {exc}); nothing was restored"
            ) from None
        wrong = payloads.problems(event)
        if wrong:
            said = "; ".join(f"{name}: {' '.join(why)}" for name, why in sorted(wrong.items()))
            raise BackupError(
                f"{backup.path}: the event at position {position} ({type(event).__qualname__}) "
                f"is not what its type declares ({said}); nothing was restored"
            )


def occupied(config: Config, store: Callable[[], Any], process: Callable[[], Any]) -> list[str]:
    """What the target already holds (empty: it may be restored into), read without writing:
    SQLite files are read read-only and those that do not exist are not opened; ``store`` and
    ``process`` open the PostgreSQL store and notification process without creating tables."""
    found: list[str] = []
    if config.store == "sqlite":
        for path in (config.sqlite_file, config.sqlite_file.with_name("notifications.sqlite")):
            if path.exists() and path.stat().st_size:
                conn = read_only(path)
                try:
                    if _max_rowid(conn):
                        found.append(f"{path} already holds events")
                    with contextlib.suppress(sqlite3.OperationalError):  # no tracking table
                        if conn.execute("SELECT 1 FROM tracking LIMIT 1").fetchone():
                            found.append(f"{path} holds a notification worker's position")
                finally:
                    conn.close()
    else:
        for opened in (store(), process()):
            try:
                found += _holds(f"the {config.postgres_dbname} database", opened.recorder)
            finally:
                opened.close()
    if count := len(_live_heads(config)):
        found.append(f"{config.heads_place} holds {count} anchored heads")
    return found


def _holds(where: str, recorder: Any) -> list[str]:
    try:
        last = recorder.max_notification_id()
    except Exception:  # noqa: BLE001 - no table yet: nothing held
        last = None
    tracked = _tracking(recorder) if hasattr(recorder, "max_tracking_id") else None
    found = [f"{where} already holds events"] if last else []
    if tracked:
        found.append(f"{where} holds a notification worker's position")
    return found


@dataclass
class Restored:
    events: int = 0
    notifications: int = 0
    heads: int = 0
    anchored: int = 0
    tracking: int | None = None
    left_alone: list[str] = field(default_factory=list)
    #: each game's ``Game.Created`` position in the backup's log
    created: dict[str, int] = field(default_factory=dict)
    #: each game's conversation's ``Conversation.Opened`` position, by the game
    opened: dict[str, int] = field(default_factory=dict)


def load(backup: Backup, store: Any, process: Any, heads: Any) -> Restored:
    """Write the backup into the (empty, checked) target: events, then notices with the tracking
    position, then heads as they were signed (the caller then :func:`anchor`\\ s them)."""
    done = Restored()
    tracked, mapped = backup.tracking, None
    batch: list[tuple[int, StoredEvent]] = []

    def flush() -> None:
        nonlocal mapped
        positions = store.recorder.insert_events([event for _, event in batch])
        for (old, _), new in zip(batch, positions or (), strict=True):
            if tracked is not None and old <= tracked:
                mapped = new
        done.events += len(batch)
        batch.clear()

    for old, event in backup.notes(EVENTS):
        if event.topic == _CREATED:
            done.created[str(event.originator_id)] = old
        elif event.topic == _OPENED:
            done.opened[str(event.originator_id)] = old
        batch.append((old, event))
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    if tracked is not None and mapped is None:
        raise BackupError(f"{backup.path}: its tracking position is not in its log (damaged)")
    done.tracking = mapped
    notices: list[StoredEvent] = []
    tracking = Tracking(LEADER, mapped) if mapped is not None else None
    for _, event in backup.notes(NOTICES):
        notices.append(event)
        if len(notices) >= BATCH:
            process.recorder.insert_events(notices)
            done.notifications += len(notices)
            notices = []
    if notices:
        process.recorder.insert_events(notices, tracking=tracking)
        done.notifications += len(notices)
    elif tracking is not None:
        process.recorder.insert_tracking(tracking)
    for head in backup.heads():
        heads.restore(head)
        done.heads += 1
    return done


def anchor(
    backup: Backup, done: Restored, heads: Any, verify: Callable[[str], dict[str, Any]]
) -> None:
    """Move each restored game's head to its log's end where the log verifies through the head the
    backup holds (or, for a game created after the heads were read, where it verifies but for its
    missing head); leave any other game as it is, named in ``done.left_alone``."""
    mark = int(backup.manifest.get("heads_mark") or 0)
    for game, position in done.created.items():
        report = verify(game)
        if _anchorable(report, position > mark):
            heads.record(game, int(report["anchor"]["log_ends_at"]), report["head"])
            done.anchored += 1
        else:
            first = {} if not report["problems"] else report["first_bad"] or {}
            done.left_alone.append(f"{game}: {first.get('reason', 'does not verify')}")
        chat = report.get("conversation")  # the game's chat, anchored the same way
        if chat is None:
            continue
        if _anchorable(chat, done.opened.get(chat["conversation"], 0) > mark):
            heads.record(chat["conversation"], int(chat["anchor"]["log_ends_at"]), chat["head"])
        else:
            first = chat["first_bad"] or {}
            done.left_alone.append(f"{game}'s chat: {first.get('reason', 'does not verify')}")


def _anchorable(report: dict[str, Any], after_the_heads: bool) -> bool:
    """Whether a restored log's head may be moved to its end: the log verifies through the head
    the backup holds, or (begun after the heads were read) verifies but for its missing head.
    Only the log's own problems count (a game's report names its chat's apart)."""
    state = report.get("anchor") or {}
    missing_only = bool(
        state.get("checked")
        and state.get("head") is None
        and len(report["problems"]) == 1
        and after_the_heads
    )
    return not report["problems"] or missing_only


def adopt_key(config: Config, secret: str) -> None:
    """Keep ``secret`` as the server's key in its keys folder (owner-only), as a new server does."""
    path = config.keys / "secret_key"
    config.keys.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(secret)


def adopt_push_key(config: Config, key: str | None) -> bool:
    """Keep a backup's web push key as the server's when the server has none yet (no
    ``ARBITER_VAPID_PRIVATE_KEY``, no ``vapid_private_key`` in its keys folder), so the browsers
    subscribed to the old server keep receiving; whether it was taken."""
    from service.config import VAPID_FILE, raw_vapid_key

    path = config.keys / VAPID_FILE
    if not key or config.vapid_private_key or path.exists() or raw_vapid_key(key) is None:
        return False
    config.keys.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key)
    return True


@contextlib.contextmanager
def staging_beside(path: Path) -> Iterator[Path]:
    """A private scratch folder beside ``path`` (same file system; removed after)."""
    folder = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


#: the public names, those of a backup file (:mod:`backup_file`) among them: the command line and
#: the tests import them from here
__all__ = [
    "Backup",
    "BackupError",
    "Restored",
    "Snapshot",
    "adopt_key",
    "adopt_push_key",
    "anchor",
    "authentic",
    "backup_key",
    "check_events",
    "check_heads",
    "key_for_restore",
    "load",
    "manifest_mac",
    "occupied",
    "open_backup",
    "postgres_snapshot",
    "read_only",
    "sqlite_snapshot",
    "staging_beside",
    "write_backup",
]
