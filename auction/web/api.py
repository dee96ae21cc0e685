"""JSON for clients that are not browsers: this device's view of a room."""

from __future__ import annotations

from flask import Blueprint, Response, g, jsonify

from .common import room_code, view

bp = Blueprint("api", __name__)


@bp.get("/r/<code>/state")
def state(code: str) -> Response:
    return jsonify(view(room_code(code), g.device_token))
