"""The big screen: ``/r/<CODE>/screen``, for a TV or a laptop the room can see.

It has no seat. Whoever opens it -- a stranger, a player, the host -- gets the
same game, rendered from ``view_for(game, None, now)``: the spectator's
projection, which holds only what every player may know. Its stream is a
player's stream (``stream.serve``, with its limits) of that view: a part goes
out only when it changed apart from the clock, so nobody's hidden press sends
a byte. Its invite QR code is drawn for those who may see the invitation
(room.invite_url): the host's "Big screen" button carries it.
"""

from __future__ import annotations

from flask import Blueprint, make_response
from flask.typing import ResponseReturnValue

from ..server import NoSuchRoom, View
from . import i18n, limits, render
from .common import room_code, view
from .room import invite_url, remember_invitation
from .stream import Renderer, serve

bp = Blueprint("screen", __name__)

PARTS = ("status", "stage", "tokens")


def _context(code: str) -> dict:
    # The big screen speaks its own browser's language (its stream keeps it).
    return {"code": code, "invite_url": invite_url(code), "locale": i18n.current()}


@bp.get("/r/<code>/screen")
def screen(code: str) -> ResponseReturnValue:
    try:
        code = room_code(code)
        shown = view(code, None)
    except NoSuchRoom:
        limits.missed_room()
        return render.page(None, {"code": code.upper()[:8]}), 404
    page = render.page(shown, _context(code), "screen.html", PARTS, "screen")
    return remember_invitation(make_response(page), code)


@bp.get("/r/<code>/screen/events")
def screen_events(code: str) -> ResponseReturnValue:
    code = room_code(code)
    renderer = Renderer(False, _context(code), _parts)
    return serve(code, None, renderer)


def _parts(shown: View, ctx: dict, memo: dict | None = None) -> dict[str, str]:
    return render.partials(shown, ctx, PARTS, "screen", memo)
