"""The game clock follows the store's: measured at start and again every RESYNC_S."""

from __future__ import annotations

import time

from auction.server.clock import Clock


class MovingStore:
    """A store clock that runs ``ahead_ms`` ahead of this machine's wall clock."""

    def __init__(self):
        self.ahead_ms = 0
        self.away = False

    def time(self) -> tuple[int, int]:
        if self.away:
            raise ConnectionError("the store is away")
        us = int(time.time() * 1_000_000) + self.ahead_ms * 1000
        return us // 1_000_000, us % 1_000_000


def test_offset_is_measured_again_when_due_and_kept_while_the_store_is_away():
    store = MovingStore()
    clock = Clock(store.time)
    start = clock.now_ms()
    assert abs(start - time.time() * 1000) < 5
    store.ahead_ms = 700           # NTP stepped the store's machine, or a failover
    assert not clock.resync_if_due()            # not due yet
    assert abs(clock.now_ms() - time.time() * 1000) < 5
    clock.RESYNC_S = 0.0
    assert clock.resync_if_due()
    assert abs(clock.now_ms() - (time.time() * 1000 + 700)) < 5
    store.away, store.ahead_ms = True, 5_000
    assert not clock.resync_if_due()            # keeps the last good offset
    assert abs(clock.now_ms() - (time.time() * 1000 + 700)) < 5


def test_the_timer_loop_keeps_the_clock_measured(app):
    """With the scheduler running, the worker's clock is measured again on its own."""
    svc = app.extensions["auction"]
    svc._clock.RESYNC_S = 0.05
    first = svc._clock.synced_at
    svc.start()
    try:
        deadline = time.monotonic() + 5
        while svc._clock.synced_at == first and time.monotonic() < deadline:
            time.sleep(0.05)
        assert svc._clock.synced_at > first
    finally:
        svc.stop()
