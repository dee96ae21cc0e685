"""This worker's load, and whether it takes on new games.

Past capacity every game on a worker would slow down together: pongs read
late look like lost phones, releases stamped late cost the wrong time. So a
worker that is behind turns *new* rooms and joins away (503 with
Retry-After) and keeps its running games on time. It measures itself, every
50 ms, keeping what most of the last second saw (so one garbage collection,
one big page or the burst of presses at a round's go does not turn games
away):
- how late its event loop wakes (a greenlet that sleeps 50 ms and times the
  oversleep);
- how many connections wait in the kernel for a worker to accept them. A
  gevent worker accepts one connection a turn of its loop, so past what the
  workers hold the presses (each a new connection) queue there while the
  workers' loops still wake on time and their cores still have room: in an
  evening of 2,000 players on two workers the queue grew from the moment
  about 900 had arrived, to 1,990 waiting, with each worker at 70-80 % of a
  core and no lag to see (docs/scaling.md). The queue is shared by the
  workers on one port, and the newcomer who asks waited in it too;
- how many holds and streams it serves (exact, but what fits depends on the
  machine: the operator sets them from an evening run).
The figures that mark "behind" are configuration (OVERLOAD_LAG_MS,
OVERLOAD_QUEUE, MAX_HOLDS_PER_WORKER, MAX_STREAMS_PER_WORKER; 0 turns a check
off), set from what bench/load.py measured (docs/scaling.md). Operators see
what the door did with each new game in /metrics (ta_new_games).

No address may take more than its share (ADDRESS_SHARE) of a worker's holds
or streams where the worker has a cap on them: however many seats one address
holds, it cannot fill the worker so that everyone else's new games are turned
away. Its next stream or hold is refused instead (429), and the others' games
start as before.

A worker's own start-up is not load: the first wake of the loop comes only once
the server runs (after the imports and the app's construction), and the first
pages compile their templates. So the lag counts only from WARMUP_S after that
first wake; a fresh worker's first new room is not turned away for its birth.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from contextlib import contextmanager

from flask import current_app, g, request
from flask.typing import ResponseReturnValue

from ..operations import metrics
from ..pages.words import N_

TICK_S = 0.05
WINDOW_S = 1.0
WARMUP_S = 2.0          # after the loop first runs, lag is not yet counted
RETRY_AFTER_S = 15
# The most of a worker's cap on holds or streams one address may take: a carrier
# NAT's thousand phones on one worker still fit, and three more addresses must
# fill the rest before anyone is turned away.
ADDRESS_SHARE = 0.25
# ...but never fewer than this: two tables of eight behind one Wi-Fi always fit.
ADDRESS_FLOOR = 16

# Starting a new game on this worker: these are turned away when it is behind.
NEW_WORK = {"actions.create_room", "actions.create_solo", "actions.join", "results.rematch"}


class Capacity:
    """One worker's own measure of how busy it is."""

    def __init__(self, lag_ms: float, max_holds: int, max_streams: int, max_waiting: int = 0,
                 waiting: Callable[[], int | None] = lambda: None):
        self.limits = (lag_ms, max_holds, max_streams, max_waiting)
        self.holds = 0
        self.streams = 0
        self._taken: dict[str, Counter[str]] = {"holds": Counter(), "streams": Counter()}
        # (when, how late the loop woke in ms, connections waiting to be accepted)
        self._seen: deque[tuple[float, float, int]] = deque()
        self._waiting = waiting
        self._counts_from = float("-inf")     # what was seen before this is start-up
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None and (self.limits[0] or self.limits[3]):
            self._thread = threading.Thread(target=self._watch, name="capacity", daemon=True)
            self._thread.start()

    def _watch(self) -> None:
        self._counts_from = time.monotonic() + WARMUP_S
        while True:
            before = time.monotonic()
            time.sleep(TICK_S)
            now = time.monotonic()
            self._seen.append((now, (now - before - TICK_S) * 1000, self._waiting() or 0))
            while self._seen and self._seen[0][0] < now - WINDOW_S:
                self._seen.popleft()
            metrics.LOOP_LAG.set(self.lag_ms() / 1000)

    def _most(self, field: int) -> float:
        """What most of the last second saw of ``field``: its 80th percentile (0 while
        the worker warms up, and until a whole second has been seen since: the first
        few samples alone are not "most", and one slow first page was all of them)."""
        rows = list(self._seen)
        if not rows or rows[-1][0] < self._counts_from + WINDOW_S:
            return 0.0
        seen = sorted(row[field] for row in rows if row[0] >= self._counts_from)
        return seen[int(len(seen) * 0.8)] if seen else 0.0

    def lag_ms(self) -> float:
        """How late the event loop woke in the last second (80th percentile)."""
        return self._most(1)

    def waiting(self) -> float:
        """Connections waiting to be accepted in the last second (80th percentile)."""
        return self._most(2)

    def behind(self) -> tuple[str, str] | None:
        """Why this worker takes no new game now: which check (one of metrics.BUSY)
        and what it saw; or None."""
        lag_ms, max_holds, max_streams, max_waiting = self.limits
        if lag_ms and self.lag_ms() > lag_ms:
            return "lag", f"event loop {self.lag_ms():.0f} ms late"
        if max_waiting and self.waiting() >= max_waiting:
            return "queue", f"{self.waiting():.0f} connections waiting to be accepted"
        if max_holds and self.holds >= max_holds:
            return "holds", f"{self.holds} holds"
        if max_streams and self.streams >= max_streams:
            return "streams", f"{self.streams} streams"
        return None

    def take(self, kind: str, address: str):
        """One of ``address``'s holds or streams ("holds", "streams") on this worker: a
        function that gives it back (call it once, when the connection ends), or None
        when the address already has its share of the worker's cap on them."""
        cap = self.limits[1] if kind == "holds" else self.limits[2]
        taken = self._taken[kind]
        if cap and taken[address] >= max(ADDRESS_FLOOR, int(cap * ADDRESS_SHARE)):
            return None
        taken[address] += 1
        given: list[bool] = []

        def give_back() -> None:
            if not given:
                given.append(True)
                taken[address] -= 1
                if taken[address] <= 0:
                    del taken[address]
        return give_back

    @contextmanager
    def serving(self, kind: str):
        """Count a hold ("holds") or a stream ("streams") while it lasts."""
        setattr(self, kind, getattr(self, kind) + 1)
        metrics.OPEN[kind].inc()
        try:
            yield
        finally:
            setattr(self, kind, getattr(self, kind) - 1)
            metrics.OPEN[kind].dec()


def init(app, busy_page: Callable[..., ResponseReturnValue]) -> Capacity:
    """This worker's Capacity, and the door that turns new games away with it;
    ``busy_page(message, **values)`` says so on the page the request came from."""
    cap = Capacity(app.config["OVERLOAD_LAG_MS"], app.config["MAX_HOLDS_PER_WORKER"],
                   app.config["MAX_STREAMS_PER_WORKER"], app.config["OVERLOAD_QUEUE"],
                   metrics.waiting)
    app.extensions["auction_capacity"] = cap
    if app.config["SCHEDULER"]:          # a serving worker, not a test of single requests
        cap.start()
    app.before_request(lambda: _turn_away_new_games(busy_page))
    return cap


def capacity() -> Capacity:
    return current_app.extensions["auction_capacity"]


def _turn_away_new_games(busy_page: Callable[..., ResponseReturnValue]):
    if request.endpoint not in NEW_WORK:
        return None
    busy = capacity().behind()
    if busy is None:
        metrics.NEW_GAMES.labels("let_in").inc()
        return None
    cause, why = busy
    metrics.NEW_GAMES.labels(f"busy_{cause}").inc()
    current_app.logger.warning("turning a new game away: %s", why)
    g.unavailable = "capacity"
    response = current_app.make_response(busy_page(
        N_("the server is full right now; games under way go on. "
           "Try again in %(seconds)s seconds"), seconds=RETRY_AFTER_S))
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return response
