"""Who may rule on a game's disputes, and settling one without an arbiter (issue 29, item 1).

A dispute of a club game goes to the club's arbiters, one of no club to the site's arbiters; a
player never rules on their own game.  When nobody eligible is there (a two-member club, a game
outside clubs) the players are told who could rule and have two ways on: a club admin appoints a
neutral arbiter (the club's page), or the players settle the dispute by agreeing on a verdict --
one proposes ``upheld`` or ``overturned``, the other side's player accepts, and the dispute is
resolved with that verdict and no remedy, recorded as agreed by both players
(``Game.VerdictProposed`` and ``Game.VerdictAgreed``).  An arbiter may still resolve a dispute
while a proposal waits; once agreed, it is off every arbiter's queue."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from service.application.clubs import ClubService
from service.application.disputes import DisputeService
from service.domain.errors import NotFound
from service.domain.game import Game
from service.domain.users import User

#: the club arbiters named in an answer (the others are counted)
ARBITERS_NAMED = 20


class DisputeAgreements:
    def __init__(self, disputes: DisputeService, clubs: ClubService) -> None:
        self.disputes = disputes
        self.games = disputes.games
        self.clubs = clubs

    def propose(
        self,
        game_id: UUID | str,
        user: User,
        *,
        dispute: str,
        verdict: str,
        note: str = "",
        side: str | None = None,
    ) -> Game:
        game = self.games.get(game_id)
        side = self.games.acting_side(game, user, side, must_be_active=False)
        game.propose_verdict(
            dispute=dispute,
            side=side,
            user=str(user.id),
            verdict=verdict,
            note=note.strip(),
            ports=self.disputes.ports,
        )
        return self.disputes.save(game)

    def accept(
        self, game_id: UUID | str, user: User, *, dispute: str, side: str | None = None
    ) -> Game:
        game = self.games.get(game_id)
        side = self.games.acting_side(game, user, side, must_be_active=False)
        game.accept_verdict(
            dispute=dispute, side=side, user=str(user.id), ports=self.disputes.ports
        )
        return self.disputes.save(game)

    def who_rules(self, game_id: UUID | str, viewer: User | None) -> dict[str, Any]:
        """Who may rule on the game's disputes: its club's arbiters who play no side (named, up to
        ``ARBITERS_NAMED``, and counted), or for a game of no club the site's arbiters; whether the
        viewer may appoint one (an admin of the club); whether the players may settle by
        agreement (two different players)."""
        game = self.games.get(game_id)
        players = {u for u in game.sides.values() if u}
        club_ref = game.labels.get("club")
        out: dict[str, Any] = {
            "club": None,
            "arbiters": [],
            "arbiter_count": 0,
            "site_arbiters": not club_ref,
            "viewer_may_appoint": False,
            "agreement": len(players) > 1,
        }
        if not club_ref:
            return out
        try:
            club = self.clubs.get(str(club_ref))
        except NotFound:
            return out
        eligible = [
            u for u, roles in club.members.items() if "arbiter" in roles and u not in players
        ]
        out["club"] = {"id": str(club.id), "name": club.name}
        out["arbiters"] = sorted(self.games.users.username(u) for u in eligible[:ARBITERS_NAMED])
        out["arbiter_count"] = len(eligible)
        out["viewer_may_appoint"] = viewer is not None and club.has_role(str(viewer.id), "admin")
        return out
