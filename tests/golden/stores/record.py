"""Record a golden store with an old version of Arbiter (tests/golden/stores/README.md).

Run it with the OLD code first on the path, from the old checkout::

    git worktree add --detach /tmp/old <commit>
    cd /tmp/old && PYTHONPATH=/tmp/old /work/<this worktree>/.venv/bin/python \\
        /work/<this worktree>/tests/golden/stores/record.py /work/<this worktree>/tests/golden/stores/<commit>

It writes ``arbiter.sqlite`` (the event store) and ``heads.sqlite`` (the anchored heads): the
server's whole state for these games, and ``shown.json``: what the old version showed of them, for the test to compare against.
It only uses services every version since the first ladders has (users, clubs, ladders,
challenges, games), so it runs on old commits unchanged."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

from service.bootstrap import build_services
from service.config import Config

SECRET = "golden-store-secret"  # the test opens the store with the same secret (seals, heads)
PASSWORD = "correct horse battery"
MOVES = 6  # commands played in the ladder game


def digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def first_command(template: dict[str, Any]) -> dict[str, Any]:
    """A template's command with its first pick of each choice (README: "take the first")."""
    command = {"type": template["type"], **template["fixed"]}
    for name, choice in template["choose"].items():
        if "one_of" in choice:
            command[name] = choice["one_of"][0]
        else:
            command[name] = choice["some_of"][: max(choice["min"], 1)]
    return command


def record(out: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp())  # var/ and keys/ for anything else a version writes
    config = Config(
        store="sqlite",
        var_dir=scratch / "var",
        keys_dir=scratch / "keys",
        sqlite_path=out / "arbiter.sqlite",
        heads_path=out / "heads.sqlite",
        secret_key=SECRET,
        snapshot_interval=4,  # so that the game has snapshots in the old shape too
        testing=True,
    )
    svc = build_services(config)
    try:
        ann = svc.users.register("ann", PASSWORD)
        bob = svc.users.register("bob", PASSWORD)
        club = svc.clubs.create("Golden Wargamers", ann)
        svc.clubs.add_member("Golden Wargamers", ann, "bob", ["player"])
        ladder = svc.ladders.create(
            str(club.id),
            ann,
            name="Merida ladder",
            system="merida",
            scenario="merida-1938",
            settings={"challenge_range": 5},
        )
        lid = str(ladder.id)
        svc.ladders.change_settings(lid, ann, {"takeback": "casual"})
        svc.ladders.join(lid, ann)
        svc.ladders.join(lid, bob)
        challenge = svc.ladders.challenge(lid, ann, "bob", side="republican")
        _accepted, game = svc.ladders.accept(str(challenge.id), bob)
        users = {str(ann.id): ann, str(bob.id): bob}
        for _ in range(MOVES):
            game = svc.games.get(game.id)
            side = game.active_sides()[0]
            player = users[game.sides[side]]  # side -> user id
            _side, actions = svc.games.actions(game, player, side)
            command = first_command(actions.templates[0].as_dict())
            svc.games.execute(game.id, player, command, expected_version=game.version, side=side)
        game = svc.games.get(game.id)
        ladder = svc.ladders.get(lid)
        shown = {
            "users": {u: str(svc.users.by_name(u).id) for u in ("ann", "bob")},
            "club": {"id": str(club.id), "name": "Golden Wargamers"},
            "ladder": {"id": lid, "settings": ladder.settings, "players": ladder.players},
            "challenge": str(challenge.id),
            "game": {
                "id": str(game.id),
                "system": game.system,
                "scenario": game.scenario,
                "sides": game.sides,
                "labels": game.labels,
                "version": game.version,
                "status": game.status,
                "moves": game.moves,
                "last_hash": game.last_hash,
                "state_digest": digest(game.state),
            },
            "audit": svc.audit.verify(game.id)["ok"],
        }
    finally:
        svc.close()
    shutil.rmtree(scratch)
    for name in ("arbiter.sqlite", "heads.sqlite"):  # one file each, no WAL beside it
        connection = sqlite3.connect(out / name)
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.execute("PRAGMA journal_mode=DELETE")
        connection.execute("VACUUM")
        connection.close()
    (out / "shown.json").write_text(json.dumps(shown, indent=2, sort_keys=True) + "\n")
    return shown


if __name__ == "__main__":
    print(json.dumps(record(Path(sys.argv[1])), indent=2))
