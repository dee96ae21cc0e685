"""Full pages that are not a room: home, rules, strategy, offline, and the PWA files."""

from __future__ import annotations

import json
import re

from flask import Blueprint, Response, redirect, request

from ..game.settings import PRESETS
from . import render
from .common import csrf_token
from .results import recent_games

pages = Blueprint("pages", __name__)

_CODE = re.compile(r"[A-Za-z]{4}")


def _html(name: str, **context) -> Response:
    return Response(render.template(name, **context), mimetype="text/html")


@pages.get("/")
def home():
    return _html("home.html", csrf_token=csrf_token(), games=recent_games())


@pages.get("/join")
def join():
    """The home page's join-by-code form: /join?code=abcd -> /r/ABCD."""
    code = request.args.get("code", "").strip()
    if not _CODE.fullmatch(code):
        return redirect("/", 303)
    return redirect(f"/r/{code.upper()}", 303)


@pages.get("/rules")
def rules():
    # The rule books' table is drawn from the presets themselves, so it cannot drift from them.
    return _html("rules.html", presets=PRESETS)


@pages.get("/strategy")
def strategy():
    return _html("strategy.html")


@pages.get("/offline")
def offline():
    return _html("offline.html")


MANIFEST = {
    "id": "/",
    "name": "Time Auction",
    "short_name": "Time Auction",
    "description": "A bidding game where the currency is time.",
    "start_url": "/",
    "scope": "/",
    "display": "standalone",
    "orientation": "portrait",
    "background_color": "#12151c",
    "theme_color": "#12151c",
    "icons": [
        {"src": render.asset("icons/icon-192.png"), "sizes": "192x192", "type": "image/png", "purpose": "any"},
        {"src": render.asset("icons/icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "any"},
        {"src": render.asset("icons/maskable-512.png"), "sizes": "512x512", "type": "image/png",
         "purpose": "maskable"},
    ],
}


@pages.get("/manifest.webmanifest")
def manifest():
    response = Response(json.dumps(MANIFEST), mimetype="application/manifest+json")
    response.cache_control.max_age = 3600
    return response


@pages.get("/sw.js")
def service_worker():
    """The service worker, from the root so its scope is the whole site.

    Its text names the current build, so a new deploy changes the bytes and
    browsers install the new worker (and drop the old cache).
    """
    shell = ["/", "/offline", "/rules", "/strategy", *render.shell_assets()]
    body = render.template("sw.js", build=render.BUILD, shell=json.dumps(shell))
    response = Response(body, mimetype="text/javascript")
    response.headers["Service-Worker-Allowed"] = "/"
    response.headers["Cache-Control"] = "no-cache"
    return response


@pages.get("/favicon.ico")
def favicon():
    # Browsers ask for it whatever the page says; point them at the real icon.
    return redirect(render.asset("icons/favicon-32.png"), 301)
