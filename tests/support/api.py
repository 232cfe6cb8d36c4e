"""A small client of the HTTP API for tests: users with tokens, games, commands."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

PASSWORD = "correct horse battery"


def build(template: dict[str, Any], **picks: Any) -> dict[str, Any]:
    """The command a template of the action vocabulary makes: its ``type`` and ``fixed`` fields
    plus one pick per ``choose`` field (given in ``picks``, else the first option, or the first
    ``min`` options of a ``some_of``)."""
    command = {"type": template["type"], **template["fixed"]}
    for name, choice in template["choose"].items():
        if name in picks:
            command[name] = picks[name]
        elif "one_of" in choice:
            command[name] = choice["one_of"][0]
        else:
            command[name] = choice["some_of"][: max(choice["min"], 1)]
    return command


def every(template: dict[str, Any]) -> dict[str, Any]:
    """The command a template makes with all of each ``some_of`` field's options up to ``max`` (as
    the old templates named every eligible unit)."""
    return build(
        template,
        **{n: c["some_of"][: c["max"]] for n, c in template["choose"].items() if "some_of" in c},
    )


#: the site arbiter test helpers read games as when they name no user (:meth:`ApiHelper.reader`)
REFEREE = "referee"


class ApiHelper:
    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.tokens: dict[str, str] = {}
        self._worker: Any = None

    def work(self) -> None:
        """One step of the worker, as ``arbiter worker`` (or the thread of ``arbiter serve``)
        runs it between requests: clocks, the results of ladder and campaign games that ended
        (requests never record them: GETs never write), views, notifications."""
        if self._worker is None:
            from service.bootstrap import build_worker

            svc = self.client.application.extensions["arbiter"]
            self._worker = build_worker(svc, process=svc.notifications.process)
        self._worker.step()

    def user(self, name: str) -> dict[str, str]:
        """Register ``name`` (once) and return its auth headers."""
        if name not in self.tokens:
            r = self.client.post("/api/users", json={"username": name, "password": PASSWORD})
            assert r.status_code == 201, r.get_json()
            r = self.client.post("/api/tokens", json={"username": name, "password": PASSWORD})
            assert r.status_code == 201, r.get_json()
            self.tokens[name] = r.get_json()["token"]
        return {"Authorization": f"Bearer {self.tokens[name]}"}

    def admit(
        self, members: str, body: dict[str, Any], admin: dict[str, str] | str
    ) -> dict[str, Any]:
        """``body["username"]`` made a member the way a club admin does it through the API: the
        admin's ``POST <club>/members`` (``members``: that path) invites them, and they accept
        (one who asked to join is a member at once).  Returns the club as the new member sees
        it."""
        headers = self.user(admin) if isinstance(admin, str) else admin
        r = self.client.post(members, json=body, headers=headers)
        assert r.status_code == 201, r.get_json()
        club = members.rsplit("/members", 1)[0]
        mine = self.user(body["username"])
        if self.client.get(club, headers=mine).get_json()["viewer_invitation"]:
            r = self.client.post(f"{club}/invitation", json={"accept": True}, headers=mine)
            assert r.status_code == 200, r.get_json()
        seen = self.client.get(club, headers=mine).get_json()
        assert seen["viewer_roles"], seen
        return dict(seen)

    def create_game(
        self,
        system: str,
        scenario: str,
        sides: dict[str, str],
        options: dict[str, Any] | None = None,
        creator: str | None = None,
        public: bool = False,
    ) -> dict[str, Any]:
        """A game every named player has accepted; ``public``: readable by anyone (spectators,
        visitors), else by its players only."""
        creator = creator or next(iter(sides.values()))
        for name in sides.values():
            self.user(name)
        body = {"system": system, "scenario": scenario, "sides": sides, "options": options or {}}
        r = self.client.post(
            "/api/games", json=dict(body, public=public), headers=self.user(creator)
        )
        assert r.status_code == 201, r.get_json()
        return self.accept_all(r.get_json(), creator)

    def accept_all(self, game: dict[str, Any], creator: str) -> dict[str, Any]:
        """Every invited player accepts ``game`` (a new game that names other users is an
        invitation); the game as ``creator`` sees it afterwards, at its current version."""
        pending = [n for n in dict.fromkeys(game["sides"].values()) if n != creator]
        for name in pending:
            r = self.client.post(f"/api/games/{game['id']}/accept", headers=self.user(name))
            assert r.status_code == 200, r.get_json()
        return self.game(game["id"], creator) if pending else game

    def reader(self, username: str | None) -> dict[str, str]:
        """The headers of ``username``, or (None) of ``referee``: a site arbiter who plays no side,
        so reads any game of no club in the spectator view (a game is private: a visitor reads
        nothing of it; docs/game-lifecycle.md)."""
        if username is not None:
            return self.user(username)
        if REFEREE not in self.tokens:
            headers = self.user(REFEREE)
            svc = self.client.application.extensions["arbiter"]
            referee = svc.users.by_name(REFEREE)
            referee.grant("arbiter")
            svc.store.commit(referee)
            return headers
        return self.user(REFEREE)

    def game(self, game_id: str, username: str | None = None, **params: Any) -> dict[str, Any]:
        headers = self.reader(username)
        r = self.client.get(f"/api/games/{game_id}", query_string=params, headers=headers)
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def actions(self, game_id: str, username: str, side: str | None = None) -> dict[str, Any]:
        r = self.client.get(
            f"/api/games/{game_id}/actions",
            query_string={"side": side} if side else {},
            headers=self.user(username),
        )
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def template(
        self, game_id: str, username: str, type: str, side: str | None = None, **fixed: Any
    ) -> dict[str, Any]:
        """The first listed template of ``type`` whose fixed fields include ``fixed``."""
        listed = self.actions(game_id, username, side)["actions"]
        found = [
            t
            for t in listed
            if t["type"] == type and all(t["fixed"].get(k) == v for k, v in fixed.items())
        ]
        assert found, f"no {type} template {fixed} among {[t['label'] for t in listed]}"
        return found[0]

    def command(
        self,
        game_id: str,
        username: str,
        command: dict[str, Any],
        expected_version: int | None = None,
        side: str | None = None,
    ) -> Any:
        if expected_version is None:
            expected_version = self.game(game_id, username)["version"]
        body: dict[str, Any] = {"expected_version": expected_version, "command": command}
        if side:
            body["side"] = side
        return self.client.post(
            f"/api/games/{game_id}/commands", json=body, headers=self.user(username)
        )

    def events(
        self, game_id: str, username: str | None = None, **params: Any
    ) -> list[dict[str, Any]]:
        headers = self.reader(username)
        r = self.client.get(f"/api/games/{game_id}/events", query_string=params, headers=headers)
        assert r.status_code == 200, r.get_json()
        return r.get_json()["events"]
