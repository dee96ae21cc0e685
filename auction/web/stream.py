"""Server-sent events: each device's view of a room, pushed as it changes.

On connect the stream sends everything (so a missed event never matters),
then only what changed *in this device's rendering*: another player's
press or release changes the stored state but not this view, so not one
byte goes out -- the stream is the same whether others hold or sit out.
``deadline_ms`` counts down on its own, so it is left out of the change
test (clients count it down locally from the value they were sent).
"""

from __future__ import annotations

import json
import time

from flask import Blueprint, Response, g, request

from ..game.views import view_for
from . import limits, render
from .capacity import capacity
from .common import room_code, services
from .respond import error
from .room import page_context

bp = Blueprint("stream", __name__)

KEEPALIVE_S = 15


def sse(event: str, data: str) -> str:
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"event: {event}\n{lines}\n"


class Renderer:
    """Turns views into the SSE messages not yet sent to this client.

    ``parts(view, ctx)`` renders the page's live parts (the room page's by
    default; the big screen passes its own)."""

    def __init__(self, as_json: bool, ctx: dict | None, parts=render.partials):
        self.as_json = as_json
        self.ctx = ctx
        self.parts = parts
        self.sent: dict[str, str] = {}
        self.last: dict | None = None

    def messages(self, view: dict) -> list[str]:
        # Nothing goes out unless the view changed apart from the clock: the
        # HTML carries deadline_ms (in a data attribute), so comparing HTML
        # alone would resend a part whenever anyone's hidden press woke us.
        # (Comparing the dicts costs a fraction of serialising them.)
        key = {**view, "deadline_ms": None}
        if self.last == key:
            return []
        self.last = key
        if self.as_json:
            return [sse("view", json.dumps(view))]
        out = []
        for name, html in self.parts(view, self.ctx).items():
            if self.sent.get(name) != html:
                self.sent[name] = html
                out.append(sse(name, html))
        return out


@bp.get("/r/<code>/events")
def events(code):
    code = room_code(code)
    token = g.device_token
    as_json = request.args.get("format") == "json"
    renderer = Renderer(as_json, None if as_json else page_context(code))
    return serve(code, lambda room, now: view_for(room.game, room.seat_of(token), now), renderer)


def serve(code: str, view_of, renderer: Renderer) -> Response:
    """The stream of ``view_of(room, now_ms)`` for room ``code``, through ``renderer``."""
    svc = services()
    lease = limits.stream_lease()
    if not lease.taken:
        return error(429, "too many streams open at once; close a tab and try again")
    # Listen before loading, so no change can slip between the two.
    listener = svc.hub.listen(code)
    try:
        room, version = svc.rooms.load(code)
    except Exception:
        listener.close()
        lease.drop()
        raise

    load = capacity()

    def generate():
        nonlocal room, version
        quiet_since = time.monotonic()
        try:
            load.streams += 1
            yield "retry: 1000\n\n"
            while True:
                view = view_of(room, svc.clock.now_ms())
                messages = renderer.messages(view)
                if messages:
                    quiet_since = time.monotonic()
                yield from messages
                # Keep-alives follow only what this stream sent, never the hidden
                # changes that woke it, or their rhythm would tell who holds.
                left = quiet_since + KEEPALIVE_S - time.monotonic()
                if left <= 0 or not listener.wait(left):
                    yield ": keep-alive\n\n"
                    quiet_since = time.monotonic()
                    lease.renew()
                    room, version = svc.rooms.load(code)
                elif listener.missed:
                    listener.missed = False
                    room, version = svc.rooms.load(code)
                elif listener.latest and listener.latest.version > version:
                    version, room = listener.latest.version, listener.latest.room
        finally:
            load.streams -= 1
            listener.close()
            lease.drop()

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(generate(), mimetype="text/event-stream", headers=headers)
