"""The room page: the whole page for this device, every live part included."""

from __future__ import annotations

from flask import Blueprint, g

from ..store import NoSuchRoom
from ..views import view_for
from . import limits, render
from .common import csrf_token, room_code, services
from .hosts import site_url

bp = Blueprint("room", __name__)


def page_context(code: str) -> dict:
    """What a room's page and its streamed parts need besides the view."""
    return {"code": code, "csrf_token": csrf_token(),
            "invite_url": f"{site_url()}/r/{code}"}


@bp.get("/r/<code>")
def room_page(code):
    svc = services()
    try:
        code = room_code(code)
        room, _ = svc.rooms.load(code)
    except NoSuchRoom:
        limits.missed_room()
        return render.page(None, {"code": code.upper()[:8]}), 404
    view = view_for(room.game, room.seat_of(g.device_token), svc.clock.now_ms())
    return render.page(view, page_context(code))
