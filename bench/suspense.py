"""What a stream timer learns of the top bid from the end of a round, suspense off and on.

The long run of ``tests/web/live/test_suspense.py``: rooms play at once on one server (python
app.py, loopback), each with a holder whose bids are drawn at random (1.5-3.5 s, past the
entry grace) and an observer who sits out and times its own JSON view stream from
spending to the result. The true bids come from the final view. Prints the error of
the timer's estimate (and of its best guess with suspense: minus the mean pause).

    .venv/bin/python bench/suspense.py [--rooms 4] [--rounds 8] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path[:0] = [str(TESTS), str(TESTS / "web" / "live")]   # the helpers, and test_suspense

from harness import AppServer, RedisServer  # noqa: E402
from test_suspense import (  # noqa: E402
    ALPHA, PAUSE_MAX_MS, dkw_bound, errors, figures, ks_distance, play_room, report)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=4, help="rooms of each kind (off, on)")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1, help="for the holders' bids")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    bids = [[rng.randrange(1_500, 3_500, 10) for _ in range(args.rounds)]
            for _ in range(2 * args.rooms)]
    redis = RedisServer()
    server = AppServer(redis.url)
    try:
        with ThreadPoolExecutor(2 * args.rooms) as pool:
            off = [pool.submit(play_room, server.url, b) for b in bids[:args.rooms]]
            on = [pool.submit(play_room, server.url, b, "on") for b in bids[args.rooms:]]
            rooms_off, rooms_on = [f.result() for f in off], [f.result() for f in on]
    finally:
        server.stop()
        redis.stop()
    err_off, err_on = errors(rooms_off), errors(rooms_on)
    fig = figures(err_off, err_on)
    print(f"{args.rooms} rooms x {args.rounds} rounds each way, bids 1.5-3.5 s, "
          f"pause 0-{PAUSE_MAX_MS} ms")
    print(report(fig))
    on = fig["on_raw"]
    print(f"suspense on, calibrated error: median {statistics.median(on):.0f} ms, "
          f"range {min(on):.0f} to {max(on):.0f} ms")
    for name, xs in (("off", fig["off"]), ("on", on)):
        print(f"KS distance from uniform 0-{PAUSE_MAX_MS} ms, suspense {name}: "
              f"{ks_distance(xs, PAUSE_MAX_MS):.3f} (DKW bound at p={ALPHA}: "
              f"{dkw_bound(len(xs), ALPHA):.3f})")
    close = sum(abs(e) <= 100 for e in on)
    print(f"suspense on, estimates within 100 ms of the top bid: {close} of {len(on)} "
          f"(a uniform pause puts {100 / PAUSE_MAX_MS:.1%} there; off: "
          f"{sum(e <= 100 for e in fig['off'])} of {len(fig['off'])})")


if __name__ == "__main__":
    main()
