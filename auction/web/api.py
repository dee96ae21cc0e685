"""JSON for clients that are not browsers: this device's view of a room."""

from __future__ import annotations

from flask import Blueprint, g, jsonify

from ..game.views import view_for
from .common import load_room, room_code, services

bp = Blueprint("api", __name__)


@bp.get("/r/<code>/state")
def state(code):
    svc = services()
    room = load_room(room_code(code))
    return jsonify(view_for(room.game, room.seat_of(g.device_token), svc.clock.now_ms()))
