"""While the store is away: a clear 503 with ``Retry-After``, never a 500.

Redis may restart, fail over or be out of reach for a moment. Every request
that needs it then fails with one of the errors in ``store.UNAVAILABLE``;
they are all answered alike: 503 Service Unavailable, ``Retry-After``, and
the error page (which reloads itself after a GET) or, for JSON clients,
``{"error": ...}``. The hold socket refuses a press with the reason
``unavailable`` (hold.py). Nothing half-done is left behind: each write is
one script, applied whole or not at all, and the rules re-derive everything
due from the stored timestamps when the store is back.
"""

from __future__ import annotations

import logging
import time

from flask import Flask, current_app, g, jsonify, request

from ...server import UNAVAILABLE
from ..pages.render import template
from ..respond import wants_json
from ..pages.words import N_, gettext

log = logging.getLogger(__name__)

RETRY_AFTER_S = 2
MESSAGE = N_("the game is briefly unavailable; try again in a moment")
_LOG_EVERY_S = 10.0
_last_log = [0.0]


def register(app: Flask) -> None:
    for kind in UNAVAILABLE:
        app.register_error_handler(kind, unavailable)


def unavailable(exc: Exception):
    g.unavailable = "store"
    now = time.monotonic()
    if now - _last_log[0] > _LOG_EVERY_S:   # one line per outage, not one per request
        _last_log[0] = now
        log.warning("the store is away (%s: %s); answering 503", type(exc).__name__, exc)
    message = gettext(MESSAGE)
    if wants_json() or request.is_json:
        response = jsonify(error=message)
    else:
        # A page that was asked for with GET reloads itself once the wait is over.
        retry = RETRY_AFTER_S + 1 if request.method == "GET" else None
        response = current_app.make_response(template("error.html", status=503,
                                                       message=message, retry_s=retry))
    response.status_code = 503
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    response.headers["Cache-Control"] = "no-store"
    return response

