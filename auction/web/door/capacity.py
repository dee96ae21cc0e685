"""This worker's load, and whether it takes on new games.

Past capacity every game on a worker would slow down together: pongs read
late look like lost phones, releases stamped late cost the wrong time. So a
worker that is behind turns *new* rooms and joins away (503 with
Retry-After) and keeps its running games on time. It measures itself: how
late its event loop wakes (a greenlet that sleeps 50 ms and times the
oversleep; what most of the last second saw counts, so one garbage
collection or one big page does not turn games away), and how many holds and
streams it serves. The figures that mark "behind" are configuration
(OVERLOAD_LAG_MS, MAX_HOLDS_PER_WORKER, MAX_STREAMS_PER_WORKER; 0 turns a
check off), set from what bench/load.py measured (docs/scaling.md).

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
from contextlib import contextmanager

from flask import current_app, g, request

from ..operations import metrics
from ..respond import error
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

    def __init__(self, lag_ms: float, max_holds: int, max_streams: int):
        self.limits = (lag_ms, max_holds, max_streams)
        self.holds = 0
        self.streams = 0
        self._taken: dict[str, Counter[str]] = {"holds": Counter(), "streams": Counter()}
        self._lags: deque[tuple[float, float]] = deque()
        self._counts_from = float("-inf")     # lags measured before this are start-up
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None and self.limits[0]:
            self._thread = threading.Thread(target=self._watch, name="capacity", daemon=True)
            self._thread.start()

    def _watch(self) -> None:
        self._counts_from = time.monotonic() + WARMUP_S
        while True:
            before = time.monotonic()
            time.sleep(TICK_S)
            now = time.monotonic()
            self._lags.append((now, (now - before - TICK_S) * 1000))
            while self._lags and self._lags[0][0] < now - WINDOW_S:
                self._lags.popleft()
            metrics.LOOP_LAG.set(self.lag_ms() / 1000)

    def lag_ms(self) -> float:
        """How late the event loop woke in the last second: the 80th percentile
        (0 while the worker warms up)."""
        lags = sorted(lag for at, lag in list(self._lags) if at >= self._counts_from)
        return lags[int(len(lags) * 0.8)] if lags else 0.0

    def behind(self) -> str | None:
        """Why this worker takes no new game now, or None."""
        lag_ms, max_holds, max_streams = self.limits
        if lag_ms and self.lag_ms() > lag_ms:
            return f"event loop {self.lag_ms():.0f} ms late"
        if max_holds and self.holds >= max_holds:
            return f"{self.holds} holds"
        if max_streams and self.streams >= max_streams:
            return f"{self.streams} streams"
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


def init(app) -> Capacity:
    cap = Capacity(app.config["OVERLOAD_LAG_MS"], app.config["MAX_HOLDS_PER_WORKER"],
                   app.config["MAX_STREAMS_PER_WORKER"])
    app.extensions["auction_capacity"] = cap
    if app.config["SCHEDULER"]:          # a serving worker, not a test of single requests
        cap.start()
    app.before_request(_turn_away_new_games)
    return cap


def capacity() -> Capacity:
    return current_app.extensions["auction_capacity"]


def _turn_away_new_games():
    if request.endpoint not in NEW_WORK:
        return None
    reason = capacity().behind()
    if reason is None:
        return None
    current_app.logger.warning("turning a new game away: %s", reason)
    g.unavailable = "capacity"
    response = current_app.make_response(
        error(503, N_("the server is full right now; games under way go on. "
                      "Try again in a moment")))
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return response
