"""The game clock: the store's time (Redis ``TIME``) in integer milliseconds.

Every worker, on every machine, must agree on when a hold began and ended,
so game times come from one clock: Redis's. Asking Redis on every event
would add a round trip to each timestamp, so each worker measures once how
its own monotonic clock maps onto Redis's (keeping the sample with the
shortest round trip, whose midpoint is the most precise) and then reads the
monotonic clock locally.
"""

from __future__ import annotations

import time


class Clock:
    """Local monotonic time mapped onto the store's clock."""

    SAMPLES = 15

    def __init__(self, redis):
        self._redis = redis
        self.offset_ms = 0.0
        self.uncertainty_ms = 0.0
        self.sync()

    def sync(self) -> None:
        """Measure the offset from a few round trips; keep the tightest one."""
        best = None
        for _ in range(self.SAMPLES):
            before = time.monotonic()
            seconds, micros = self._redis.time()
            after = time.monotonic()
            rtt = after - before
            if best is None or rtt < best[0]:
                server_ms = seconds * 1000 + micros / 1000
                best = (rtt, server_ms - (before + after) / 2 * 1000)
        self.uncertainty_ms = best[0] * 1000 / 2
        self.offset_ms = best[1]

    def now_ms(self) -> int:
        """The store's time now, in integer ms."""
        return int(time.monotonic() * 1000 + self.offset_ms)
