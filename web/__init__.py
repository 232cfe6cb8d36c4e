"""The web app's blueprint (pages, templates, static files; no build step)."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, render_template

HERE = Path(__file__).parent


def create_blueprint() -> Blueprint:
    blp = Blueprint(
        "web",
        __name__,
        template_folder=str(HERE / "templates"),
        static_folder=str(HERE / "static"),
        static_url_path="/static",
    )

    @blp.get("/")
    def home() -> str:
        return render_template("home.html")

    return blp
