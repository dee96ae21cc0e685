"""Fairness over slow links: what a hold is charged versus what the player held.

    python bench/fairness.py                          # the table of docs/fairness.md
    python bench/fairness.py --rounds 8 --seats 2     # a quick look

Real servers (one with compensation, one started with HOLD_COMP_CAP_MS=0), a
private Redis, and every device behind its own delaying proxy
(tests/proxy.py) so its view stream and its hold socket cross the link. Each
device presses during the countdown it sees and lets go H ms after its own
screen showed spending start, H uniform in 300-800 ms, every round; the
error of a hold is (charged bid - the hold the client actually made).

Devices sit two to a room, both on the same kind of link; every kind of
link plays at once, on each server, in its own process (so neither side's
client threads slow the other's). Jitter J means the round trip varies
within +-J (+-J/2 each way, uniform); ``--per-direction`` applies +-J to
each direction instead.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import threading
import time
from multiprocessing import get_context

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

RTTS = (10, 50, 150, 300, 600)
JITTERS = (0, 30)
# Stake: no free window. Banks shown, so bids are sent to the millisecond (a
# hidden bank sends them to the tenth the page shows).
SETTINGS = {"ready_ms": 2000, "result_ms": 2000, "reveal": "all_bids", "own_bank": "shown"}


def _reached(rnd: int, phases: tuple):
    """A view test: round ``rnd`` is in one of ``phases``, or a later round began."""
    return lambda v: v["round"] > rnd or (v["round"] == rnd and v["phase"] in phases)


def _play_seat(player, rounds: int, rng: random.Random, out: list, skipped: list) -> None:
    """Every round: press 1.3-1.7 s before this screen's go (early enough that even
    a 600 ms link's handshake lands before go, so every press counts on both
    servers), then let go H after this screen showed spending."""
    from client import Hold

    for rnd in range(1, rounds + 1):
        countdown = lambda v, r=rnd: v["round"] == r and v["phase"] == "countdown"  # noqa: E731
        player.wait_view(_reached(rnd, ("countdown", "spending", "result", "ended")), timeout=60)
        try:
            view = next(v for v in player.views if countdown(v))
            go = player.view_arrival(countdown) + view["deadline_ms"] / 1000
        except (StopIteration, LookupError):
            skipped.append("no countdown")
            continue
        time.sleep(max(0.0, go - rng.uniform(1.3, 1.7) - time.monotonic()))
        hold = Hold(player.open_hold())
        if not hold.accepted:
            skipped.append(str(hold.first))
            hold.release()
            continue
        intended = rng.uniform(300, 800)
        spending = lambda v, r=rnd: v["round"] == r and v["phase"] == "spending"  # noqa: E731
        player.wait_view(_reached(rnd, ("spending", "result", "ended")), timeout=60)
        try:
            seen = player.view_arrival(spending)
        except LookupError:
            skipped.append("no spending")
            hold.release()
            continue
        time.sleep(max(0.0, seen + intended / 1000 - time.monotonic()))
        let_go = time.monotonic()
        hold.release()
        out.append((rnd, (let_go - seen) * 1000))


def run_server(job: tuple) -> list[tuple[int, int, float]]:
    """One server's share: every link kind, ``seats`` devices each; returns
    (rtt, jitter, error ms) per hold."""
    from client import Player
    from harness import AppServer
    from proxy import Proxy, Way

    redis_url, cap, seats, rounds, per_direction, seed = job
    # Hand the GIL over within 1 ms, not 5: the proxies' loop thread must
    # forward on time while the devices' threads parse views.
    sys.setswitchinterval(0.001)
    server = AppServer(redis_url, env={"HOLD_COMP_CAP_MS": str(cap)})
    rng = random.Random(seed)
    devices, proxies, threads, results, skipped = [], [], [], [], []
    try:
        for rtt in RTTS:
            for jitter in JITTERS:
                for pair in range(seats // 2):
                    room = []
                    for _ in range(2):
                        way = Way(rtt / 2, jitter if per_direction else jitter / 2)
                        proxy = Proxy(server.port, way, way, seed=rng.randrange(1 << 30))
                        proxies.append(proxy)
                        room.append(Player(proxy.url))
                    code = room[0].create("A", "stake")
                    room[1].join(code, "B")
                    room[0].post(f"/r/{code}/settings", {**SETTINGS, "rounds": rounds})
                    for player in room:
                        player.follow()
                        out: list = []
                        devices.append((rtt, jitter, player, out))
        for _, _, player, out in devices:
            player.wait_view(lambda v: v["phase"] == "lobby")
        for rtt, jitter, player, out in devices:
            t = threading.Thread(target=_play_seat,
                                 args=(player, rounds, random.Random(rng.random()), out, skipped),
                                 daemon=True)
            t.start()
            threads.append(t)
        for _, _, player, _ in devices[::2]:
            player.post(f"/r/{player.code}/start")
        for t in threads:
            t.join(rounds * 15 + 60)
        for rtt, jitter, player, out in devices:
            end = player.wait_view(lambda v: v["phase"] == "ended", timeout=60)
            me = end["me"]["id"]
            charged = {row["round"]: row["bids"][me] for row in end["final"]["bids"]}
            for rnd, held in out:
                if charged.get(rnd) is None:
                    skipped.append("no bid")
                else:
                    results.append((rtt, jitter, charged[rnd] - held))
    finally:
        for _, _, player, _ in devices:
            player.stop()
        for proxy in proxies:
            proxy.close()
        server.stop()
    if skipped:
        print(f"cap {cap}: {len(skipped)} holds skipped: {sorted(set(skipped))}", file=sys.stderr)
    return results


def summary(errors: list[float]) -> tuple[int, float, float]:
    """(holds, mean error, 95th percentile of the absolute error)."""
    if not errors:
        return 0, float("nan"), float("nan")
    absolute = sorted(abs(e) for e in errors)
    p95 = absolute[min(len(absolute) - 1, int(0.95 * len(absolute)))]
    return len(errors), statistics.fmean(errors), p95


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seats", type=int, default=4, help="devices per kind of link (even)")
    ap.add_argument("--rounds", type=int, default=26, help="rounds per game (at most 30)")
    ap.add_argument("--cap", type=int, default=300,
                    help="HOLD_COMP_CAP_MS of the compensated server")
    ap.add_argument("--per-direction", action="store_true",
                    help="jitter J on each direction (the round trip then varies by +-2J)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    from harness import RedisServer

    started = time.monotonic()
    redis = RedisServer()
    try:
        jobs = [(redis.url, cap, args.seats, args.rounds, args.per_direction, args.seed + i)
                for i, cap in enumerate((args.cap, 0))]
        with get_context("spawn").Pool(len(jobs)) as pool:
            on, off = pool.map(run_server, jobs)
    finally:
        redis.stop()

    jitter_kind = "each direction" if args.per_direction else "the round trip"
    print(f"error = charged bid - hold made (ms); p95 of |error|; jitter on {jitter_kind}; "
          f"cap {args.cap} ms")
    print("| RTT ms | jitter ms | holds on/off | comp on: mean | comp on: p95 "
          "| comp off: mean | comp off: p95 |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for rtt in RTTS:
        for jitter in JITTERS:
            n1, m1, p1 = summary([e for r, j, e in on if (r, j) == (rtt, jitter)])
            n0, m0, p0 = summary([e for r, j, e in off if (r, j) == (rtt, jitter)])
            print(f"| {rtt} | ±{jitter} | {n1}/{n0} | {m1:+.1f} | {p1:.0f} "
                  f"| {m0:+.1f} | {p0:.0f} |")
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
