"""The one face of the server that the web layer calls (see auction.server)."""

from __future__ import annotations

from .beats import Beats
from .clock import Clock
from .hub import Hub
from .rooms import Rooms
from .scheduler import Scheduler
from .store import Store


class Service:
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
