"""The name a device last played under, so every name field can start filled in.

Kept in a cookie of its own (not the device token's): the server fills it into the
home page and a room's join card as it draws them, so the name is there at first
paint and without JavaScript. Set only by a create or join that worked, so a
refused name is never the one remembered. It is the player's own name, shown to
everyone at their table anyway; the cookie is HttpOnly like the device's.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from flask import request

from ...game.rules import NAME_MAX
from ..door import identity

COOKIE = "ta_name"


def remembered() -> str:
    """The name this device last played under, or ""."""
    sent = request.cookies.get(COOKIE, "")[:NAME_MAX * 12]     # percent-encoded UTF-8
    return " ".join(unquote(sent, errors="replace").split())[:NAME_MAX]


def remember(response, name: str):
    """``response`` that also remembers ``name`` (cleaned as the table shows it)."""
    name = " ".join(name.split())[:NAME_MAX]
    try:
        # Percent-encoded: a cookie value cannot hold spaces, commas or most of Unicode.
        value = quote(name, safe="")
    except UnicodeEncodeError:      # a lone surrogate: no name to remember (form() refuses it)
        return response
    if value:
        response.set_cookie(COOKIE, value, max_age=identity.COOKIE_DAYS * 86400,
                            httponly=True, samesite="Lax", secure=identity.secure())
    return response
