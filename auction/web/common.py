"""What every web module shares: the app's services, the form token, room codes."""

from __future__ import annotations

import hashlib
import hmac

from flask import current_app, g

from ..server import Lookup, NoSuchRoom, Service, View, valid_code

# Flask's name for the hold socket's route (web/live/hold.py).
HOLD_ENDPOINT = "hold"


def services() -> Service:
    """The worker's one face of the server (see create_app)."""
    service: Service = current_app.extensions["auction"]
    return service


def _mac(message: str, length: int) -> str:
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()[:length]


def csrf_token() -> str:
    """The form token of this device: an HMAC of its device token ("" before it has one)."""
    token = g.get("device_token")
    return _mac(token, 32) if token else ""


def invitation(code: str) -> str:
    """Room ``code``'s invitation, as its invite link carries it: a random secret made
    with the room (Lookup.invitation), valid while its game has not ended ("" once it
    has, or for no such room). It lets its holder past the limits kept for strangers
    to that room alone (web/door/limits.py), and nothing else: not into a locked room."""
    try:
        return load_room(code).invitation
    except NoSuchRoom:
        return ""


def load_room(code: str) -> Lookup:
    """Room ``code`` (canonical) as this request first loaded it: the limits may already
    have, to find the device's seat (limits.seated). A stream or a hold socket loads its
    own after it starts listening, so that no change slips between the two."""
    room = _loaded(code)
    if room is None:
        room = services().load(code)
        g.loaded_room = (code, room)
    return room


def _loaded(code: str) -> Lookup | None:
    loaded = g.get("loaded_room")
    return loaded[1] if loaded is not None and loaded[0] == code else None


def view(code: str, token: str | None) -> View:
    """The view of room ``code`` (canonical) for this device's ``token`` (None: the
    spectator's), from the room as this request loaded it."""
    shown, room = services().view(code, token, _loaded(code))
    g.loaded_room = (code, room)
    return shown


def final_view(code: str, token: str | None) -> View | None:
    """This device's view of a finished game (``view``); None while it is running."""
    shown, room = services().final_view(code, token, _loaded(code))
    g.loaded_room = (code, room)
    return shown


def room_code(code: str) -> str:
    """The canonical code; anything that cannot be one is 'no such room'."""
    code = code.upper()
    if not valid_code(code):
        raise NoSuchRoom(code)
    return code
