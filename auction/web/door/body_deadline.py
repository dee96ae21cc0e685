"""A request's body must arrive in time, under `python app.py` and gunicorn alike.

Both servers bound the time a request's head may take (http_server.py: 10 s;
gunicorn: its keep-alive), but neither bounds its body: a post that declared
16,000 bytes and sent one a second held a greenlet and a socket for hours while
the app waited in its read, and twenty such posts cost their sender nothing. So
before any other hook looks at a request, its body (at most MAX_CONTENT_LENGTH,
16 KiB) is read whole under a gevent timeout -- both servers run on gevent --
and one not in within BODY_S is answered 408 and its connection closed.

GETs and HEADs are never read here: the view streams and the hold sockets are
GETs whose answers last as long as they like, and carry no body. (A body nobody
reads is the server's to drain or drop: http_server.py bounds that drain by the
same deadline; gunicorn drains within its keep-alive.)
"""

from __future__ import annotations

import gevent  # type: ignore[import-untyped]
from flask import Flask, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

from ..respond import error
from ..pages.words import N_

BODY_S = 10.0       # a body must be in this long after its head (as the head itself)

LATE = N_("the request took too long to arrive; try again")
TOO_LARGE = N_("that is more than the server takes")     # as Werkzeug's 413 is said


class _Late(Exception):
    """The body was still arriving at the deadline. Not an OSError, which Werkzeug's
    stream would take for a client gone and answer 400."""


def init(app: Flask) -> None:
    app.before_request(read_in_time)


def read_in_time():
    """Read the request's body within BODY_S (Werkzeug keeps it for the form and JSON
    readers); past that, a 408 that closes the connection."""
    if request.method in ("GET", "HEAD") or not _has_body():
        return None
    try:
        with gevent.Timeout(BODY_S, _Late()):
            request.get_data(cache=True)
    except _Late:
        return _hang_up(current_app.make_response(error(408, LATE)))
    except RequestEntityTooLarge:
        # Refused unread, its length past the bound: draining it would read what was
        # refused, so this connection ends here too.
        return _hang_up(current_app.make_response(error(413, TOO_LARGE)))
    return None


def _has_body() -> bool:
    return bool(request.content_length) or \
        "chunked" in request.headers.get("Transfer-Encoding", "").lower()


def _hang_up(response):
    # The rest of the body may still be coming: this connection carries no next request.
    # python app.py closes on this header without draining (http_server.py); gunicorn
    # drops the header (hop-by-hop) but closes a connection whose body read raised, and
    # would at most drain the rest within its keep-alive.
    response.headers["Connection"] = "close"
    return response
