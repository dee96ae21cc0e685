"""One client stalling a worker with long, ever-new Host headers (room pages whose invite
QR it hopes to make the worker draw again and again), while a player holds in another
room on the same worker and a trivial request is timed.

Prints what the flood's own requests got, the trivial request's latency (median and
max) during the flood, and how the holder's hold ended. Serves the checkout given by
``--root`` (default: this one), so the same run can be made against an older commit.

    .venv/bin/python bench/host_flood.py [--seconds 10] [--rate 3] [--length 2300] [--root DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from client import Player  # noqa: E402
from harness import ROOT, AppServer, RedisServer  # noqa: E402


def flood(url: str, code: str, seconds: float, rate: float, length: int, out: list) -> None:
    end, n = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        # Labels of at most 63 characters: a well-formed name, only far too long.
        host = (f"h{n:06d}." + "a" * 60 + ".") * (length // 69) + "example"
        try:
            out.append(requests.get(f"{url}/r/{code}", headers={"Host": host,
                                                                 "Accept": "text/html"},
                                    timeout=10).status_code)
        except requests.RequestException as exc:
            out.append(type(exc).__name__)
        n += 1
        time.sleep(max(0.0, 1 / rate - 0.001))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rate", type=float, default=3, help="flood requests a second")
    parser.add_argument("--length", type=int, default=2300, help="characters of each Host")
    parser.add_argument("--root", default=str(ROOT), help="the checkout to serve")
    args = parser.parse_args()
    redis = RedisServer()
    server = AppServer(redis.url, root=Path(args.root))
    try:
        target = Player(server.url)
        code = target.create("Host", "stake")
        holder, other = Player(server.url), Player(server.url)
        play = other.create("Other", "stake")
        holder.join(play, "Holder")
        other.post(f"/r/{play}/settings", {"ready_ms": 2000, "free_ms": 0,
                                           "bank_ms": 600_000})
        other.post(f"/r/{play}/start")
        holder.code = play
        time.sleep(0.5)
        hold = holder.press()
        statuses: list = []
        thread = threading.Thread(target=flood, args=(server.url, code, args.seconds,
                                                      args.rate, args.length, statuses))
        thread.start()
        waits = []
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            start = time.monotonic()
            requests.get(f"{server.url}/offline", timeout=10)
            waits.append((time.monotonic() - start) * 1000)
            time.sleep(0.05)
        thread.join()
        ended = hold.next_message(timeout=0.5, after=None) if hold.closed.is_set() else None
        still = not hold.closed.is_set()
        hold.release()
        print(f"served: {args.root}")
        print(f"flood: {len(statuses)} room pages with a new {args.length}-character Host, "
              f"answers {sorted(set(map(str, statuses)))}")
        print(f"trivial request during the flood: median {statistics.median(waits):.0f} ms, "
              f"max {max(waits):.0f} ms ({len(waits)} requests)")
        print(f"a hold in another room on the worker: {'still held' if still else ended}")
    finally:
        for player in list(__import__("client").OPEN):
            player.stop()
        server.stop()
        redis.stop()


if __name__ == "__main__":
    main()
