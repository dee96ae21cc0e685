"""The big screen: ``/r/<CODE>/screen``, for a TV or a laptop the room can see.

It has no seat. Whoever opens it -- a stranger, a player, the host -- gets the
same bytes, rendered from ``view_for(game, None, now)``: the spectator's
projection, which holds only what every player may know. Its stream is a
player's stream (``stream.serve``, with its limits) of that view: a part goes
out only when it changed apart from the clock, so nobody's hidden press sends
a byte.
"""

from __future__ import annotations

from flask import Blueprint

from ..server.store import NoSuchRoom
from ..game.views import view_for
from . import limits, render
from .common import load_room, room_code, services
from .room import invite_url
from .stream import Renderer, serve

bp = Blueprint("screen", __name__)

PARTS = ("status", "stage", "tokens")


def _context(code: str) -> dict:
    return {"code": code, "invite_url": invite_url(code)}


@bp.get("/r/<code>/screen")
def screen(code):
    try:
        code = room_code(code)
        room = load_room(code)
    except NoSuchRoom:
        limits.missed_room()
        return render.page(None, {"code": code.upper()[:8]}), 404
    view = view_for(room.game, None, services().clock.now_ms())
    return render.page(view, _context(code), "screen.html", PARTS, "screen")


@bp.get("/r/<code>/screen/events")
def screen_events(code):
    code = room_code(code)
    renderer = Renderer(False, _context(code),
                        lambda view, ctx: render.partials(view, ctx, PARTS, "screen"))
    return serve(code, lambda room, now: view_for(room.game, None, now), renderer)
