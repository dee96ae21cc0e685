"""Timing error of the charged bid against the hold the client made, on loopback.

Plays many rounds in several rooms at once through the public protocol (JSON
view stream + hold socket); each player lets go a random time after its own
stream showed spending start, and the charged bid (milliseconds, margin mode)
is compared with the hold the client measured. Runs on one gevent process and
on gunicorn -k gevent -w 2 (players of a room spread over the workers).
Then it holds until 30 s banks run dry and reports how long after that moment
the client was told ``released`` (the moment as its own stream showed spending).

    .venv/bin/python bench/timing.py [--rooms 10] [--rounds 11] [--run-outs 10]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from client import Player  # noqa: E402
from harness import AppServer, RedisServer  # noqa: E402

SETTINGS = {"ready_ms": 2000, "result_ms": 2000, "tie": "margin", "bank_ms": 600_000}


def play_room(url: str, rounds: int, seed: int, errors: list, lock: threading.Lock) -> None:
    """Two players, ``rounds`` rounds; appends (charged - held) of every hold to ``errors``."""
    rng = random.Random(seed)
    players = [Player(url), Player(url)]
    code = players[0].create("Ann", "stake")
    players[1].join(code, "Bob")
    players[0].post(f"/r/{code}/settings", {**SETTINGS, "rounds": rounds})
    for p in players:
        p.follow()
    players[0].post(f"/r/{code}/start")
    held: dict = {}

    def turn(rnd: int, i: int) -> None:
        player, target = players[i], rng.randint(300, 1500)
        player.wait_view(lambda v: v["round"] == rnd and v["phase"] == "countdown")
        hold = player.press()
        player.wait_view(lambda v: v["round"] == rnd and v["phase"] in ("spending", "result"))
        seen = player.view_arrival(lambda v: v["round"] == rnd and v["phase"] == "spending")
        time.sleep(max(0.0, seen + target / 1000 - time.monotonic()))
        let_go = time.monotonic()
        hold.release()
        held[(rnd, player)] = (let_go - seen) * 1000

    for rnd in range(1, rounds + 1):
        threads = [threading.Thread(target=turn, args=(rnd, i)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    ends = [p.wait_view(lambda v: v["phase"] == "ended", timeout=120) for p in players]
    table = {row["round"]: row["bids"] for row in ends[0]["final"]["bids"]}
    with lock:
        for (rnd, player), ms in held.items():
            pid = ends[players.index(player)]["me"]["id"]
            errors.append(table[rnd][pid] - ms)
    for p in players:
        p.stop()


def measure(url: str, rooms: int, rounds: int) -> list[float]:
    errors: list = []
    lock = threading.Lock()
    threads = [threading.Thread(target=play_room, args=(url, rounds, seed, errors, lock))
               for seed in range(rooms)]
    for t in threads:
        t.start()
        time.sleep(0.37)   # spread the rooms' rounds over time
    for t in threads:
        t.join()
    return errors


def run_out(url: str, seed: int, lateness: list, lock: threading.Lock) -> None:
    """Hold until a 30 s bank runs out; append how late the client was told (ms),
    against the moment its bank ran out as its own stream showed spending start."""
    ann, bob = Player(url), Player(url)
    code = ann.create("Ann", "stake")
    bob.join(code, "Bob")
    ann.post(f"/r/{code}/settings", {**SETTINGS, "bank_ms": 30_000, "rounds": 1})
    ann.follow()
    ann.post(f"/r/{code}/start")
    ann.wait_view(lambda v: v["phase"] == "countdown")
    hold, other = ann.press(), bob.press()
    ann.wait_view(lambda v: v["phase"] == "spending")
    seen = ann.view_arrival(lambda v: v["phase"] == "spending")
    other.release()
    message = hold.next_message(timeout=40)
    told = time.monotonic()
    assert message == {"type": "released", "reason": "bank_empty"}, message
    with lock:
        lateness.append((told - seen) * 1000 - 30_000)
    ann.stop()
    bob.stop()


def measure_run_out(url: str, rooms: int) -> list[float]:
    lateness: list = []
    lock = threading.Lock()
    threads = [threading.Thread(target=run_out, args=(url, seed, lateness, lock))
               for seed in range(rooms)]
    for t in threads:
        t.start()
        time.sleep(0.13)
    for t in threads:
        t.join()
    return lateness


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--run-outs", type=int, default=10,
                        help="holds that run their bank dry (30 s each, in parallel)")
    args = parser.parse_args()
    redis = RedisServer()
    results = []
    print(f"{'server':<24}{'holds':>7}{'p50 ms':>9}{'p99 ms':>9}{'max |err|':>11}{'mean':>8}")
    try:
        for label, workers in (("python app.py", 0), ("gunicorn -k gevent -w 2", 2)):
            server = AppServer(redis.url, workers=workers)
            try:
                errors = measure(server.url, args.rooms, args.rounds)
                late = measure_run_out(server.url, args.run_outs) if args.run_outs else []
            finally:
                server.stop()
            results.append((label, late))
            absolute = [abs(e) for e in errors]
            print(f"{label:<24}{len(errors):>7}{pct(absolute, 0.5):>9.1f}{pct(absolute, 0.99):>9.1f}"
                  f"{max(absolute):>11.1f}{statistics.mean(errors):>8.1f}", flush=True)
    finally:
        redis.stop()
    print("error = charged bid - hold measured by the client, from its spending view to its"
          " release; p50/p99/max of |error|")
    for label, late in results:
        if late:
            print(f"{label}: bank ran out -> client told 'released' after "
                  f"p50 {pct(late, 0.5):.1f} ms, max {max(late):.1f} ms ({len(late)} holds)")


if __name__ == "__main__":
    main()
