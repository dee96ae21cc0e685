"""Who is asking: a device the server issued a signed token to, and the address it came from.

The device token is random (192 bits) and signed with the app's secret
(itsdangerous), so a token a client invents is not a device: it is replaced
by a new one, and limits kept per device cannot be dodged by making up
tokens. Only digests of tokens are ever stored or logged.
"""

from __future__ import annotations

import ipaddress
import secrets

from flask import current_app, g, request
from itsdangerous import BadData, URLSafeSerializer

from ..rooms import digest

COOKIE = "ta_device"
TOKEN_BYTES = 24            # 192 bits
COOKIE_DAYS = 400           # the longest browsers keep a cookie


def _signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt="ta-device")


def identify() -> None:
    """Set ``g.device_token`` from a cookie this server signed, or to a new one."""
    device = None
    sent = request.cookies.get(COOKIE)
    if sent:
        try:
            device = _signer().loads(sent)
        except BadData:
            device = None
    g.new_device = not (isinstance(device, str) and len(device) >= 32)
    g.device_token = secrets.token_urlsafe(TOKEN_BYTES) if g.new_device else device


def issue(response):
    """Hand a new device its signed token (Secure whenever the site is https)."""
    if g.get("new_device"):
        response.set_cookie(COOKIE, _signer().dumps(g.device_token),
                            max_age=COOKIE_DAYS * 86400, httponly=True, samesite="Lax",
                            secure=secure())
    return response


def secure() -> bool:
    """Whether cookies get ``Secure``: COOKIE_SECURE, or a request that came over https
    (behind a proxy, as it told us through ProxyFix's trusted headers)."""
    return bool(current_app.config["COOKIE_SECURE"]) or request.is_secure


def device() -> str:
    """This device, as limits and logs may name it: a digest, never the token."""
    return digest(g.device_token)


def address() -> str:
    """The client's address as ProxyFix found it; an IPv6 client by its /64,
    since one phone or home may hold a whole /64."""
    addr = request.remote_addr or "unknown"
    if ":" in addr:
        try:
            return str(ipaddress.ip_network(f"{addr}/64", strict=False))
        except ValueError:
            return addr
    return addr


def same_origin() -> bool:
    """False when the request's Origin names another site (absent: not a browser's
    cross-site request, so allowed). Compared with the external scheme and host."""
    origin = request.headers.get("Origin")
    return origin is None or origin == request.host_url.rstrip("/")
