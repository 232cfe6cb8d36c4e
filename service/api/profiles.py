"""A player's profile: their games, clubs, ladder ratings and rating history."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.api.auth import optional_user, services
from service.api.blueprint import Blueprint
from service.views.games import PAGE_MAX, GameQuery

blp = Blueprint("profiles", __name__, url_prefix="/api/users", description="Player profiles")


@blp.route("/<username>/profile")
class Profile(MethodView):
    @blp.response(200)
    def get(self, username: str) -> dict[str, Any]:
        """The latest 100 games the caller may read (newest first), clubs, and per ladder (the
        first 100 by name) the rating, rank and rating history; the record counts the games
        listed, and ``luck`` the player's luck in those of them that are over (each game's figure
        for the sides they played, and the sums by unit: docs/review.md)."""
        svc = services()
        user = svc.users.by_name(username)
        uid = str(user.id)
        games = []
        listed = []
        query = GameQuery(reader=svc.index.reader(optional_user()), player=uid)
        readable, _ = svc.index.page(query, limit=PAGE_MAX)  # the latest the caller may read
        for row in readable:
            if row["status"] == "declined":
                continue
            listed.append(row)
            mine = [side for side, u in row["sides"].items() if u == uid]
            games.append(
                {
                    "id": row["id"],
                    "title": row["title"],
                    "system": row["system"],
                    "status": row["status"],
                    "sides": {s: svc.users.username(u) for s, u in row["sides"].items()},
                    "played": mine,
                    "result": row["result"],
                    "created_at": row["created_at"],
                    "ended_at": row.get("ended_at"),
                }
            )
        clubs: list[dict[str, Any]] = []
        for club_id in svc.clubs.clubs_of(uid):
            found = svc.clubs.get(club_id)
            clubs.append(
                {"id": club_id, "name": found.name, "roles": sorted(found.members.get(uid, []))}
            )
        clubs.sort(key=lambda c: str(c["name"]).lower())
        ladders = []
        for ladder in svc.ladders.of_player_page(user, limit=PAGE_MAX)[0]:
            me = ladder.get("me") or {}
            ladders.append(
                {
                    "id": ladder["id"],
                    "name": ladder["name"],
                    "system": ladder["system"],
                    "rank": me.get("rank"),
                    "rating": me.get("rating"),
                    "deviation": me.get("deviation"),
                    "history": svc.ladders.history(ladder["id"], user.username),
                }
            )
        # luck across the listed games that are over (their readers see every side's then)
        luck = svc.reviews.profile_luck(
            [{**g, "sides": dict(r["sides"])} for g, r in zip(games, listed, strict=True)], uid
        )
        ended = [g for g in games if g["status"] == "ended"]
        won = sum(1 for g in ended if (g["result"] or {}).get("winner") in g["played"])
        drawn = sum(1 for g in ended if (g["result"] or {}).get("outcome") == "draw")
        return {
            "username": user.username,
            "games": games,
            "record": {
                "played": len(ended),
                "won": won,
                "drawn": drawn,
                "lost": len(ended) - won - drawn,
            },
            "clubs": clubs,
            "ladders": ladders,
            "luck": luck,
        }
