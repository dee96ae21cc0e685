"""Time Auction: the Flask application factory. Wiring only, no game logic."""

import os
from collections.abc import Mapping

from flask import Flask

from . import web
from .beats import Beats
from .clock import Clock
from .config import Config, load_secret_key
from .hub import Hub
from .rooms import Rooms
from .scheduler import Scheduler
from .connection import connect
from .store import Store
from .web.proxies import TrustedProxies

# templates/ and static/ live at the top of the repository, beside this package.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def create_app(config=None) -> Flask:
    """Build the app from Config, overridden by a config class/object or a dict."""
    app = Flask(
        __name__,
        template_folder=os.path.join(_ROOT, "templates"),
        static_folder=os.path.join(_ROOT, "static"),
        # The embedded Redis and the secret key live here; INSTANCE_PATH moves them.
        instance_path=os.environ.get("INSTANCE_PATH") or None,
    )
    app.config.from_object(Config)
    if isinstance(config, Mapping):
        app.config.update(config)
    elif config is not None:
        app.config.from_object(config)

    os.makedirs(app.instance_path, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = load_secret_key(app.instance_path)

    app.wsgi_app = TrustedProxies(app.wsgi_app, app.config["PROXY_HOPS"],
                                  app.config["FORWARDED_ALLOW_IPS"])

    client = connect(app.config["REDIS_URL"], app.instance_path)
    app.extensions["auction"] = Services(client, app.config["HOLD_COMP_CAP_MS"])
    web.register(app, client)
    if app.config["SCHEDULER"]:
        app.extensions["auction"].scheduler.start()
    return app


class Services:
    """One worker's connections to the shared store, built once per app."""

    def __init__(self, client, cap_ms: int = 0):
        self.store = Store(client)
        self.clock = Clock(self.store.time)
        self.hub = Hub(client)
        self.beats = Beats(self.store)
        self.rooms = Rooms(self.store, self.clock, cap_ms)
        self.scheduler = Scheduler(self.rooms)
        # A deadline set here wakes this worker's timer loop at once.
        self.rooms.wake = self.scheduler.wake
