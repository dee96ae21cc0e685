"""The Flask application factory: the composition root. Wiring only, no game logic.

It builds the worker's one ``Service`` (auction.server: it connects to the store
itself) and registers the web layer on top of it; nothing below the web layer
knows Flask, and the web layer gets nothing of the server but that face.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace

from flask import Flask

from ..server import SERVER_CONFIG, Service
from . import register
from .config import INSTANCE_PATH, Config, load_secret_key
from .door.connections import Bounded, Door
from .door.proxies import TrustedProxies

# templates/ and static/ live at the top of the repository, beside the package.
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def create_app(config=None) -> Flask:
    """Build the app from Config, overridden by a config class/object or a dict."""
    app = Flask(
        "auction",
        template_folder=os.path.join(_ROOT, "templates"),
        static_folder=os.path.join(_ROOT, "static"),
        # The embedded Redis and the secret key live here; INSTANCE_PATH moves them.
        instance_path=INSTANCE_PATH,
    )
    app.config.from_object(Config)
    if isinstance(config, Mapping):
        app.config.update(config)
    elif config is not None:
        app.config.from_object(config)

    os.makedirs(app.instance_path, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = load_secret_key(app.instance_path)

    # Each connection's writes and, behind a proxy, each address's requests, bounded
    # (connections.py) -- inside the proxies' fix, so it sees the forwarded address.
    door = Door(app.config["MAX_CONNECTIONS_PER_ADDRESS"], app.config["SEND_TIMEOUT_S"],
                app.config["STREAM_SEND_TIMEOUT_S"], app.config["PROXY_HOPS"],
                app.config["FORWARDED_ALLOW_IPS"])
    app.extensions["auction_connections"] = door
    app.wsgi_app = TrustedProxies(Bounded(app.wsgi_app, door),  # type: ignore[method-assign]
                                  app.config["PROXY_HOPS"], app.config["FORWARDED_ALLOW_IPS"])

    service = Service(replace(SERVER_CONFIG, redis_url=app.config["REDIS_URL"],
                              hold_comp_cap_ms=app.config["HOLD_COMP_CAP_MS"]),
                      app.instance_path)
    app.extensions["auction"] = service
    register(app, service)
    if app.config["SCHEDULER"]:
        service.start()
    return app
