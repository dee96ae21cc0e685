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

from flask import Blueprint, Response, g, request

from ..rooms import Room
from ..views import view_for
from . import render
from .common import room_code, services
from .room import page_context

bp = Blueprint("stream", __name__)

KEEPALIVE_S = 15


def sse(event: str, data: str) -> str:
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"event: {event}\n{lines}\n"


class _Renderer:
    """Turns views into the SSE messages not yet sent to this client."""

    def __init__(self, as_json: bool, ctx: dict | None):
        self.as_json = as_json
        self.ctx = ctx
        self.sent: dict[str, str] = {}

    def messages(self, view: dict) -> list[str]:
        if self.as_json:
            key = json.dumps({**view, "deadline_ms": None}, sort_keys=True)
            if self.sent.get("view") == key:
                return []
            self.sent["view"] = key
            return [sse("view", json.dumps(view))]
        out = []
        for name, html in render.partials(view, self.ctx).items():
            if self.sent.get(name) != html:
                self.sent[name] = html
                out.append(sse(name, html))
        return out


@bp.get("/r/<code>/events")
def events(code):
    svc = services()
    code = room_code(code)
    token = g.device_token
    as_json = request.args.get("format") == "json"
    renderer = _Renderer(as_json, None if as_json else page_context(code))
    # Listen before loading, so no change can slip between the two.
    listener = svc.hub.listen(code)
    try:
        room, version = svc.rooms.load(code)
    except Exception:
        listener.close()
        raise

    def generate():
        nonlocal room, version
        try:
            yield "retry: 1000\n\n"
            while True:
                view = view_for(room.game, room.seat_of(token), svc.clock.now_ms())
                yield from renderer.messages(view)
                if not listener.wait(KEEPALIVE_S) or listener.missed:
                    listener.missed = False
                    yield ": keep-alive\n\n"
                    room, version = svc.rooms.load(code)
                elif listener.latest and listener.latest[0] > version:
                    version, record = listener.latest
                    room = Room.from_record(record)
        finally:
            listener.close()

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(generate(), mimetype="text/event-stream", headers=headers)
