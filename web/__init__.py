"""The web app's blueprint: server-rendered page shells; every page's data comes from the public API
through small JavaScript modules under ``static/js`` (no build step, nothing from a CDN)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, render_template, send_file, session, url_for
from markupsafe import Markup

from service.api.compression import gzip_text
from web.modules import module_script

HERE = Path(__file__).parent
#: the web app's manifest (``/manifest.webmanifest``): what an installed Arbiter is called and
#: looks like; the icons are PNGs under ``static/icons``
THEME = "#22313f"
MANIFEST = {
    "name": "Arbiter",
    "short_name": "Arbiter",
    "description": "Hex-and-counter wargames played online, every rule enforced.",
    "id": "/",
    "start_url": "/",
    "scope": "/",
    "display": "standalone",
    "background_color": "#fbfaf6",
    "theme_color": THEME,
    "icons": [
        {"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png"},
        {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png"},
        {
            "src": "/static/icons/icon-512.png",
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
    ],
}


def _page(template: str, **context: Any) -> str:
    """Render a page with the session's CSRF token (sent back as ``X-CSRF-Token`` on writes)."""
    return render_template(template, csrf=session.get("csrf", ""), **context)


def create_blueprint() -> Blueprint:
    blp = Blueprint(
        "web",
        __name__,
        template_folder=str(HERE / "templates"),
        static_folder=str(HERE / "static"),
        static_url_path="/static",
    )
    blp.after_request(gzip_text)  # pages, scripts and the stylesheet go gzipped

    @blp.app_template_global("module_script")
    def _module_script(entry: str) -> Markup:
        """A page's script and its imports, asked for at once (``web/modules.py``)."""
        return module_script(HERE / "static" / "js", url_for("web.static", filename="js"), entry)

    @blp.get("/manifest.webmanifest")
    def manifest() -> Response:
        response = Response(json.dumps(MANIFEST), mimetype="application/manifest+json")
        response.headers["Cache-Control"] = "no-cache"
        return response

    @blp.get("/sw.js")
    def service_worker() -> Response:
        """The service worker, at the root so that its scope is the whole site; always
        revalidated, so a new version is taken up at the next load."""
        response = send_file(HERE / "static" / "sw.js", mimetype="text/javascript", max_age=0)
        response.headers["Service-Worker-Allowed"] = "/"
        response.headers["Cache-Control"] = "no-cache"
        return response

    @blp.get("/")
    def home() -> str:
        return _page("home.html")

    @blp.get("/games/<game_id>")
    def game(game_id: str) -> str:
        return _page("game.html", game_id=game_id)

    @blp.get("/games/<game_id>/review")
    def review(game_id: str) -> str:  # luck, moments, the story turn by turn (docs/review.md)
        return _page("review.html", game_id=game_id)

    @blp.get("/games/<game_id>/audit")
    def audit(game_id: str) -> str:
        return _page("audit.html", game_id=game_id)

    @blp.get("/games/<game_id>/disputes/<dispute>")
    def dispute(game_id: str, dispute: str) -> str:  # the arbiter's page: what the claim changes
        return _page("dispute.html", game_id=game_id, dispute=dispute)

    @blp.get("/disputes")
    def disputes() -> str:
        return _page("queue.html")

    @blp.get("/clubs")
    def clubs() -> str:
        return _page("clubs.html")

    @blp.get("/clubs/<club>")
    def club(club: str) -> str:
        return _page("club.html", club=club)

    @blp.get("/clubs/<club>/scenarios")
    def club_scenarios(club: str) -> str:  # the club's scenario library (docs/scenario-library.md)
        return _page("scenario_editor.html", club=club, scenario="")

    @blp.get("/club-scenarios/<scenario>")
    def scenario_editor(scenario: str) -> str:
        return _page("scenario_editor.html", club="", scenario=scenario)

    @blp.get("/ladders/<ladder_id>")
    def ladder(ladder_id: str) -> str:
        return _page("ladder.html", ladder_id=ladder_id)

    @blp.get("/events/<event_id>")
    def club_event(event_id: str) -> str:  # a club event (tournament): docs/events.md
        return _page("club_event.html", event_id=event_id)

    @blp.get("/campaigns/<campaign_id>")
    def campaign(campaign_id: str) -> str:
        return _page("campaign.html", campaign_id=campaign_id)

    @blp.get("/archive")
    def archive() -> str:
        return _page("archive.html")

    @blp.get("/seeks")
    def seeks() -> str:
        return _page("seeks.html")

    @blp.get("/users/<username>")
    def profile(username: str) -> str:
        return _page("profile.html", username=username)

    @blp.get("/settings")
    def settings() -> str:
        return _page("settings.html")

    @blp.get("/reset-password")
    def reset_password() -> str:  # asks for a link, or (with "#token=…") sets a new password
        return _page("reset_password.html")

    @blp.get("/unsubscribe")
    def unsubscribe() -> str:  # an e-mail's signed link: the button stops them (a GET never writes)
        return _page("unsubscribe.html")

    @blp.get("/rules")
    def rules() -> str:
        return _page("rules.html")

    @blp.get("/rules/<path:entry_id>")
    def rule_entry(entry_id: str) -> str:
        return _page("entry.html", entry_id=entry_id)

    return blp
