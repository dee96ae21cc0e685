"""The room page: the whole page for this device, every live part included.

Its invite link carries the room's invitation (``?i=``, common.invitation):
whoever follows it is no stranger to the room, and the abuse limits kept per
address for strangers never shut them out (web/door/limits.py). The page keeps the
invitation in a cookie scoped to the room, so its stream, the join and the hold
carry it too. The link is shown only to those who already have it: a seated
player, or whoever arrived with it; a stranger who typed the code gets the page
without it (the code is all they have, and a seat then brings the link).
"""

from __future__ import annotations

from flask import Blueprint, g, make_response, request
from flask.typing import ResponseReturnValue

from ...server import NoSuchRoom
from .. import i18n
from ..door import identity, limits
from . import render
from ..common import csrf_token, invitation, load_room, room_code, view
from ..door.hosts import site_url
from .name_cookie import remembered

bp = Blueprint("room", __name__)

INVITE_DAYS = 2             # longer than a lobby lives


def invite_url(code: str) -> str:
    """Room ``code``'s invite link as this request may be shown it ("" to a stranger,
    or once the game has ended), based on the site its host created it at."""
    invite = invitation(code)
    if not invite or not (limits.seated() or limits.invited()):
        return ""
    return f"{room_site(code)}/r/{code}?i={invite}"


def room_site(code: str) -> str:
    """The site room ``code`` is shown at to all its devices: PUBLIC_URL, else the site
    its host created it at (hosts.site_url), never this request's Host alone."""
    return site_url(load_room(code).site)


def remember_invitation(response, code: str):
    """Keep the invitation this request arrived with in a cookie scoped to the room."""
    if request.args.get("i") and limits.invited():
        response.set_cookie(limits.INVITE_COOKIE, request.args["i"], path=f"/r/{code}",
                            max_age=INVITE_DAYS * 86400, httponly=True, samesite="Lax",
                            secure=identity.secure())
    return response


def page_context(code: str) -> dict:
    """What a room's page and its streamed parts need besides the view."""
    # The language too: the stream draws its parts long after this request, in this one's.
    return {"code": code, "csrf_token": csrf_token(), "invite_url": invite_url(code),
            "locale": i18n.current()}


@bp.get("/r/<code>")
def room_page(code: str) -> ResponseReturnValue:
    try:
        code = room_code(code)
        shown = view(code, g.device_token)
    except NoSuchRoom:
        limits.missed_room()
        return render.page(None, {"code": code.upper()[:8]}), 404
    ctx = {**page_context(code), "join": {"name": remembered()}}
    return remember_invitation(make_response(render.page(shown, ctx)), code)


def join_refused(code: str, name: str, message: str, status: int,
                 about: str = "name") -> ResponseReturnValue:
    """A refused join from the room page's card: the same page again, the name kept and
    the reason next to it (the room gone: the "no such room" page and its code box)."""
    try:
        shown = view(code, g.device_token)
    except NoSuchRoom:
        limits.missed_room()
        return render.page(None, {"code": code}), 404
    ctx = {**page_context(code), "join": {"name": name, "error": message, "about": about}}
    return render.page(shown, ctx), status
