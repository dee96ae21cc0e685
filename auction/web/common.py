"""What every web module shares: the app's services, the form token, room codes."""

from __future__ import annotations

import hashlib
import hmac

from flask import current_app, g

from ..server.codes import valid_code
from ..server.store import NoSuchRoom


def services():
    """The worker's store, clock, hub, rooms and scheduler (see create_app)."""
    return current_app.extensions["auction"]


def _mac(message: str, length: int) -> str:
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()[:length]


def csrf_token() -> str:
    """The form token of this device: an HMAC of its device token ("" before it has one)."""
    token = g.get("device_token")
    return _mac(token, 32) if token else ""


def invite_token(code: str) -> str:
    """The proof of an invitation to room ``code`` that its invite link carries: an HMAC
    of the code, 64 bits, which no guesser of 4-letter codes can make up."""
    return _mac(f"invite:{code}", 16)


def load_room(code: str):
    """Room ``code`` (canonical) as this request first loaded it: the limits may already
    have, to find the device's seat (limits.seated). A stream or a hold socket loads its
    own after it starts listening, so that no change slips between the two."""
    loaded = g.get("loaded_room")
    if loaded is None or loaded[0] != code:
        loaded = g.loaded_room = (code, *services().rooms.load(code))
    return loaded[1]


def room_code(code: str) -> str:
    """The canonical code; anything that cannot be one is 'no such room'."""
    code = code.upper()
    if not valid_code(code):
        raise NoSuchRoom(code)
    return code
