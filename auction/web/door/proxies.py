"""Who the client is behind reverse proxies: their word is taken only from them.

werkzeug's ProxyFix takes the client's address, scheme, host and port from
``X-Forwarded-*`` headers -- which any client can send. So, as gunicorn does
with ``FORWARDED_ALLOW_IPS``, the headers are believed only when the
connection comes from one of the configured proxy addresses; from anyone
else they are dropped, and the request is what it is on the wire. The same
variable configures gunicorn's own reading of ``X-Forwarded-Proto``, so the
two never disagree.
"""

from __future__ import annotations

import ipaddress

from werkzeug.middleware.proxy_fix import ProxyFix

FORWARDED = ("HTTP_FORWARDED", "HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_PROTO",
             "HTTP_X_FORWARDED_HOST", "HTTP_X_FORWARDED_PORT", "HTTP_X_FORWARDED_PREFIX")


def networks(allowed: str) -> list | None:
    """The proxy addresses of ``FORWARDED_ALLOW_IPS`` (comma-separated addresses or
    networks); None for ``*``, which trusts every peer (right only when nothing can
    reach the app but the proxy, as behind a platform's router)."""
    if allowed.strip() == "*":
        return None
    return [ipaddress.ip_network(part.strip(), strict=False)
            for part in allowed.split(",") if part.strip()]


def trusts(trusted: list | None, peer: str | None) -> bool:
    """Whether ``peer`` is one of the ``trusted`` proxies (``networks``; None: any)."""
    if trusted is None:
        return True
    try:
        ip = ipaddress.ip_address(peer or "")
    except ValueError:
        return False
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in net for net in trusted)


class TrustedProxies:
    """WSGI middleware: ProxyFix for requests from a trusted proxy, none for the rest."""

    def __init__(self, app, hops: int, allowed: str):
        self.app = app
        self.fixed = ProxyFix(app, x_for=hops, x_proto=hops, x_host=hops, x_port=hops) \
            if hops else app
        self.trusted = networks(allowed)

    def from_proxy(self, peer: str | None) -> bool:
        return trusts(self.trusted, peer)

    def __call__(self, environ, start_response):
        if self.from_proxy(environ.get("REMOTE_ADDR")):
            return self.fixed(environ, start_response)
        for name in FORWARDED:
            environ.pop(name, None)
        return self.app(environ, start_response)
