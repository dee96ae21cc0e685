"""After the game: the results page, its JSON and CSV, the rematch, and "your games".

Everything is drawn from the final view (``views.view_for`` once the game has
ended). Before the end every results URL answers 404 "not finished" and
nothing else: a running game's results would be its hidden facts.
"""

from __future__ import annotations

from flask import Blueprint, Response, g, jsonify
from flask.typing import ResponseReturnValue

from ...game import export
from ...server import View
from .. import common, i18n
from . import render
from ..common import room_code, services
from .room import room_site
from ..respond import done, error, wants_json
from .words import N_, gettext

bp = Blueprint("results", __name__)

NOT_FINISHED = N_("the game is not finished yet: results appear when it ends")


def final_view(code: str) -> View | None:
    """This device's view of a finished game; None while it is still running."""
    return common.final_view(room_code(code), g.device_token)


def results_url(code: str) -> str:
    return f"{room_site(code)}/r/{code}/results"


@bp.get("/r/<code>/results")
def page(code: str) -> ResponseReturnValue:
    view = final_view(code)
    if view is None:
        return error(404, NOT_FINISHED)
    if wants_json():
        return jsonify(view)
    code = view["code"]
    html = render.page_of("results.html", view, {"code": code, "share_url": results_url(code)})
    return Response(html, mimetype="text/html")


@bp.get("/r/<code>/results.json")
def as_json(code: str) -> ResponseReturnValue:
    view = final_view(code)
    if view is None:
        return error(404, NOT_FINISHED)
    return jsonify(view)


@bp.get("/r/<code>/results.csv")
def as_csv(code: str) -> ResponseReturnValue:
    view = final_view(code)
    if view is None:
        return error(404, NOT_FINISHED)
    name = f"time-auction-{view['code']}.csv"
    return Response(export.to_csv(view), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.post("/r/<code>/rematch")
def rematch(code: str) -> ResponseReturnValue:
    """The host opens the next game for the same table; everyone's stream follows."""
    new = services().rematch(room_code(code), g.device_token)
    return done({"code": new}, 201, to=f"/r/{new}")


# -- the home page's "your games" ---------------------------------------------


def _ago(ms: int) -> str:
    minutes = ms // 60_000
    if minutes < 1:
        return gettext("just now")
    if minutes < 60:
        return gettext("%(n)s min ago", n=minutes)
    return gettext("%(n)s h ago", n=minutes // 60)


def _place(n: int) -> str:
    """'2nd' (Korean: '2위'): an ordinal is made differently in each language."""
    if i18n.current() != "en":
        return gettext("place %(n)s", n=n)
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def recent_games() -> list[dict]:
    """This device's finished games, newest first, as the home page lists them."""
    games = []
    for game in services().recent_games(g.device_token):
        view, pid, final = game.view, game.seat, game.view["final"]
        assert final is not None                    # a finished game's view has it
        names = {p["id"]: p["name"] for p in view["players"]}
        mine = next((s for s in final["standings"] if s["id"] == pid), None)
        winners = final["winners"]
        games.append({
            "code": game.code, "ago": _ago(game.ago_ms), "players": len(view["players"]),
            "place": _place(mine["place"]) if mine else None,
            "winner": render.names((gettext("you") if w == pid else names[w] for w in winners),
                                   locale=i18n.current()) if winners else None,
        })
    return games
