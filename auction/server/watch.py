"""A room as one event stream sees it: the newest published change, as a player's view.

The stream listens before it loads, so no change can slip between the two;
after that it takes each change the hub hands it (only the newest: a stream
renders the latest state, never a backlog), and loads again when news may
have been lost (the hub reconnected) or when the stream asks, at its
keep-alives.
"""

from __future__ import annotations

from ..game import fairness
from ..game.views import View, view_for
from .clock import Clock
from .hub import Hub
from .record import Room
from .rooms import Rooms
from .store import Store


class Watch:
    """One stream's room (kept private: the stream reads only views of it) at
    ``version``, kept up to date by ``update``."""

    _room: Room
    version: int

    def __init__(self, hub: Hub, rooms: Rooms, store: Store, clock: Clock, code: str) -> None:
        self.code = code
        self._rooms = rooms
        self._store = store
        self._clock = clock
        self._listener = hub.listen(code)
        self._spending_shown: int | None = None     # the last round whose spending it showed
        try:
            self._room, self.version = rooms.load(code)
        except Exception:
            self._listener.close()
            raise

    def view(self, token: str | None) -> View:
        """The room as this device sees it now (a spectator's view without a seat); from
        now on only news this view shows wakes the stream (hub.Listener)."""
        seat = self._room.seat_of(token)
        self._listener.seat = seat
        return view_for(self._room.game, seat, self._clock.now_ms())

    def showing(self, token: str | None, view: View, idle_ms: int) -> tuple[str, int, int] | None:
        """If ``view`` first shows this seat a round's spending, what ``shown_late``
        will note once it is written: (seat, round, the server's own wait,
        fairness.stream_lateness) from the stream's last moment free (``idle_ms``) to
        now. None otherwise. The seat's release is dated by it (holds.py)."""
        rnd = view.get("round")
        if view.get("phase") != "spending" or rnd == self._spending_shown:
            return None
        self._spending_shown = rnd
        pid, shown = self._room.seat_of(token), self._room.spending_shown(rnd)
        if pid is None or shown is None:
            return None
        return pid, rnd, fairness.stream_lateness(shown, idle_ms, self._clock.now_ms())

    def shown_late(self, pid: str, rnd: int, late_ms: int) -> None:
        self._store.note_late(self.code, pid, rnd, late_ms)

    def now_ms(self) -> int:
        return self._clock.now_ms()

    def wait(self, timeout_s: float) -> bool:
        """Wait for news of the room; True if some came (``update`` takes it)."""
        return self._listener.wait(timeout_s)

    def wake(self) -> None:
        """End a ``wait`` at once, with no news: the stream is to close (a drain)."""
        self._listener.wake()

    def update(self) -> None:
        """Take the newest news: load again if some may have been lost."""
        listener = self._listener
        latest = listener.latest
        if listener.missed:
            listener.missed = False
            self.reload()
        elif latest is not None and latest.version > self.version:
            self.version, self._room = latest.version, latest.room

    def reload(self) -> None:
        self._room, self.version = self._rooms.load(self.code)

    def close(self) -> None:
        self._listener.close()
