"""The web layer: blueprints plus what every request shares.

Identity is a device token in an HttpOnly cookie; form posts carry a token
derived from it (HMAC with the app's secret) against cross-site requests;
JSON posts need none, since no foreign page can send them without a CORS
grant; any post whose Origin names another site is refused.
"""

from __future__ import annotations

import hmac
import os
import secrets

from flask import Flask, current_app, g, request

from .. import rules
from ..rooms import Conflict
from ..store import NoSuchRoom
from . import actions, api, delivery, hold, outage, pages, room, stream
from .common import csrf_token, services
from .respond import error

COOKIE = "ta_device"
TOKEN_BYTES = 24            # 192 bits
POSTS_PER_WINDOW = 60       # per device, per 10 s: far above any honest player
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; manifest-src 'self'; worker-src 'self'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")

# What each refusal of the rules means over HTTP.
STATUS = [(rules.NotAllowed, 403), (rules.WrongPhase, 409), (rules.RoomFull, 404),
          (rules.RuleError, 400)]


def register(app: Flask) -> None:
    for blueprint in (pages.pages, room.bp, actions.bp, api.bp, stream.bp):
        app.register_blueprint(blueprint)
    hold.init(app)
    app.before_request(_identify)
    app.before_request(_guard_posts)
    app.after_request(_finish)
    app.context_processor(lambda: {"csrf_token": csrf_token()})
    app.register_error_handler(rules.RuleError, _rule_error)
    app.register_error_handler(NoSuchRoom, lambda e: error(404, "no such room"))
    app.register_error_handler(Conflict, lambda e: error(409, str(e)))
    outage.register(app)   # the store away: 503 + Retry-After, never a 500
    delivery.init(app)     # static files by WhiteNoise, pages compressed


def _identify() -> None:
    g.arrived_ms = services().clock.now_ms()
    token = request.cookies.get(COOKIE, "")
    g.new_device = not (20 <= len(token) <= 64 and token.replace("-", "").replace("_", "").isalnum())
    g.device_token = secrets.token_urlsafe(TOKEN_BYTES) if g.new_device else token


def _guard_posts():
    if request.method != "POST":
        return None
    origin = request.headers.get("Origin")
    if origin and origin != request.host_url.rstrip("/"):
        return error(403, "cross-site request refused")
    if services().store.over_limit(f"post:{g.device_token}", POSTS_PER_WINDOW, 10):
        return error(429, "too many requests; slow down")
    if not request.is_json:
        sent = request.form.get("csrf_token", "")
        if not hmac.compare_digest(sent, csrf_token()):
            return error(403, "the form is stale or foreign; reload the page")
    return None


def _finish(response):
    if g.get("new_device"):
        response.set_cookie(COOKIE, g.device_token, max_age=400 * 86400, httponly=True,
                            samesite="Lax", secure=request.is_secure)
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if current_app.config["EXPOSE_WORKER"]:
        response.headers["X-Worker"] = str(os.getpid())
    return response


def _rule_error(exc: rules.RuleError):
    code = next(status for kind, status in STATUS if isinstance(exc, kind))
    return error(code, "no such room" if code == 404 else str(exc))
