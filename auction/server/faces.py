"""The small values ``Service`` hands the web layer besides views: a room as a request
looked it up (``Lookup``) and where the abuse limits keep their counters
(``LimiterStorage``). The web layer reads these; it never gets a room record, a store
or a Redis client (tests/test_purity.py checks it by type).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..game import rules
from .record import Room


class Lookup:
    """Room ``code`` as one request looked it up: what the web layer may read of it --
    its invitation, the site it was made at, a device's seat -- and the room itself,
    kept for the server's next call in the same request (``Service.view``,
    ``Service.hold``) so that a request loads it once."""

    __slots__ = ("code", "_record")

    def __init__(self, code: str, record: Room) -> None:
        self.code = code
        self._record = record

    @property
    def invitation(self) -> str:
        """The secret its invite link carries (made with the room), valid while its game
        has not ended: "" once it has."""
        return self._record.invite if self._record.game.phase is not rules.Phase.ENDED else ""

    @property
    def site(self) -> str:
        """The site as its host reached it when creating the room ("" if unknown)."""
        return self._record.site

    def seat_of(self, token: str | None) -> str | None:
        """The player id of the device with ``token`` there (None: no seat)."""
        return self._record.seat_of(token)


@dataclass(frozen=True)
class LimiterStorage:
    """Where flask-limiter keeps the abuse limits' counters: its ``storage_uri`` and
    ``storage_options`` (the limits library's Redis storage, on the store's own
    connections, or its cluster storage with the store's timeouts). The web layer
    passes both on to ``Limiter`` and reads nothing inside."""

    uri: str
    options: Mapping[str, Any] = field(default_factory=dict)
