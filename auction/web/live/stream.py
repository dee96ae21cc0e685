"""Server-sent events: each device's view of a room, pushed as it changes.

On connect the stream sends everything (so a missed event never matters),
then only what changed *in this device's rendering*: another player's
press or release changes the stored state but not this view, so not one
byte goes out -- the stream is the same whether others hold or sit out.
``deadline_ms`` counts down and ``elapsed_ms`` (the round's clock) counts up
on their own, so both are left out of the change test (clients count them
locally from the values they were sent).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from flask import Blueprint, Response, g, request
from flask.typing import ResponseReturnValue

from ...game.views import shown
from ...server import View, to_json
from ..door import identity, limits
from ..operations import health
from ..pages import render
from ..door.capacity import capacity
from ..common import room_code, services
from ..respond import error
from ..pages.room import page_context
from ..pages.words import N_

bp = Blueprint("stream", __name__)

KEEPALIVE_S = 15


def sse(event: str, data: str) -> str:
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"event: {event}\n{lines}\n"


class Renderer:
    """Turns views into the SSE messages not yet sent to this client.

    ``parts(view, ctx, memo=...)`` renders the page's live parts (the room page's by
    default; the big screen passes its own), drawing again only the parts whose
    inputs changed since the last call with this ``memo``."""

    def __init__(self, as_json: bool, ctx: dict,
                 parts: Callable[..., dict[str, str]] = render.partials) -> None:
        self.as_json = as_json
        self.ctx = ctx
        self.parts = parts
        self.memo: dict = {}
        self.sent: dict[str, str] = {}
        self.last: dict | None = None

    def messages(self, view: View) -> list[str]:
        # Nothing goes out unless the view changed apart from the clocks: the
        # HTML carries deadline_ms and elapsed_ms (in data attributes), so
        # comparing HTML alone would resend a part whenever anyone's hidden
        # press woke us. (Comparing the dicts costs a fraction of serialising them.)
        key = shown(view)
        if self.last == key:
            return []
        self.last = key
        if self.as_json:
            return [sse("view", to_json(view))]
        out = []
        for name, html in self.parts(view, self.ctx, memo=self.memo).items():
            if self.sent.get(name) != html:
                self.sent[name] = html
                out.append(sse(name, html))
        return out


@bp.get("/r/<code>/events")
def events(code: str) -> ResponseReturnValue:
    code = room_code(code)
    as_json = request.args.get("format") == "json"
    renderer = Renderer(as_json, {} if as_json else page_context(code))
    return serve(code, g.device_token, renderer)


def serve(code: str, token: str | None, renderer: Renderer) -> ResponseReturnValue:
    """The stream of room ``code`` as the device of ``token`` sees it (None: the
    spectator's view), through ``renderer``."""
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if request.method == "HEAD":
        # No body is sent for it, so the generator below would never run to free what
        # it holds: a HEAD took a lease and a listener of the room for good.
        return Response(mimetype="text/event-stream", headers=headers)
    load = capacity()
    give_back = load.take("streams", identity.address())
    if give_back is None:
        return error(429, N_("too many streams from your network on this server; "
                             "close a tab and try again"))
    try:
        lease = limits.stream_lease()
    except Exception:
        give_back()
        raise
    if not lease.taken:
        give_back()
        return error(429, N_("too many streams open at once; close a tab and try again"))
    try:
        watch = services().watch(code)     # it listens before it loads: nothing slips between
    except Exception:
        lease.drop()
        give_back()
        raise

    draining = health.drain()

    def generate() -> Iterator[str]:
        quiet_since = time.monotonic()
        try:
            # Counted while it lasts, and closed by a drain (operations.py).
            with load.serving("streams"), draining.streaming(watch):
                yield "retry: 1000\n\n"
                idle_ms = watch.now_ms()    # when the last write had gone out
                while not draining.closing:
                    view = watch.view(token)
                    messages = renderer.messages(view)
                    if messages:
                        quiet_since = time.monotonic()
                        late = watch.showing(token, view, idle_ms)
                        # One write for all of a change's parts: the server sends each
                        # chunk it is given with a system call of its own.
                        yield "".join(messages)
                        idle_ms = watch.now_ms()
                        if late is not None:    # the server's own wait (fairness.stream_lateness)
                            watch.shown_late(*late)
                    # Keep-alives follow only what this stream sent, never the hidden
                    # changes that woke it, or their rhythm would tell who holds.
                    left = quiet_since + KEEPALIVE_S - time.monotonic()
                    if left <= 0 or not watch.wait(left):
                        yield ": keep-alive\n\n"
                        idle_ms = watch.now_ms()
                        quiet_since = time.monotonic()
                        watch.reload()
                    else:
                        watch.update()
        finally:
            watch.close()
            lease.drop()

    response = Response(generate(), mimetype="text/event-stream", headers=headers)
    # The address's share is given back when the server is done with the answer, even
    # one whose client left before its first byte (the generator never ran).
    response.call_on_close(give_back)
    return response
