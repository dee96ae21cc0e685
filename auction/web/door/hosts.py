"""The site's own address: the Host header checked, and the base of invite links.

Invite links and their QR codes name the site. They come from ``PUBLIC_URL``
when it is set; else from the Host the room's host used to create the room
(kept with the room), so that no later request can point the others' links and
QR codes elsewhere. The Host is checked first: only
the names in ``TRUSTED_HOSTS`` when that is set (Flask refuses the rest with
400), and in any case a well-formed host name or address and port of at most
255 characters. A client cannot make a link, or its QR code, out of anything
longer or stranger -- and the QR is drawn once per room (qr.py), so no Host
makes a page expensive.
"""

from __future__ import annotations

import re

from flask import current_app, request

from ..respond import error
from ..pages.words import N_

MAX_HOST = 255
HOST = re.compile(r"(?:[A-Za-z0-9-]{1,63}\.)*[A-Za-z0-9-]{1,63}\.?|\[[0-9A-Fa-f:.]{2,45}\]")


def well_formed(host: str | None) -> bool:
    if not host or len(host) > MAX_HOST:
        return False
    name, colon, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
    if not colon or "]" in port:
        name, port = host, ""
    elif not port.isascii() or not port.isdigit() or len(port) > 5:
        return False
    return HOST.fullmatch(name) is not None


def check_host():
    """A before-request hook: a malformed Host is 400 before anything reads it."""
    if not well_formed(request.headers.get("Host")):
        return error(400, N_("bad Host header"))
    return None


def site_url(stored: str = "") -> str:
    """The site's base URL, without the trailing slash: ``PUBLIC_URL``; else ``stored``,
    the site as a room's host reached it when creating the room, for what others of
    the room are shown (its invite link and QR code: one request's Host must not
    change them for anyone else); else this request's own."""
    return current_app.config["PUBLIC_URL"] or stored or request.host_url.rstrip("/")
