"""Who is asking: a device the server issued a signed token to, and the address it came from.

The device token is random (192 bits) and signed with the app's secret
(itsdangerous), so a token a client invents is not a device, and limits kept
per device cannot be dodged by making up tokens. A device is minted only when
a client commits -- creates a room, starts a solo game or joins one -- and the
commit worked (``commit``): a page load, a stream or a look at a room gives
none, so nobody can spend an address's new devices by loading pages, and a
client without one is a visitor, counted by its address. Only digests of
tokens are ever stored or logged.
"""

from __future__ import annotations

import ipaddress
import secrets

from flask import current_app, g, request
from itsdangerous import BadData, URLSafeSerializer

from ...server import digest

COOKIE = "ta_device"
TOKEN_BYTES = 24            # 192 bits
COOKIE_DAYS = 400           # the longest browsers keep a cookie


def _signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt="ta-device")


def identify() -> None:
    """Set ``g.device_token`` from a cookie this server signed; without one, the
    request is a visitor's (``g.deviceless``): a throwaway token that is issued only
    if the request commits (``commit``), so nothing can be kept under it otherwise."""
    device = None
    sent = request.cookies.get(COOKIE)
    if sent:
        try:
            device = _signer().loads(sent)
        except BadData:
            device = None
    if isinstance(device, str) and len(device) >= 32:
        g.new_device, g.deviceless, g.device_token = False, False, device
        return
    anonymous()


def anonymous() -> None:
    """A request without a device (or refused before it is identified)."""
    g.new_device, g.deviceless, g.device_token = False, True, secrets.token_urlsafe(TOKEN_BYTES)


def commit() -> None:
    """This visitor's request creates, joins or starts something: its throwaway token
    becomes its device, handed out with the answer if the commit worked (``issue``)."""
    if g.deviceless:
        g.new_device = True


def issue(response):
    """Hand a new device its signed token (Secure whenever the site is https), with an
    answer that says its commit worked: a refused one leaves no device behind."""
    if g.get("new_device") and response.status_code < 400:
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
    """The client's address (behind trusted proxies, as they told it: web/door/proxies.py),
    as ``counted``."""
    return counted(request.remote_addr or "unknown")


def counted(addr: str) -> str:
    """An address as the limits count it. An IPv6 client is counted by its /64, since
    one phone or home may hold a whole /64; an IPv4 client reaching a server bound to
    ``[::]`` arrives as ``::ffff:a.b.c.d`` and is counted as a.b.c.d (its /64 would be
    everyone's)."""
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return addr
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def same_origin() -> bool:
    """False when the request's Origin names another site (absent: not a browser's
    cross-site request, so allowed). Compared with the external scheme and host."""
    origin = request.headers.get("Origin")
    return origin is None or origin == request.host_url.rstrip("/")


def from_elsewhere() -> bool:
    """Fetch Metadata says another site's page made the browser send this request (a
    link followed from it, when ``cross_site`` let it through): the device's cookie
    came along, but the device did not choose to go there."""
    return request.headers.get("Sec-Fetch-Site") in ("cross-site", "same-site")


def cross_site() -> bool:
    """A request another site's page made the browser send: a foreign Origin, or
    (for what carries none, such as ``<img>`` tags) Fetch Metadata naming another
    site. Following a link from elsewhere -- the invite in a chat app -- is a
    top-level navigation and welcome; a frame, image, script or fetch is not."""
    if not same_origin():
        return True
    if not from_elsewhere():
        return False
    followed = (request.method == "GET" and request.headers.get("Sec-Fetch-Mode") == "navigate"
                and request.headers.get("Sec-Fetch-Dest") == "document")
    return not followed
