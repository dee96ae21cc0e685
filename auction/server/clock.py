"""The game clock: the store's time (Redis ``TIME``) in integer milliseconds.

Every worker, on every machine, must agree on when a hold began and ended,
so game times come from one clock: Redis's. Asking Redis on every event
would add a round trip to each timestamp, so each worker measures how its
own monotonic clock maps onto Redis's (keeping the sample with the shortest
round trip, whose midpoint is the most precise) and then reads the
monotonic clock locally.

The mapping drifts: Redis's clock is the wall clock of its machine, which
NTP slews, and after a failover it is another machine's. So the timer loop
measures it again every ``RESYNC_S``; a measurement that fails (Redis away)
keeps the last good offset.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class Clock:
    """Local monotonic time mapped onto the store's clock."""

    SAMPLES = 15
    RESYNC_S = 30.0
    # A shift larger than this between two measurements is worth a log line.
    NOTABLE_SHIFT_MS = 5.0

    def __init__(self, store_time: Callable[[], tuple[int, int]]) -> None:
        """``store_time()`` -> (seconds, microseconds): the store's TIME."""
        self._time = store_time
        self.offset_ms = 0.0
        self.uncertainty_ms = 0.0
        self.synced_at: float | None = None
        self.sync()

    def sync(self) -> None:
        """Measure the offset from a few round trips; keep the tightest one."""
        samples = []
        for _ in range(self.SAMPLES):
            before = time.monotonic()
            seconds, micros = self._time()
            after = time.monotonic()
            server_ms = seconds * 1000 + micros / 1000
            samples.append((after - before, server_ms - (before + after) / 2 * 1000))
        best = min(samples, key=lambda sample: sample[0])    # the first of the tightest
        shift = best[1] - self.offset_ms
        if self.synced_at is not None and abs(shift) > self.NOTABLE_SHIFT_MS:
            log.warning("the store's clock moved %.1f ms against this worker's", shift)
        self.uncertainty_ms = best[0] * 1000 / 2
        self.offset_ms = best[1]
        self.synced_at = time.monotonic()

    def resync_if_due(self) -> bool:
        """Measure again if the last measurement is older than RESYNC_S; True if done."""
        if self.synced_at is not None and time.monotonic() - self.synced_at < self.RESYNC_S:
            return False
        try:
            self.sync()
        except Exception as exc:   # Redis away: keep the last offset, try again later
            self.synced_at = time.monotonic() - self.RESYNC_S + 1.0
            log.warning("could not measure the store's clock: %s", exc)
            return False
        return True

    def now_ms(self) -> int:
        """The store's time now, in integer ms."""
        return int(time.monotonic() * 1000 + self.offset_ms)
