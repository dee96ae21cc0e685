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

from ..rooms import Room
from ..rules import Phase
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
        # Nothing goes out unless the view changed apart from the clock: the
        # HTML carries deadline_ms (in a data attribute), so comparing HTML
        # alone would resend a part whenever anyone's hidden press woke us.
        key = json.dumps({**view, "deadline_ms": None}, sort_keys=True)
        if self.sent.get("\0view") == key:
            return []
        self.sent["\0view"] = key
        if self.as_json:
            return [sse("view", json.dumps(view))]
        out = []
        for name, html in render.partials(view, self.ctx).items():
            if self.sent.get(name) != html:
                self.sent[name] = html
                out.append(sse(name, html))
        return out


def _spending_news(room: Room, started_ms: int) -> bool:
    """Whether this send is the stream telling its player that spending began.

    The hold socket compensates a release from that moment (docs/fairness.md).
    Only a stream that was already open at the spending start counts: one that
    (re)connects later would let a client choose how late it is told.
    """
    rnd = room.game.current
    return room.game.phase is Phase.SPENDING and rnd is not None and started_ms <= rnd.spend_ms


@bp.get("/r/<code>/events")
def events(code):
    svc = services()
    code = room_code(code)
    token = g.device_token
    as_json = request.args.get("format") == "json"
    renderer = _Renderer(as_json, None if as_json else page_context(code))
    # Listen before loading, so no change can slip between the two.
    listener = svc.hub.listen(code)
    started_ms = svc.clock.now_ms()
    try:
        room, version = svc.rooms.load(code)
    except Exception:
        listener.close()
        raise

    def generate():
        nonlocal room, version
        marked = None
        quiet_since = time.monotonic()
        try:
            yield "retry: 1000\n\n"
            while True:
                pid = room.seat_of(token)
                view = view_for(room.game, pid, svc.clock.now_ms())
                messages = renderer.messages(view)
                sent_ms = svc.clock.now_ms()
                if messages:
                    quiet_since = time.monotonic()
                yield from messages
                news = messages and pid and marked != view["round"]
                if news and _spending_news(room, started_ms):
                    marked = view["round"]
                    svc.store.mark_spending_shown(code, marked, pid, sent_ms)
                # Keep-alives follow only what this stream sent, never the hidden
                # changes that woke it, or their rhythm would tell who holds.
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
