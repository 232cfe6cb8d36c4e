"""Stores grown from played games, for the benchmarks of read costs against history size.

:func:`build` makes (or finds in its cache) a store of ``games`` games in a directory holding what
``arbiter serve`` reads: ``var/`` (the SQLite event store, the notification process's store and
the persisted views) and ``keys/`` (the server key and the anchored heads), and ``meta.json``
(the users and their password, which games were played and which copied, the events' count).

How a store is made:

1. **Played.**  Through the application services (``service.bootstrap.build_services``, the
   services a server runs): 200 users (``hist000`` ... ``hist199``, one password), a club of 40 of
   them with a ladder (``barcelona``) and its results (reported and confirmed), 30 open seeks, and
   the golden games of the four shipped systems (``tests/golden/games``: complete games recorded by
   the fuzzer, replayed command by command with their own dice) -- eight ended games of 198 to
   1,705 events -- and two of them cut short (still being played).  One is a club game, one public.
   Then the notification process and the persisted views are brought up to the log, as a running
   server's worker keeps them.
2. **Copied.**  Every further game is a copy of one of the played ones, under a new id, bound to
   two other users (so each user plays about ``games / 100`` games, club games to club members):
   its event rows, its snapshots and its dice seed (``DiceSeed`` at ``seed_vault_id``), and the
   notices the notification process derived from it, with the game's id, the players' ids and
   names rewritten and nothing else (bulk ``executemany`` in large transactions straight into
   the SQLite tables).  Then the notification process's and the views' positions are set to the
   log's end, as if a worker had kept up.

What a copy is not: its events' hashes, seals and sealed commitments cover the original's game id
and players, so ``arbiter audit verify`` reports copies as tampered, and copies have no anchored
head.  A read (``GET /api/games/<id>``, lists, notifications) works as for the original.

The copies keep everything else: their events' times (a copy was created, played and ended when
its original was), their notices' texts and times.  The played store's two unfinished games are
played at random (fresh dice), so their lengths vary a little from one build to the next.

The cache: ``bench/.cache/history-<games>-<key>/`` (git-ignored; ``BENCH_HISTORY_CACHE`` elsewhere),
``key`` a hash of what shapes the stored rows: :data:`FORMAT` (raise it with any change to what
this module stores), ``service/domain``, ``service/rules``, ``service/fuzz``, the golden games and
eventsourcing's version.  A read-side change keeps the cache.  A change to what the application
derives and stores beside the events -- the notices (``service/application/notifications.py``),
the persisted views -- does not rebuild it either: ``BENCH_HISTORY_REBUILD=1`` does.  A store of
1,000 games takes about 1.1 GB, one of 10,000 about 11 GB.  SQLite only."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any

from service.bootstrap import build_services, build_worker
from service.config import Config
from service.domain.game import seed_vault_id
from service.fuzz.player import RandomPlayer
from service.fuzz.runner import identity

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "games"
SYSTEMS = ("merida", "backbone", "bizkaya", "barcelona")
CACHE = Path(os.environ.get("BENCH_HISTORY_CACHE") or Path(__file__).parent / ".cache")
PASSWORD = "history-password"
#: of the copies, one in this many is of an unfinished game (the rest of ended ones)
UNFINISHED_EVERY = 20
BATCH = 200_000  # rows per executemany
#: the cached stores' format: change it with any change here to what a store holds
FORMAT = 4
#: the tracking tables of the views that hold the copies (built after copying, not set to the head)
COPIED_VIEWS = (
    "games_tracking",
    "clubs_tracking",
    "notices_tracking",
    "disputes_tracking",
    "ladders_tracking",
)
Progress = Callable[[str], None]


def username(index: int) -> str:
    return f"hist{index:03d}"


def env_for(root: Path) -> dict[str, str]:
    """The environment of a server (or the CLI) on the store at ``root``, from ``os.environ``
    without its ``ARBITER_*``, PostgreSQL and Redis settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ARBITER_", "POSTGRES_")) and k != "REDIS_URL"
    }
    env.update(ARBITER_VAR=str(root / "var"), ARBITER_KEYS=str(root / "keys"))
    env["ARBITER_STORE"] = "sqlite"
    return env


# -- 1. played -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Recipe:
    """What is played before the copies (the default: the module's; a test plays less)."""

    users: int = 200
    club_members: int = 40
    ladder_players: int = 20
    ladder_results: int = 60
    seeks: int = 30
    #: golden games played to their end (``tests/golden/games/<name>.ndjson``)
    goldens: tuple[str, ...] = tuple(f"{s}-seed{k}" for s in SYSTEMS for k in (1, 2))
    #: games cut short: (system, commands) played at random (service.fuzz's RandomPlayer)
    unfinished: tuple[tuple[str, int], ...] = (("backbone", 40), ("barcelona", 25))
    #: the golden game played as a club game, and the one played as a public game
    club_game: str = "barcelona-seed1"
    public_game: str = "backbone-seed1"


@dataclass
class Played:
    """A game played through the services: its id, status, players (user ids) and events."""

    id: str
    name: str
    status: str
    players: list[str]
    club: bool
    events: int


def _golden(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return lines[0]["golden"], [m for m in lines[1:] if "command" in m]


def play(root: Path, recipe: Recipe, progress: Progress = print) -> dict[str, Any]:
    """Step 1 (see the module): users, a club and its ladder, seeks and the played games, in a new
    store at ``root``; returns what :func:`multiply` needs to know of them."""
    config = Config.from_env(env_for(root))
    svc = build_services(config)
    try:
        started = time.perf_counter()
        users = [svc.users.register(username(i), PASSWORD) for i in range(recipe.users)]
        progress(f"  {recipe.users} users ({time.perf_counter() - started:.1f} s)")
        founder = users[0]
        club = svc.clubs.create("History club", founder)
        for user in users[1 : recipe.club_members]:
            svc.clubs.add_member(str(club.id), founder, user.username, ["player"])
        ladder = svc.ladders.create(
            str(club.id), founder, name="History ladder", system="barcelona"
        )
        for user in users[: recipe.ladder_players]:
            svc.ladders.join(str(ladder.id), user)
        rng = random.Random(27)
        sides = svc.games.system("barcelona").scenarios()[0].sides
        scenario = svc.games.system("barcelona").scenarios()[0].id
        for _ in range(recipe.ladder_results):
            a, b = rng.sample(users[: recipe.ladder_players], 2)
            report = svc.ladders.report(
                str(ladder.id),
                a,
                sides={sides[0]: a.username, sides[1]: b.username},
                winner=rng.choice([sides[0], sides[1], None]),
                scenario=scenario,
            )
            svc.ladders.confirm(str(report.id), b)
        for i in range(recipe.seeks):
            system = SYSTEMS[i % len(SYSTEMS)]
            info = svc.games.system(system).scenarios()[0]
            svc.seeks.open(
                users[(i * 7) % recipe.users], system=system, scenario=info.id, side=info.sides[0]
            )
        progress(f"  club, ladder ({recipe.ladder_results} results), {recipe.seeks} seeks")
        played = [
            _play_golden(svc, recipe, users, club, i, GOLDEN / f"{name}.ndjson")
            for i, name in enumerate(recipe.goldens)
        ]
        half = recipe.users // 2
        for j, (system, commands) in enumerate(recipe.unfinished):
            seats = users[half + 2 * j : half + 2 * j + 2]
            played.append(_play_random(svc, seats, system, commands))
        for game in played:
            progress(f"  played {game.name}: {game.events} events, {game.status}")
        worker = build_worker(svc)  # as the server's worker would: notices and views
        worker.step()
        worker.stop()
        progress(f"  played and processed ({time.perf_counter() - started:.1f} s)")
        return {
            "users": {u.username: str(u.id) for u in users},
            "club_members": [str(u.id) for u in users[: recipe.club_members]],
            "played": [vars(g) for g in played],
        }
    finally:
        svc.close()


def _play_golden(
    svc: Any, recipe: Recipe, users: list[Any], club: Any, index: int, path: Path
) -> Played:
    head, moves = _golden(path)
    system, seed = head["system"], int(head["seed"])
    game_id, dice_seed = identity(system, seed)
    info = {s.id: s for s in svc.games.system(system).scenarios()}[head["scenario"]]
    in_club = path.stem == recipe.club_game
    pool = users[: recipe.club_members] if in_club else users
    seats = {side: pool[(2 * index + k) % len(pool)] for k, side in enumerate(info.sides)}
    creator = next(iter(seats.values()))
    labels = svc.lifecycle.labels_for(
        creator,
        [str(u.id) for u in seats.values()],
        system=system,
        scenario=head["scenario"],
        club=str(club.id) if in_club else None,
        public=path.stem == recipe.public_game,
    )
    game = svc.games.create(
        system=system,
        scenario=head["scenario"],
        sides={side: u.username for side, u in seats.items()},
        creator=creator,
        options=head.get("options") or None,
        labels=labels,
        seed=dice_seed,
        game_id=game_id,
    )
    for move in moves:
        game = svc.games.execute(
            game.id,
            seats[move["side"]],
            move["command"],
            expected_version=game.version,
            side=move["side"],
        ).game
    players = list(dict.fromkeys(str(u.id) for u in seats.values()))
    return Played(str(game.id), path.stem, game.status, players, in_club, game.version)


def _play_random(svc: Any, users: list[Any], system: str, commands: int) -> Played:
    info = svc.games.system(system).scenarios()[0]
    seats = {side: users[k] for k, side in enumerate(info.sides)}
    creator = next(iter(seats.values()))
    game = svc.games.create(
        system=system,
        scenario=info.id,
        sides={side: u.username for side, u in seats.items()},
        creator=creator,
        labels={"public": False},
    )
    player = RandomPlayer(random.Random(f"history:{system}"))
    done = 0
    while done < commands and game.status == "active":

        def actions_of(side: str, game: Any = game) -> Any:
            return svc.games.actions(game, seats[side], side)[1]

        move = player.next(game.active_sides(), actions_of)
        if move is None:
            break
        try:
            game = svc.games.execute(
                game.id,
                seats[move.side],
                move.command,
                expected_version=game.version,
                side=move.side,
            ).game
        except Exception:  # noqa: BLE001 - a some_of pick the rules refuse: pick again
            continue
        done += 1
    players = list(dict.fromkeys(str(u.id) for u in seats.values()))
    return Played(str(game.id), f"{system}-random", game.status, players, False, game.version)


# -- 2. copied -------------------------------------------------------------------------------------
class Template:
    """A played game's stored rows, each split at what a copy rewrites (its id, its players' ids
    and names), so that a copy is a join per row."""

    def __init__(self, game: Played, names: dict[str, str], main: Any, notes: Any) -> None:
        gid = uuid.UUID(game.id)
        self.game = game
        self.tokens = {str(gid): "id", gid.hex: "hex"}
        for i, player in enumerate(game.players):
            self.tokens[player] = f"player{i}"
            self.tokens[names[player]] = f"name{i}"
        pattern = re.compile(b"(" + b"|".join(re.escape(t.encode()) for t in self.tokens) + b")")
        self.pattern = pattern
        self.events = [
            (version, topic, self._split(state))
            for version, topic, state in main.execute(
                "SELECT originator_version, topic, state FROM stored_events "
                "WHERE originator_id = ? ORDER BY originator_version",
                (gid.hex,),
            )
        ]
        self.snapshots = [
            (version, topic, self._split(state))
            for version, topic, state in main.execute(
                "SELECT originator_version, topic, state FROM stored_snapshots "
                "WHERE originator_id = ?",
                (gid.hex,),
            )
        ]
        ((topic, state),) = main.execute(
            "SELECT topic, state FROM stored_events WHERE originator_id = ?",
            (seed_vault_id(gid).hex,),
        ).fetchall()
        self.seed = (topic, self._split(state))
        mark = f'"game":"{gid}"'.encode()
        self.notices = [
            (topic, self._split(state))
            for topic, state in notes.execute("SELECT topic, state FROM stored_events")
            if mark in state
        ]

    def _split(self, state: bytes) -> tuple[bytes | str, ...]:
        """The state's pieces: bytes kept, and the names (``id``, ``player0`` ...) of the tokens
        between them."""
        parts = self.pattern.split(state)
        return tuple(p if i % 2 == 0 else self.tokens[p.decode()] for i, p in enumerate(parts))

    def copy(self, values: dict[str, bytes]) -> Iterator[tuple[str, list[tuple[Any, ...]]]]:
        """The rows of one copy, per table: ``values`` maps each token's name to its new bytes."""
        gid = uuid.UUID(values["id"].decode())

        def fill(parts: tuple[bytes | str, ...]) -> bytes:
            return b"".join(p if isinstance(p, bytes) else values[p] for p in parts)

        yield "events", [(gid.hex, v, t, fill(s)) for v, t, s in self.events]
        yield "snapshots", [(gid.hex, v, t, fill(s)) for v, t, s in self.snapshots]
        yield "events", [(seed_vault_id(gid).hex, 1, self.seed[0], fill(self.seed[1]))]
        yield "notices", [(uuid.uuid4().hex, 1, t, fill(s)) for t, s in self.notices]


def pairs(count: int, pool: list[str]) -> Iterator[tuple[str, str]]:
    """``count`` pairs of two different players of ``pool``, each player in about as many."""
    size = len(pool)
    for i in range(count):
        first = i % size
        second = (first + 1 + (i // size) % (size - 1)) % size
        yield pool[first], pool[second]


def multiply(root: Path, meta: dict[str, Any], games: int, progress: Progress = print) -> None:
    """Step 2 (see the module): copies of the played games up to ``games`` games."""
    started = time.perf_counter()
    names = {uid: name for name, uid in meta["users"].items()}
    everyone = list(meta["users"].values())
    members = meta["club_members"]
    main = _connect(root / "var" / "arbiter.sqlite")
    notes = _connect(root / "var" / "notifications.sqlite")
    played = [Played(**g) for g in meta["played"]]
    templates = [Template(g, names, main, notes) for g in played]
    ended = [t for t in templates if t.game.status == "ended"]
    unfinished = [t for t in templates if t.game.status != "ended"]
    plan = [
        unfinished[(i // UNFINISHED_EVERY) % len(unfinished)]
        if i % UNFINISHED_EVERY == UNFINISHED_EVERY // 2
        else ended[i % len(ended)]
        for i in range(max(0, games - len(played)))
    ]
    club_pairs = pairs(sum(t.game.club for t in plan), members)
    other_pairs = pairs(sum(not t.game.club for t in plan), everyone)
    counts = dict.fromkeys(everyone, 0)
    for g in played:
        for uid in g.players:
            counts[uid] += 1
    buffers: dict[str, list[tuple[Any, ...]]] = {"events": [], "snapshots": [], "notices": []}
    copies: dict[str, list[str]] = {}
    copied = events = 0

    def flush() -> None:
        main.executemany("INSERT INTO stored_events VALUES (?, ?, ?, ?)", buffers["events"])
        main.executemany("INSERT INTO stored_snapshots VALUES (?, ?, ?, ?)", buffers["snapshots"])
        notes.executemany("INSERT INTO stored_events VALUES (?, ?, ?, ?)", buffers["notices"])
        for rows in buffers.values():
            rows.clear()

    main.execute("BEGIN")
    notes.execute("BEGIN")
    for template in plan:
        gid = uuid.uuid4()
        players = next(club_pairs if template.game.club else other_pairs)
        values = {"id": str(gid).encode(), "hex": gid.hex.encode()}
        for i, uid in enumerate(players[: len(template.game.players)]):
            values[f"player{i}"] = uid.encode()
            values[f"name{i}"] = names[uid].encode()
            counts[uid] += 1
        for table, rows in template.copy(values):
            buffers[table].extend(rows)
        copies[str(gid)] = [template.game.id, *players]
        copied += 1
        events += len(template.events)
        if len(buffers["events"]) >= BATCH:
            flush()
        if copied % 2000 == 0:
            progress(f"  {copied} copies, {events} events ({time.perf_counter() - started:.0f} s)")
    flush()
    last = main.execute("SELECT MAX(rowid) FROM stored_events").fetchone()[0]
    for db in (main, notes):  # every follower of the log has kept up, as a running worker does
        for (table,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%tracking'"
        ).fetchall():
            if table in COPIED_VIEWS:
                continue  # these views hold the copies: :func:`bring_views_up` builds them
            db.execute(
                f"UPDATE {table} SET notification_id = ? WHERE application_name = ?",  # noqa: S608
                (last, "arbiter"),
            )
    main.execute("COMMIT")
    notes.execute("COMMIT")
    for db in (main, notes):
        db.execute("PRAGMA journal_mode = WAL")  # as the store was (eventsourcing's default)
        db.close()
    meta["copied"] = copied
    meta["games"] = len(played) + copied
    meta["events"] = last
    meta["game_events"] = sum(g.events for g in played) + events
    meta["games_of"] = {names[uid]: n for uid, n in counts.items()}
    meta["copies"] = copies  # copy -> [the played game it copies, its players]
    progress(f"  {copied} copies, {events} events ({time.perf_counter() - started:.1f} s)")


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA cache_size = -1000000")  # 1 GB: the primary key's pages stay in memory
    # a build that dies is thrown away: no journal (in WAL, a transaction this large is written
    # twice, to the log and then to the file)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    return db


# -- the cache ------------------------------------------------------------------------------------
def code_key() -> str:
    """A hash of what shapes the stored rows (see the module)."""
    digest = hashlib.sha256(f"{FORMAT}|{package_version('eventsourcing')}".encode())
    files = list(GOLDEN.glob("*.ndjson"))
    for folder in ("domain", "rules", "fuzz"):
        files += (ROOT / "service" / folder).rglob("*.py")
    for path in sorted(files):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def build(
    games: int,
    *,
    recipe: Recipe | None = None,
    cache: Path | None = None,
    progress: Progress = print,
) -> Path:
    """The directory of a store of ``games`` games (``var/``, ``keys/``, ``meta.json``), from the
    cache or made now (then cached).  Read it, never write it: serve a copy (:func:`copy_to`)."""
    cache = cache or CACHE
    recipe = recipe or Recipe()
    key = code_key()
    if recipe != Recipe():
        key += "-" + hashlib.sha256(repr(recipe).encode()).hexdigest()[:8]
    target = cache / f"history-{games}-{key}"
    if (target / "meta.json").exists() and not os.environ.get("BENCH_HISTORY_REBUILD"):
        return target
    base = cache / f"history-played-{key}"
    if not (base / "meta.json").exists() or os.environ.get("BENCH_HISTORY_REBUILD"):
        progress(f"playing the games to copy (into {base})")
        shutil.rmtree(base, ignore_errors=True)
        partial = base.with_name(base.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        meta = play(partial, recipe, progress)
        (partial / "meta.json").write_text(json.dumps(meta, indent=1))
        partial.rename(base)
    meta = json.loads((base / "meta.json").read_text())
    progress(f"copying the played games up to {games} games (into {target})")
    shutil.rmtree(target, ignore_errors=True)
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    copy_to(base, partial)
    multiply(partial, meta, games, progress)
    bring_views_up(partial, progress)
    meta["key"] = key
    (partial / "meta.json").write_text(json.dumps(meta, indent=1))
    partial.rename(target)
    return target


def bring_views_up(root: Path, progress: Progress = print) -> None:
    """Build the persisted views that hold the copies (:data:`COPIED_VIEWS`) from the log, as
    a running worker keeps them (docs/upgrades.md: a large store's views are built before the
    doors open)."""
    from service.bootstrap import build_ports, open_process, open_store
    from service.views.catalog import Projections

    started = time.perf_counter()
    config = Config.from_env(env_for(root))
    store = open_store(config, build_ports(config))
    process = open_process(config, store)
    try:
        done = Projections(store, create_tables=True).run()
        done += process.views.run() if process.views is not None else 0
    finally:
        process.close()
        store.close()
    progress(f"  views built from {done} events ({time.perf_counter() - started:.0f} s)")


def copy_to(store: Path, where: Path) -> Path:
    """A copy of the store at ``store`` (its ``var``, ``keys`` and ``meta.json``) at ``where``, for
    a server to change."""
    where.mkdir(parents=True, exist_ok=True)
    for name in ("var", "keys"):
        shutil.copytree(store / name, where / name)
    if (store / "meta.json").exists():
        shutil.copy(store / "meta.json", where / "meta.json")
    return where


def meta_of(store: Path) -> dict[str, Any]:
    return dict(json.loads((store / "meta.json").read_text()))
