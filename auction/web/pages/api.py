"""JSON for clients that are not browsers: this device's view of a room, and the clock."""

from __future__ import annotations

from flask import Blueprint, Response, g, jsonify

from ...game.views import clock_for
from ..common import room_code, view

bp = Blueprint("api", __name__)


@bp.get("/r/<code>/state")
def state(code: str) -> Response:
    return jsonify(view(room_code(code), g.device_token))


@bp.get("/clock")
def clock() -> Response:
    """The server's clock, read as the request arrived, for a client to keep its offset
    to it (docs/protocol.md, "The clock"): no store, no room, nothing to cache."""
    response = jsonify(clock_for(g.arrived_ms))
    response.headers["Cache-Control"] = "no-store"
    return response
