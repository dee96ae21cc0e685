"""The big screen: ``/r/<CODE>/screen``, for a TV or a laptop the room can see.

It has no seat. Whoever opens it -- a stranger, a player, the host -- gets the
same bytes, rendered from ``view_for(game, None, now)``: the spectator's
projection, which holds only what every player may know. Its stream follows
the same rule as a player's (docs/protocol.md): a part goes out only when its
HTML changed apart from the clock, so nobody's hidden press sends a byte.
"""

from __future__ import annotations

import json
import time

from flask import Blueprint, Response, request

from ..rooms import Room
from ..store import NoSuchRoom
from ..views import view_for
from . import render
from .common import room_code, services
from .stream import KEEPALIVE_S, sse

bp = Blueprint("screen", __name__)

PARTS = ("status", "stage", "tokens")


def _context(code: str) -> dict:
    return {"code": code, "invite_url": f"{request.host_url.rstrip('/')}/r/{code}"}


def _view(game, clock) -> dict:
    return view_for(game, None, clock.now_ms())


@bp.get("/r/<code>/screen")
def screen(code):
    try:
        code = room_code(code)
        room, _ = services().rooms.load(code)
    except NoSuchRoom:
        return render.page(None, {"code": code.upper()[:8]}), 404
    return render.page(_view(room.game, services().clock), _context(code), "screen.html", PARTS,
                       "screen")


@bp.get("/r/<code>/screen/events")
def screen_events(code):
    svc = services()
    code = room_code(code)
    ctx = _context(code)
    listener = svc.hub.listen(code)      # before loading: no change slips between
    try:
        room, version = svc.rooms.load(code)
    except Exception:
        listener.close()
        raise

    def generate():
        nonlocal room, version
        sent: dict[str, str] = {}
        quiet_since = time.monotonic()
        try:
            yield "retry: 1000\n\n"
            while True:
                view = _view(room.game, svc.clock)
                key = json.dumps({**view, "deadline_ms": None}, sort_keys=True)
                if sent.get("\0view") != key:
                    sent["\0view"] = key
                    for name, html in render.partials(view, ctx, PARTS, "screen").items():
                        if sent.get(name) != html:
                            sent[name] = html
                            quiet_since = time.monotonic()
                            yield sse(name, html)
                # Keep-alives follow what this stream sent, never what woke it.
                left = quiet_since + KEEPALIVE_S - time.monotonic()
                if left <= 0 or not listener.wait(left):
                    yield ": keep-alive\n\n"
                    quiet_since = time.monotonic()
                    room, version = svc.rooms.load(code)
                elif listener.missed:
                    listener.missed = False
                    room, version = svc.rooms.load(code)
                elif listener.latest and listener.latest[0] > version:
                    version, record = listener.latest
                    room = Room.from_record(record)
        finally:
            listener.close()

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(generate(), mimetype="text/event-stream", headers=headers)
