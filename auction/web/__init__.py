"""The web layer: blueprints plus what every request shares.

A request another site's page made the browser send (a foreign Origin, or
Fetch Metadata naming another site) is refused first, before it is given a
device or counted against any limit. Identity is a device token the server
signed, in an HttpOnly cookie (identity.py), minted only when a visitor
commits (creates or joins). A device's form posts carry a token derived from it
(HMAC with the app's secret) against cross-site requests; JSON posts need none,
since no foreign page can send them without a CORS grant, and nor does a
visitor's post, which carries no credential to abuse (the Origin and Fetch
Metadata checks still refuse another site's). Rates and open connections are
limited per device, and per address only for strangers (limits.py).
"""

from __future__ import annotations

import hmac
import os

from flask import Flask, current_app, g, request
from flask_limiter.errors import RateLimitExceeded
from werkzeug.exceptions import HTTPException

from ..game import rules
from ..server import Conflict, NoSuchRoom, Service
from .pages import actions, api, home, render, results, room, screen
from .door import capacity, hosts, identity, limits
from . import delivery, i18n
from .live import hold, stream
from .operations import health, outage
from .door.body_deadline import init as read_bodies_in_time
from .common import csrf_token, services
from .respond import error, status_of
from .pages.words import N_, refusal

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; manifest-src 'self'; worker-src 'self'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")

def register(app: Flask, service: Service) -> None:
    """The web layer on ``app``, on the server's one face (all it gets of the server)."""
    for blueprint in (home.bp, room.bp, actions.bp, api.bp, stream.bp, results.bp,
                      screen.bp):
        app.register_blueprint(blueprint)
    hold.init(app)
    i18n.init(app)         # each request's language (a stream keeps its request's)
    # In this order: refuse what another site sent before it counts for anything;
    # then identify, since the limits key on the device and its seat.
    read_bodies_in_time(app)   # first: a body not in within 10 s is 408 (body_deadline.py)
    app.before_request(hosts.check_host)
    app.before_request(health.refuse_while_draining)   # before a device is made
    app.before_request(_note_arrival)
    app.before_request(_refuse_cross_site)
    app.before_request(_identify)
    app.before_request(limits.mint)   # a visitor's commit gets a device, if the budget allows
    limits.init(app, service.limiter_storage())   # ...so the limits count the commit on that device
    health.init(app, capacity.init(app, actions.busy_page))
    if app.config["SCHEDULER"]:      # a serving worker: its first pages as fast as the rest
        render.warm({"partials": render.PARTS, "screen": screen.PARTS})
    app.before_request(_guard_posts)
    app.after_request(limits.spend_mint)
    app.after_request(_finish)
    app.context_processor(lambda: {"csrf_token": csrf_token()})
    app.register_error_handler(rules.RuleError, _rule_error)
    app.register_error_handler(NoSuchRoom, _no_such_room)
    app.register_error_handler(Conflict, lambda e: error(409, str(e)))
    app.register_error_handler(RateLimitExceeded, _too_many)
    app.register_error_handler(HTTPException, _http_error)   # the rest, in the client's words
    outage.register(app)   # the store away: 503 + Retry-After, never a 500
    delivery.init(app)     # static files by WhiteNoise, pages compressed
    health.wrap(app, service.store_answers)   # /healthz, /readyz, /metrics: in front of everything


def _note_arrival() -> None:
    """When the request reached the app, on the game clock: what ``GET /clock`` answers,
    and a hold socket's press if the kernel's note of its arrival is later (live/hold.py)."""
    g.arrived_ms = services().now_ms()


def _refuse_cross_site():
    if identity.cross_site():
        identity.anonymous()
        return error(403, N_("cross-site request refused"))
    return None


def _identify() -> None:
    identity.identify()


def _guard_posts():
    if request.method != "POST":
        return None
    if not request.is_json and not g.deviceless:
        sent = request.form.get("csrf_token", "")
        # Bytes: compare_digest refuses str with non-ASCII characters (a 500).
        if not hmac.compare_digest(sent.encode(), csrf_token().encode()):
            return error(403, N_("the form is stale or foreign; reload the page"))
    return None


def _finish(response):
    identity.issue(response)
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if response.mimetype in ("text/html", "application/json", "application/manifest+json"):
        # Words follow the device's language (i18n.py): a cache must keep each apart.
        response.vary.update(("Accept-Language", "Cookie"))
    if current_app.config["EXPOSE_WORKER"]:
        response.headers["X-Worker"] = str(os.getpid())
        response.headers["X-Client-Address"] = identity.address()
    return response


def _rule_error(exc: rules.RuleError):
    code = status_of(exc)
    if code == 404:
        limits.missed_room()
        return error(404, N_("no such room"))
    return error(code, refusal(exc))


def _no_such_room(exc: NoSuchRoom):
    limits.missed_room()
    return error(404, N_("no such room"))


def _too_many(exc: RateLimitExceeded):
    response = error(429, N_("too many requests; slow down"))
    response = current_app.make_response(response)
    response.headers["Retry-After"] = str(limits.retry_after(exc))
    return response


# Werkzeug's own refusals (no such address, a method or a body the address does not
# take, a crash) in the client's language and form, like every other refusal.
HTTP_WORDS = {404: N_("there is nothing at this address"),
              405: N_("this address does not take that kind of request"),
              413: N_("that is more than the server takes")}


def _http_error(exc: HTTPException):
    code = exc.code or 500
    message = HTTP_WORDS.get(code) or (N_("the request could not be handled") if code < 500
                                       else N_("something went wrong on the server; try again"))
    response = current_app.make_response(error(code, message))
    if "Allow" in (headers := dict(exc.get_headers())):
        response.headers["Allow"] = headers["Allow"]
    return response
