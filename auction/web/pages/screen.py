"""The big screen: ``/r/<CODE>/screen``, for a TV or a laptop the room can see.

It has no seat. Whoever opens it -- a stranger, a player, the host -- gets the
same game, rendered from ``view_for(game, None, now)``: the spectator's
projection, which holds only what every player may know. Its stream is a
player's stream (``stream.serve``, with its limits) of that view: a part goes
out only when it changed apart from the clock, so nobody's hidden press sends
a byte. Its invite QR code is drawn for those who may see the invitation
(room.invite_url): the host's "Big screen" button carries it.

A TV gets there as a party game's TV does: ``/tv`` is one big code box (a remote's
keyboard, then Enter) that sends it to the room's big screen. A code typed there is a
room lookup like any other (web/door/limits.py counts its misses), and the TV arrives a
stranger: the code shown large, the site to type it on, and no invitation.
"""

from __future__ import annotations

from flask import Blueprint, Response, make_response, redirect, request
from flask.typing import ResponseReturnValue

from ...server import NoSuchRoom, View
from .. import i18n
from ..door import limits
from . import render
from ..common import load_room, room_code, view
from .home import code_problem
from .room import invite_url, remember_invitation, room_site
from ..live.stream import Renderer, serve
from .words import gettext

bp = Blueprint("screen", __name__)

PARTS = ("status", "stage", "tokens")


def _context(code: str) -> dict:
    # The big screen speaks its own browser's language (its stream keeps it).
    # ``site``: the address phones type the code on -- no secret, unlike the link: the site
    # the room was made at (as its invite link), never what this request's Host says.
    try:
        site = render.address_of(room_site(code))
    except NoSuchRoom:
        site = ""
    return {"code": code, "invite_url": invite_url(code), "locale": i18n.current(),
            "site": site}


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


@bp.get("/tv")
def tv() -> ResponseReturnValue:
    """The TV's door: a code box; a code of a room goes on to its big screen. A code
    that cannot be one is said so without a lookup; one of no room counts as a miss."""
    typed = request.args.get("code")
    if typed is None:
        return _door("", "", 200)
    typed = typed.strip()
    problem = code_problem(typed)
    if problem:
        return _door(typed, problem, 400)
    code = typed.upper()
    try:
        load_room(code)
    except NoSuchRoom:
        limits.missed_room()
        return _door(typed, gettext("There is no room %(code)s. Check the code on the host's "
                                    "phone.", code=code), 404)
    return redirect(f"/r/{code}/screen", 303)


def _door(typed: str, problem: str, status: int) -> ResponseReturnValue:
    body = render.template("tv.html", code=typed[:8], error=problem)
    return Response(body, status=status, mimetype="text/html")
