"""What every web module shares: the app's services, the form token, room codes."""

from __future__ import annotations

import hashlib
import hmac

from flask import current_app, g

from ..rooms import valid_code
from ..store import NoSuchRoom


def services():
    """The worker's store, clock, hub, rooms and scheduler (see create_app)."""
    return current_app.extensions["auction"]


def csrf_token() -> str:
    """The form token of this device: an HMAC of its device token."""
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, g.device_token.encode(), hashlib.sha256).hexdigest()[:32]


def room_code(code: str) -> str:
    """The canonical code; anything that cannot be one is 'no such room'."""
    code = code.upper()
    if not valid_code(code):
        raise NoSuchRoom(code)
    return code
