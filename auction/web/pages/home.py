"""Full pages that are not a room: home, rules, strategy, offline, and the PWA files."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from flask import Blueprint, Response, redirect, request

from ...game.settings import PRESETS
from ...server import valid_code
from .. import i18n
from . import render
from ..common import csrf_token
from .name_cookie import remembered
from ..respond import error
from .results import recent_games
from .words import N_, gettext

bp = Blueprint("pages", __name__)


def _html(name: str, **context) -> Response:
    return Response(render.template(name, **context), mimetype="text/html")


# The home page's one form, as a first visit shows it; a refused post shows what was typed.
HOME_FORM = {"name": "", "code": "", "difficulty": "medium", "mode": "full", "players": "5",
             "preset": "auction"}


def home_page(typed: dict | None = None, errors: dict | None = None, status: int = 200):
    """The home page; after a refused create or join, with the form as it was sent and each
    message keyed by what it is about ("code", "name", "solo" or "create")."""
    kept = {key: str(value) for key, value in (typed or {}).items()
            if key in HOME_FORM and isinstance(value, (str, int))}
    values = {**HOME_FORM, "name": remembered(), **kept}
    body = render.template("home.html", csrf_token=csrf_token(), games=recent_games(),
                           f=values, errors=errors or {})
    return Response(body, status=status, mimetype="text/html")


@bp.get("/")
def home():
    return home_page()


def code_problem(code: str) -> str | None:
    """Why a typed room code cannot be one (said without looking any room up), or None."""
    if not code:
        return gettext("Type the room code: four letters, like KHMP.")
    if not valid_code(code.upper()):
        return gettext("“%(code)s” is not a room code. A code is four letters, like KHMP "
                       "(no digits, and never I, L, O, U or V).", code=code[:8])
    return None


@bp.get("/join")
def join():
    """The "no such room" page's code box: /join?code=abcd -> /r/ABCD; a code that cannot
    be one comes back on the home page, kept, with the reason next to it."""
    code = request.args.get("code", "").strip()
    problem = code_problem(code)
    if problem:
        return home_page({"code": code}, {"code": problem}, 400)
    return redirect(f"/r/{code.upper()}", 303)


@bp.get("/rules")
def rules():
    # The rule books' table is drawn from the presets themselves, so it cannot drift from them.
    return _html("rules.html", presets=PRESETS)


@bp.get("/strategy")
def strategy():
    return _html("strategy.html")


@bp.get("/lang/<locale>")
def language(locale: str):
    """The language switch on every page: remember this device's choice, then back to the
    page it was on (only a page of this site: never a redirect elsewhere)."""
    if locale not in i18n.LOCALES:
        return error(404, N_("no such language"))
    back = request.args.get("next", "/")
    if not page_of_this_site(back):
        # Refused, not sent home: a link that names another site is not one of ours.
        return error(400, N_("the page to come back to is not a page of this site"))
    return i18n.switch_cookie(redirect(back, 303), locale)


def page_of_this_site(target: str) -> bool:
    """Whether ``target`` can only mean a page of this site: one "/" and then printable
    ASCII alone. Browsers drop tabs and line breaks from a Location and read a backslash
    as "/", so "/\\t/evil.example" would reach evil.example as "//evil.example"; and a line
    break in a header makes Werkzeug raise (it was a 500). No scheme or host once parsed."""
    if not target.startswith("/") or target.startswith("//"):
        return False
    if any(not "!" <= c <= "~" or c == "\\" for c in target):     # controls, spaces, non-ASCII
        return False
    parts = urlsplit(target)
    return not parts.scheme and not parts.netloc


@bp.get("/offline")
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


# The manifest's words, said in the device's language (the short name sits under the icon).
MANIFEST_WORDS = {"name": N_("Time Auction"), "short_name": N_("Time Auction"),
                  "description": N_("A bidding game where the currency is time.")}


def manifest_for(locale: str) -> dict:
    """The manifest in ``locale``: the installed app's name and description in the
    device's language (``lang`` says which); icons and colours are the same for all."""
    words = {key: i18n.gettext(locale, word) for key, word in MANIFEST_WORDS.items()}
    return {**MANIFEST, **words, "lang": locale}


@bp.get("/manifest.webmanifest")
def manifest():
    # ensure_ascii off: a Korean name is sent as itself (the response varies on the language).
    body = json.dumps(manifest_for(i18n.current()), ensure_ascii=False)
    response = Response(body, mimetype="application/manifest+json")
    response.cache_control.max_age = 3600
    return response


@bp.get("/sw.js")
def service_worker():
    """The service worker, from the root so its scope is the whole site.

    Its text names the current build, so a new deploy changes the bytes and
    browsers install the new worker (and drop the old cache).
    """
    shell = ["/", "/offline", "/rules", "/strategy", *render.shell_assets()]
    body = render.template("sw.js", build=render.BUILD, shell=json.dumps(shell))
    response = Response(body, mimetype="text/javascript")
    response.headers["Service-Worker-Allowed"] = "/"
    # Its text names the device's language too: a device that switches gets a new worker,
    # which caches the shell's pages (and /offline) again in the new language.
    response.vary.update(("Accept-Language", "Cookie"))
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/favicon.ico")
def favicon():
    # Browsers ask for it whatever the page says; point them at the real icon.
    return redirect(render.asset("icons/favicon-32.png"), 301)
